//! Version strings: the binary's own, and the plugin version it carries inside.

/// The version of the plugin bundled into this binary, from its manifest.
pub(crate) const PLUGIN: &str = env!("OBSMCP_PLUGIN_VERSION");

/// What `--version` prints: the binary's version and the bundled plugin's.
pub(crate) const LONG: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (plugin ",
    env!("OBSMCP_PLUGIN_VERSION"),
    ")"
);
