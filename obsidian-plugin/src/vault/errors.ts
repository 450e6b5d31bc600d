// The error every tool and every vault helper below the tools refuses with (the offline reader's twin:
// src/offline/plugin/vault/errors.rs). A leaf, so that the vault layer can refuse without importing the tools.

/** A failure the agent should see as a tool result with `isError: true` and this message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
