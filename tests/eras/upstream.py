"""The bridge in front of a Python SDK server (`obsmcp bridge -- python server.py`), driven by the Python SDK client.

usage: upstream.py MODE OBSMCP PYTHON [URL]
  MODE    auto or legacy: how the client opens its side
  OBSMCP  the obsmcp binary; PYTHON the interpreter that runs server.py
  URL     server.py already serving Streamable HTTP there (`--url`); without it, server.py over stdio (`--`)

The bridge must have opened its upstream session by discovery, in 2026-07-28 (obsidian_status says so), and pass a
call through. Prints one JSON line; exits 1 with the reason when a check fails.
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


class CheckFailed(Exception):
    """A check that did not hold; its reason is printed as the script's one line."""


def fail(reason):
    raise CheckFailed(reason)


async def main(mode, obsmcp, python, url=None):
    server_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server.py")
    upstream_args = ["--url", url] if url else ["--", python, server_script]
    bridge = StdioServerParameters(command=obsmcp, args=["bridge", "--log-level", "warn", *upstream_args])
    async with Client(bridge, mode=mode) as client:
        echoed = await client.call_tool("echo", {"text": "hello"})
        text = "".join(getattr(block, "text", "") for block in echoed.content)
        if echoed.is_error or text != "echo: hello":
            fail(f"echo through the bridge: {text}")
        status = (await client.call_tool("obsidian_status", {})).structured_content or {}
        upstream = status.get("server", {})
        if upstream.get("protocolVersion") != "2026-07-28" or upstream.get("name") != "python-sdk-upstream":
            fail(f"the bridge's upstream session: {upstream}")
        print(json.dumps({"ok": True, "mode": mode, "client": client.protocol_version, "upstream": upstream}))


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
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
