//! `doctor --fix`: applies the repairs the checks attached, through the installer library, and nothing else.
//!
//! The repairs are the installer's own setup plan, narrowed to the vaults and clients that need one: plugin files
//! updated, the plugin enabled, `data.json` gaps filled, entries written or pointed at this binary. Using the plan
//! rather than edits of its own means doctor writes exactly what setup would, through the same lossless editors and
//! atomic writes, and records it for `obsmcp uninstall`. The one thing the plan refuses, a `data.json` that is not
//! JSON, is rebuilt here first, keeping the token when it can still be read and the broken file as a backup.
//!
//! A repair is only ever attached where it is safe: a file that does not parse, a port another program holds, an
//! entry that runs something else or a gate in someone else's settings gets a printed fix, never an edit.
//!
//! Every repair `--fix` knows, each a short translation of a check's `Repair` into setup's plan, listed together so
//! none is missed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use obsmcp_installer::clients::{self as installer_clients, ClientSpec};
use obsmcp_installer::document::{self, Format, Operation};
use obsmcp_installer::environment::Environment;
use obsmcp_installer::obsidian_files::plugin;
use obsmcp_installer::obsidian_files::plugin_data::{self, DEFAULT_PORT};
use obsmcp_installer::plan::Change;
use obsmcp_installer::plan::binary::BinaryInstall;
use obsmcp_installer::plan::write;
use obsmcp_installer::setup::{self as planner, Decisions, SetupRequest};
use serde_json::{Value, json};

use super::clients::{ClientConfig, ConfigState};
use super::report::{Check, Repair, Report, Section, Status, Subject};

/// What `--fix` did.
#[derive(Debug, Default)]
pub(crate) struct FixOutcome {
    done: Vec<String>,
    failed: Vec<Check>,
}

impl FixOutcome {
    /// Whether anything was written (so the checks must run again).
    pub(crate) fn changed(&self) -> bool {
        !self.done.is_empty()
    }

    /// Adds a later round's outcome to this one.
    pub(crate) fn absorb(&mut self, round: FixOutcome) {
        self.done.extend(round.done);
        // A later round retries what failed before; the same failure is reported once.
        for check in round.failed {
            if !self
                .failed
                .iter()
                .any(|known| known.finding == check.finding)
            {
                self.failed.push(check);
            }
        }
    }

    /// The fresh report, with what was repaired and any repair that failed.
    pub(crate) fn into_report(self, report: Report) -> Report {
        let mut sections = report.sections;
        if !self.failed.is_empty() {
            match sections
                .iter_mut()
                .find(|section| matches!(section.subject, Subject::Machine))
            {
                Some(machine) => machine.checks.extend(self.failed),
                None => sections.insert(
                    0,
                    Section {
                        subject: Subject::Machine,
                        checks: self.failed,
                    },
                ),
            }
        }
        let mut fresh = Report::new(sections);
        fresh.fixed = self.done;
        fresh
    }

    fn failure(&mut self, finding: String) {
        self.failed.push(Check::fail(
            "fix.failed",
            finding,
            "nothing else was changed for this one; make the fix printed with the original check by hand",
        ));
    }
}

/// The repairs of one vault.
#[derive(Debug, Default)]
struct VaultRepairs {
    data: bool,
    clients: BTreeSet<String>,
    read_only: bool,
}

