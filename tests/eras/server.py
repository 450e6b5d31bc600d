"""A stdio MCP server on the official Python SDK (mcp 2.x), which serves 2026-07-28 to a client that discovers it and
the 2025 era to one that opens with `initialize`: the upstream of the bridge's `--` mode in check.sh.

usage: server.py            (stdio)
       server.py --http PORT (Streamable HTTP on 127.0.0.1:PORT/mcp)
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-sdk-upstream")


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return f"echo: {text}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
