// The settings tab's "Connect an AI client" section, for someone who installed only this plugin (from Obsidian's
// community directory): the one `obsmcp setup` command that registers this vault with their AI clients, and the
// client entry for those who edit a client's configuration by hand. Both name the vault by its absolute folder,
// quoted for the terminal or JSON they are pasted into; neither holds the token, which the bridge reads from the
// vault's data.json each time it connects.

import { FileSystemAdapter, Notice, Setting, type App } from "obsidian";

/** The config folder a vault has unless Obsidian was told otherwise; any other must be passed as `--config-dir`. */
const DEFAULT_CONFIG_DIR = ".obsidian";

/** The one-off runners that fetch obsmcp from their registry and run it, with what each needs installed. */
const RUNNERS = [
  { command: "npx", needs: "Node.js" },
  { command: "uvx", needs: "uv" },
];

/** The vault's folder on this computer, or undefined when the vault is not on a local file system. */
export function vaultFolder(app: App): string | undefined {
  const adapter = app.vault.adapter;
  return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : undefined;
}

/** A drive-letter or UNC path: the terminal it is pasted into is PowerShell or cmd, which quote differently. */
function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * One argument quoted for the terminal it will be pasted into, in double quotes when that is safe.
 *
 * POSIX shells (sh, bash, zsh): inside double quotes `"`, `\`, `$` and `` ` `` are special, and an interactive shell
 * expands `!` there with no escape that works, so text holding any of them goes in single quotes instead, each `'`
 * written as `'\''`. Windows: a path cannot contain `"`, so double quotes always close properly, but PowerShell (the
 * default terminal) expands `$` and `` ` `` inside them; such a path goes in PowerShell's literal single quotes, each
 * `'` doubled.
 */
export function shellQuote(text: string): string {
  if (isWindowsPath(text)) return /[$`]/.test(text) ? `'${text.replace(/'/g, "''")}'` : `"${text}"`;
  return /["\\$`!]/.test(text) ? `'${text.replace(/'/g, "'\\''")}'` : `"${text}"`;
}

/** The arguments that name the vault to obsmcp: `--vault FOLDER`, and `--config-dir NAME` when it is not the default. */
function vaultArguments(folder: string, configDir: string): string[] {
  return configDir === DEFAULT_CONFIG_DIR ? ["--vault", folder] : ["--vault", folder, "--config-dir", configDir];
}

/** The setup command for this vault as typed in a terminal, after `runner` (`npx`, `uvx`) when one is given. */
export function setupCommand(folder: string, configDir: string, runner?: string): string {
  // Flags and their values alternate; only the values are quoted.
  const quoted = vaultArguments(folder, configDir).map((word, index) => (index % 2 === 0 ? word : shellQuote(word)));
  return [...(runner === undefined ? [] : [runner]), "obsmcp", "setup", ...quoted].join(" ");
}

/** What a client's MCP configuration needs for this vault: `mcpServers.obsidian`, as pretty-printed JSON. */
export function clientEntry(folder: string, configDir: string): string {
  const server = { command: "obsmcp", args: ["bridge", ...vaultArguments(folder, configDir)] };
  return JSON.stringify({ mcpServers: { obsidian: server } }, null, 2);
}

/** Puts `text` on the clipboard and says so; when that fails, says how to copy `what` by hand instead. */
export async function copyText(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    new Notice(`obsmcp: ${what} copied.`);
  } catch (error) {
    new Notice(`obsmcp: could not copy the ${what} (${(error as Error).message}); select and copy it by hand.`);
  }
}

/** Adds the section to the settings tab's container. */
export function displayConnectSection(containerEl: HTMLElement, app: App): void {
  new Setting(containerEl).setName("Connect an AI client").setHeading();
  const folder = vaultFolder(app);
  if (folder === undefined) {
    new Setting(containerEl)
      .setName("No folder to connect")
      .setDesc("This vault is not on a local file system, so there is no folder that obsmcp could point an AI client at.");
    return;
  }
  const configDir = app.vault.configDir;

  const command = setupCommand(folder, configDir);
  const setup = new Setting(containerEl)
    .setName("Set up with one command")
    .setDesc("Run this in a terminal: it registers this vault with the AI clients it finds on this computer (Claude Code, Codex, Claude Desktop and others); then \"obsmcp doctor\" checks the result.");
  codeLine(setup.descEl, "", command);
  setup.descEl.createDiv({ text: "obsmcp not installed? Either of these downloads it and runs the same setup:" });
  for (const runner of RUNNERS) codeLine(setup.descEl, `With ${runner.needs}: `, setupCommand(folder, configDir, runner.command));
  setup.addButton((button) => button.setButtonText("Copy").onClick(() => copyText(command, "setup command")));

  const entry = clientEntry(folder, configDir);
  const byHand = new Setting(containerEl)
    .setName("Configure a client by hand")
    .setDesc("Or add this entry to the client's MCP servers (the obsmcp command must be on the PATH the client sees; otherwise write its full path). The token is never in it: the bridge reads it from this vault each time it connects.");
  byHand.descEl.createEl("pre", { cls: "obsmcp-command", text: entry });
  byHand.addButton((button) => button.setButtonText("Copy").onClick(() => copyText(entry, "client entry")));
}

/** A line of the description: `label`, then `text` as code. */
function codeLine(parent: HTMLElement, label: string, text: string): void {
  parent.createDiv({ text: label }).createEl("code", { cls: "obsmcp-command", text });
}
