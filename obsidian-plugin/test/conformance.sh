#!/usr/bin/env bash
# Official MCP conformance suite against the hosted plugin (see conformance.mjs).
set -euo pipefail
exec node "$(dirname "$0")/conformance.mjs" "$@"
