#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, with the obsmcp bridge (`--url`) as the client under test, in
# both suites (tests/conformance/package.json pins them): `initialize`, `tools_call` and `sse-retry` (honour the
# server's `retry:` and resume a closed answer stream with `Last-Event-ID`) in 0.1.16 and 0.2.0-alpha.12, and
# `request-metadata` (the 2026-07-28 envelope and version header on every request, and a second try after -32022) in
# 0.2.0-alpha.12. bridge-client.mjs drives the bridge for the suite.
# Environment: OBSMCP_BIN (default: build with cargo). Exit 0 when every scenario passes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$here/env.sh"
if [[ -z "${OBSMCP_BIN:-}" ]]; then
  (cd "$repo" && cargo build --quiet --bin obsmcp)
  export OBSMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/obsmcp"
fi
failures=0
run() {
  local label="$1" suite="$2" scenario="$3" output
  if output="$("$NODE22" "$suite" client --command "node $here/bridge-client.mjs" --scenario "$scenario" 2>&1)"; then
    printf 'PASS client scenario %s (%s)\n' "$scenario" "$label"
  else
    printf 'FAIL client scenario %s (%s)\n' "$scenario" "$label"
    printf '%s\n' "$output" | sed 's/^/  | /' | tail -30
    failures=$((failures + 1))
  fi
}
for scenario in initialize tools_call sse-retry; do run "conformance 0.1.16" "$SUITE_2025" "$scenario"; done
for scenario in initialize tools_call sse-retry request-metadata; do run "conformance 0.2.0-alpha.12" "$SUITE_2026" "$scenario"; done
((failures == 0)) || { echo "$failures client scenario(s) failed"; exit 1; }
