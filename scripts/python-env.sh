# Sourced by run.sh and tests/run.sh: sets PY to a Python that has the packages of requirements file $1.
# Inside an activated virtualenv or conda environment, that environment; otherwise .venv here, made on first use
# (a stock Debian 12 or Ubuntu 24.04 python3 refuses `pip install` outside one: PEP 668).
python_env() {
  local requirements=$1 root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -n "${VIRTUAL_ENV:-}" ] || [ -n "${CONDA_PREFIX:-}" ]; then
    PY=$(command -v python || command -v python3)
  else
    if [ ! -x "$root/.venv/bin/python" ]; then
      if ! python3 -m venv "$root/.venv"; then
        rm -rf "$root/.venv"
        echo "python3 cannot make a virtual environment here: install python3-venv (apt-get install python3-venv)." >&2
        return 1
      fi
    fi
    PY=$root/.venv/bin/python
  fi
  # Install only when the requirements changed since the last install into this environment.
  local stamp
  stamp="$("$PY" -c 'import sys; print(sys.prefix)')/.backprop-$(basename "$requirements")-$(cat "$root"/requirements*.txt | cksum | cut -d' ' -f1)"
  if [ ! -e "$stamp" ]; then
    "$PY" -m pip install -q --disable-pip-version-check -r "$root/$requirements"
    touch "$stamp" 2>/dev/null || true
  fi
}
