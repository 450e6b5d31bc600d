#!/usr/bin/env bash
# Both protocol eras through one bridge build, with clients and servers obsmcp did not write: the official Python SDK
# (mcp 2.x, pinned in requirements.txt beside this script, installed into a cache folder once per pin) and the
# TypeScript SDK v2 (the plugin's own copy).
# - client.py: the Python `Client` in auto mode must settle on 2026-07-28, in legacy mode on `initialize`; each runs one
#   session through `obsmcp bridge --vault` while the plugin host is closed, started, stopped and started again
#   under it, calling every tool and the error paths.
# - upstream.py: the bridge as a 2026 client itself, opening its upstream session by discovery: in front of a
#   dual-era server (server.py, Python SDK) and a 2026-only one (modern-only.mjs, TypeScript SDK v2 with
#   `legacy: "reject"`), each behind `--` (stdio) and `--url` (Streamable HTTP), for a client of either era.
#
# Environment: OBSMCP_BIN (default: build with cargo), OBSMCP_CLIENTS_CACHE (default ~/.cache/obsmcp-client-checks).
# Exit 0 when every check passes, 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${OBSMCP_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/obsmcp-client-checks}/python-sdk"
failures=0

stamp="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "$cache/stamp" || "$(cat "$cache/stamp")" != "$stamp" ]]; then
  echo "== installing the pinned Python SDK into $cache"
  rm -rf "$cache"
  python3 -m venv "$cache"
  timeout 600 "$cache/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$stamp" > "$cache/stamp"
fi

if [[ -z "${OBSMCP_BIN:-}" ]]; then
  (cd "$repo" && cargo build --quiet --bin obsmcp)
  OBSMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/obsmcp"
fi
if [[ ! -d "$repo/obsidian-plugin/node_modules" ]]; then
  (cd "$repo" && npm ci --prefix obsidian-plugin --no-audit --no-fund --loglevel=error)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/obsmcp-eras.XXXXXX")"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home"
mkdir -p "$HOME"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
token="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
fresh_vault() { # NAME: a copy of the fixture vault whose plugin settings name the port and token; prints its path
  local vault="$work/$1"
  cp -r "$repo/obsidian-plugin/test/fixtures/vault" "$vault"
  # A canvas for canvas and edit_canvas, a base for bases.
  cp -r "$repo/obsidian-plugin/test/fixtures/canvas/." "$repo/obsidian-plugin/test/fixtures/bases/." "$vault/"
  mkdir -p "$vault/.obsidian/plugins/obsmcp"
  printf '{"port":%s,"token":"%s","readOnly":false}\n' "$port" "$token" >"$vault/.obsidian/plugins/obsmcp/data.json"
  printf '%s' "$vault"
}

check() { # LABEL COMMAND...
  local label="$1" output
  shift
  if output="$("$@" 2>"$work/stderr")"; then
    printf 'PASS %s: %s\n' "$label" "$output"
  else
    printf 'FAIL %s: %s\n' "$label" "$output"
    sed 's/^/  | /' "$work/stderr" | tail -20
    failures=$((failures + 1))
  fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
python="$cache/bin/python"
host="$repo/obsidian-plugin/test/host.mjs"

for mode in auto legacy; do
  vault="$(fresh_vault "Vault-$mode")"
  check "$mode client, Obsidian closed, open, closed, open" "$python" "$here/client.py" "$mode" "$OBSMCP_BIN" "$vault" "$host" "$port" "$token"
done

# The bridge's own upstream session, with servers that offer 2026-07-28: opened by discovery whichever era the client
# chose. Each server over stdio (`--`), then over Streamable HTTP (`--url`).
servers=("python-sdk-upstream" "$python $here/server.py" "ts-sdk-modern-only" "node $here/modern-only.mjs")
for ((i = 0; i < ${#servers[@]}; i += 2)); do
  name="${servers[i]}"
  read -r -a command <<<"${servers[i + 1]}"
  for mode in auto legacy; do
    check "$mode client, $name behind --" "$python" "$here/upstream.py" "$mode" "$OBSMCP_BIN" "$name" -- "${command[@]}"
  done
  http_port="$(free_port)"
  "${command[@]}" --http "$http_port" >"$work/http.out" 2>&1 &
  http_pid=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && break; sleep 0.1; done
  for mode in auto legacy; do
    check "$mode client, $name over HTTP" "$python" "$here/upstream.py" "$mode" "$OBSMCP_BIN" "$name" --url "http://127.0.0.1:$http_port/mcp"
  done
  kill "$http_pid" 2>/dev/null || true
  wait "$http_pid" 2>/dev/null || true
done

if ((failures)); then echo "$failures check(s) failed"; exit 1; fi
echo "every check passed"
