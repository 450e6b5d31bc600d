#!/usr/bin/env bash
# Lints the GitHub workflows (.github/workflows/*.yml: the release, the real-Obsidian run and ci.yml) with
# actionlint, and their `run:` scripts with shellcheck, both installed from packaging/requirements-ci.txt into a
# virtual environment in the user's cache folder. The environment is made again whenever that file changes. Exit
# status: actionlint's, non-zero on any finding.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/packaging/requirements-ci.txt"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/obsmcp-actionlint"

# The copy of the requirements inside the environment says what it was made from.
if ! cmp -s "$requirements" "$venv/requirements-ci.txt" || [[ ! -x "$venv/bin/actionlint" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --requirement "$requirements"
    cp "$requirements" "$venv/requirements-ci.txt"
fi

cd "$root"
shopt -s nullglob
workflows=(.github/workflows/*.yml)
if ((${#workflows[@]} == 0)); then
    echo "actionlint.sh: no workflow in .github/workflows/ to lint" >&2
    exit 1
fi
# The workflows that cannot run here are checked only by this lint (and by their node tests): one gone missing
# would otherwise pass unnoticed.
for required in .github/workflows/release.yml .github/workflows/real-obsidian.yml .github/workflows/ci.yml; do
    if [[ ! -f "$required" ]]; then
        echo "actionlint.sh: $required is missing" >&2
        exit 1
    fi
done
# Found on PATH by actionlint: the shellcheck of the same environment, not whichever one this machine has.
PATH="$venv/bin:$PATH" "$venv/bin/actionlint" "${workflows[@]}"
echo "actionlint: ${#workflows[@]} workflow(s) clean"
