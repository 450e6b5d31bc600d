"""The Windows binary under Wine, through the paths that differ on Windows (run by tests/windows/run).

1. setup on a Windows-shaped home (the Wine prefix's own `C:\\users\\<name>`, with `%APPDATA%` and `%LOCALAPPDATA%`
   as Wine sets them): Obsidian's registry in `%APPDATA%\\obsidian`, every client's Windows location (Claude Desktop's
   MSIX folder beside the classic one, Hermes in `%LOCALAPPDATA%`), files with CRLF, comments and a byte-order mark;
   the binary copied to `%LOCALAPPDATA%\\Programs\\obsmcp`; a second run by that copy changes no byte;
2. the bridge that an entry starts, in front of the plugin hosted by Node on 127.0.0.1: framing (multi-megabyte,
   multi-byte frames, CRLF line ends), a plugin killed and started again (reconnection), doctor's handshake, EOF;
3. uninstall by the installed copy itself: the home and the vault as they were before setup, byte for byte;
4. the offline reader (tests/windows/offline.py) on a vault with Windows path rules.

Each check prints `ok` or `FAIL` with its reason; the last line is `N passed, N failed` and the exit status says
whether anything failed. Standard library only.
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import tomllib

# The helper modules beside this file, imported without leaving a __pycache__ folder in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mcp  # noqa: E402
import offline  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
VAULT_NAME = "My Vault"
# Claude Desktop's MSIX package folder (reference/clients.md): the app reads only this copy once it exists.
CLAUDE_MSIX = "Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude"
# (client id, config file under the home, the key path of its servers) for every client, at its Windows place.
CLIENT_FILES = [
    ("claude-code", ".claude.json", ["mcpServers"]),
    ("codex", ".codex/config.toml", ["mcp_servers"]),
    ("hermes", "AppData/Local/hermes/config.yaml", ["mcp_servers"]),
    ("claude-desktop", f"AppData/Local/{CLAUDE_MSIX}/claude_desktop_config.json", ["mcpServers"]),
    ("gemini", ".gemini/settings.json", ["mcpServers"]),
    ("cursor", ".cursor/mcp.json", ["mcpServers"]),
    ("vscode", "AppData/Roaming/Code/User/mcp.json", ["servers"]),
    ("windsurf", ".codeium/windsurf/mcp_config.json", ["mcpServers"]),
    ("zed", "AppData/Roaming/Zed/settings.json", ["context_servers"]),
    ("opencode", ".config/opencode/opencode.json", ["mcp"]),
]
# What the user had before setup, as Windows editors write it: CRLF, comments, a byte-order mark. Every byte must
# come back after uninstall.
EXISTING = {
    ".claude.json": b'{\r\n  "numStartups": 3,\r\n  "theme": "dark"\r\n}\r\n',
    ".codex/config.toml": b'# my settings\r\nmodel = "o3"\r\n\r\n[profiles.work]\r\nmodel = "o4"\r\n',
    "AppData/Local/hermes/config.yaml": b"# Hermes\r\nmodel: hermes-4\r\nmcp_servers: {}\r\n",
    ".gemini/settings.json": '\ufeff{\r\n  // set by the installer\r\n  "theme": "Default"\r\n}\r\n'.encode(),
    "AppData/Roaming/Code/User/mcp.json": b'{\r\n\t// my servers\r\n\t"servers": {},\r\n}\r\n',
    "AppData/Roaming/Zed/settings.json": b'// Zed settings\r\n{\r\n  "theme": "One Dark"\r\n}\r\n',
    # The classic Claude Desktop file, which the MSIX app ignores: setup must leave it alone.
    "AppData/Roaming/Claude/claude_desktop_config.json": b'{"mcpServers": {}}\r\n',
}
FOLDERS = [".claude", ".cursor", ".codeium/windsurf", ".config/opencode", f"AppData/Local/{CLAUDE_MSIX}"]


class Checks:
    """Runs named checks, prints each outcome and counts them."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, function, *args):
        started = time.monotonic()
        try:
            detail = function(*args)
        except Exception as error:  # a check's failure, of whatever kind, is reported and the run goes on
            self.failed += 1
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {type(error).__name__}: {error}", flush=True)
            return False
        self.passed += 1
        suffix = f": {detail}" if detail else ""
        print(f"ok   {name} ({time.monotonic() - started:.1f} s){suffix}", flush=True)
        return True


