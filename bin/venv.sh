# Sourced by bin/claim and bin/test: make .venv (Python 3.11) and install the
# project into it when it is missing or pyproject.toml changed since.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.installed-$(sha256sum "$root/pyproject.toml" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    python=""
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
            python="$candidate"
            break
        fi
    done
    if [ -z "$python" ]; then
        echo "Python 3.11 is needed (python3.11 or python3 on PATH)" >&2
        exit 1
    fi
    echo "setting up $venv ..." >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip >&2
    "$venv/bin/pip" install --quiet -e "$root[test]" >&2
    touch "$stamp"
fi
