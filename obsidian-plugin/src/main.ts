// The plugin's lifecycle only: load settings, start the vault's MCP server, show the settings tab, and stop the
// server on unload so the port is free at once. Everything else lives in server/, tools/ and settings.ts.

import { Notice, Plugin } from "obsidian";
import manifest from "../manifest.json";
import { VaultMcpServer } from "./server/http";
import type { ServerStatus } from "./server/status";
import { ALL_TOOLS } from "./tools/index";
import { generateToken, mergeSettings, ObsmcpSettingTab, type ObsmcpSettings, type SettingsHost } from "./settings";

export default class ObsmcpPlugin extends Plugin implements SettingsHost {
  override settings!: ObsmcpSettings;
  private data: Record<string, unknown> = {};
  private server: VaultMcpServer | undefined;

  override async onload(): Promise<void> {
    await this.loadSettings();
    const server = new VaultMcpServer({
      app: this.app,
      tools: ALL_TOOLS,
      serverInfo: { name: "obsmcp", version: manifest.version },
      ...this.settings,
    });
    this.server = server;
    this.register(() => server.stop());
    this.addSettingTab(new ObsmcpSettingTab(this.app, this, this));
    this.announce(await server.start());
  }

  /** The server's current status (also read by the Node test host). */
  get status(): ServerStatus {
    if (!this.server) return { state: "stopped", port: this.settings?.port ?? 0, clients: 0, readOnly: false };
    return this.server.status;
  }

  subscribeStatus(listener: (status: ServerStatus) => void): () => void {
    return this.server ? this.server.subscribe(listener) : () => undefined;
  }

  async changePort(port: number): Promise<ServerStatus> {
    await this.saveSettings({ port });
    const status = await this.requireServer().restart(port);
    this.announce(status);
    return status;
  }

  async regenerateToken(): Promise<void> {
    await this.saveSettings({ token: generateToken() });
    this.requireServer().setToken(this.settings.token);
  }

  async setHidden(hiddenPaths: string[], hideExcludedFiles: boolean): Promise<void> {
    await this.saveSettings({ hiddenPaths, hideExcludedFiles });
    this.requireServer().setHidden(this.settings);
  }

  async setPromptsFolder(promptsFolder: string): Promise<void> {
    await this.saveSettings({ promptsFolder });
    this.requireServer().setPromptsFolder(this.settings.promptsFolder);
  }

  hiddenRuleCount(): number {
    return this.server ? this.server.hiddenRuleCount() : 0;
  }

  async setReadOnly(readOnly: boolean): Promise<void> {
    await this.saveSettings({ readOnly });
    this.requireServer().setReadOnly(readOnly);
  }

  /** data.json changed outside Obsidian (sync, or `obsmcp setup`): apply the new values. */
  override async onExternalSettingsChange(): Promise<void> {
    const before = this.settings;
    await this.loadSettings();
    const server = this.requireServer();
    if (this.settings.token !== before.token) server.setToken(this.settings.token);
    if (this.settings.readOnly !== before.readOnly) server.setReadOnly(this.settings.readOnly);
    server.setHidden(this.settings);
    if (this.settings.promptsFolder !== before.promptsFolder) server.setPromptsFolder(this.settings.promptsFolder);
    if (this.settings.port !== before.port) this.announce(await server.restart(this.settings.port));
  }

  private async loadSettings(): Promise<void> {
    const { settings, data, changed } = mergeSettings(await this.loadData());
    this.settings = settings;
    this.data = data;
    if (changed) await this.saveData(this.data);
  }

  private async saveSettings(change: Partial<ObsmcpSettings>): Promise<void> {
    this.settings = { ...this.settings, ...change };
    this.data = { ...this.data, ...this.settings };
    await this.saveData(this.data);
  }

  private requireServer(): VaultMcpServer {
    if (!this.server) throw new Error("obsmcp: the server is not loaded");
    return this.server;
  }

  /** Tells the user when the vault could not be served; success is silent. */
  private announce(status: ServerStatus): void {
    if (status.state === "port-in-use") {
      new Notice(`obsmcp: port ${status.port} is already in use, so agents cannot reach this vault. Choose another port in Settings → obsmcp.`, 0);
    } else if (status.state === "failed") {
      new Notice(`obsmcp: the server did not start: ${status.lastError ?? "unknown error"}.`, 0);
    }
  }
}