/// Applies every repair attached to a check that is not ok, grouped by vault.
pub(crate) fn apply(
    environment: &Environment,
    report: &Report,
    clients: &[ClientConfig],
) -> FixOutcome {
    let mut by_vault: BTreeMap<(PathBuf, String), VaultRepairs> = BTreeMap::new();
    let mut kept: Vec<(PathBuf, String)> = Vec::new();
    for repair in report
        .checks()
        .filter(|check| check.status >= Status::Warn)
        .filter_map(|check| check.repair.as_ref())
    {
        match repair {
            Repair::InstallPlugin { vault, config_dir }
            | Repair::EnablePlugin { vault, config_dir } => {
                by_vault
                    .entry((vault.clone(), config_dir.clone()))
                    .or_default();
            }
            Repair::KeptCopies { vault, config_dir } => {
                kept.push((vault.clone(), config_dir.clone()))
            }
            Repair::PluginData { vault, config_dir } => {
                by_vault
                    .entry((vault.clone(), config_dir.clone()))
                    .or_default()
                    .data = true;
            }
            Repair::RegisterEntry {
                client,
                args,
                vault,
                config_dir,
                ..
            } => {
                let repairs = by_vault
                    .entry((vault.clone(), config_dir.clone()))
                    .or_default();
                repairs.clients.insert(client.clone());
                repairs.read_only |= args.iter().flatten().any(|arg| arg == "--read-only");
            }
        }
    }
    let taken = ports_in_use(report);
    let mut outcome = FixOutcome::default();
    for (vault, config_dir) in kept {
        match crate::doctor::vault::repair_kept_copies(&vault, &config_dir) {
            Ok(Some(done)) => outcome.done.push(done),
            Ok(None) => {}
            Err(error) => outcome.failure(format!("{error:#}")),
        }
    }
    for ((vault, config_dir), repairs) in by_vault {
        if repairs.data {
            match repair_data(environment, &vault, &config_dir, &taken) {
                Ok(Some(done)) => outcome.done.push(done),
                Ok(None) => {}
                Err(error) => {
                    outcome.failure(format!("{error:#}"));
                    continue;
                }
            }
        }
        if let Err(error) = apply_setup_plan(
            environment,
            &vault,
            &config_dir,
            &repairs,
            clients,
            &mut outcome,
        ) {
            outcome.failure(format!("could not repair `{}`: {error:#}", vault.display()));
        }
    }
    outcome
}

/// Runs the installer's setup plan for one vault and the clients that need an entry for it.
fn apply_setup_plan(
    environment: &Environment,
    vault: &Path,
    config_dir: &str,
    repairs: &VaultRepairs,
    clients: &[ClientConfig],
    outcome: &mut FixOutcome,
) -> anyhow::Result<()> {
    let target = crate::commands::shared::vault_target(environment, vault, Some(config_dir))?;
    let specs: Vec<&'static ClientSpec> = repairs
        .clients
        .iter()
        .filter_map(|id| installer_clients::find(id))
        .collect();
    // A copy setup would refuse to make (the user's own file where it goes) is refused here too, with setup's hint.
    let (binary, install) = match crate::commands::shared::entry_binary(environment) {
        Ok(found) => found,
        Err(error) => match error.downcast::<crate::commands::shared::UsageError>() {
            Ok(refusal) => {
                outcome
                    .failed
                    .push(Check::fail("fix.failed", refusal.message, refusal.hint));
                return Ok(());
            }
            Err(error) => return Err(error),
        },
    };
    let request = SetupRequest {
        environment,
        vaults: vec![target.clone()],
        clients: specs,
        binary,
        read_only: repairs.read_only,
        // Hidden paths are kept as they are in data.json; a repair adds none.
        hide: Vec::new(),
        hide_excluded_files: false,
        // A repair puts back what is broken; the skill and alwaysLoad stay as setup left them.
        skill: false,
        always_load: false,
        // Nor do the entries' `--tools`, or which vaults each serves.
        keep_tools: true,
        layout: obsmcp_installer::setup::EntryLayout::AsIs,
        // Permission rules are the user's choice at setup time; a repair does not add them.
        permissions: false,
        bundle: crate::assets::BUNDLE,
        data_template: crate::assets::DATA_TEMPLATE,
        read_only_tools: crate::assets::read_only_tools(),
        port_is_free: &crate::commands::shared::port_is_free,
    };
    let mut decisions = OnlyOurOwnEntries {
        clients,
        vault: &target.path,
    };
    let mut plan = planner::plan(&request, &mut decisions);
    for problem in &plan.problems {
        let hint = problem
            .hint
            .as_deref()
            .map(|hint| format!(" ({hint})"))
            .unwrap_or_default();
        outcome.failure(format!("{}: {}{hint}", problem.scope, problem.message));
    }
    if !plan.changes_anything() {
        return Ok(());
    }
    // Entries are pointed at a copy that lasts when this binary would not (as setup does).
    if let Some(install) = &install
        && !install_lasting_copy(environment, install, &mut plan, outcome)
    {
        return Ok(());
    }
    let problems = plan.apply(environment);
    for problem in &problems {
        outcome.failure(format!("{}: {}", problem.scope, problem.message));
    }
    report_changes(&plan, outcome);
    Ok(())
}

