"""Run with Hermes Agent's own Python (check.sh): connects Hermes's MCP layer to the `obsidian` entry that setup
wrote, as the agent does at start, and prints the tools it registers for it. Hermes turns a server's resources and
prompts into four tools of its own; this checks they are there and work through the bridge: list_resources lists the
vault's notes, read_resource reads one, list_prompts and get_prompt serve the built-in prompts.

usage: python hermes_tools.py   (HOME / HERMES_HOME name the setup's home; with Obsidian open or closed alike)
Exits 0 when every check holds, 1 with the reason otherwise."""

import json
import sys

from hermes_cli.config import load_config
from tools import mcp_tool


def main() -> int:
    servers = load_config().get("mcp_servers", {})
    if "obsidian" not in servers:
        print("  no mcp_servers.obsidian in Hermes's config")
        return 1
    try:
        names = mcp_tool.register_mcp_servers({"obsidian": servers["obsidian"]})
        utility = {name.rsplit("__", 1)[-1]: name for name in names if name.startswith("mcp__obsidian__")}
        wanted = ["list_resources", "read_resource", "list_prompts", "get_prompt"]
        missing = [name for name in wanted if name not in utility]
        print("  hermes registered:", ", ".join(sorted(utility)))
        if missing:
            print("  missing:", missing)
            return 1
        listed = json.loads(mcp_tool._make_list_resources_handler("obsidian", 60)({}))
        uris = [resource.get("uri") for resource in listed.get("resources", [])]
        if "obsidian://vault/Home.md" not in uris:
            print("  list_resources:", json.dumps(listed)[:300])
            return 1
        read = mcp_tool._make_read_resource_handler("obsidian", 60)({"uri": "obsidian://vault/Home.md"})
        if "[lines 1-" not in read or 'path=\\"Home.md\\"' not in read:
            print("  read_resource:", read[:300])
            return 1
        prompts = json.loads(mcp_tool._make_list_prompts_handler("obsidian", 60)({}))
        if "summarize-note" not in [prompt.get("name") for prompt in prompts.get("prompts", [])]:
            print("  list_prompts:", json.dumps(prompts)[:300])
            return 1
        got = mcp_tool._make_get_prompt_handler("obsidian", 60)({"name": "summarize-note", "arguments": {"path": "Home"}})
        if "Summarize this note from my Obsidian vault" not in got:
            print("  get_prompt:", got[:300])
            return 1
        print(f"  {len(uris)} resources listed, Home.md read, {len(prompts['prompts'])} prompts, summarize-note built")
        return 0
    finally:
        mcp_tool.shutdown_mcp_servers()


if __name__ == "__main__":
    sys.exit(main())
