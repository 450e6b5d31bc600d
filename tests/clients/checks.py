"""Reads the real clients' answers for check.sh: Codex's `mcp list --json` and its app-server's
`mcpServerStatus/list`. Prints what it saw and exits 0 only when the answer shows obsmcp's entry working."""

import json
import os
import queue
import subprocess
import sys
import threading


def codex_list(expected_command: str, expected_vault: str) -> int:
    entries = json.loads(sys.stdin.read())
    entry = next((e for e in entries if e.get("name") == "obsidian"), None)
    if entry is None:
        print("  no entry named obsidian in", [e.get("name") for e in entries])
        return 1
    transport = entry.get("transport", entry)
    print("  entry:", json.dumps(transport))
    ok = transport.get("command") == expected_command and transport.get("args") == ["bridge", "--vault", expected_vault]
    return 0 if ok else 1


def codex_gone() -> int:
    entries = json.loads(sys.stdin.read())
    names = [e.get("name") for e in entries]
    print("  servers:", names)
    return 0 if "obsidian" not in names else 1


def bridge_tools(obsmcp: str, vault: str, timeout: float) -> int:
    """How many tools the bridge itself lists: what every client must discover through it."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "obsmcp-check", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    process = subprocess.Popen([obsmcp, "bridge", "--vault", vault], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
        process.stdin.flush()
        for line in process.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                print(len(message["result"]["tools"]))
                return 0
        return 1
    finally:
        process.kill()
        process.wait(timeout=timeout)


def codex_app_server(codex: str, server: str, want_tools: int, timeout: float) -> int:
    """Asks the app-server for one MCP server's status: all the bridge's tools (the core list), no tools error."""
    result = app_server_result(codex, "mcpServerStatus/list", {"detail": "toolsAndAuthOnly", "serverName": server}, timeout)
    if result is None:
        return 1
    statuses = result.get("data", [])
    status = next((s for s in statuses if s.get("name") == server), None)
    if status is None:
        print("  no status for", server, "in", json.dumps(result)[:400])
        return 1
    tools = status.get("tools") or {}
    error = status.get("toolsError")
    names = set(tools) if isinstance(tools, dict) else {tool.get("name") for tool in tools}
    print(f"  tools: {len(tools)} (the bridge lists {want_tools}): {sorted(names)}, toolsError: {json.dumps(error)}")
    # Codex's entry has the default core list: obsidian_tools reaches the rest, and tasks is one of the rest.
    core = {"search", "read_note", "obsidian_tools", "obsidian_status"} <= names and "tasks" not in names
    return 0 if error is None and len(tools) == want_tools and core else 1


def codex_skills(codex: str, want: str, timeout: float) -> int:
    """Asks the app-server which skills Codex loads for this folder: `present` wants obsmcp's as a user skill,
    enabled; `absent` wants none named obsmcp."""
    result = app_server_result(codex, "skills/list", {"cwds": [os.getcwd()]}, timeout)
    if result is None:
        return 1
    skills = [skill for entry in result.get("data", []) for skill in entry.get("skills", [])]
    ours = [skill for skill in skills if skill.get("name") == "obsmcp"]
    print("  obsmcp skill:", json.dumps(ours)[:300] if ours else "none", f"({len(skills)} skills listed)")
    if want == "absent":
        return 0 if not ours else 1
    return 0 if any(skill.get("scope") == "user" and skill.get("enabled") for skill in ours) else 1


def app_server_result(codex: str, method: str, params: dict, timeout: float) -> "dict | None":
    """The result of one app-server request, or None (said on stdout) when there is no answer or an error."""
    try:
        reply = app_server_request(codex, method, params, timeout)
    except (queue.Empty, RuntimeError) as error:
        print("  no answer from codex app-server:", error)
        return None
    if "error" in reply:
        print("  error:", json.dumps(reply["error"]))
        return None
    return reply["result"]


def app_server_request(codex: str, method: str, params: dict, timeout: float) -> dict:
    """Speaks the app-server's JSON lines (JSON-RPC without the jsonrpc header): initialize, then one request."""
    process = subprocess.Popen(
        [codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: "queue.Queue[str | None]" = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()

    def send(message: dict) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    def answer(request_id: int) -> dict:
        while True:
            line = lines.get(timeout=timeout)
            if line is None:
                raise RuntimeError("codex app-server closed its output")
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message

    try:
        send({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "obsmcp-check", "version": "1"}}})
        answer(1)
        send({"method": "initialized"})
        send({"id": 2, "method": method, "params": params})
        return answer(2)
    finally:
        process.kill()
        process.wait(timeout=10)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "codex-list":
        sys.exit(codex_list(sys.argv[2], sys.argv[3]))
    if command == "codex-gone":
        sys.exit(codex_gone())
    if command == "bridge-tools":
        sys.exit(bridge_tools(sys.argv[2], sys.argv[3], float(os.environ.get("CHECK_TIMEOUT", "60"))))
    if command == "codex-skills":
        sys.exit(codex_skills(sys.argv[2], sys.argv[3], float(os.environ.get("CHECK_TIMEOUT", "60"))))
    if command == "codex-app-server":
        sys.exit(codex_app_server(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(os.environ.get("CHECK_TIMEOUT", "60"))))
    sys.exit(f"unknown check {command}")