/// Installs the lasting copy of obsmcp the entries will run and records it in the plan's state; `false`, with the
/// failure in `outcome`, when it could not be installed.
fn install_lasting_copy(
    environment: &Environment,
    install: &BinaryInstall,
    plan: &mut planner::SetupPlan,
    outcome: &mut FixOutcome,
) -> bool {
    // The folders the copy makes, seen before it makes them: afterwards they exist and none would be recorded.
    let state_home = environment.state_home();
    let (created, own) = (
        install.folders_to_create(&state_home),
        install.own_folders_to_create(&state_home),
    );
    if let Err(problem) = crate::commands::shared::install_binary(install) {
        outcome.failure(format!("{}: {}", problem.scope, problem.message));
        return false;
    }
    plan.state.installed_binary = Some(install.to.clone());
    plan.state.created_dirs.extend(created);
    plan.state.own_dirs.extend(own);
    if install.change != Change::Unchanged {
        outcome.done.push(format!(
            "obsmcp: installed this binary as `{}` ({})",
            install.to.display(),
            install.why
        ));
    }
    true
}

/// Says in `outcome` what the applied plan changed, one line per item.
fn report_changes(plan: &planner::SetupPlan, outcome: &mut FixOutcome) {
    for item in plan
        .items
        .iter()
        .filter(|item| item.change != Change::Unchanged)
    {
        let change = match item.change {
            Change::Added => "added",
            Change::Updated => "updated",
            Change::Removed => "removed",
            Change::Unchanged => "unchanged",
        };
        outcome.done.push(format!(
            "{}: {} {change} in `{}`",
            item.scope,
            item.subject,
            item.path.display()
        ));
    }
}

/// Consents to replacing an entry only when it is obsmcp's own entry for the same vault (pointing at a missing or
/// older binary); anything else the user put there stays, and the plan picks another name.
struct OnlyOurOwnEntries<'a> {
    clients: &'a [ClientConfig],
    vault: &'a Path,
}

impl Decisions for OnlyOurOwnEntries<'_> {
    fn replace_existing(&mut self, client: &ClientSpec, name: &str, _existing: &str) -> bool {
        let same_vault = |path: &str| {
            let path = Path::new(path);
            path == self.vault
                || obsmcp_installer::environment::real_path(path)
                    .is_ok_and(|real| real == self.vault)
        };
        self.clients
            .iter()
            .filter(|config| config.spec.id == client.id)
            .flat_map(|config| match &config.state {
                ConfigState::Parsed(entries) => entries.iter(),
                _ => [].iter(),
            })
            .any(|entry| {
                entry.name == name
                    && entry.is_obsmcp()
                    && entry.flags("--vault").into_iter().any(same_vault)
            })
    }
}

/// Ports that `data.json` files of the examined vaults already use.
fn ports_in_use(report: &Report) -> Vec<u16> {
    report
        .sections
        .iter()
        .filter_map(|section| match &section.subject {
            Subject::Vault { path, config_dir } => plugin_data::read(Path::new(path), config_dir)
                .ok()
                .map(|data| data.port),
            _ => None,
        })
        .collect()
}

/// Rebuilds a `data.json` that is missing, not JSON, or holds a token the plugin would not accept.
fn repair_data(
    environment: &Environment,
    vault: &Path,
    config_dir: &str,
    taken: &[u16],
) -> anyhow::Result<Option<String>> {
    let path = plugin_data::data_json_path(vault, config_dir);
    let original = write::read_text(&path)?;
    let parsed: Option<Value> = original
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .filter(Value::is_object);
    let salvaged_token = original
        .as_deref()
        .and_then(|text| salvage(text, "token"))
        .filter(|token| super::vault::plugin_accepts_token(token));
    let salvaged_port = original
        .as_deref()
        .and_then(|text| salvage(text, "port"))
        .and_then(|port| port.parse::<u16>().ok());
    let kept_token = salvaged_token.is_some();
    let token = salvaged_token.unwrap_or_else(plugin::new_token);
    let port = salvaged_port
        .filter(|port| *port != 0)
        .unwrap_or_else(|| free_port(taken));
    let initial = json!({"port": port, "token": token});
    // Read-only is salvaged like the token; when a damaged file no longer says, the safe side is read-only on.
    let read_only = original.as_deref().is_some_and(salvage_read_only);
    let text = match (&original, &parsed) {
        (Some(original), Some(existing)) => {
            let mut operations = plugin::data_operations(existing, &initial);
            if !kept_token && !operations.iter().any(|operation| matches!(operation, Operation::Replace { path, .. } if path == &["token"])) {
                operations.push(Operation::Replace { path: document::key_path(&["token"]), value: json!(token) });
            }
            document::apply(Format::Json, original, &operations)
                .with_context(|| format!("could not edit `{}`", path.display()))?
        }
        _ => {
            // Unreadable as JSON: rewritten whole. write_atomic keeps the broken file as a backup first.
            let mut whole = initial.clone();
            whole["readOnly"] = json!(read_only);
            let mut text =
                serde_json::to_string_pretty(&whole).expect("plain JSON always serialises");
            text.push('\n');
            text
        }
    };
    if original.as_deref() == Some(text.as_str()) {
        return tighten_mode(&path);
    }
    if plugin_data::parse(&text).is_err() {
        bail!(
            "the repaired `{}` would still not be valid; left as it was",
            path.display()
        );
    }
    // The backup of a vault file goes to obsmcp's state folder: in the vault, sync would spread it (and its token).
    let backup = write::vault_backup_path(&environment.state_home(), &path);
    write::write_atomic(&path, text.as_bytes(), Some(0o600), &backup)?;
    let kept = if kept_token {
        "kept its token"
    } else {
        "new token"
    };
    let saved = if original.is_some() && backup.exists() {
        format!("; the old file is in `{}`", backup.display())
    } else {
        String::new()
    };
    let read_only_said = if parsed.is_none() && original.is_some() {
        if read_only {
            ", read-only on (the damaged file said so, or no longer said)"
        } else {
            ", read-only off as the damaged file said"
        }
    } else {
        ""
    };
    Ok(Some(format!(
        "repaired `{}` (port {port}, {kept}{read_only_said}){saved}",
        path.display()
    )))
}

