// Telling clients that the vault changed, from Obsidian's own vault events: a file created, deleted or renamed
// changes the resource list (and the prompt list when it is in the prompts folder); a file modified, deleted or
// renamed away is `resources/updated` for the clients subscribed to its URI (a prompt note's edit also changes the
// prompt list, whose descriptions and arguments come from it). A hidden path makes no notice at all. Notices are
// gathered for COALESCE_MS and sent once, so a sync that touches a thousand files costs one list notice.
// 2025-era sessions get them on their streams; 2026-07-28 clients on their `subscriptions/listen` streams.

import type { App, EventRef } from "obsidian";
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import { uriOf } from "../resources/uri";
import type { HiddenRules } from "../vault/hidden";
import type { Session } from "./sessions";

/** How long notices are gathered before they are sent. */
export const COALESCE_MS = 100;

/** Where the notices go, read at the moment they are sent. */
export interface NoticeTargets {
  sessions(): Session[];
  modern(): McpHttpHandler | undefined;
  hidden(): HiddenRules;
  promptsFolder(): string;
}

export class ChangeNotices {
  private resources = false;
  private prompts = false;
  private readonly updated = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refs: EventRef[] = [];

  constructor(
    private readonly app: App,
    private readonly targets: NoticeTargets,
  ) {}

  start(): void {
    if (this.refs.length > 0) return;
    const { vault } = this.app;
    this.refs = [
      vault.on("create", (file) => this.changed(file.path, true)),
      vault.on("delete", (file) => this.changed(file.path, true, true)),
      vault.on("modify", (file) => this.changed(file.path, false, true)),
      vault.on("rename", (file, oldPath) => {
        this.changed(oldPath, true, true);
        this.changed(file.path, true);
      }),
    ];
  }

  stop(): void {
    for (const ref of this.refs) this.app.vault.offref(ref);
    this.refs = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    this.updated.clear();
    this.resources = this.prompts = false;
  }

  /** Every list may have changed (hidden paths or the prompts folder changed in the settings). */
  listsChanged(): void {
    this.resources = this.prompts = true;
    this.schedule();
  }

  private changed(path: string, listed: boolean, gone = false): void {
    if (this.targets.hidden().hides(path)) return;
    if (listed) this.resources = true;
    if (gone || !listed) this.updated.add(uriOf(path));
    const folder = this.targets.promptsFolder();
    if (folder !== "" && path.startsWith(`${folder}/`)) this.prompts = true;
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const sessions = this.targets.sessions();
    const modern = this.targets.modern();
    // A session whose stream is gone cannot be told; its next list shows the change anyway.
    const quietly = (sent: Promise<void>) => void sent.catch(() => undefined);
    if (this.resources) {
      for (const session of sessions) quietly(session.server.sendResourceListChanged());
      modern?.notify.resourcesChanged();
    }
    if (this.prompts) {
      for (const session of sessions) quietly(session.server.sendPromptListChanged());
      modern?.notify.promptsChanged();
    }
    for (const uri of this.updated) {
      for (const session of sessions) if (session.subscriptions.has(uri)) quietly(session.server.sendResourceUpdated({ uri }));
      modern?.notify.resourceUpdated(uri);
    }
    this.resources = this.prompts = false;
    this.updated.clear();
  }
}
