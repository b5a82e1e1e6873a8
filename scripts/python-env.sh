# Sourced by run.sh and tests/run.sh: sets PY to a Python that has the packages of requirements file $1 (a file here).
# Inside an activated virtualenv or conda environment, that environment; otherwise .venv here, made on first use
# (a stock Debian 12 or Ubuntu 24.04 python3 refuses `pip install` outside one: PEP 668).
# Before it makes .venv or installs, and only then, it says so in one line on stderr, with how long that takes ($2, if
# given: 'about 30 s'), so that a first run is never silent.
python_env() {
  local requirements=$1 took=${2:-} root why='first run' where=.venv
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -n "${VIRTUAL_ENV:-}" ] || [ -n "${CONDA_PREFIX:-}" ]; then
    PY=$(command -v python || command -v python3)
  else
    if [ ! -x "$root/.venv/bin/python" ]; then
      echo "first run: installing the packages of $requirements into a new .venv${took:+, $took}" >&2
      why=''
      if ! python3 -m venv "$root/.venv"; then
        rm -rf "$root/.venv"
        echo "python3 cannot make a virtual environment here: install python3-venv (apt-get install python3-venv)." >&2
        return 1
      fi
    fi
    PY=$root/.venv/bin/python
  fi
  # Install only when the requirements changed since the last install into this environment.
  local prefix stamp
  prefix=$("$PY" -c 'import sys; print(sys.prefix)')
  stamp="$prefix/.backprop-$requirements-$(cat "$root"/requirements*.txt | cksum | cut -d' ' -f1)"
  if [ ! -e "$stamp" ]; then
    if [ -n "$why" ]; then
      compgen -G "$prefix/.backprop-$requirements-*" >/dev/null && why='requirements changed'
      [ "$PY" = "$root/.venv/bin/python" ] || where=$prefix
      echo "$why: installing the packages of $requirements into $where${took:+, $took}" >&2
    fi
    "$PY" -m pip install -q --disable-pip-version-check -r "$root/$requirements"
    touch "$stamp" 2>/dev/null || true
  fi
}
