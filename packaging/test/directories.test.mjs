// What catalogs read straight from the repository, checked against their documented rules (no tool of theirs runs
// offline): Obsidian's community directory reads `manifest.json` and `versions.json` at the repository's root, which
// must be the plugin's own; the Agent Plugins 1.0 format (VS Code, Copilot, Cursor, Kiro) reads `plugin.json` and
// `mcp.json` of packaging/agent-plugin, whose schemas are closed and whose placeholders may not stand in `command`.
//
//   node --test packaging/test/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from './release-versions.mjs';

const json = (file) => JSON.parse(readFileSync(path.join(repositoryRoot, file), 'utf8'));

test("the root manifest.json and versions.json are the plugin's, for Obsidian's community directory", () => {
  for (const file of ['manifest.json', 'versions.json']) {
    assert.deepEqual(json(file), json(`obsidian-plugin/${file}`), `${file} differs from obsidian-plugin/${file}: copy it`);
  }
  const manifest = json('manifest.json');
  assert.equal(json('versions.json')[manifest.version], manifest.minAppVersion, 'versions.json maps the version to minAppVersion');
  for (const key of ['id', 'name', 'version', 'minAppVersion', 'description', 'author', 'isDesktopOnly']) {
    assert.ok(key in manifest, `manifest.json lacks ${key}, which the directory requires`);
  }
});

const PLUGIN_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const MCP_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json';
const NAME = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

test('packaging/agent-plugin is an Agent Plugins 1.0 plugin', () => {
  const plugin = json('packaging/agent-plugin/plugin.json');
  assert.equal(plugin.$schema, PLUGIN_SCHEMA, 'plugin.json needs its $schema');
  assert.ok(NAME.test(plugin.name) && plugin.name.length <= 64, `plugin name ${plugin.name}`);
  const allowed = ['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'extensions'];
  assert.deepEqual(Object.keys(plugin).filter((key) => !allowed.includes(key)), [], 'plugin.json is a closed schema');

  const mcp = json('packaging/agent-plugin/mcp.json');
  assert.equal(mcp.$schema, MCP_SCHEMA, 'without its $schema a client switches the plugin\'s MCP servers off');
  assert.deepEqual(Object.keys(mcp).sort(), ['$schema', 'mcpServers']);
  const servers = Object.entries(mcp.mcpServers);
  assert.ok(servers.length > 0, 'mcp.json declares a server');
  for (const [name, server] of servers) {
    assert.equal(server.type, 'stdio', `${name}: type`);
    assert.equal(typeof server.command, 'string', `${name}: command`);
    assert.ok(!server.command.includes('${'), `${name}: placeholders are expanded in args, env and cwd, never in command`);
    const extra = Object.keys(server).filter((key) => !['type', 'command', 'args', 'env', 'cwd'].includes(key));
    assert.deepEqual(extra, [], `${name}: a stdio server has type, command, args, env, cwd only`);
    assert.ok(!('PLUGIN_ROOT' in (server.env ?? {})) && !('PLUGIN_DATA' in (server.env ?? {})), `${name}: env may not set PLUGIN_ROOT or PLUGIN_DATA`);
  }
  // The same server as the Claude Code / Codex file, so every client runs one thing.
  const claude = json('packaging/agent-plugin/.mcp.json').mcpServers;
  for (const [name, server] of servers) {
    assert.equal(claude[name]?.command, server.command, `.mcp.json's ${name} runs the same command`);
    assert.deepEqual(claude[name]?.args, server.args, `.mcp.json's ${name} has the same args`);
  }
});
