//! What can hide obsmcp from a client although its entry is there, as data on the client's row: entry keys that bound
//! its start or its calls, and gates outside the entry (approvals, folder trust, safe mode).
//!
//! The installer never acts on these: `obsmcp doctor` reads them and knows how to check each [`Gate`]. They are kept
//! here, as plain data, so that everything about one client is read in one row of [`CLIENTS`](super::CLIENTS), while
//! the checks themselves (which read settings files and run programs) stay in doctor.

/// An entry key that hides obsmcp when set too low, with the lowest value that leaves it room to work.
#[derive(Debug, Clone, Copy)]
pub struct TimeoutKey {
    /// The entry key.
    pub key: &'static str,
    /// The lowest sensible value, in the key's own unit.
    pub minimum: f64,
    /// The unit, for messages.
    pub unit: &'static str,
    /// What the key bounds, for messages.
    pub bounds: &'static str,
}

/// A gate outside a client's entry that can keep obsmcp from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Claude Code's deny and allow lists in its settings files, and `MCP_TIMEOUT`.
    ClaudeCodeSettings,
    /// Claude Code's approval of the servers in a project's `.mcp.json`.
    ClaudeCodeProjectApproval,
    /// Codex's trust of a project folder, without which it ignores the project's config.
    CodexProjectTrust,
    /// Gemini CLI's trusted folders: outside one it shows every MCP server as Disabled.
    GeminiFolderTrust,
    /// Hermes Agent's safe mode, in which it starts no MCP server.
    HermesSafeMode,
    /// Whether the Python that runs Hermes Agent can import the MCP SDK (`hermes-agent[mcp]`).
    HermesMcpSdk,
}

/// Codex's timeouts (`reference/clients.md`).
pub(super) const CODEX_TIMEOUTS: &[TimeoutKey] = &[
    TimeoutKey {
        key: "startup_timeout_sec",
        minimum: 5.0,
        unit: "s",
        bounds: "the server's start",
    },
    TimeoutKey {
        key: "startup_timeout_ms",
        minimum: 5000.0,
        unit: "ms",
        bounds: "the server's start",
    },
    TimeoutKey {
        key: "tool_timeout_sec",
        minimum: 30.0,
        unit: "s",
        bounds: "each tool call",
    },
];

/// Hermes Agent's timeouts.
pub(super) const HERMES_TIMEOUTS: &[TimeoutKey] = &[
    TimeoutKey {
        key: "connect_timeout",
        minimum: 5.0,
        unit: "s",
        bounds: "the server's start",
    },
    TimeoutKey {
        key: "timeout",
        minimum: 30.0,
        unit: "s",
        bounds: "each tool call",
    },
];

/// Gemini CLI's timeout.
pub(super) const GEMINI_TIMEOUTS: &[TimeoutKey] = &[TimeoutKey {
    key: "timeout",
    minimum: 30000.0,
    unit: "ms",
    bounds: "each request",
}];

/// opencode's timeout.
pub(super) const OPENCODE_TIMEOUTS: &[TimeoutKey] = &[TimeoutKey {
    key: "timeout",
    minimum: 5000.0,
    unit: "ms",
    bounds: "the server's start",
}];
