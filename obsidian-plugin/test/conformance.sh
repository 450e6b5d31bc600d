#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios against the hosted plugin, in both protocol eras (see
# conformance.mjs): 0.1.16 for the 2025 era, 0.2.0-alpha.12 with `--requirements 2026-07-28`. Both run under the
# Node 22 that tests/conformance installs. Exit 0 when nothing but the baselined fixture scenarios fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../tests/conformance/env.sh"
status=0
for era in 2025 2026; do
  printf '\n-- conformance, %s era\n' "$era"
  "$NODE22" "$here/conformance.mjs" --era "$era" "$@" || status=1
done
exit "$status"
