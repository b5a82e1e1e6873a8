#!/usr/bin/env bash
# The one test command: installs what the tests need (Graphviz, Chromium, Python packages), then
# lints and runs every test, the browser tests included. They never skip: a missing part fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v dot >/dev/null || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  if command -v apt-get >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends graphviz chromium fonts-dejavu-core >/dev/null
  else
    echo "Install Graphviz (dot) and Chromium, and set CHROMIUM to its path if it is not /usr/bin/chromium." >&2
    exit 1
  fi
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python3 -m ruff check .
python3 -m ruff format --check .
python3 -m pytest -p no:cacheprovider "$@"
