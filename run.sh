#!/usr/bin/env bash
# The page, on http://localhost:8501: makes .venv with requirements.txt on first use (or uses the active
# environment), then `streamlit run main.py` (the page, app.py, and the live class's routes, server/live.py); extra
# arguments go to streamlit (e.g. --server.port 8600).
# It never waits for input: .streamlit/config.toml turns off Streamlit's first-run prompt for an email address
# (server.showEmailPrompt), and on a desktop Streamlit still opens the browser (xdg-open on Linux, open on macOS).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/python-env.sh
python_env requirements.txt 'about 30 s'  # as timed on a fresh Debian 12, the venv made too
# the system tools the exports run on the server (docs/exports.md): said in a line each when missing, never fatal
command -v dot >/dev/null || echo "Graphviz's dot is not installed: the whole-pass exports (GIF, PDF, PowerPoint, ZIP) need it on the server; a frame's SVG and PNG work without it. apt-get install graphviz / brew install graphviz." >&2
command -v rsvg-convert >/dev/null || echo "librsvg's rsvg-convert is not installed: the PDF and the PowerPoint need it on the server to draw their slides. apt-get install librsvg2-bin / brew install librsvg." >&2
exec "$PY" -m streamlit run main.py "$@"
