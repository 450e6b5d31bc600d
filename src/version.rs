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

/// The variable that keeps `--version` to its first line: set when one obsmcp asks another (doctor, `--version`), so
/// that asking never recurses.
pub(crate) const BRIEF: &str = "OBSMCP_VERSION_BRIEF";

/// Whether version `a` is newer than `b` (dot-separated numbers; a pre-release suffix counts as older).
pub(crate) fn newer(a: &str, b: &str) -> bool {
    fn parts(version: &str) -> (Vec<u64>, bool) {
        let (core, pre) = version.split_once('-').unwrap_or((version, ""));
        let numbers = core
            .split('.')
            .map(|part| part.parse().unwrap_or(0))
            .collect();
        (numbers, pre.is_empty())
    }
    parts(a) > parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number_and_a_release_beats_its_pre_release() {
        assert!(newer("0.2.0", "0.1.9"));
        assert!(newer("0.10.0", "0.9.0"));
        assert!(newer("1.0.0", "1.0.0-rc.1"));
        assert!(!newer("0.1.0", "0.1.0"));
        assert!(!newer("0.1.0-rc.1", "0.1.0"));
        assert!(!newer("0.1.0", "0.2.0"));
    }
}