/// Takes group and other permissions off a `data.json` that is otherwise fine (it holds the token).
fn tighten_mode(path: &Path) -> anyhow::Result<Option<String>> {
    let Some(mode) = super::vault::shared_mode(path) else {
        return Ok(None);
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("could not set the mode of `{}` to 0600", path.display()))?;
    }
    Ok(Some(format!(
        "set `{}` to mode 0600 (it was {mode:04o}: other users could read the token)",
        path.display()
    )))
}

/// Whether a damaged `data.json` leaves read-only on: unless it still says `"readOnly": false` in full.
fn salvage_read_only(text: &str) -> bool {
    let Some(at) = text.find("\"readOnly\"") else {
        return true;
    };
    let rest = text[at + "\"readOnly\"".len()..].trim_start();
    let Some(value) = rest.strip_prefix(':').map(str::trim_start) else {
        return true;
    };
    !(value.starts_with("false")
        && value[5..]
            .chars()
            .next()
            .is_some_and(|next| matches!(next, ',' | '}' | ' ' | '\n' | '\r' | '\t')))
}

/// The string or number after `"key":` in text that may not parse as JSON, e.g. a truncated file.
fn salvage(text: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    let rest = &text[text.find(&quoted)? + quoted.len()..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    if let Some(rest) = rest.strip_prefix('"') {
        let end = rest.find('"')?;
        let value = &rest[..end];
        return (!value.contains('\\')).then(|| value.to_owned());
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// The first port from the default up that no examined vault uses and nothing listens on.
fn free_port(taken: &[u16]) -> u16 {
    let reserved = super::vault::FOREIGN_PORTS.map(|(port, _)| port);
    (DEFAULT_PORT..DEFAULT_PORT + 100)
        .find(|port| {
            !taken.contains(port)
                && !reserved.contains(port)
                && std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok()
        })
        .unwrap_or(DEFAULT_PORT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_stays_on_unless_a_damaged_file_still_says_false_in_full() {
        assert!(salvage_read_only(
            "{\"port\": 1, \"token\": \"t\", \"readOnly\": true"
        ));
        assert!(salvage_read_only(
            "{\"port\": 1, \"token\": \"t\", \"readOnly\": tr"
        ));
        assert!(salvage_read_only(
            "{\"port\": 1, \"token\": \"t\", \"readOnly\": fal"
        ));
        assert!(salvage_read_only(
            "{\"port\": 1, \"token\": \"t\", \"readOnly\": false"
        ));
        assert!(salvage_read_only("{\"port\": 1, \"tok"));
        assert!(!salvage_read_only(
            "{\"readOnly\": false, \"port\": 1, \"tok"
        ));
        assert!(!salvage_read_only("{\"readOnly\": false}x"));
    }

    #[test]
    fn a_token_is_salvaged_from_a_truncated_file() {
        let text = "{\n  \"port\": 22411,\n  \"token\": \"abc123\",\n  \"readOnly\": tr";
        assert_eq!(salvage(text, "token").as_deref(), Some("abc123"));
        assert_eq!(salvage(text, "port").as_deref(), Some("22411"));
        assert_eq!(salvage("{\"port\": }", "port"), None);
    }
}
