#!/usr/bin/env bash
# Both protocol eras through one bridge build, with a client obsmcp did not write: the official Python SDK (mcp 2.x,
# pinned in requirements.txt beside this script, installed into a cache folder once per pin). Its `Client` in auto
# mode probes `server/discover` and must settle on 2026-07-28; in legacy mode it must use `initialize`. Each runs
# with Obsidian closed (reads from disk) and with the plugin host serving the vault (reads from the plugin). Then the
# bridge as a 2026 client itself: `obsmcp bridge -- python server.py` (a server on the same SDK) and `obsmcp bridge
# --url` to it over Streamable HTTP must open their upstream sessions by discovery, in 2026-07-28.
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
host_pid=""
cleanup() {
  if [[ -n "$host_pid" ]]; then kill "$host_pid" 2>/dev/null || true; wait "$host_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home"
mkdir -p "$HOME"
vault="$work/Vault"
cp -r "$repo/obsidian-plugin/test/fixtures/vault" "$vault"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
token="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
mkdir -p "$vault/.obsidian/plugins/obsmcp"
printf '{"port":%s,"token":"%s","readOnly":false}\n' "$port" "$token" > "$vault/.obsidian/plugins/obsmcp/data.json"

run() { # MODE SOURCE
  local output
  if output="$("$cache/bin/python" "$here/client.py" "$1" "$OBSMCP_BIN" "$vault" "$2" 2>"$work/stderr")"; then
    printf 'PASS %s client, Obsidian %s: %s\n' "$1" "$([[ $2 == disk ]] && echo closed || echo open)" "$output"
  else
    printf 'FAIL %s client, source %s: %s\n' "$1" "$2" "$output"
    sed 's/^/  | /' "$work/stderr" | tail -20
    failures=$((failures + 1))
  fi
}

run auto disk
run legacy disk
node "$repo/obsidian-plugin/test/host.mjs" --vault "$vault" --port "$port" --token "$token" >"$work/host.out" 2>"$work/host.err" &
host_pid=$!
for _ in $(seq 1 100); do grep -q "listening on $port" "$work/host.out" 2>/dev/null && break; sleep 0.1; done
grep -q "listening on $port" "$work/host.out" || { echo "FAIL the plugin host did not start"; cat "$work/host.err"; exit 1; }
run auto plugin
run legacy plugin

# The bridge's own upstream session, with a 2026-capable server (server.py, on the same SDK) behind `--`: opened by
# discovery in 2026-07-28 whichever era the client chose.
for mode in auto legacy; do
  if output="$("$cache/bin/python" "$here/upstream.py" "$mode" "$OBSMCP_BIN" "$cache/bin/python" 2>"$work/stderr")"; then
    printf 'PASS %s client, 2026 upstream behind --: %s\n' "$mode" "$output"
  else
    printf 'FAIL %s client, 2026 upstream behind --: %s\n' "$mode" "$output"
    sed 's/^/  | /' "$work/stderr" | tail -20
    failures=$((failures + 1))
  fi
done

# The same server over Streamable HTTP (`--url`): discovered, then served statelessly over HTTP.
http_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$cache/bin/python" "$here/server.py" --http "$http_port" >"$work/http.out" 2>&1 &
http_pid=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && break; sleep 0.1; done
for mode in auto legacy; do
  if output="$("$cache/bin/python" "$here/upstream.py" "$mode" "$OBSMCP_BIN" "$cache/bin/python" "http://127.0.0.1:$http_port/mcp" 2>"$work/stderr")"; then
    printf 'PASS %s client, 2026 upstream over HTTP: %s\n' "$mode" "$output"
  else
    printf 'FAIL %s client, 2026 upstream over HTTP: %s\n' "$mode" "$output"
    sed 's/^/  | /' "$work/stderr" "$work/http.out" | tail -20
    failures=$((failures + 1))
  fi
done
kill "$http_pid" 2>/dev/null || true
wait "$http_pid" 2>/dev/null || true

if ((failures)); then echo "$failures check(s) failed"; exit 1; fi
echo "every check passed"
