//! The report of a setup or uninstall run, built once and rendered either for people (stderr, plain text that
//! reads fine without colour) or for agents (`--json` on stdout). Dry-run diffs are data and go to stdout.
//!
//! About 360 lines of code and 50 of unit tests: the report, its diffs and both renderings are one value and its
//! printer.

use std::io::Write;
use std::path::{Path, PathBuf};

use obsmcp_installer::plan::{Change, FileChange, Item, Note, Problem};
use obsmcp_installer::setup::VaultPlan;
use serde::Serialize;

use super::unless_reader_left;

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// Files were changed.
    Changed,
    /// Nothing needed to change.
    AlreadyConfigured,
    /// `--dry-run`: the changes were only shown.
    Planned,
    /// The user said no at the confirmation.
    Cancelled,
    /// Uninstall found nothing of obsmcp's.
    NothingToRemove,
}

/// One file's planned change as a unified diff.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileDiff {
    /// The file.
    pub(crate) path: String,
    /// The diff.
    pub(crate) diff: String,
}

/// Everything a run has to say.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// `setup` or `uninstall`.
    pub(crate) command: &'static str,
    /// How it ended.
    pub(crate) outcome: Outcome,
    /// Per vault (setup only).
    pub(crate) vaults: Vec<VaultPlan>,
    /// Per thing managed.
    pub(crate) items: Vec<Item>,
    /// Things to know.
    pub(crate) notes: Vec<Note>,
    /// What failed; any makes the exit code 1.
    pub(crate) problems: Vec<Problem>,
    /// What the user should do next.
    pub(crate) next_steps: Vec<String>,
    /// The planned diffs (with `--dry-run`).
    pub(crate) diffs: Vec<FileDiff>,
    /// After uninstalling some clients or vaults: what obsmcp still serves, one `vault (clients)` each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) remaining: Vec<String>,
}

/// The diffs of every change in a plan, with the plugin's token hidden: diffs get pasted into issues and chats.
pub(crate) fn diffs(files: &[FileChange]) -> Vec<FileDiff> {
    files
        .iter()
        .filter(|change| change.is_change())
        .map(|change| {
            let diff = change.diff();
            let diff = if change
                .path
                .file_name()
                .is_some_and(|name| name == "data.json")
            {
                redact_token(&diff)
            } else {
                diff
            };
            FileDiff {
                path: change.path.display().to_string(),
                diff,
            }
        })
        .collect()
}

/// Diffs shortened for the preview before a confirmation, so the changes that need a decision do not scroll away: the
/// plugin's own bundled files become one line each, and a run of permission rules one line. `--dry-run` prints every
/// line.
pub(crate) fn summarised(diffs: &[FileDiff]) -> Vec<FileDiff> {
    diffs
        .iter()
        .map(|diff| FileDiff {
            path: diff.path.clone(),
            diff: summarise(diff),
        })
        .collect()
}

/// The plugin files whose content comes from this binary (main.js is already shown as a size).
const BUNDLED: [&str; 2] = ["manifest.json", "styles.css"];

/// A line longer than this holding permission rules (a settings file that keeps its `allow` list on one line) is
/// folded to its count.
const LONG_RULE_LINE: usize = 200;

