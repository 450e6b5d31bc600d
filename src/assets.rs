//! Everything this binary carries from the repository, embedded at build time: the plugin's files (installed by
//! setup and by doctor's `--fix`), the template of the plugin's `data.json`, and the plugin's generated tool catalog,
//! parsed once for every user (the bridge's tool list while Obsidian is closed, offline mode's argument schemas,
//! setup's permission rules). The AI clients' config templates are the installer's (`installer/src/clients/`).

use std::sync::LazyLock;

use obsmcp_installer::obsidian_files::plugin::PluginBundle;
use serde_json::Value;

/// The plugin files this binary installs.
pub(crate) const BUNDLE: PluginBundle = PluginBundle {
    main_js: include_bytes!("../obsidian-plugin/main.js"),
    manifest: include_bytes!("../obsidian-plugin/manifest.json"),
    styles: Some(include_bytes!("../obsidian-plugin/styles.css")),
};

/// The plugin's initial `data.json`, with `{port}` and `{token}` placeholders.
pub(crate) const DATA_TEMPLATE: &str = include_str!("../templates/plugin/data.json");

/// The plugin's catalog as generated at build time, `{"pluginVersion": "…", "tools": [ … ]}`.
const CATALOG: &str = include_str!("../obsidian-plugin/catalog.json");

/// The catalog's tools, as `tools/list` returns them.
pub(crate) fn catalog_tools() -> &'static [Value] {
    static TOOLS: LazyLock<Vec<Value>> = LazyLock::new(|| {
        serde_json::from_str::<Value>(CATALOG)
            .ok()
            .and_then(|catalog| catalog.get("tools")?.as_array().cloned())
            .unwrap_or_default()
    });
    &TOOLS
}

/// One tool of the catalog, by name.
pub(crate) fn catalog_tool(name: &str) -> Option<&'static Value> {
    catalog_tools()
        .iter()
        .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
}

/// The tools the plugin marks `readOnlyHint: true`: the ones Claude Code's permission rules pre-approve.
pub(crate) fn read_only_tools() -> Vec<String> {
    catalog_tools()
        .iter()
        .filter(|tool| tool["annotations"]["readOnlyHint"] == true)
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_is_embedded_whole() {
        assert!(
            catalog_tools().len() >= 20,
            "{} tools",
            catalog_tools().len()
        );
        assert!(catalog_tool("read_note").is_some());
        let read_only = read_only_tools();
        assert!(read_only.contains(&"search".to_string()));
        assert!(!read_only.contains(&"append".to_string()));
    }
}
