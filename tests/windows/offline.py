"""The offline reader of the Windows binary under Wine, on a vault with Windows path rules (tests/windows/checks.py).

The reference is this machine's own build on a copy of the vault without the entries Windows opens as devices
(there they are no files): its offline answers are the ones the parity tests hold to the plugin's
(tests/it/offline/parity.rs), so a Windows answer that differs is a Windows bug, not a new rule. Both bridges run
with Obsidian closed (data.json names a port nothing listens on). Besides the comparison, the rules Windows adds
are asserted directly:
- names compared without case: a hidden folder, the config folder and a link reached in another case;
- reserved device names (CON, NUL, AUX, COM1) on disk, as a vault synced from Linux or macOS holds them: the reader
  must neither read the device (CON waits on the console) nor hang, and refuses them as paths;
- backslashes: in links inside notes (`[[Win\\Target]]`), and in path arguments (refused, as `..\\`, `C:\\`, `\\\\?\\`).
"""

import json
import os
import pathlib
import shutil
import socket
import tempfile
import time

import mcp

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOKEN = "wine-offline-token-0123456789abcdefghijkl"

NOTES = {
    "Win/Target.md": "# Target\n\n## Section two\n\nA line with a block. ^blk\n\n#windows/tag\n",
    "Win/Links.md": (
        "---\ntags: [windows]\n---\n# Links\n\n"
        "[[Win\\Target]] and [[win/target]] and [[TARGET]] and [[Win/Target#Section two]].\n"
        "Relative: [[../Home]] and [[..\\Home]] and [[./Target]].\n"
        "Embeds: ![[Win\\pic.png]] ![[pic.png]] and [md link](Target.md) and [md back](..\\Home.md).\n"
        "Missing: [[Win\\Nowhere]] [[NUL]] [[con]].\n"
    ),
    "Win/Case/Note.md": "# Case note\n\nReached as win/case/note.md too.\n",
    "Win/Secret/plan.md": "# Plan\n\nhidden by the rule Secret\n",
    "Win/SECRET.md": "# Also hidden\n\nthe rule is folded\n",
    "Win/Visible.md": "# Visible\n\nlinks [[plan]] and [[SECRET]]\n",
    # Reserved device names: files on disk (a vault synced from another OS), that Windows opens as devices.
    "Win/NUL.md": "# nul\n\nsearchable-nul-word\n",
    "Win/con.txt": "searchable-con-word\n",
    "Win/aux/inside.md": "# inside aux\n\nsearchable-aux-word\n",
    "Win/COM1.md": "# com1\n",
}
DEVICE_ENTRIES = ["Win/NUL.md", "Win/con.txt", "Win/aux", "Win/COM1.md"]
# How the calls below name them (COM1 as a link, without its extension).
DEVICE_PATHS = ["Win/NUL.md", "Win/con.txt", "Win/aux/inside.md", "Win/COM1"]

