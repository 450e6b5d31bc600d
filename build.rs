//! Reads the bundled plugin's version from its manifest so that `--version` and doctor name the exact plugin this
//! binary carries, without a second place to update on release.

fn main() {
    let manifest = "obsidian-plugin/manifest.json";
    println!("cargo::rerun-if-changed={manifest}");
    let text =
        std::fs::read_to_string(manifest).expect("obsidian-plugin/manifest.json is readable");
    let version = text
        .split("\"version\"")
        .nth(1)
        .and_then(|rest| rest.split('"').nth(1))
        .expect("obsidian-plugin/manifest.json has a \"version\" string");
    println!("cargo::rustc-env=OBSMCP_PLUGIN_VERSION={version}");
}
