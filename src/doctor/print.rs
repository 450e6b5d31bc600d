//! The two printers of a [`Report`]: text for people and JSON for agents. Both take the same value; neither decides
//! anything. The text marks (✓ ! ✗ -) carry the meaning on their own, so colour is decoration that `NO_COLOR` or a
//! pipe can drop without losing a word.

use std::path::Path;

use super::report::{Report, Section, Status, Subject};

/// How the text printer may decorate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextStyle {
    /// Whether to use ANSI colours.
    pub(crate) colour: bool,
}

impl TextStyle {
    /// Colour only on a terminal and only when `NO_COLOR` is unset or empty (no-color.org).
    pub(crate) fn detect() -> Self {
        use std::io::IsTerminal as _;
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Self {
            colour: !no_colour && std::io::stdout().is_terminal(),
        }
    }
}

/// Renders the report as JSON (pretty, with a final newline).
pub(crate) fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report)
        .expect("the report is plain data and always serialises");
    text.push('\n');
    text
}

/// The one-character mark of a status.
pub(crate) fn mark(status: Status) -> char {
    match status {
        Status::Ok => '✓',
        Status::Warn => '!',
        Status::Fail => '✗',
        Status::Skip => '-',
    }
}

/// Renders the report as text for people; `obsmcp` is how the running binary is typed in a shell.
pub(crate) fn text(report: &Report, style: TextStyle, home: Option<&Path>, obsmcp: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "obsmcp doctor: obsmcp {}, bundled plugin {}\n",
        report.obsmcp_version, report.bundled_plugin_version
    ));
    if !report.fixed.is_empty() {
        out.push_str("\nRepaired by --fix:\n");
        for line in &report.fixed {
            out.push_str(&format!("  {} {line}\n", paint(style, Status::Ok, "✓")));
        }
    }
    for section in &report.sections {
        out.push('\n');
        write_section(&mut out, section, style, home);
    }
    out.push('\n');
    out.push_str(&summary_line(report, obsmcp));
    out.push('\n');
    out
}

fn write_section(out: &mut String, section: &Section, style: TextStyle, home: Option<&Path>) {
    let heading = match &section.subject {
        Subject::Machine => "This machine".to_owned(),
        Subject::Vault { path, config_dir } => {
            format!("Vault {} ({config_dir})", tilde(path, home))
        }
        Subject::Client { name, config, .. } => format!("{name}: {}", tilde(config, home)),
    };
    out.push_str(&if style.colour {
        console::style(heading).bold().to_string()
    } else {
        heading
    });
    out.push('\n');
    let width = section
        .checks
        .iter()
        .map(|check| check.id.len())
        .max()
        .unwrap_or(0);
    for check in &section.checks {
        let mark = paint(style, check.status, &mark(check.status).to_string());
        out.push_str(&format!(
            "  {mark} {:<width$}  {}\n",
            check.id, check.finding
        ));
        if let Some(fix) = &check.fix {
            out.push_str(&format!("    {:<width$}  fix: {fix}\n", ""));
        }
    }
}

fn paint(style: TextStyle, status: Status, text: &str) -> String {
    if !style.colour {
        return text.to_owned();
    }
    let styled = console::style(text).force_styling(true);
    match status {
        Status::Ok => styled.green(),
        Status::Warn => styled.yellow(),
        Status::Fail => styled.red().bold(),
        Status::Skip => styled.dim(),
    }
    .to_string()
}

/// `3 failed, 1 warning, 12 ok, 2 skipped`, and what `--fix` could do.
pub(crate) fn summary_line(report: &Report, obsmcp: &str) -> String {
    let summary = report.summary;
    let plural = |count: usize, one: &str, many: &str| {
        format!("{count} {}", if count == 1 { one } else { many })
    };
    let mut line = format!(
        "{}: {}, {}, {} ok, {} skipped",
        if report.failed() {
            "Problems found"
        } else if summary.warn > 0 {
            "Working, with warnings"
        } else {
            "All good"
        },
        plural(summary.fail, "failed", "failed"),
        plural(summary.warn, "warning", "warnings"),
        summary.ok,
        summary.skip
    );
    let fixable = report
        .checks()
        .filter(|check| check.fixable && check.status >= Status::Warn)
        .count();
    if fixable > 0 {
        line.push_str(&format!(
            ". `{obsmcp} doctor --fix` can repair {fixable} of them"
        ));
    }
    line.push('.');
    line
}

fn tilde(path: &str, home: Option<&Path>) -> String {
    if let Some(home) = home.and_then(Path::to_str).filter(|home| !home.is_empty())
        && let Some(rest) = path.strip_prefix(home)
        && (rest.is_empty() || rest.starts_with(std::path::MAIN_SEPARATOR))
    {
        return format!("~{rest}");
    }
    path.to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::report::{Check, Report, Section, Subject};
    use super::*;

    fn sample() -> Report {
        Report::new(vec![
            Section {
                subject: Subject::Vault {
                    path: "/home/u/Notes".into(),
                    config_dir: ".obsidian".into(),
                },
                checks: vec![
                    Check::ok("vault.folder", "the vault folder and .obsidian exist"),
                    Check::fail(
                        "plugin.enabled",
                        "obsmcp is not enabled",
                        "obsmcp doctor --fix",
                    ),
                ],
            },
            Section {
                subject: Subject::Client {
                    client: "codex".into(),
                    name: "Codex".into(),
                    config: "/home/u/.codex/config.toml".into(),
                    scope: "user",
                },
                checks: vec![Check::warn(
                    "client.timeouts",
                    "startup_timeout_sec = 1",
                    "raise it",
                )],
            },
        ])
    }

    // Unix only: the sample report's paths are Unix paths, and `tilde` cuts at the system's own separator.
    #[cfg(unix)]
    #[test]
    fn text_without_colour_has_marks_fixes_and_a_summary() {
        let text = text(
            &sample(),
            TextStyle { colour: false },
            Some(Path::new("/home/u")),
            "obsmcp",
        );
        assert!(text.contains("Vault ~/Notes (.obsidian)"), "{text}");
        assert!(text.contains("  ✓ vault.folder"), "{text}");
        assert!(text.contains("  ✗ plugin.enabled"), "{text}");
        assert!(text.contains("fix: obsmcp doctor --fix"), "{text}");
        assert!(text.contains("Codex: ~/.codex/config.toml"), "{text}");
        assert!(text.contains("  ! client.timeouts"), "{text}");
        assert!(
            text.contains("Problems found: 1 failed, 1 warning, 1 ok, 0 skipped."),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "no escape codes without colour");
    }

    #[test]
    fn home_is_only_shortened_at_a_path_boundary() {
        let separator = std::path::MAIN_SEPARATOR;
        let (home, other) = (format!("{separator}home{separator}user"), "user2");
        let outside = format!("{separator}home{separator}{other}{separator}x");
        assert_eq!(tilde(&outside, Some(Path::new(&home))), outside);
        let inside = format!("{home}{separator}x");
        assert_eq!(
            tilde(&inside, Some(Path::new(&home))),
            format!("~{separator}x")
        );
    }

    #[test]
    fn json_is_the_same_report() {
        let value: serde_json::Value = serde_json::from_str(&json(&sample())).unwrap();
        assert_eq!(value["verdict"], "fail");
        assert_eq!(value["sections"][0]["kind"], "vault");
        assert_eq!(value["sections"][0]["checks"][1]["id"], "plugin.enabled");
        assert_eq!(value["sections"][1]["client"], "codex");
        assert_eq!(value["summary"]["warn"], 1);
    }
}
