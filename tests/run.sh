#!/usr/bin/env bash
# The one test command: installs what the tests need (Graphviz, Chromium, HAProxy, Redis, Node.js to run the page's
# WebAssembly Graphviz outside the browser and the player's own tests, npm for their eslint and esbuild, and the
# Python packages into .venv,
# or into the active virtualenv or conda environment), then lints and runs every test, the browser tests
# included. They never skip: a missing part fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3 -m venv needs ensurepip, which Debian and Ubuntu ship apart, in python3-venv
no_venv() { [ -z "${VIRTUAL_ENV:-}${CONDA_PREFIX:-}" ] && [ ! -x .venv/bin/python ] && ! python3 -c 'import ensurepip' 2>/dev/null; }
# the exports are opened as people open them: LibreOffice (soffice), a PDF's text (poppler's pdftotext), a QR code
# read back (zbarimg); rsvg-convert draws the slides; haproxy balances two replicas of the page
# (tests/browser/test_replicas.py, and a live class's in tests/app/test_live_replicas.py), from /usr/sbin, which a
# user's PATH on Debian leaves out; redis-server holds a live class's rooms across replicas
# (tests/app/test_rooms_redis.py, test_live_replicas.py)
export PATH="$PATH:/usr/sbin"
tools=(dot node npm soffice pdftotext zbarimg rsvg-convert haproxy redis-server)
missing() { for tool in "${tools[@]}"; do command -v "$tool" >/dev/null || return 0; done; return 1; }
if missing || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || no_venv; then
  if command -v apt-get >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # Node.js from elsewhere (NodeSource's, which carries its own npm) conflicts with Debian's npm: kept as it is
    node=$(command -v node >/dev/null && command -v npm >/dev/null || echo nodejs npm)
    $sudo apt-get install -y -qq --no-install-recommends graphviz chromium $node fonts-dejavu-core python3-venv \
      libreoffice-impress poppler-utils zbar-tools librsvg2-bin haproxy redis-server >/dev/null
  else
    echo "Install Graphviz (dot), Node.js and npm, HAProxy, redis-server and Chromium, and set CHROMIUM to its path if it is not /usr/bin/chromium." >&2
    exit 1
  fi
fi
source scripts/python-env.sh
python_env requirements-dev.txt
"$PY" -m ruff check .
"$PY" -m ruff format --check .
# the player's JavaScript (components/player/): eslint and esbuild pinned in its package-lock.json, then its modules'
# tests under node --test, which also check that the committed bundle, player.js, is a fresh build of src/
(cd components/player && npm ci --no-audit --no-fund --loglevel=error && npx eslint . && node --test test/*.test.js)
# axe-core, which the browser tests inject to check WCAG 2.1 AA (tests/browser/test_browser_access.py), pinned
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
"$PY" -m pytest -p no:cacheprovider "$@"