fn summarise(diff: &FileDiff) -> String {
    let path = std::path::Path::new(&diff.path);
    let bundled = path
        .parent()
        .is_some_and(|folder| folder.ends_with("plugins/obsmcp"))
        && path
            .file_name()
            .is_some_and(|name| BUNDLED.iter().any(|bundled| name == *bundled));
    // The companion skill is the same text in every client that reads skills from a folder.
    let skill = path.ends_with("skills/obsmcp/SKILL.md");
    if bundled || skill {
        let lines = diff
            .diff
            .lines()
            .filter(|line| line.starts_with('+') && !line.starts_with("+++"))
            .count();
        let header: String = diff.diff.split_inclusive('\n').take(2).collect();
        let what = if skill {
            "companion skill SKILL.md".to_owned()
        } else {
            format!(
                "plugin's bundled {}",
                path.file_name().unwrap_or_default().to_string_lossy()
            )
        };
        return format!("{header}@@ the {what} ({lines} lines; --dry-run shows them) @@\n");
    }
    let mut out = String::with_capacity(diff.diff.len());
    let mut rules: Vec<&str> = Vec::new();
    let flush = |rules: &mut Vec<&str>, out: &mut String| {
        if rules.len() > 3 {
            let sign = &rules[0][..1];
            out.push_str(&format!(
                "{sign}    … {} permission rules for the read-only tools (--dry-run lists them)\n",
                rules.len()
            ));
        } else {
            rules.iter().for_each(|line| out.push_str(line));
        }
        rules.clear();
    };
    for line in diff.diff.split_inclusive('\n') {
        let changed = (line.starts_with('+') || line.starts_with('-'))
            && !line.starts_with("+++")
            && !line.starts_with("---");
        let on_one_line = line.matches("\"mcp__").count();
        if changed && line.len() > LONG_RULE_LINE && on_one_line > 3 {
            flush(&mut rules, &mut out);
            out.push_str(&format!(
                "{}    … a line of {} characters with {on_one_line} permission rules (--dry-run shows it)\n",
                &line[..1],
                line.trim_end().len() - 1
            ));
            continue;
        }
        let rule = (line.starts_with('+') || line.starts_with('-'))
            && !line.starts_with("+++")
            && !line.starts_with("---")
            && line[1..].trim_start().starts_with("\"mcp__");
        if rule
            && rules
                .first()
                .is_none_or(|first| first.as_bytes()[0] == line.as_bytes()[0])
        {
            rules.push(line);
            continue;
        }
        flush(&mut rules, &mut out);
        if rule {
            rules.push(line);
        } else {
            out.push_str(line);
        }
    }
    flush(&mut rules, &mut out);
    out
}

fn redact_token(diff: &str) -> String {
    diff.split_inclusive('\n')
        .map(|line| match line.find("\"token\"") {
            Some(start) => {
                let ending = if line.ends_with(",\n") {
                    ",\n"
                } else if line.ends_with('\n') {
                    "\n"
                } else {
                    ""
                };
                format!("{}\"token\": \"<redacted>\"{ending}", &line[..start])
            }
            None => line.to_owned(),
        })
        .collect()
}

fn change_word(change: Change) -> &'static str {
    match change {
        Change::Added => "added",
        Change::Updated => "updated",
        Change::Unchanged => "unchanged",
        Change::Removed => "removed",
    }
}

/// Where output goes: data to `out`, people's text to `err`.
pub(crate) struct Printer<'a> {
    /// stdout.
    pub(crate) out: &'a mut dyn Write,
    /// stderr.
    pub(crate) err: &'a mut dyn Write,
    /// `--json`.
    pub(crate) json: bool,
    /// Whether the body was already shown before a confirmation (only the ending is left to print).
    pub(crate) body_shown: bool,
    /// How many of the report's problems the preview showed: the ones applying added come after them.
    pub(crate) problems_shown: usize,
}