# The same calls through both builds; each answer is compared after the vault's own path is taken out.
CALLS = [
    ("list_files", {"recursive": True, "limit": 500}),
    ("list_files", {"folder": "win", "recursive": True}),
    ("read_note", {"path": "Win/Target.md"}),
    ("read_note", {"path": "win/target.md"}),
    ("read_note", {"path": "WIN/CASE/NOTE"}),
    ("read_note", {"path": "Win\\Target.md"}),
    ("read_note", {"path": "[[Win\\Target]]"}),
    ("read_note", {"path": "..\\Home.md"}),
    ("read_note", {"path": "C:\\Windows\\win.ini"}),
    ("read_note", {"path": "C:/Windows/win.ini"}),
    ("read_note", {"path": "\\\\?\\C:\\Windows\\win.ini"}),
    ("read_note", {"path": "//?/C:/Windows/win.ini"}),
    ("read_note", {"path": "Win/Target.md."}),
    ("read_note", {"path": "Win/Target.md "}),
    ("read_note", {"path": "Win/Target.md::$DATA"}),
    ("read_note", {"path": "Win/Target.md:stream"}),
    ("read_note", {"path": "Win/secret/plan.md"}),
    ("read_note", {"path": "win/SECRE~1/plan.md"}),
    ("read_note", {"path": "Win/Secret./plan.md"}),
    ("read_note", {"path": ".OBSIDIAN/plugins/obsmcp/data.json"}),
    ("read_note", {"path": ".obsidian./plugins/obsmcp/data.json"}),
    ("read_attachment", {"path": ".Obsidian/plugins/obsmcp/data.json"}),
    ("read_attachment", {"path": "Win\\pic.png"}),
    ("read_attachment", {"path": "Win/pic.png"}),
    ("read_note", {"path": "Win/NUL.md"}),
    ("read_note", {"path": "Win/con.txt"}),
    ("read_note", {"path": "Win/aux/inside.md"}),
    ("read_note", {"path": "Win/COM1"}),
    ("outgoing_links", {"path": "Win/Links.md"}),
    ("outgoing_links", {"path": "Win/Visible.md"}),
    ("backlinks", {"path": "Win/Target.md"}),
    ("backlinks", {"path": "Home.md"}),
    ("note_metadata", {"path": "Win/Links.md"}),
    ("outline", {"path": "Win/Target.md"}),
    ("unresolved_links", {}),
    ("orphans", {}),
    ("tags", {}),
    ("files_by_tag", {"tag": "windows"}),
    ("search", {"query": "Target"}),
    ("search", {"query": "searchable"}),
    ("search", {"query": "hidden"}),
    ("search", {"query": "path:win/ line"}),
    ("tasks", {}),
    ("properties", {}),
]
# Keys whose values come from the file system's clock, which Wine reports through Windows' own fields.
TIME_KEYS = {"mtime", "ctime", "modified", "created"}


def make_vault(folder, port):
    vault = folder / "rules-vault"
    shutil.copytree(ROOT / "obsidian-plugin/test/fixtures/vault", vault)
    for relative, text in NOTES.items():
        (vault / relative).parent.mkdir(parents=True, exist_ok=True)
        (vault / relative).write_text(text)
    shutil.copy(vault / "Attachments/diagram.png", vault / "Win/pic.png")
    plugin = vault / ".obsidian/plugins/obsmcp"
    plugin.mkdir(parents=True, exist_ok=True)
    settings = {"port": port, "token": TOKEN, "readOnly": False, "hiddenPaths": ["Secret"]}
    (plugin / "data.json").write_text(json.dumps(settings))
    return vault


def closed_port():
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def normalize(value, spellings):
    if isinstance(value, str):
        # A tool's text is often JSON itself: its clock fields are taken out too.
        if value.startswith("{"):
            try:
                return json.dumps(normalize(json.loads(value), spellings))
            except ValueError:
                pass
        for spelling in spellings:
            value = value.replace(spelling, "<vault>")
        return value
    if isinstance(value, list):
        return [normalize(item, spellings) for item in value]
    if isinstance(value, dict):
        return {k: ("<time>" if k in TIME_KEYS else normalize(v, spellings)) for k, v in value.items()}
    return value


def answers(bridge, spellings):
    bridge.initialize()
    results = []
    for name, arguments in CALLS:
        result = bridge.call(name, arguments, timeout=60)
        results.append(normalize(result, spellings))
    return results


def first_difference(a, b, where=""):
    if type(a) is not type(b):
        return f"{where}: {json.dumps(a)[:160]} vs {json.dumps(b)[:160]}"
    if isinstance(a, dict):
        for key in sorted(a.keys() | b.keys()):
            if key not in a or key not in b:
                return f"{where}.{key}: only in {'Linux' if key in a else 'Windows'}"
            found = first_difference(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items vs {len(b)}: {json.dumps(a)[:300]} vs {json.dumps(b)[:300]}"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where}[{index}]")
            if found:
                return found
        return None
    if a != b:
        return f"{where}: {json.dumps(a)[:300]} vs {json.dumps(b)[:300]}"
    return None


