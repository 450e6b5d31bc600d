"""One MCP client session with `obsmcp bridge --vault` over stdio, through the official Python SDK (mcp 2.x), while
Obsidian (the plugin host) is closed, opens, closes and opens again under it.

usage: client.py MODE OBSMCP VAULT HOST PORT TOKEN
  MODE    auto (probe server/discover, fall back to initialize) or legacy (initialize only)
  OBSMCP  the obsmcp binary
  VAULT   the vault folder (its plugin's data.json names PORT and TOKEN)
  HOST    obsidian-plugin/test/host.mjs, which hosts the plugin on VAULT

In one session: with Obsidian closed, the core tools (the default `--tools core`) are listed at once and reads come from
disk while writes are refused with a reason; with the plugin up, every tool of the catalog is called by name, listed or
not, and one through obsidian_tools, and each must succeed; obsidian_tools enable then adds a tool to the list (a 2025
session hears tools/list_changed); the error paths (a
missing note, bad arguments, a stale expected_hash, a path outside the vault, an unknown tool) give their errors;
the plugin is stopped mid-session (reads from disk again) and started again (reads from the plugin again). Resources are
listed (every page), completed and read (a note and an image) on each side; a note is subscribed to (a 2025 client
with resources/subscribe, refused with the reason while Obsidian is closed; a 2026 client on a listen stream) and its
change is heard.

Prints one JSON line with what was negotiated and seen; exits 1 with the reason when a check fails.
"""

import asyncio
import base64
import json
import os
import pathlib
import re
import subprocess
import sys
import time

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation, ResourceTemplateReference


class CheckFailed(Exception):
    """A check that did not hold; its reason is printed as the script's one line."""


def fail(reason):
    raise CheckFailed(reason)


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


def from_disk(result):
    return text_of(result).split("\n", 1)[0].endswith(" served_from=disk") or '"served_from":"disk"' in text_of(result)


class Host:
    """The plugin host (Obsidian with the plugin on), started and stopped by the session."""

    def __init__(self, script, vault, port, token):
        self.args = ["node", script, "--vault", vault, "--port", port, "--token", token]
        self.port = port
        self.process = None

    def start(self):
        self.process = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        if line != f"listening on {self.port}":
            fail(f"the plugin host did not start: {line!r}")

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


# Every tool of the catalog with arguments that make it succeed on the fixture vault, in an order where the writes
# build on each other. A tool the catalog gains must be added here: the session fails while one is missing.
SCRATCH = "Eras/Scratch.md"
CALLS = [
    ("vault_info", {}),
    ("list_files", {"folder": "Notes"}),
    ("read_note", {"path": "Home"}),
    ("read_attachment", {"path": "diagram.png"}),
    ("search", {"query": "Welcome"}),
    ("note_metadata", {"path": "Home"}),
    ("outline", {"path": "Home"}),
    ("backlinks", {"path": "Orphan links out"}),
    ("outgoing_links", {"path": "Home"}),
    ("unresolved_links", {}),
    ("orphans", {}),
    ("tags", {}),
    ("files_by_tag", {"tag": "hub"}),
    ("tasks", {"status": "all"}),
    ("properties", {"name": "tags"}),
    ("active_note", {}),
    ("daily_note", {"date": "2031-02-03"}),
    ("recent_files", {}),
    ("bookmarks", {}),
    ("templates", {}),
    ("canvas", {"path": "Boards/Plan.canvas"}),
    ("bases", {"base": "Library/Books.base"}),
    ("batch", {"calls": [{"tool": "read_note", "arguments": {"path": "Home"}}, {"tool": "tags"}]}),
    ("edit_canvas", {"path": "Boards/Compact.canvas", "node": {"type": "text", "text": "hello"}}),
    ("create_note", {"path": SCRATCH, "content": "# Scratch\n\n## Log\nfirst\n- [ ] a task\n"}),
    ("set_task", {"path": SCRATCH, "line": 5, "status": "done", "expected_text": "a task"}),
    ("append", {"path": SCRATCH, "content": "appended"}),
    ("str_replace", {"path": SCRATCH, "old_text": "first", "new_text": "second"}),
    ("insert_at_line", {"path": SCRATCH, "line": 2, "content": "inserted"}),
    ("patch_section", {"path": SCRATCH, "target": "heading", "name": "Log", "operation": "append", "content": "patched"}),
    ("set_property", {"path": SCRATCH, "key": "status", "value": "draft"}),
    ("delete_property", {"path": SCRATCH, "key": "status"}),
    ("move_note", {"path": SCRATCH, "new_path": "Eras/Moved.md"}),
    ("delete_note", {"path": "Eras/Moved.md"}),
    ("open_note", {"path": "Home", "heading": "Home"}),
    ("create_daily_note", {"date": "2031-02-03"}),
    ("create_from_template", {"path": "Eras/From template.md", "template": "Templates/Daily"}),
    ("obsidian_tools", {"action": "call", "name": "outgoing_links", "arguments": {"path": "Home"}}),
]
# What the bridge lists by default (`--tools core`): the core tools, its status tool and obsidian_tools, which reaches
# the rest. Every other tool of CALLS is called by name without being listed.
CORE_LISTED = {"search", "read_note", "outline", "list_files", "create_note", "str_replace", "append", "batch",
               "obsidian_status", "obsidian_tools"}
