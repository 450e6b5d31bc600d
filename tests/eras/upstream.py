"""The bridge in front of an MCP server that offers 2026-07-28, driven by the Python SDK client.

usage: upstream.py MODE OBSMCP NAME -- COMMAND [ARG...]   (the server over stdio: `obsmcp bridge -- COMMAND`)
       upstream.py MODE OBSMCP NAME --url URL             (the server over Streamable HTTP: `obsmcp bridge --url`)
  MODE    auto or legacy: how the client opens its side
  OBSMCP  the obsmcp binary
  NAME    the server's name, as its discovery answer gives it

The server has one tool, `echo`. The bridge must have opened its upstream session by discovery, in 2026-07-28
(obsidian_status says so), whichever era the client chose, and pass a call through. Prints one JSON line; exits 1
with the reason when a check fails.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


class CheckFailed(Exception):
    """A check that did not hold; its reason is printed as the script's one line."""


def fail(reason):
    raise CheckFailed(reason)


async def main(mode, obsmcp, name, upstream_args):
    bridge = StdioServerParameters(command=obsmcp, args=["bridge", "--log-level", "warn", *upstream_args])
    async with Client(bridge, mode=mode) as client:
        echoed = await client.call_tool("echo", {"text": "hello"})
        text = "".join(getattr(block, "text", "") for block in echoed.content)
        if echoed.is_error or text != "echo: hello":
            fail(f"echo through the bridge: {text}")
        status = (await client.call_tool("obsidian_status", {})).structured_content or {}
        upstream = status.get("server", {})
        if upstream.get("protocolVersion") != "2026-07-28" or upstream.get("name") != name:
            fail(f"the bridge's upstream session: {upstream}")
        print(json.dumps({"ok": True, "mode": mode, "client": client.protocol_version, "upstream": upstream}))


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[4] not in ("--", "--url"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
    except* CheckFailed as failed:
        reason = failed
        while isinstance(reason, BaseExceptionGroup):
            reason = reason.exceptions[0]
        print(json.dumps({"ok": False, "reason": str(reason)}))
        sys.exit(1)
