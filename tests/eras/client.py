"""One MCP client session with `obsmcp bridge` over stdio, through the official Python SDK (mcp 2.x).

usage: client.py MODE OBSMCP VAULT EXPECT_SOURCE
  MODE           auto (probe server/discover, fall back to initialize) or legacy (initialize only)
  OBSMCP         the obsmcp binary
  VAULT          the vault folder (its plugin's data.json names the port)
  EXPECT_SOURCE  disk (Obsidian closed) or plugin (the plugin host serves the vault)

Prints one JSON line with what was negotiated and seen; exits 1 with the reason when a check fails.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.types import Implementation


class CheckFailed(Exception):
    """A check that did not hold; its reason is printed as the script's one line."""


def fail(reason):
    raise CheckFailed(reason)


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(mode, obsmcp, vault, expect_source):
    server = StdioServerParameters(command=obsmcp, args=["bridge", "--vault", vault, "--log-level", "warn"])
    async with Client(server, mode=mode, client_info=Implementation(name="claude-code", version="1")) as client:
        expected_version = "2026-07-28" if mode == "auto" else None
        if expected_version and client.protocol_version != expected_version:
            fail(f"negotiated {client.protocol_version}, not {expected_version}")
        if mode == "legacy" and client.protocol_version == "2026-07-28":
            fail("legacy mode negotiated the stateless revision")
        if client.server_info is None or client.server_info.name != "obsmcp":
            fail(f"server info: {client.server_info}")
        tools = await client.list_tools()
        names = {tool.name for tool in tools.tools}
        for wanted in ("read_note", "search", "append", "obsidian_status"):
            if wanted not in names:
                fail(f"{wanted} not listed: {sorted(names)}")
        read = await client.call_tool("read_note", {"path": "Home"})
        if read.is_error:
            fail(f"read_note failed: {text_of(read)}")
        header = text_of(read).split("\n", 1)[0]
        from_disk = header.endswith(" served_from=disk")
        if from_disk != (expect_source == "disk"):
            fail(f"read_note answered from the wrong side (expected {expect_source}): {header}")
        missing = await client.call_tool("read_note", {"path": "No such note"})
        if not missing.is_error or "note not found" not in text_of(missing):
            fail(f"a missing note: {text_of(missing)}")
        status = await client.call_tool("obsidian_status", {})
        budget = (status.structured_content or {}).get("client", {}).get("outputBudget", {}).get("for")
        if budget != "Claude Code":
            fail(f"the budget follows the client's name: {budget}")
        print(json.dumps({
            "ok": True,
            "mode": mode,
            "protocolVersion": client.protocol_version,
            "tools": len(names),
            "source": "disk" if from_disk else "plugin",
        }))


if __name__ == "__main__":
    if len(sys.argv) != 5:
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