def run_all(checks, wine, exe, linux_bin, work):
    folder = pathlib.Path(tempfile.mkdtemp(prefix="offline-", dir=work))
    vault = make_vault(folder, closed_port())
    reference = folder / "reference-vault"
    shutil.copytree(vault, reference)
    for entry in DEVICE_ENTRIES:
        target = reference / entry
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    spellings = [
        spelling
        for root in [vault, reference]
        for spelling in [wine.windows_path(root), str(root), wine.windows_path(root).replace("\\", "/")]
    ]
    state = {}

    def linux_answers():
        home = folder / "linux-home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": ""}
        bridge = mcp.Bridge([str(linux_bin), "bridge", "--vault", str(reference)], env=env)
        try:
            state["linux"] = answers(bridge, spellings)
        finally:
            bridge.close()
        return f"{len(CALLS)} calls"

    def windows_answers():
        bridge = mcp.Bridge(["wine", str(exe), "bridge", "--vault", wine.windows_path(vault)])
        started = time.monotonic()
        try:
            state["windows"] = answers(bridge, spellings)
        except Exception:
            raise AssertionError(f"the bridge said:\n{bridge.stderr_tail()}") from None
        finally:
            code, _ = bridge.close()
        assert code == 0, f"exit code {code}:\n{bridge.stderr_tail()}"
        return f"{len(CALLS)} calls in {time.monotonic() - started:.1f} s, none hung"

    def same_answers():
        differences = []
        for (name, arguments), linux, windows in zip(CALLS, state["linux"], state["windows"]):
            found = first_difference(linux, windows)
            if found:
                differences.append(f"{name} {json.dumps(arguments)}{found}")
        assert not differences, f"{len(differences)} of {len(CALLS)} differ:\n  " + "\n  ".join(differences)
        return f"{len(CALLS)} answers identical"

    def by_call(name, arguments):
        return state["windows"][CALLS.index((name, arguments))]

    def refusals_and_rules():
        problems = []
        for path in ["Win\\Target.md", "..\\Home.md", "C:\\Windows\\win.ini", "\\\\?\\C:\\Windows\\win.ini"]:
            result = by_call("read_note", {"path": path})
            if not result.get("isError"):
                problems.append(f"{path} was read: {mcp.text_of(result)[:120]}")
        for path in [".OBSIDIAN/plugins/obsmcp/data.json", ".obsidian./plugins/obsmcp/data.json"]:
            result = by_call("read_note", {"path": path})
            if not result.get("isError") or TOKEN in json.dumps(result):
                problems.append(f"{path} was not refused")
        if TOKEN in json.dumps(state["windows"]):
            problems.append("the token appears in an answer")
        for path in ["Win/secret/plan.md", "win/SECRE~1/plan.md", "Win/Secret./plan.md"]:
            result = by_call("read_note", {"path": path})
            if not result.get("isError") or "hidden by the rule" in mcp.text_of(result):
                problems.append(f"the hidden note was read as {path}")
        if "searchable" in json.dumps(by_call("search", {"query": "hidden"})):
            problems.append("a search showed a hidden note")
        for path in DEVICE_PATHS:
            result = by_call("read_note", {"path": path})
            if not result.get("isError") or "device" not in mcp.text_of(result):
                problems.append(f"{path}: {mcp.text_of(result)[:160]}")
        case = by_call("read_note", {"path": "WIN/CASE/NOTE"})
        if case.get("isError") or "Case note" not in mcp.text_of(case):
            problems.append(f"WIN/CASE/NOTE did not resolve as a link: {mcp.text_of(case)[:160]}")
        assert not problems, "\n  ".join(["", *problems])
        return "backslash, drive and UNC paths refused; config folder and hidden paths in any case; devices refused"

    checks.run("offline reader, Linux build (the reference) on the vault as Windows sees it", linux_answers)
    if checks.run("offline reader, Windows build under Wine on the same vault", windows_answers):
        checks.run("offline reader: path rules of Windows (case, devices, backslashes)", refusals_and_rules)
        if "linux" in state:
            checks.run("offline reader: Windows answers equal the reference's", same_answers)
    shutil.rmtree(folder, ignore_errors=True)