impl Printer<'_> {
    /// Renders the report as the run's last word and gives its exit code: failure when the report holds a problem.
    /// A reader that left early (`| head`) changes neither.
    pub(crate) fn finish(&mut self, report: &Report) -> std::io::Result<std::process::ExitCode> {
        unless_reader_left(self.print(report))?;
        Ok(if report.problems.is_empty() {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::FAILURE
        })
    }

    /// Renders the report.
    pub(crate) fn print(&mut self, report: &Report) -> std::io::Result<()> {
        if self.json {
            serde_json::to_writer_pretty(&mut *self.out, report)?;
            return writeln!(self.out);
        }
        for diff in &report.diffs {
            write!(self.out, "{}", diff.diff)?;
        }
        self.print_text(report)
    }

    /// Shows what the run will do before it asks for confirmation: the plan, then its diffs.
    pub(crate) fn preview(&mut self, report: &Report, diffs: &[FileDiff]) -> std::io::Result<()> {
        for diff in &summarised(diffs) {
            write!(self.out, "{}", diff.diff)?;
        }
        writeln!(
            self.err,
            "Planned changes (nothing is written until you confirm):"
        )?;
        self.print_body(report)?;
        self.body_shown = true;
        self.problems_shown = report.problems.len();
        Ok(())
    }

    fn print_text(&mut self, report: &Report) -> std::io::Result<()> {
        if !self.body_shown {
            self.print_body(report)?;
        } else {
            // Failures of the writes themselves come after the preview; they must not go unsaid.
            let err = &mut *self.err;
            for problem in report.problems.iter().skip(self.problems_shown) {
                writeln!(err, "error: {}: {}", problem.scope, problem.message)?;
                if let Some(hint) = &problem.hint {
                    writeln!(err, "hint: {hint}")?;
                }
            }
        }
        self.print_ending(report)
    }

    fn print_body(&mut self, report: &Report) -> std::io::Result<()> {
        let err = &mut *self.err;
        for vault in &report.vaults {
            let open = if vault.open {
                " (open in Obsidian)"
            } else {
                ""
            };
            writeln!(
                err,
                "Vault {} at {}{open}",
                vault.name,
                vault.path.display()
            )?;
            writeln!(
                err,
                "  port {}, server name `{}`, config folder {}",
                vault.port, vault.server_name, vault.config_dir
            )?;
        }
        let mut scope: Option<&str> = None;
        for item in &report.items {
            if scope != Some(item.scope.as_str()) {
                let paths = report
                    .items
                    .iter()
                    .filter(|other| other.scope == item.scope)
                    .map(|other| other.path.as_path());
                writeln!(err, "{}  {}", item.scope, location(paths))?;
                scope = Some(&item.scope);
            }
            writeln!(err, "  {:<10} {}", change_word(item.change), item.subject)?;
        }
        for note in &report.notes {
            writeln!(err, "note: {}: {}", note.scope, note.message)?;
        }
        for problem in &report.problems {
            writeln!(err, "error: {}: {}", problem.scope, problem.message)?;
            if let Some(hint) = &problem.hint {
                writeln!(err, "hint: {hint}")?;
            }
        }
        Ok(())
    }

    fn print_ending(&mut self, report: &Report) -> std::io::Result<()> {
        let err = &mut *self.err;
        let summary = match (report.command, report.outcome) {
            (_, Outcome::AlreadyConfigured | Outcome::NothingToRemove)
                if !report.problems.is_empty() =>
            {
                "Nothing changed: the errors above stand in the way."
            }
            ("setup", Outcome::AlreadyConfigured) => {
                "obsmcp is already configured: nothing changed."
            }
            (_, Outcome::AlreadyConfigured) => "Nothing changed.",
            (_, Outcome::NothingToRemove) => "Nothing of obsmcp's was found: nothing changed.",
            (_, Outcome::Planned) => "Dry run: nothing was written.",
            (_, Outcome::Cancelled) => "Cancelled: nothing was written.",
            (_, Outcome::Changed) if !report.problems.is_empty() => {
                "Done, except for the errors above."
            }
            ("setup", Outcome::Changed) => "obsmcp is set up.",
            (_, Outcome::Changed) if !report.remaining.is_empty() => {
                "Removed what is listed above; obsmcp stays set up for the rest:"
            }
            (_, Outcome::Changed) => "obsmcp is uninstalled.",
        };
        writeln!(err, "{summary}")?;
        if report.outcome == Outcome::Changed && report.problems.is_empty() {
            for remaining in &report.remaining {
                writeln!(err, "  {remaining}")?;
            }
        }
        if !report.next_steps.is_empty() {
            writeln!(err, "Next:")?;
            for (number, step) in report.next_steps.iter().enumerate() {
                writeln!(err, "  {}. {step}", number + 1)?;
            }
        }
        Ok(())
    }
}

/// Where a scope's items live: its one or two files by name (Claude Code's `~/.claude.json` and
/// `~/.claude/settings.json` share only the home folder, which says nothing), or the deepest folder holding more.
fn location<'a>(paths: impl Iterator<Item = &'a Path>) -> String {
    let mut distinct: Vec<&Path> = Vec::new();
    for path in paths {
        if !distinct.contains(&path) {
            distinct.push(path);
        }
    }
    if distinct.len() <= 2 {
        let shown: Vec<String> = distinct
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        return shown.join(", ");
    }
    common_ancestor(distinct.into_iter()).display().to_string()
}