class Wine:
    """The Wine prefix: its Windows home seen from Linux, and Windows paths of Linux ones."""

    def __init__(self, prefix):
        self.prefix = pathlib.Path(prefix)
        users = [p for p in (self.prefix / "drive_c/users").iterdir() if p.name != "Public"]
        self.home = users[0]

    def windows_path(self, path):
        """The Windows spelling of a Linux path: `C:\\…` inside the prefix's drive, `Z:\\…` (Wine's root) elsewhere."""
        path = pathlib.Path(path).resolve()
        drive_c = (self.prefix / "drive_c").resolve()
        if path.is_relative_to(drive_c):
            return "C:\\" + "\\".join(path.relative_to(drive_c).parts)
        return "Z:" + str(path).replace("/", "\\")

    def run(self, argv, timeout=120, env=None):
        return subprocess.run(["wine", *argv], capture_output=True, timeout=timeout, env=env)


def tree(folder, skip=()):
    """Every file under `folder` with the SHA-256 of its bytes (paths relative, `/`-separated)."""
    files = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if any(relative == s or relative.startswith(s + "/") for s in skip) or not path.is_file():
            continue
        files[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def tree_diff(before, after):
    changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": changed,
    }


def strip_jsonc(text):
    """JSONC (comments, trailing commas) as plain JSON, strings left as they are."""
    text = text.lstrip("\ufeff")
    pattern = r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/'
    text = re.sub(pattern, lambda m: m.group(1) or "", text, flags=re.S)
    return re.sub(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])', lambda m: m.group(1) or m.group(2), text)


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def read_json(path):
    return json.loads(strip_jsonc(pathlib.Path(path).read_text(encoding="utf-8")))


def run_json(wine, argv, expect_codes=(0,), env=None):
    done = wine.run(argv, env=env)
    if done.returncode not in expect_codes:
        raise AssertionError(
            f"{' '.join(argv[1:])} exited {done.returncode}:\n{done.stderr.decode(errors='replace')[-1500:]}"
            f"\n{done.stdout.decode(errors='replace')[-1500:]}"
        )
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"stdout is not JSON: {done.stdout[:300]!r}") from None


def check_version(wine, exe):
    done = wine.run([str(exe), "--version"])
    first = done.stdout.decode(errors="replace").splitlines()[:1]
    assert done.returncode == 0 and first, f"exit {done.returncode}: {done.stderr.decode(errors='replace')[-800:]}"
    return first[0]


def prepare_home(wine, state):
    """The user's machine before setup: Obsidian's registry naming a vault, every client present, files as above."""
    home = wine.home
    vault = home / "Documents" / VAULT_NAME
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text("{}")
    (vault / "Welcome.md").write_bytes(b"# Welcome\r\n\r\nA note written on Windows.\r\n")
    registry = home / "AppData/Roaming/obsidian/obsidian.json"
    registry.parent.mkdir(parents=True)
    entry = {"path": wine.windows_path(vault), "ts": 1767225600000, "open": True}
    registry.write_text(json.dumps({"vaults": {"a1b2c3d4e5f60718": entry}}))
    for folder in FOLDERS:
        (home / folder).mkdir(parents=True, exist_ok=True)
    for relative, data in EXISTING.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_bytes(data)
    state["vault"] = vault
    state["before"] = tree(home, skip=SKIP_IN_HOME)
    return f"vault {entry['path']}"


# What Wine itself writes in the home while programs run.
SKIP_IN_HOME = ("AppData/Local/Temp", "Temp", "AppData/Local/Microsoft", "AppData/Roaming/Microsoft")


def installed_exe(wine):
    return wine.home / "AppData/Local/Programs/obsmcp/obsmcp.exe"


def check_setup(wine, exe, state):
    report = run_json(wine, [str(exe), "setup", "--yes", "--json"])
    vaults = [v["path"] for v in report["vaults"]]
    assert vaults == [wine.windows_path(state["vault"])], f"setup found {vaults}"
    problems = report.get("problems")
    assert not problems, f"setup reported problems: {problems}"
    copied = installed_exe(wine)
    assert copied.is_file(), f"no binary at {copied}"
    assert copied.read_bytes() == pathlib.Path(exe).read_bytes(), "the installed copy differs from the build"
    state["command"] = wine.windows_path(copied)
    return f"{len(report['items'])} changes, binary at {state['command']}"


