#!/usr/bin/env bash
# Set up FinSync Chat on a fresh machine: a virtualenv with the project installed.
#   scripts/setup.sh          the app (Python packages only)
#   scripts/setup.sh test     also what the tests need: the local Elasticsearch node's jars
#                             (Maven Central) and Debian's Chromium for the browser tests
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

if [ "${1:-}" = "test" ]; then
  echo "==> building the local Elasticsearch node (Maven Central)"
  mvn -q -B -Dstyle.color=never -f scripts/es_node/pom.xml package dependency:copy-dependencies \
    -DincludeScope=runtime
  if ! command -v chromium >/dev/null 2>&1; then
    echo "==> installing Debian's Chromium for the browser tests"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-liberation >/dev/null
  fi
fi
echo "==> set-up done"