CATALOG = {tool["name"] for tool in json.loads(
    (pathlib.Path(__file__).resolve().parents[2] / "obsidian-plugin/catalog.json").read_text())["tools"]}
# Tools whose honest answer on this vault may be an error result (nothing is open in the host's workspace; the daily
# note of that date does not exist yet): they must still answer with a reason, never fail unexpectedly.
MAY_REFUSE = {"active_note", "daily_note"}


async def every_tool(client, listed):
    called = {name for name, _ in CALLS}
    missing = (CATALOG | listed) - called - {"obsidian_status"}
    if missing:
        fail(f"tools the catalog lists that this check does not call: {sorted(missing)}")
    for name, arguments in CALLS:
        result = await client.call_tool(name, arguments)
        text = text_of(result)
        if "failed unexpectedly" in text or not text:
            fail(f"{name}: {text!r}")
        if result.is_error and name not in MAY_REFUSE:
            fail(f"{name} {json.dumps(arguments)} failed: {text[:300]}")
        if from_disk(result):
            fail(f"{name} was answered from disk with the plugin up: {text[:200]}")


async def enable(client, mode, list_changes):
    """obsidian_tools adds a tool to the list: a 2025 session hears tools/list_changed, and the list then has it."""
    result = await client.call_tool("obsidian_tools", {"action": "enable", "tools": ["tasks"]})
    if result.is_error or (result.structured_content or {}).get("added") != ["tasks"]:
        fail(f"obsidian_tools enable: {text_of(result)[:300]}")
    if mode == "legacy":
        deadline = time.monotonic() + 5
        while not list_changes and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not list_changes:
            fail("no notifications/tools/list_changed after obsidian_tools enable")
    names = {tool.name for tool in (await client.list_tools()).tools}
    if names != CORE_LISTED | {"tasks"}:
        fail(f"after enable the list is {sorted(names)}")


async def error_paths(client):
    expectations = [
        ("read_note", {"path": "No such note"}, "note not found"),
        ("read_note", {"path": 5}, "Input validation error"),
        ("read_note", {"path": "../outside.md"}, "must stay inside the vault"),
        ("append", {"path": "Home", "content": "x", "expected_hash": "0" * 64}, "changed"),
    ]
    for name, arguments, wanted in expectations:
        result = await client.call_tool(name, arguments)
        if not result.is_error or wanted.lower() not in text_of(result).lower():
            fail(f"{name} {json.dumps(arguments)} should fail with {wanted!r}: {text_of(result)[:300]}")
    # An unknown tool is a protocol error (-32602), not a tool result, in both eras.
    try:
        unknown = await client.call_tool("no_such_tool", {})
        fail(f"an unknown tool gave a result: {text_of(unknown)[:300]}")
    except MCPError as error:
        if error.code != -32602 or "no_such_tool" not in str(error):
            fail(f"an unknown tool: {error.code} {error}")