def check_client_files(wine, state):
    """Each client's file holds an `obsidian` entry that runs the installed copy on the vault's Windows path."""
    command, vault = state["command"], wine.windows_path(state["vault"])
    for client, relative, servers_key in CLIENT_FILES:
        path = wine.home / relative
        assert path.is_file(), f"{client}: no config at {relative}"
        text = path.read_text(encoding="utf-8")
        if relative.endswith(".yaml"):
            # No YAML parser in the standard library: the path in one of YAML's quotings is enough here.
            spellings = [command, f"'{command}'", json.dumps(command)]
            assert any(s in text for s in spellings), f"{client}: {command} not in {relative}"
            continue
        document = tomllib.loads(text) if relative.endswith(".toml") else json.loads(strip_jsonc(text))
        entry = document
        for key in [*servers_key, "obsidian"]:
            assert isinstance(entry, dict) and key in entry, f"{client}: no {'.'.join(servers_key)}.obsidian"
            entry = entry[key]
        words = list(strings_in(entry))
        assert command in words, f"{client}: the entry runs {words}, not {command}"
        assert vault in words, f"{client}: the entry's vault is not {vault}: {words}"
        if client == "claude-code":
            state["entry"] = entry
    classic = wine.home / "AppData/Roaming/Claude/claude_desktop_config.json"
    assert classic.read_bytes() == EXISTING["AppData/Roaming/Claude/claude_desktop_config.json"], (
        "the classic Claude Desktop file was edited although the MSIX one is the one read"
    )
    hermes = (wine.home / "AppData/Local/hermes/config.yaml").read_bytes()
    assert hermes.startswith(b"# Hermes\r\n"), "Hermes' comment or CRLF was lost"
    return f"{len(CLIENT_FILES)} clients"


def check_vault_files(state):
    plugin = state["vault"] / ".obsidian/plugins/obsmcp"
    for name in ["main.js", "manifest.json", "styles.css", "data.json"]:
        assert (plugin / name).is_file(), f"no {name} in {plugin}"
    enabled = json.loads((state["vault"] / ".obsidian/community-plugins.json").read_text())
    assert "obsmcp" in enabled, f"community-plugins.json: {enabled}"
    data = json.loads((plugin / "data.json").read_text())
    state["port"], state["token"] = data["port"], data["token"]
    return f"port {data['port']}"


def check_second_setup(wine, state):
    """The installed copy runs setup again: nothing planned, no byte changed (it cannot replace itself anyway)."""
    before = tree(wine.home, skip=SKIP_IN_HOME)
    vault_before = tree(state["vault"])
    report = run_json(wine, [state["command"], "setup", "--yes", "--json"])
    changes = [i for i in report["items"] if i["change"] != "unchanged"]
    assert report["outcome"] in ("unchanged", "already-configured") and not changes, (
        f"second setup: {report['outcome']}, {changes}"
    )
    assert tree(wine.home, skip=SKIP_IN_HOME) == before, tree_diff(before, tree(wine.home, skip=SKIP_IN_HOME))
    assert tree(state["vault"]) == vault_before, "the vault changed"


