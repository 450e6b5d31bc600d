// The plugin's settings: the stored model (data.json, merged over defaults, with unknown keys kept for newer
// versions and for tools such as `obsmcp setup`) and the settings tab (live status, port, token, read-only, hidden
// paths, prompts folder, then how to connect an AI client, which lives in connect.ts).

import { App, Notice, PluginSettingTab, Setting } from "obsidian";
import { copyText, displayConnectSection } from "./connect";
import type { ServerStatus } from "./server/status";

/** What data.json holds. */
export interface ObsmcpSettings {
  port: number;
  token: string;
  readOnly: boolean;
  /** Hidden-path rules, one per entry (see tools/README.md, "Hidden paths"). */
  hiddenPaths: string[];
  /** Whether Obsidian's own "Excluded files" are hidden too. */
  hideExcludedFiles: boolean;
  /** The folder whose notes are served as MCP prompts ("" for none); see src/prompts/README.md. */
  promptsFolder: string;
}

/** Where vault prompts live unless the settings say otherwise. */
export const DEFAULT_PROMPTS_FOLDER = "Prompts";

export const DEFAULT_PORT = 22400;

/** Ports other local vault tools use by default (the older claude-code-mcp plugin, Local REST API). */
const RESERVED_PORTS = new Set([22360, 27123, 27124]);

/** A fresh token: 256 random bits as 64 hex characters. */
export function generateToken(): string {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Tokens we accept from data.json: long enough to be secret, and safe in an HTTP header. */
export function isValidToken(token: unknown): token is string {
  return typeof token === "string" && /^[A-Za-z0-9._~+/=-]{32,512}$/.test(token);
}

/** Why a port cannot be used, or undefined when it can. */
export function portProblem(port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1024 || port > 65535) return "use a whole number from 1024 to 65535";
  if (RESERVED_PORTS.has(port)) return `port ${port} is the default of another Obsidian plugin`;
  return undefined;
}

/**
 * Merges stored data over the defaults. Invalid or missing values are replaced (a new token is generated);
 * `changed` says whether the result differs from what was stored, so the caller saves it once.
 */
export function mergeSettings(stored: unknown): { settings: ObsmcpSettings; data: Record<string, unknown>; changed: boolean } {
  const data: Record<string, unknown> = isRecord(stored) ? { ...stored } : {};
  let changed = !isRecord(stored);
  const port = typeof data.port === "number" && portProblem(data.port) === undefined ? data.port : DEFAULT_PORT;
  const token = isValidToken(data.token) ? data.token : generateToken();
  const readOnly = typeof data.readOnly === "boolean" ? data.readOnly : false;
  // Hidden paths guard private notes: a value that is not a list of strings is kept as it is in data.json (nothing the
  // user wrote is lost) and read as the strings it holds, never as "no rules" when it holds some.
  const hiddenPaths = stringList(data.hiddenPaths);
  const hideExcludedFiles = data.hideExcludedFiles === true;
  const promptsFolder = typeof data.promptsFolder === "string" ? cleanFolderSetting(data.promptsFolder) : DEFAULT_PROMPTS_FOLDER;
  const settings = { port, token, readOnly, hiddenPaths, hideExcludedFiles, promptsFolder };
  for (const [key, value] of Object.entries({ port, token, readOnly })) {
    if (data[key] !== value) {
      data[key] = value;
      changed = true;
    }
  }
  return { settings, data, changed };
}

/** A folder as the settings keep it: trimmed, without slashes at its ends ("" means none). */
export function cleanFolderSetting(folder: string): string {
  return folder.trim().replace(/^\/+|\/+$/g, "");
}

/** The strings of a stored list (a lone string counts as a list of one). */
function stringList(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((item) => typeof item === "string" || typeof item === "number").map(String);
}

