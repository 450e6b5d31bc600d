#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, with the obsmcp bridge (`--url`) as the client under test:
# `initialize`, `tools_call` and `sse-retry` (honour the server's `retry:` and resume a closed answer stream with
# `Last-Event-ID`). The suite is the version pinned in tests/peers; bridge-client.mjs drives the bridge for it.
# Environment: OBSMCP_BIN (default: build with cargo). Exit 0 when every scenario passes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
suite="$repo/tests/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[[ -f "$suite" ]] || { echo "conformance: $suite is missing; run: npm ci --prefix tests/peers" >&2; exit 2; }
if [[ -z "${OBSMCP_BIN:-}" ]]; then
  (cd "$repo" && cargo build --quiet --bin obsmcp)
  export OBSMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/obsmcp"
fi
failures=0
for scenario in initialize tools_call sse-retry; do
  if output="$(node "$suite" client --command "node $here/bridge-client.mjs" --scenario "$scenario" 2>&1)"; then
    printf 'PASS client scenario %s\n' "$scenario"
  else
    printf 'FAIL client scenario %s\n' "$scenario"
    printf '%s\n' "$output" | sed 's/^/  | /' | tail -30
    failures=$((failures + 1))
  fi
done
((failures == 0)) || { echo "$failures client scenario(s) failed"; exit 1; }
