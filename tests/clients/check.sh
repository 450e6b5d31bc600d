#!/usr/bin/env bash
# Real AI clients read what `obsmcp setup` wrote. Installs the pinned clients (package.json / package-lock.json and
# requirements.txt beside this script) into a cache folder, runs `obsmcp setup` on a throwaway HOME with the plugin
# host serving a fixture vault, then asks each client's own offline check and reads its output (they all exit 0
# even when a server fails, so exit codes prove nothing):
#   claude mcp get obsidian            → "✔ Connected"
#   codex mcp list --json              → our entry, as Codex parsed it
#   codex app-server mcpServerStatus/list → our core tools (obsidian_tools, not tasks), toolsError null
#   hermes mcp test obsidian           → "✓ Connected" and "✓ Tools discovered"
#   hermes_tools.py (Hermes's Python)  → its list_resources, read_resource, list_prompts, get_prompt tools work
#   gemini mcp list                    → "Disabled" in an untrusted folder, "✓ obsidian … Connected" once trusted
#   opencode mcp list                  → "✓ obsidian connected"
#   the companion skill: codex app-server skills/list, hermes skills list, Claude Code's ~/.claude/skills file
# then `obsmcp uninstall` and each client must no longer know the server.
#
# Environment: OBSMCP_BIN (default: build with cargo), OBSMCP_CLIENTS_CACHE (default ~/.cache/obsmcp-client-checks).
# Exit 0 when every check passes, 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${OBSMCP_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/obsmcp-client-checks}"
failures=0
pass() { printf 'PASS %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }
step() { printf '== %s\n' "$1"; }

# --- the pinned clients, installed once per lockfile ------------------------------------------------------------
install_clients() {
  mkdir -p "$cache/npm"
  local stamp; stamp="$( (cat "$here/package-lock.json" "$here/requirements.txt"; echo "$opencode_version") | sha256sum | cut -d' ' -f1)"
  if [[ -f "$cache/stamp" && "$(cat "$cache/stamp")" == "$stamp" ]]; then return; fi
  step "installing the pinned clients into $cache"
  cp "$here/package.json" "$here/package-lock.json" "$cache/npm/"
  (cd "$cache/npm" && timeout 600 npm ci --no-audit --no-fund --loglevel=error)
  # opencode's lockfile entry misses its other platforms' binaries (npm then refuses `npm ci`), so it is pinned
  # by exact version and installed on its own.
  rm -rf "$cache/opencode"
  timeout 600 npm install --prefix "$cache/opencode" --no-audit --no-fund --loglevel=error "opencode-ai@$opencode_version"
  rm -rf "$cache/hermes"
  python3 -m venv "$cache/hermes"
  timeout 600 "$cache/hermes/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$stamp" > "$cache/stamp"
}
opencode_version="1.18.33"
install_clients
claude="$cache/npm/node_modules/.bin/claude"
codex="$cache/npm/node_modules/.bin/codex"
hermes="$cache/hermes/bin/hermes"
gemini="$cache/npm/node_modules/.bin/gemini"
opencode="$cache/opencode/node_modules/.bin/opencode"

# --- obsmcp and the plugin host -------------------------------------------------------------------------------------
if [[ -z "${OBSMCP_BIN:-}" ]]; then
  step "building obsmcp"
  (cd "$repo" && cargo build --quiet --bin obsmcp)
  OBSMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/obsmcp"
fi
if [[ ! -d "$repo/obsidian-plugin/node_modules" ]]; then
  (cd "$repo" && npm ci --prefix obsidian-plugin --no-audit --no-fund --loglevel=error)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/obsmcp-clients.XXXXXX")"
host_pid=""
cleanup() {
  if [[ -n "$host_pid" ]]; then kill "$host_pid" 2>/dev/null || true; wait "$host_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
home="$work/home"
vault="$work/Fixture Vault"
mkdir -p "$home" "$home/bin"
cp -R "$repo/obsidian-plugin/test/fixtures/vault/." "$vault/"

# Every client and obsmcp see only this HOME; no API keys, no network beyond loopback is needed.
run() {
  env -i HOME="$home" PATH="$home/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb NO_COLOR=1 \
    DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 MCP_TIMEOUT=20000 "$@"
}

step "obsmcp setup on a throwaway home"
run "$OBSMCP_BIN" setup --vault "$vault" --client claude-code --client codex --client hermes --client gemini --client opencode --yes --json > "$work/setup.json"
port="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vaults"][0]["port"])' "$work/setup.json")"
# A binary in a build folder (target/) does not last: setup installs a copy in ~/.local/bin and the entries run it.
entry_bin="$OBSMCP_BIN"
case "$OBSMCP_BIN" in
  */target/*)
    entry_bin="$home/.local/bin/obsmcp"
    if cmp -s "$entry_bin" "$OBSMCP_BIN"; then pass "setup installed the build's binary as ~/.local/bin/obsmcp"; else fail "no copy of the build in ~/.local/bin"; fi
    ;;
esac
token="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$vault/.obsidian/plugins/obsmcp/data.json")"
node "$repo/obsidian-plugin/test/host.mjs" --vault "$vault" --port "$port" --token "$token" > "$work/host.out" 2> "$work/host.err" &
host_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/host.out" 2>/dev/null && break; sleep 0.1; done
if grep -q "listening on" "$work/host.out"; then pass "plugin host serves the fixture vault on port $port"; else fail "plugin host did not start: $(cat "$work/host.err")"; fi
# The bridge as Codex's entry starts it lists the core (`--tools core`, the default): Codex must discover exactly that.
tools_total="$(run timeout 30 python3 "$here/checks.py" bridge-tools "$OBSMCP_BIN" "$vault" || true)"
if [[ ! "$tools_total" =~ ^[1-9][0-9]*$ ]]; then fail "the bridge did not list its tools"; exit 1; fi

step "Claude Code $(run "$claude" --version 2>/dev/null | head -1)"
out="$(cd "$home" && run timeout 90 "$claude" mcp get obsidian 2>&1 || true)"
printf '%s\n' "$out" | sed 's/^/  | /' || true
if grep -q "✔ Connected" <<<"$out"; then pass "claude mcp get obsidian: connected"; else fail "claude mcp get obsidian: not connected"; fi
if grep -q -- "--vault" <<<"$out" && grep -qF "$entry_bin" <<<"$out"; then pass "claude sees our command and args"; else fail "claude does not show our entry"; fi
if grep -q -- "--tools all" <<<"$out"; then pass "claude's entry lists every tool (--tools all: Claude Code defers MCP tools to its tool search)"; else fail "claude's entry has no --tools all"; fi
# Claude Code lists skills only inside a session (which needs an account), so the check is the file it documents.
if cmp -s "$home/.claude/skills/obsmcp/SKILL.md" "$repo/templates/skill/SKILL.md"; then pass "the skill is where Claude Code reads user skills (~/.claude/skills/obsmcp/SKILL.md)"; else fail "no obsmcp skill in ~/.claude/skills"; fi

step "Codex $(run "$codex" --version 2>/dev/null | head -1)"
out="$(run timeout 60 "$codex" mcp list --json 2> "$work/codex.err" || true)"
if run python3 "$here/checks.py" codex-list "$entry_bin" "$vault" <<<"$out"; then pass "codex mcp list --json parses our entry"; else fail "codex mcp list --json: $out $(cat "$work/codex.err")"; fi
if (cd "$home" && run python3 "$here/checks.py" codex-app-server "$codex" obsidian "$tools_total"); then
  pass "codex app-server mcpServerStatus/list: $tools_total tools, toolsError null"
else
  fail "codex app-server mcpServerStatus/list"
fi
if (cd "$home" && run python3 "$here/checks.py" codex-skills "$codex" present); then pass "codex app-server skills/list: the obsmcp skill, user scope, enabled"; else fail "codex app-server skills/list has no obsmcp skill"; fi

step "Hermes Agent $(run "$hermes" --version 2>/dev/null | head -1)"
out="$(cd "$home" && run timeout 120 "$hermes" mcp test obsidian 2>&1 || true)"
printf '%s\n' "$out" | grep -v '^\s*$' | sed 's/^/  | /' | head -20 || true
if grep -q "✓ Connected" <<<"$out"; then pass "hermes mcp test obsidian: connected"; else fail "hermes mcp test obsidian: not connected"; fi
if grep -q "✓ Tools discovered: $tools_total" <<<"$out"; then pass "hermes discovered all $tools_total tools"; else fail "hermes did not discover $tools_total tools"; fi
if (cd "$home" && run timeout 120 "$cache/hermes/bin/python" "$here/hermes_tools.py"); then
  pass "hermes registers the resource and prompt tools, and they work through the bridge"
else
  fail "hermes's resource and prompt tools"
fi
out="$(cd "$home" && run timeout 60 "$hermes" skills list 2>&1 || true)"
if grep -qE "│ obsmcp +│.*enabled" <<<"$out"; then pass "hermes skills list: obsmcp, enabled"; else fail "hermes skills list has no obsmcp skill: $(grep -i obsmcp <<<"$out" || echo none)"; fi

step "Gemini CLI $(run "$gemini" --version 2>/dev/null | head -1)"
out="$(cd "$home" && run timeout 90 "$gemini" mcp list 2>&1 || true)"
if grep -q "obsidian: .* - Disabled" <<<"$out"; then pass "gemini lists obsidian, disabled while the folder is untrusted"; else fail "gemini mcp list (untrusted): $out"; fi
# Doctor's reading of Gemini's folder trust must match what gemini itself just showed.
gemini_gate() {
  (cd "$home" && run "$OBSMCP_BIN" doctor --json 2>/dev/null || true) | python3 -c '
import json, sys
report = json.load(sys.stdin)
print(" ".join(check["status"] for section in report["sections"] for check in section["checks"]
               if check["id"] == "client.gates" and "Gemini" in check["finding"]))'
}
verdict="$(gemini_gate)"
if [[ "$verdict" == "warn" ]]; then pass "doctor agrees: Gemini runs no server in the untrusted folder"; else fail "doctor's Gemini gate (untrusted): '$verdict'"; fi
# Trusting a folder is the user's decision (doctor reports it); the check makes it for its throwaway home.
printf '{"%s": "TRUST_FOLDER"}\n' "$home" > "$home/.gemini/trustedFolders.json"
out="$(cd "$home" && run timeout 90 "$gemini" mcp list 2>&1 || true)"
printf '%s\n' "$out" | grep obsidian | sed 's/^/  | /' || true
if grep -q "✓ obsidian: .* - Connected" <<<"$out"; then pass "gemini mcp list: connected"; else fail "gemini mcp list: not connected: $out"; fi
verdict="$(gemini_gate)"
if [[ "$verdict" == "ok" ]]; then pass "doctor agrees: Gemini trusts the folder"; else fail "doctor's Gemini gate (trusted): '$verdict'"; fi

step "opencode $(run "$opencode" --version 2>/dev/null | head -1)"
out="$(cd "$home" && run timeout 90 "$opencode" mcp list 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)"
printf '%s\n' "$out" | grep -A1 obsidian | sed 's/^/  | /' || true
if grep -q "✓ obsidian connected" <<<"$out"; then pass "opencode mcp list: connected"; else fail "opencode mcp list: not connected: $out"; fi

step "obsmcp uninstall, then no client knows the server"
run "$OBSMCP_BIN" uninstall --yes > /dev/null 2> "$work/uninstall.err" || fail "obsmcp uninstall: $(cat "$work/uninstall.err")"
if [[ "$entry_bin" == "$OBSMCP_BIN" || ! -e "$entry_bin" ]]; then pass "no copy of obsmcp left in ~/.local/bin"; else fail "uninstall left $entry_bin"; fi
out="$(cd "$home" && run timeout 60 "$claude" mcp get obsidian 2>&1 || true)"
if grep -q 'No MCP server' <<<"$out"; then pass "claude no longer lists obsidian"; else fail "claude still lists obsidian: $out"; fi
if [[ ! -e "$home/.claude/skills/obsmcp" ]]; then pass "the Claude Code skill is gone"; else fail "the Claude Code skill is still there"; fi
if (cd "$home" && run python3 "$here/checks.py" codex-skills "$codex" absent); then pass "codex no longer lists the obsmcp skill"; else fail "codex still lists the obsmcp skill"; fi
out="$(cd "$home" && run timeout 60 "$hermes" skills list 2>&1 || true)"
if ! grep -qE "│ obsmcp +│" <<<"$out"; then pass "hermes no longer lists the obsmcp skill"; else fail "hermes still lists the obsmcp skill"; fi
out="$(run timeout 60 "$codex" mcp list --json 2> "$work/codex.err" || true)"
if run python3 "$here/checks.py" codex-gone <<<"$out"; then pass "codex no longer lists obsidian"; else fail "codex still lists obsidian: $out $(cat "$work/codex.err")"; fi
out="$(cd "$home" && run timeout 60 "$hermes" mcp test obsidian 2>&1 || true)"
if grep -q "not found in config" <<<"$out"; then pass "hermes no longer lists obsidian"; else fail "hermes still lists obsidian: $(head -3 <<<"$out")"; fi
out="$(cd "$home" && run timeout 90 "$gemini" mcp list 2>&1 || true)"
if ! grep -q "obsidian:" <<<"$out"; then pass "gemini no longer lists obsidian"; else fail "gemini still lists obsidian: $out"; fi
out="$(cd "$home" && run timeout 90 "$opencode" mcp list 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)"
if ! grep -q "obsidian" <<<"$out"; then pass "opencode no longer lists obsidian"; else fail "opencode still lists obsidian: $out"; fi

if (( failures > 0 )); then printf '%d client check(s) failed\n' "$failures"; exit 1; fi
printf 'every client check passed\n'