/** Rules as the settings tab's text box shows them: one per line. */
export function rulesFromText(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the settings tab needs from the plugin. */
export interface SettingsHost {
  readonly settings: ObsmcpSettings;
  readonly status: ServerStatus;
  subscribeStatus(listener: (status: ServerStatus) => void): () => void;
  changePort(port: number): Promise<ServerStatus>;
  regenerateToken(): Promise<void>;
  setReadOnly(readOnly: boolean): Promise<void>;
  setHidden(hiddenPaths: string[], hideExcludedFiles: boolean): Promise<void>;
  setPromptsFolder(folder: string): Promise<void>;
  /** How many hidden-path rules are in force (settings plus excluded files when asked). */
  hiddenRuleCount(): number;
}

/** One line saying what the server is doing, for the settings tab. */
export function describeStatus(status: ServerStatus): string {
  const clients = `${status.clients} ${status.clients === 1 ? "client" : "clients"}`;
  const indexing = status.indexing && !status.indexing.resolved ? ` · Obsidian indexing ${status.indexing.done} of ${status.indexing.total} notes` : "";
  const mode = `${status.readOnly ? " · read-only" : ""}${indexing}`;
  switch (status.state) {
    case "listening":
      return `Listening on 127.0.0.1:${status.port} · ${clients}${mode}`;
    case "starting":
      return `Starting on port ${status.port}…`;
    case "port-in-use":
      return `Not running: port ${status.port} is in use by another program; choose another port`;
    case "failed":
      return `Not running: ${status.lastError ?? "the server failed to start"}`;
    case "stopped":
      return "Stopped";
  }
}

export class ObsmcpSettingTab extends PluginSettingTab {
  private unsubscribe: (() => void) | undefined;

  constructor(app: App, plugin: import("obsidian").Plugin, private readonly host: SettingsHost) {
    super(app, plugin);
  }

  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    this.unsubscribe?.();

    const statusSetting = new Setting(containerEl).setName("Status");
    const statusEl = statusSetting.descEl.createDiv({ cls: "obsmcp-status" });
    const errorEl = statusSetting.descEl.createDiv({ cls: "obsmcp-last-error" });
    const render = (status: ServerStatus) => {
      statusEl.setText(describeStatus(status));
      statusEl.toggleClass("obsmcp-status-ok", status.state === "listening");
      errorEl.setText(status.lastError ? `Last error: ${status.lastError}` : "");
    };
    render(this.host.status);
    this.unsubscribe = this.host.subscribeStatus(render);

    let pendingPort = String(this.host.settings.port);
    const portSetting = new Setting(containerEl)
      .setName("Port")
      .setDesc("The local port the obsmcp bridge connects to (127.0.0.1 only). The bridge reads it from this vault's settings at each connection, so changing it needs no client change.");
    portSetting.addText((text) =>
      text
        .setPlaceholder(String(DEFAULT_PORT))
        .setValue(pendingPort)
        .onChange((value) => {
          pendingPort = value.trim();
        }),
    );
    portSetting.addButton((button) =>
      button.setButtonText("Apply").onClick(async () => {
        const port = Number(pendingPort);
        const problem = portProblem(port);
        if (problem) {
          new Notice(`obsmcp: ${pendingPort} cannot be used as the port: ${problem}.`);
          return;
        }
        const status = await this.host.changePort(port);
        new Notice(`obsmcp: ${describeStatus(status)}`);
      }),
    );

    const tokenSetting = new Setting(containerEl)
      .setName("Token")
      .setDesc("Proves a client is allowed in. The obsmcp bridge reads it from this vault's settings and never puts it in a client's configuration; a client that connects directly sends it as a bearer token.");
    const tokenEl = tokenSetting.descEl.createDiv({ cls: "obsmcp-token", text: this.host.settings.token });
    tokenSetting.addButton((button) => button.setButtonText("Copy").onClick(() => copyText(this.host.settings.token, "token")));
    tokenSetting.addButton((button) =>
      button
        .setButtonText("Regenerate")
        .setWarning()
        .onClick(async () => {
          await this.host.regenerateToken();
          tokenEl.setText(this.host.settings.token);
          new Notice("obsmcp: new token saved. The obsmcp bridge picks it up at its next connection; a client that connects directly needs the new one.");
        }),
    );

    new Setting(containerEl)
      .setName("Read-only")
      .setDesc("Hide and refuse every tool that changes the vault.")
      .addToggle((toggle) => toggle.setValue(this.host.settings.readOnly).onChange((value) => this.host.setReadOnly(value)));

    const hiddenSetting = new Setting(containerEl)
      .setName("Hidden paths")
      .setDesc(
        "Notes agents must never see, one rule per line: a name (Therapy) hides every file or folder of that name, a " +
          "path (Health/Journal) hides that folder or note, * ? ** are wildcards. Hidden notes do not exist for any tool: " +
          "not listed, searched, read, linked or counted.",
      );
    const countEl = hiddenSetting.descEl.createDiv({ cls: "obsmcp-hidden-count" });
    const showCount = () => {
      const count = this.host.hiddenRuleCount();
      countEl.setText(count === 0 ? "No rules in force." : `${count} ${count === 1 ? "rule" : "rules"} in force.`);
    };
    showCount();
    let pendingRules = this.host.settings.hiddenPaths.join("\n");
    hiddenSetting.addTextArea((area) =>
      area
        .setPlaceholder("Therapy\nFinance/Statements\n*.private.md")
        .setValue(pendingRules)
        .onChange((value) => {
          pendingRules = value;
        }),
    );
    hiddenSetting.addButton((button) =>
      button.setButtonText("Apply").onClick(async () => {
        await this.host.setHidden(rulesFromText(pendingRules), this.host.settings.hideExcludedFiles);
        showCount();
        new Notice("obsmcp: hidden paths saved; they apply to the next call of every agent.");
      }),
    );
    new Setting(containerEl)
      .setName("Hide Obsidian's excluded files")
      .setDesc("Also hide what Settings → Files and links → Excluded files lists.")
      .addToggle((toggle) =>
        toggle.setValue(this.host.settings.hideExcludedFiles).onChange(async (value) => {
          await this.host.setHidden(this.host.settings.hiddenPaths, value);
          showCount();
        }),
      );

    let pendingFolder = this.host.settings.promptsFolder;
    const promptsSetting = new Setting(containerEl)
      .setName("Prompts folder")
      .setDesc(
        "Notes in this folder are offered to clients as prompts (slash commands in Claude Code): the note's name is the " +
          "prompt's, frontmatter gives its description and arguments, {{argument}} is filled in and ![[embeds]] are " +
          "inlined. Empty: no vault prompts (the built-in ones stay).",
      );
    promptsSetting.addText((text) =>
      text
        .setPlaceholder(DEFAULT_PROMPTS_FOLDER)
        .setValue(pendingFolder)
        .onChange((value) => {
          pendingFolder = value;
        }),
    );
    promptsSetting.addButton((button) =>
      button.setButtonText("Apply").onClick(async () => {
        await this.host.setPromptsFolder(cleanFolderSetting(pendingFolder));
        new Notice(
          this.host.settings.promptsFolder === ""
            ? "obsmcp: vault prompts are off."
            : `obsmcp: prompts now come from ${this.host.settings.promptsFolder}/.`,
        );
      }),
    );

    displayConnectSection(containerEl, this.app);
  }

  override hide(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    super.hide();
  }
}