def start_host(vault, port, token):
    host = subprocess.Popen(
        ["node", str(ROOT / "obsidian-plugin/test/host.mjs"), "--vault", str(vault), "--port", str(port),
         "--token", token],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    line = host.stdout.readline().decode()
    if not line.startswith("listening on"):
        host.kill()
        raise AssertionError(f"the plugin host did not start: {host.stderr.read().decode()[-800:]}")
    return host


def entry_bridge(wine, state):
    """The bridge exactly as the Claude Code entry starts it (its env passed on, as Claude Code does)."""
    entry = state["entry"]
    env = dict(os.environ)
    env.update(entry.get("env") or {})
    return mcp.Bridge(["wine", entry["command"], *entry["args"]], env=env)


def check_bridge_online(wine, state):
    state["host"] = start_host(state["vault"], state["port"], state["token"])
    bridge = state["bridge"] = entry_bridge(wine, state)
    started = time.monotonic()
    answer = bridge.initialize()
    assert "result" in answer, answer
    took = time.monotonic() - started
    tools = bridge.request("tools/list")["result"]["tools"]
    catalog = {t["name"] for t in json.loads((ROOT / "obsidian-plugin/catalog.json").read_text())["tools"]}
    missing = catalog - {t["name"] for t in tools}
    assert not missing, f"tools/list lacks {sorted(missing)}"
    status = mcp.text_of(bridge.call("vault_info"))
    assert VAULT_NAME in status, f"vault_info does not name the vault: {status[:300]}"
    return f"initialize answered in {took:.2f} s (Wine's start included), {len(tools)} tools, vault_info live"


def check_large_frames(state):
    """A 3 MB note of multi-byte characters in one frame each way, and a request ended by CRLF."""
    bridge = state["bridge"]
    line = "é漢字🙂 ünïcødé " * 8
    lines = [f"{i:06d} {line}" for i in range(16_000)]
    content = "\n".join(lines) + "\n"
    assert len(content.encode()) > 3_000_000, len(content.encode())
    result = bridge.call("create_note", {"path": "Windows/Big.md", "content": content, "if_exists": "overwrite"})
    assert not result.get("isError"), mcp.text_of(result)[:300]
    on_disk = (state["vault"] / "Windows/Big.md").read_bytes()
    assert on_disk == content.encode(), "the note on disk is not the bytes sent"
    answer = bridge.request(
        "tools/call",
        {"name": "read_note", "arguments": {"path": "Windows/Big.md", "start_line": 15_996, "end_line": 16_000}},
        line_end=b"\r\n",
    )
    text = mcp.text_of(answer["result"])
    assert lines[-1] in text and lines[-5] in text, f"the tail read back differs: {text[:300]}"
    assert b"\r\n" not in bytes(bridge.raw), "stdout has CRLF line ends (text-mode translation)"
    return f"{len(content.encode()) / 1e6:.1f} MB sent, the tail read back intact, a CRLF-ended request answered"


def check_doctor_live(wine, state):
    report = run_json(wine, [state["command"], "doctor", "--json"], expect_codes=(0, 1))
    checks = {c["id"]: c for s in report["sections"] for c in s.get("checks", [])}
    handshake = checks.get("obsidian.handshake", {})
    assert handshake.get("status") == "ok", f"obsidian.handshake: {handshake}"
    failing = [f"{c['id']}: {c['finding']}" for c in checks.values() if c["status"] == "fail"]
    assert not failing, failing
    return f"verdict {report['verdict']}, {report['summary']}"


def check_reconnection(state):
    """The plugin killed under the bridge: reads come from disk, a write gets a plain error, then it reconnects."""
    bridge, host = state["bridge"], state.pop("host")
    host.kill()
    host.wait()
    started = time.monotonic()
    read = bridge.call("read_note", {"path": "Welcome.md"})
    assert "A note written on Windows." in mcp.text_of(read), mcp.text_of(read)[:300]
    write = bridge.call("append", {"path": "Welcome.md", "content": "more"})
    down_for = time.monotonic() - started
    assert write.get("isError"), f"a write while Obsidian is down: {mcp.text_of(write)[:300]}"
    state["host"] = start_host(state["vault"], state["port"], state["token"])
    back = time.monotonic()
    while True:
        result = bridge.call("append", {"path": "Welcome.md", "content": "\r\nback"})
        if not result.get("isError"):
            break
        assert time.monotonic() - back < 30, f"no reconnection in 30 s: {mcp.text_of(result)[:300]}"
        time.sleep(0.5)
    reconnect = time.monotonic() - back
    status = bridge.call("obsidian_status")["structuredContent"]
    assert status["state"] == "connected" and status["reconnects"] >= 1, f"obsidian_status: {status}"
    return (
        f"down: read from disk, write refused in {down_for:.1f} s; first write {reconnect:.1f} s after restart; "
        f"obsidian_status: {status['state']}, {status['reconnects']} reconnect(s)"
    )


def check_eof(state):
    code, took = state.pop("bridge").close()
    assert code == 0, f"exit code {code}"
    assert took < 10, f"took {took:.1f} s to exit"
    return f"exit 0 in {took:.2f} s"


def check_uninstall(wine, state):
    """Uninstall by the installed copy itself, with Obsidian open: home and vault byte for byte as before setup."""
    report = run_json(wine, [state["command"], "uninstall", "--yes", "--json"])
    assert not report.get("problems"), report.get("problems")
    # Left out of the comparison: the notes the bridge checks wrote, and the bridge's diagnostics log, which
    # uninstall leaves on every system (it is the bridge's, not setup's).
    written = [f"Documents/{VAULT_NAME}/Windows/Big.md", f"Documents/{VAULT_NAME}/Welcome.md"]
    skip = (*SKIP_IN_HOME, *written, "AppData/Local/obsmcp/bridge.log")
    before = {p: h for p, h in state["before"].items() if p not in written}
    diff = tree_diff(before, tree(wine.home, skip=skip))
    # The vault's own files are in the home too (Documents): the plugin's folder must be gone with the rest.
    assert not any(diff.values()), f"the home differs from before setup: {diff}"
    leftovers = [p for p in ["AppData/Local/Programs/obsmcp"] if (wine.home / p).exists()]
    leftovers += [
        p.relative_to(wine.home).as_posix()
        for p in (wine.home / "AppData/Local/obsmcp").glob("*")
        if not p.name.startswith("bridge.log")
    ]
    assert not leftovers, f"left behind: {leftovers}"
    # Windows cannot delete the running copy: it went to the temporary folder, which Windows' clean-up empties.
    moved = sorted(p.name for p in (wine.home / "Temp").glob("obsmcp-removed-*.exe"))
    return f"the running copy moved to %TEMP% as {moved[0]}" if moved else "the running copy deleted"


# A bound on time that a debug build under Wine, on a loaded machine, can miss; it says nothing about Windows.
SKIPPED_UNIT_TESTS = ["hostile_notes_parse_in_time_linear_in_their_size"]


def check_unit_tests(wine):
    """Both crates' unit tests built for Windows and run under Wine (cargo runs each test binary through `wine`)."""
    env = {
        **os.environ,
        "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER": "wine",
        # insta finds its snapshots from the workspace root, which it would ask cargo for (not there under Wine).
        "INSTA_WORKSPACE_ROOT": wine.windows_path(ROOT),
    }
    skips = [word for name in SKIPPED_UNIT_TESTS for word in ("--skip", name)]
    done = subprocess.run(
        ["cargo", "test", "--locked", "--target", "x86_64-pc-windows-gnu", "-p", "obsmcp-installer", "-p", "obsmcp",
         "--lib", "--", *skips],
        cwd=ROOT, env=env, capture_output=True, timeout=1800,
    )
    output = done.stdout.decode(errors="replace")
    results = re.findall(r"test result: \w+\. (\d+) passed; (\d+) failed", output)
    failed = re.findall(r"^test (\S+) \.\.\. FAILED$", output, flags=re.M)
    # The harness prints each failed test's panic to stdout, under "failures:"; cargo's own errors go to stderr.
    reasons = output[output.find("\nfailures:\n"):][:6000] if failed else ""
    assert done.returncode == 0 and len(results) == 2, (
        f"exit {done.returncode}, failed: {failed}\n{reasons}\n{done.stderr.decode(errors='replace')[-3000:]}"
    )
    return " and ".join(f"{passed} passed" for passed, _ in results) + f" ({len(SKIPPED_UNIT_TESTS)} skipped)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", required=True, help="the Windows obsmcp.exe")
    parser.add_argument("--linux-bin", required=True, help="this machine's obsmcp, the offline reader's reference")
    parser.add_argument("--work", required=True, help="a scratch folder")
    options = parser.parse_args()
    wine = Wine(os.environ["WINEPREFIX"])
    checks = Checks()
    state = {}
    exe = pathlib.Path(options.exe).resolve()
    try:
        checks.run("--version runs", check_version, wine, exe)
        if checks.run("a Windows-shaped home with Obsidian's registry and every client", prepare_home, wine, state):
            if checks.run("setup --yes finds the vault in %APPDATA%\\obsidian", check_setup, wine, exe, state):
                checks.run("each client's Windows file holds the entry", check_client_files, wine, state)
                checks.run("the plugin's files and data.json in the vault", check_vault_files, state)
                checks.run("a second setup by the installed copy changes no byte", check_second_setup, wine, state)
                if "entry" in state and checks.run(
                    "the entry's bridge against the plugin host on 127.0.0.1", check_bridge_online, wine, state
                ):
                    checks.run("framing: 3 MB multi-byte frames, CRLF line ends", check_large_frames, state)
                    checks.run("doctor's MCP handshake with the live plugin", check_doctor_live, wine, state)
                    checks.run("plugin killed and started again: reconnection", check_reconnection, state)
                    checks.run("stdin EOF: exit 0 promptly", check_eof, state)
                checks.run("uninstall by the installed copy restores every byte", check_uninstall, wine, state)
        offline.run_all(checks, wine, exe, pathlib.Path(options.linux_bin), pathlib.Path(options.work))
        checks.run("unit tests of both crates, built for Windows, under Wine", check_unit_tests, wine)
    finally:
        for key in ["bridge"]:
            if key in state:
                state[key].kill()
        if "host" in state:
            state["host"].terminate()
            state["host"].wait()
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
