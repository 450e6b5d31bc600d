// What the vault layer may use of a tool run (`ToolContext` in ../tools/types.ts is this and more): the app, the
// config folder, the hidden-path rules and the cancellation signal. Types only, so that every vault helper can name
// them without importing the tools above it.

import type { App } from "obsidian";

/** Compiled hidden-path rules (compiled by ./hidden.ts). */
export interface HiddenRules {
  /** How many rules are active (never which paths they match). */
  readonly count: number;
  /** Whether a vault path is hidden by the rules themselves (no symlinks followed). */
  hides(path: string): boolean;
}

/** What a vault helper may use of the call it runs for. */
export interface VaultContext {
  app: App;
  /** The vault's config folder (`app.vault.configDir`); tools never read or write inside it. */
  configDir: string;
  /** The hidden-path rules in force for this call: what they hide does not exist for any tool. */
  hidden: HiddenRules;
  /** Aborted when the client cancels the request or the session ends. */
  signal: AbortSignal;
}
