#!/usr/bin/env bash
# The page, on http://localhost:8501: makes .venv with requirements.txt on first use (or uses the active
# environment), then `streamlit run app.py`; extra arguments go to streamlit (e.g. --server.port 8600).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/python-env.sh
python_env requirements.txt
command -v dot >/dev/null || echo "Graphviz's dot is not installed: the page falls back to laying out the graph in the browser at every step (slower). apt-get install graphviz / brew install graphviz." >&2
exec "$PY" -m streamlit run app.py "$@"