/// The deepest folder (or the one file) that holds every path.
fn common_ancestor<'a>(mut paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = paths.next() else {
        return PathBuf::new();
    };
    let mut common = first.to_owned();
    for path in paths {
        while !path.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(path: &str, text: &str) -> FileDiff {
        FileDiff {
            path: path.to_owned(),
            diff: text.to_owned(),
        }
    }

    #[test]
    fn the_preview_folds_bundled_plugin_files_and_rule_lists_and_keeps_the_rest() {
        let css = diff(
            "/v/.obsidian/plugins/obsmcp/styles.css",
            "--- /dev/null\n+++ /v/.obsidian/plugins/obsmcp/styles.css\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n",
        );
        let rules: String = (0..16)
            .map(|tool| format!("+      \"mcp__obsidian__tool{tool}\",\n"))
            .collect();
        let settings = diff(
            "/h/.claude/settings.json",
            &format!(
                "--- a\n+++ b\n@@ -1 +1,20 @@\n {{\n+  \"permissions\": {{\n+    \"allow\": [\n{rules}+    ]\n"
            ),
        );
        let entry = diff(
            "/h/.claude.json",
            "--- a\n+++ b\n@@ -1 +1 @@\n-{}\n+{\"mcpServers\": {}}\n",
        );
        let shown = summarised(&[css, settings, entry.clone()]);
        assert_eq!(
            shown[0].diff,
            "--- /dev/null\n+++ /v/.obsidian/plugins/obsmcp/styles.css\n@@ the plugin's bundled styles.css (3 lines; --dry-run shows them) @@\n"
        );
        assert!(
            shown[1]
                .diff
                .contains("+    … 16 permission rules for the read-only tools"),
            "{}",
            shown[1].diff
        );
        assert!(
            !shown[1].diff.contains("tool3") && shown[1].diff.contains("\"allow\""),
            "{}",
            shown[1].diff
        );
        assert_eq!(shown[2].diff, entry.diff, "other diffs are shown whole");
    }

    /// The skill, the same in three clients, took 135 lines of the preview, and a settings file that
    /// keeps its rules on one line showed a line of 1,604 characters.
    #[test]
    fn the_preview_folds_the_skill_and_a_long_line_of_rules() {
        let body: String = (0..45)
            .map(|line| format!("+skill line {line}\n"))
            .collect();
        let skill = diff(
            "/h/.claude/skills/obsmcp/SKILL.md",
            &format!(
                "--- /dev/null\n+++ /h/.claude/skills/obsmcp/SKILL.md\n@@ -0,0 +1,45 @@\n{body}"
            ),
        );
        let rules: Vec<String> = (0..23)
            .map(|tool| format!("\"mcp__obsidian__tool_{tool}\""))
            .collect();
        let settings = diff(
            "/h/.claude/settings.json",
            &format!(
                "--- a\n+++ b\n@@ -1,3 +1,3 @@\n {{\n-  \"permissions\": {{\"allow\": [\"Bash(ls)\"]}}\n+  \"permissions\": {{\"allow\": [\"Bash(ls)\", {}]}}\n }}\n",
                rules.join(", ")
            ),
        );
        let shown = summarised(&[skill, settings]);
        assert_eq!(
            shown[0].diff,
            "--- /dev/null\n+++ /h/.claude/skills/obsmcp/SKILL.md\n@@ the companion skill SKILL.md (45 lines; --dry-run shows them) @@\n"
        );
        assert!(
            shown[1]
                .diff
                .contains("with 23 permission rules (--dry-run shows it)"),
            "{}",
            shown[1].diff
        );
        assert!(
            shown[1]
                .diff
                .contains("-  \"permissions\": {\"allow\": [\"Bash(ls)\"]}"),
            "{}",
            shown[1].diff
        );
        assert!(
            shown[1].diff.lines().all(|line| line.len() < 120),
            "{}",
            shown[1].diff
        );
    }
}
