//! The typed report every doctor run builds once: sections (the machine, each vault, each client) holding checks,
//! each with a stable id, a status, a one-line finding and the exact fix. The text and JSON printers both render this
//! one value, so what people read and what agents parse can never disagree.

use serde::Serialize;

/// How a check came out. The order matters: a section or a run is as bad as its worst check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Not applicable, or not checkable because an earlier check failed.
    Skip,
    /// Works.
    Ok,
    /// Works, but something will bite later or needs the user's eyes.
    Warn,
    /// Broken: obsmcp will not work through this link.
    Fail,
}

/// A repair that `doctor --fix` can make through the installer library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Repair {
    /// Write the bundled plugin files into the vault.
    InstallPlugin {
        vault: std::path::PathBuf,
        config_dir: String,
    },
    /// Add the plugin id to `community-plugins.json`.
    EnablePlugin {
        vault: std::path::PathBuf,
        config_dir: String,
    },
    /// Rewrite `data.json` with a port and a token, keeping a readable token.
    PluginData {
        vault: std::path::PathBuf,
        config_dir: String,
    },
    /// Put the text kept from before an interrupted edit beside each note that may be cut, and clear the kept folder
    /// (`vault/kept.rs`).
    KeptCopies {
        vault: std::path::PathBuf,
        config_dir: String,
    },
    /// Write obsmcp's entry in one client's config, or point an existing one (`server`, with its `args`) at this
    /// binary.
    RegisterEntry {
        client: String,
        server: Option<String>,
        args: Option<Vec<String>>,
        vault: std::path::PathBuf,
        config_dir: String,
    },
}

/// One check's outcome.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// Stable identifier, e.g. `plugin.enabled`.
    pub(crate) id: &'static str,
    /// How it came out.
    pub(crate) status: Status,
    /// What was found, in one line.
    pub(crate) finding: String,
    /// The exact fix: a command to run or a click path; absent when there is nothing to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fix: Option<String>,
    /// Whether `obsmcp doctor --fix` repairs this.
    pub(crate) fixable: bool,
    /// The repair `--fix` would make; not part of the printed report.
    #[serde(skip)]
    pub(crate) repair: Option<Repair>,
}

impl Check {
    /// A check that passed.
    pub(crate) fn ok(id: &'static str, finding: impl Into<String>) -> Self {
        Self::new(id, Status::Ok, finding, None)
    }

    /// A check that did not apply.
    pub(crate) fn skip(id: &'static str, finding: impl Into<String>) -> Self {
        Self::new(id, Status::Skip, finding, None)
    }

    /// A warning with its fix.
    pub(crate) fn warn(
        id: &'static str,
        finding: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self::new(id, Status::Warn, finding, Some(fix.into()))
    }

    /// A failure with its fix.
    pub(crate) fn fail(
        id: &'static str,
        finding: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self::new(id, Status::Fail, finding, Some(fix.into()))
    }

    fn new(
        id: &'static str,
        status: Status,
        finding: impl Into<String>,
        fix: Option<String>,
    ) -> Self {
        Self {
            id,
            status,
            finding: finding.into(),
            fix,
            fixable: false,
            repair: None,
        }
    }

    /// Marks the check as repairable by `--fix`.
    pub(crate) fn with_repair(mut self, repair: Repair) -> Self {
        self.fixable = true;
        self.repair = Some(repair);
        self
    }
}

/// What a section is about.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Subject {
    /// This machine: the running binary, and what spans several vaults.
    Machine,
    /// One vault.
    Vault { path: String, config_dir: String },
    /// One AI client's config file.
    Client {
        client: String,
        name: String,
        config: String,
        /// `user` for the client's own config, `project` for a project file (`.mcp.json`, `.codex/config.toml`).
        scope: &'static str,
    },
}

/// The checks about one subject.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Section {
    /// What the checks are about.
    #[serde(flatten)]
    pub(crate) subject: Subject,
    /// The checks, in the order they ran.
    pub(crate) checks: Vec<Check>,
}

/// Counts per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Summary {
    pub(crate) ok: usize,
    pub(crate) warn: usize,
    pub(crate) fail: usize,
    pub(crate) skip: usize,
}

/// A whole doctor run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// The running obsmcp's version.
    pub(crate) obsmcp_version: &'static str,
    /// The plugin version bundled in this binary.
    pub(crate) bundled_plugin_version: &'static str,
    /// Verdict: `ok` when nothing failed (warnings allowed), else `fail`.
    pub(crate) verdict: Status,
    /// Counts per status.
    pub(crate) summary: Summary,
    /// What `--fix` changed before this report was made (empty without `--fix`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) fixed: Vec<String>,
    /// The checks, grouped by subject.
    pub(crate) sections: Vec<Section>,
}

impl Report {
    /// Builds a report from its sections, computing the summary and verdict.
    pub(crate) fn new(sections: Vec<Section>) -> Self {
        let mut summary = Summary::default();
        for check in sections.iter().flat_map(|section| &section.checks) {
            match check.status {
                Status::Ok => summary.ok += 1,
                Status::Warn => summary.warn += 1,
                Status::Fail => summary.fail += 1,
                Status::Skip => summary.skip += 1,
            }
        }
        Self {
            obsmcp_version: env!("CARGO_PKG_VERSION"),
            bundled_plugin_version: crate::version::PLUGIN,
            verdict: if summary.fail > 0 {
                Status::Fail
            } else {
                Status::Ok
            },
            summary,
            fixed: Vec::new(),
            sections,
        }
    }

    /// Every check, across sections.
    pub(crate) fn checks(&self) -> impl Iterator<Item = &Check> {
        self.sections.iter().flat_map(|section| &section.checks)
    }

    /// Whether anything failed.
    pub(crate) fn failed(&self) -> bool {
        self.verdict == Status::Fail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(checks: Vec<Check>) -> Section {
        Section {
            subject: Subject::Machine,
            checks,
        }
    }

    #[test]
    fn warnings_alone_do_not_fail_the_run() {
        let report = Report::new(vec![section(vec![
            Check::ok("a", "fine"),
            Check::warn("b", "meh", "do x"),
            Check::skip("c", "n/a"),
        ])]);
        assert!(!report.failed());
        assert_eq!(
            report.summary,
            Summary {
                ok: 1,
                warn: 1,
                fail: 0,
                skip: 1
            }
        );
    }

    #[test]
    fn one_failure_fails_the_run() {
        let report = Report::new(vec![
            section(vec![Check::ok("a", "fine")]),
            section(vec![Check::fail("b", "broken", "do y")]),
        ]);
        assert!(report.failed());
        assert_eq!(report.summary.fail, 1);
    }

    #[test]
    fn the_repair_is_not_printed_but_fixable_is() {
        let check = Check::fail("plugin.enabled", "off", "obsmcp doctor --fix").with_repair(
            Repair::EnablePlugin {
                vault: "/v".into(),
                config_dir: ".obsidian".into(),
            },
        );
        let json = serde_json::to_value(&check).unwrap();
        assert_eq!(json["fixable"], true);
        assert!(json.get("repair").is_none());
    }
}
