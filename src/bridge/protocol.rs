//! The MCP protocol revisions obsmcp speaks, in one place: the bridge on both sides and doctor's probes read them here.
//!
//! Plain strings, not rmcp's `ProtocolVersion`: the bridge frames and routes JSON-RPC itself (`server/mod.rs` says
//! why), and these names were all it took from rmcp, which is now a test-only dependency (the independent client of
//! `tests/it`). A new revision is added here, to `WITH_INITIALIZE` or as the new `STATELESS`.

/// The stateless revision: `server/discover`, and the version and client capabilities in every request's `_meta`.
pub(crate) const STATELESS: &str = "2026-07-28";

/// The revisions that open with `initialize`, newest first.
pub(crate) const WITH_INITIALIZE: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The newest revision that opens with `initialize`: what the bridge asks its upstream for, and answers a client
/// whose `initialize` names a version it does not speak.
pub(crate) const LATEST_WITH_INITIALIZE: &str = WITH_INITIALIZE[0];

/// Every revision the bridge speaks with its client, newest first.
pub(crate) const SUPPORTED: [&str; 5] = [
    STATELESS,
    WITH_INITIALIZE[0],
    WITH_INITIALIZE[1],
    WITH_INITIALIZE[2],
    WITH_INITIALIZE[3],
];

/// The revision doctor's probes open with: an `initialize` one, which the plugin and the bridge both answer.
pub(crate) const PROBE: &str = WITH_INITIALIZE[1];