async def read_from(client, side, within_s=15.0):
    """read_note until it comes from `side` (the bridge reconnects by itself); fails after `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while True:
        read = await client.call_tool("read_note", {"path": "Home"})
        if read.is_error:
            fail(f"read_note failed ({side} expected): {text_of(read)[:300]}")
        if from_disk(read) == (side == "disk"):
            return
        if time.monotonic() > deadline:
            fail(f"read_note still not from the {side} after {within_s:.0f} s: {text_of(read).split(chr(10))[0]}")
        await asyncio.sleep(0.2)


TEMPLATE = "obsidian://vault/{+path}"


async def resources(client, vault, side):
    """Every page of resources/list, the template, a completion and two reads, the reads answered from `side`."""
    uris = []
    cursor = None
    while True:
        page = await client.list_resources(cursor=cursor, cache_mode="bypass")
        uris += [str(resource.uri) for resource in page.resources]
        cursor = page.next_cursor
        if not cursor:
            break
    for wanted in ("obsidian://vault/Home.md", "obsidian://vault/Attachments/diagram.png", "obsidian://vault/Projekte/%C3%9Cber%20uns.md"):
        if wanted not in uris:
            fail(f"resources/list ({side}) does not list {wanted}: {uris[:30]}")
    templates = await client.list_resource_templates(cache_mode="bypass")
    if [template.uri_template for template in templates.resource_templates] != [TEMPLATE]:
        fail(f"resources/templates/list ({side}): {templates}")
    completed = await client.complete(ResourceTemplateReference(type="ref/resource", uri=TEMPLATE), {"name": "path", "value": "hom"})
    if completed.completion.values[:1] != ["Home.md"]:
        fail(f"completion of 'hom' ({side}): {completed.completion}")
    note = (await client.read_resource("obsidian://vault/Home.md", cache_mode="bypass")).contents[0]
    header = note.text.split("\n", 1)[0]
    if not header.startswith('[lines 1-') or header.endswith(" served_from=disk") != (side == "disk"):
        fail(f"resources/read of Home.md should come from the {side}: {header}")
    image = (await client.read_resource("obsidian://vault/Attachments/diagram.png", cache_mode="bypass")).contents[0]
    with open(os.path.join(vault, "Attachments", "diagram.png"), "rb") as file:
        if image.mime_type != "image/png" or base64.b64decode(image.blob) != file.read():
            fail(f"resources/read of the image ({side}) is not its bytes: {image.mime_type}")
    return len(uris)


async def subscriptions(client, mode, updates, side):
    """Subscribes to Home.md and hears its change after an append (the plugin up), or is told Obsidian is closed."""
    uri = "obsidian://vault/Home.md"
    if mode == "legacy":
        if side == "disk":
            try:
                await client.subscribe_resource(uri)
            except MCPError as error:
                if "Obsidian is closed" not in str(error):
                    fail(f"a subscription while Obsidian is closed: {error}")
                return
            fail("a subscription while Obsidian is closed was accepted")
        await client.subscribe_resource(uri)
        await client.call_tool("append", {"path": "Home", "content": "a subscribed change"})
        deadline = time.monotonic() + 10
        while uri not in updates:
            if time.monotonic() > deadline:
                fail(f"no notifications/resources/updated for {uri} within 10 s (heard {updates})")
            await asyncio.sleep(0.1)
        await client.unsubscribe_resource(uri)
        return
    if side == "disk":
        return
    async with client.listen(resource_subscriptions=[uri]) as stream:
        await client.call_tool("append", {"path": "Home", "content": "a listened change"})
        event = await asyncio.wait_for(anext(aiter(stream)), 10)
        if getattr(event, "uri", None) != uri:
            fail(f"the listen stream gave {event!r}, not the update of {uri}")


async def main(mode, obsmcp, vault, host_script, port, token):
    host = Host(host_script, vault, port, token)
    server = StdioServerParameters(command=obsmcp, args=["bridge", "--vault", vault, "--log-level", "warn"])
    updates = []
    list_changes = []

    async def on_message(message):
        notification = getattr(message, "root", message)
        if getattr(notification, "method", None) == "notifications/resources/updated":
            updates.append(str(notification.params.uri))
        if getattr(notification, "method", None) == "notifications/tools/list_changed":
            list_changes.append(time.monotonic())

    try:
        async with Client(
            server, mode=mode, client_info=Implementation(name="claude-code", version="1"), message_handler=on_message
        ) as client:
            if mode == "auto" and client.protocol_version != "2026-07-28":
                fail(f"auto mode negotiated {client.protocol_version}, not 2026-07-28")
            if mode == "legacy" and client.protocol_version == "2026-07-28":
                fail("legacy mode negotiated the stateless revision")
            if client.server_info is None or client.server_info.name != "obsmcp":
                fail(f"server info: {client.server_info}")

            # Obsidian closed: the whole list at once, reads from disk, writes refused with a reason.
            listed = {tool.name for tool in (await client.list_tools()).tools}
            if listed != CORE_LISTED:
                fail(f"the default list is not the core: {sorted(listed ^ CORE_LISTED)} differ")
            await read_from(client, "disk", within_s=0)
            refused = await client.call_tool("append", {"path": "Home", "content": "x"})
            if not refused.is_error or not re.search(r"obsidian", text_of(refused), re.IGNORECASE):
                fail(f"a write with Obsidian closed: {text_of(refused)[:300]}")
            status = await client.call_tool("obsidian_status", {})
            budget = (status.structured_content or {}).get("client", {}).get("outputBudget", {}).get("for")
            if budget != "Claude Code":
                fail(f"the budget follows the client's name: {budget}")
            resource_count = await resources(client, vault, "disk")
            await subscriptions(client, mode, updates, "disk")

            host.start()
            await read_from(client, "plugin")
            await resources(client, vault, "plugin")
            await subscriptions(client, mode, updates, "plugin")
            await every_tool(client, listed)
            await error_paths(client)
            await enable(client, mode, list_changes)

            host.stop()
            await read_from(client, "disk")
            await resources(client, vault, "disk")
            host.start()
            await read_from(client, "plugin")
            print(json.dumps({
                "ok": True,
                "mode": mode,
                "protocolVersion": client.protocol_version,
                "tools": len(listed),
                "toolsListChanged": len(list_changes),
                "calls": len(CALLS),
                "resources": resource_count,
            }))
    finally:
        host.stop()


if __name__ == "__main__":
    if len(sys.argv) != 7:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(*sys.argv[1:]))
    except* CheckFailed as failed:
        reason = failed
        while isinstance(reason, BaseExceptionGroup):
            reason = reason.exceptions[0]
        print(json.dumps({"ok": False, "reason": str(reason)}))
        sys.exit(1)
