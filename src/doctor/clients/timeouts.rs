//! The entry keys of each client that can hide obsmcp when set too low, with the lowest sensible value: data the
//! timeout checks read.

/// A timeout key of one client, with the lowest value that leaves obsmcp room to work.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeoutRule {
    /// Which client.
    pub(crate) client: &'static str,
    /// The entry key.
    pub(crate) key: &'static str,
    /// The lowest sensible value, in the key's own unit.
    pub(crate) minimum: f64,
    /// The unit, for the message.
    pub(crate) unit: &'static str,
    /// What the key bounds.
    pub(crate) bounds: &'static str,
}

/// Per-client entry keys that can hide obsmcp when set too low (from `reference/clients.md`).
pub(crate) fn client_rules() -> &'static [TimeoutRule] {
    &[
        TimeoutRule {
            client: "codex",
            key: "startup_timeout_sec",
            minimum: 5.0,
            unit: "s",
            bounds: "the server's start",
        },
        TimeoutRule {
            client: "codex",
            key: "startup_timeout_ms",
            minimum: 5000.0,
            unit: "ms",
            bounds: "the server's start",
        },
        TimeoutRule {
            client: "codex",
            key: "tool_timeout_sec",
            minimum: 30.0,
            unit: "s",
            bounds: "each tool call",
        },
        TimeoutRule {
            client: "hermes",
            key: "connect_timeout",
            minimum: 5.0,
            unit: "s",
            bounds: "the server's start",
        },
        TimeoutRule {
            client: "hermes",
            key: "timeout",
            minimum: 30.0,
            unit: "s",
            bounds: "each tool call",
        },
        TimeoutRule {
            client: "gemini",
            key: "timeout",
            minimum: 30000.0,
            unit: "ms",
            bounds: "each request",
        },
        TimeoutRule {
            client: "opencode",
            key: "timeout",
            minimum: 5000.0,
            unit: "ms",
            bounds: "the server's start",
        },
    ]
}
