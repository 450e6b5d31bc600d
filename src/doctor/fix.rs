//! `doctor --fix`: applies the repairs the checks attached, through the installer library's editors and atomic
//! writes, and nothing else. A repair is only ever attached where it is safe: a file that does not parse, a port
//! another program holds or a gate in someone else's settings gets a printed fix, never an edit.
//!
//! Each repair re-reads its file right before writing, so a file that changed since the check is edited as it is
//! now, not as it was.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, bail};
use obsmcp_installer::clients::{self as installer_clients, ClientSpec};
use obsmcp_installer::document::{self, Format, Operation};
use obsmcp_installer::environment::Environment;
use obsmcp_installer::files;
use obsmcp_installer::plugin::{self, PluginBundle};
use obsmcp_installer::plugin_data::{self, DEFAULT_CONFIG_DIR, DEFAULT_PORT};
use serde_json::{Value, json};

use super::report::{Check, Report, Repair, Section, Status, Subject};

/// The plugin files this binary carries.
// The same bytes setup installs; kept here until setup and doctor share one embedding.
pub(crate) const BUNDLE: PluginBundle = PluginBundle {
    main_js: include_bytes!("../../obsidian-plugin/main.js"),
    manifest: include_bytes!("../../obsidian-plugin/manifest.json"),
    styles: None,
};

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
        self.failed.extend(round.failed);
    }

    /// The fresh report, with what was repaired and any repair that failed.
    pub(crate) fn into_report(self, report: Report) -> Report {
        let mut sections = report.sections;
        if !self.failed.is_empty() {
            match sections.iter_mut().find(|section| matches!(section.subject, Subject::Machine)) {
                Some(machine) => machine.checks.extend(self.failed),
                None => sections.insert(0, Section { subject: Subject::Machine, checks: self.failed }),
            }
        }
        let mut fresh = Report::new(sections);
        fresh.fixed = self.done;
        fresh
    }
}

/// Applies every repair attached to a check that is not ok, each once.
pub(crate) fn apply(environment: &Environment, report: &Report) -> FixOutcome {
    let mut repairs: Vec<&Repair> = Vec::new();
    for check in report.checks().filter(|check| check.status >= Status::Warn) {
        if let Some(repair) = &check.repair
            && !repairs.contains(&repair)
        {
            repairs.push(repair);
        }
    }
    // Plugin files first: enabling or configuring a plugin that is not there yet would be out of order.
    repairs.sort_by_key(|repair| match repair {
        Repair::InstallPlugin { .. } => 0,
        Repair::RepairPluginData { .. } => 1,
        Repair::EnablePlugin { .. } => 2,
        Repair::RegisterEntry { .. } => 3,
    });
    let taken = ports_in_use(report);
    let mut outcome = FixOutcome::default();
    for repair in repairs {
        match apply_one(environment, repair, &taken) {
            Ok(Some(done)) => outcome.done.push(done),
            Ok(None) => {}
            Err(error) => outcome.failed.push(Check::fail(
                "fix.failed",
                format!("{error:#}"),
                "nothing was changed for this one; make the fix printed with the original check by hand",
            )),
        }
    }
    outcome
}

/// Ports that `data.json` files of the examined vaults already use, read from the report's findings.
fn ports_in_use(report: &Report) -> Vec<u16> {
    report
        .sections
        .iter()
        .filter_map(|section| match &section.subject {
            Subject::Vault { path, config_dir } => plugin_data::read(Path::new(path), config_dir).ok().map(|data| data.port),
            _ => None,
        })
        .collect()
}

fn apply_one(environment: &Environment, repair: &Repair, taken: &[u16]) -> anyhow::Result<Option<String>> {
    match repair {
        Repair::InstallPlugin { vault, config_dir } => install_plugin(vault, config_dir),
        Repair::EnablePlugin { vault, config_dir } => enable_plugin(vault, config_dir),
        Repair::RepairPluginData { vault, config_dir } => repair_data(vault, config_dir, taken),
        Repair::RegisterEntry { client, server, args, vault, config_dir } => {
            let spec = installer_clients::find(client).with_context(|| format!("unknown client `{client}`"))?;
            register(environment, spec, server.as_deref(), args.as_deref(), vault, config_dir)
        }
    }
}

fn install_plugin(vault: &Path, config_dir: &str) -> anyhow::Result<Option<String>> {
    let folder = plugin::folder(vault, config_dir);
    let mut written = Vec::new();
    for (name, bytes) in BUNDLE.files() {
        let path = folder.join(name);
        if std::fs::read(&path).is_ok_and(|current| current == bytes) {
            continue;
        }
        files::write_atomic(&path, bytes, Some(0o644)).with_context(|| format!("could not write the plugin file `{}`", path.display()))?;
        written.push(name);
    }
    Ok((!written.is_empty()).then(|| {
        format!("wrote plugin {} ({}) into `{}`", crate::version::PLUGIN, written.join(", "), folder.display())
    }))
}

fn enable_plugin(vault: &Path, config_dir: &str) -> anyhow::Result<Option<String>> {
    let path = plugin::community_plugins_path(vault, config_dir);
    let original = files::read_text(&path)?.unwrap_or_default();
    let base = if original.trim().is_empty() { "[]".to_owned() } else { original.clone() };
    let edited = document::apply(plugin::OBSIDIAN_FORMAT, &base, &[plugin::enable_operation()])
        .with_context(|| format!("could not edit `{}`", path.display()))?;
    if edited == original {
        return Ok(None);
    }
    files::write_atomic(&path, edited.as_bytes(), Some(0o644))?;
    Ok(Some(format!("enabled obsmcp in `{}`", path.display())))
}

fn repair_data(vault: &Path, config_dir: &str, taken: &[u16]) -> anyhow::Result<Option<String>> {
    let path = plugin_data::data_json_path(vault, config_dir);
    let original = files::read_text(&path)?;
    let parsed: Option<Value> = original.as_deref().and_then(|text| serde_json::from_str(text).ok()).filter(Value::is_object);
    let salvaged_token = original
        .as_deref()
        .and_then(|text| salvage(text, "token"))
        .filter(|token| (32..=512).contains(&token.len()) && token.chars().all(|c| c.is_ascii_alphanumeric() || "._~+/=-".contains(c)));
    let salvaged_port = original.as_deref().and_then(|text| salvage(text, "port")).and_then(|port| port.parse::<u16>().ok());
    let kept_token = salvaged_token.is_some();
    let token = salvaged_token.unwrap_or_else(plugin::new_token);
    let port = salvaged_port.filter(|port| *port != 0).unwrap_or_else(|| free_port(taken));
    let initial = json!({"port": port, "token": token});
    let text = match (&original, &parsed) {
        (Some(original), Some(existing)) => {
            let mut operations = plugin::data_operations(existing, &initial);
            if !kept_token && !operations.iter().any(|operation| matches!(operation, Operation::Replace { path, .. } if path == &["token"])) {
                operations.push(Operation::Replace { path: document::key_path(&["token"]), value: json!(token) });
            }
            document::apply(Format::Json, original, &operations).with_context(|| format!("could not edit `{}`", path.display()))?
        }
        _ => {
            // Unreadable as JSON: rewritten whole. write_atomic keeps the broken file as a backup first.
            let mut text = serde_json::to_string_pretty(&initial).expect("plain JSON always serialises");
            text.push('\n');
            text
        }
    };
    if original.as_deref() == Some(text.as_str()) {
        return Ok(None);
    }
    if plugin_data::parse(&text).is_err() {
        bail!("the repaired `{}` would still not be valid; left as it was", path.display());
    }
    files::write_atomic(&path, text.as_bytes(), Some(0o600))?;
    let backup = files::backup_path(&path);
    let kept = if kept_token { "kept its token" } else { "new token" };
    let saved = if original.is_some() && backup.exists() { format!("; the old file is in `{}`", backup.display()) } else { String::new() };
    Ok(Some(format!("repaired `{}` (port {port}, {kept}){saved}", path.display())))
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

fn register(
    environment: &Environment,
    spec: &ClientSpec,
    server: Option<&str>,
    args: Option<&[String]>,
    vault: &Path,
    config_dir: &str,
) -> anyhow::Result<Option<String>> {
    let location = spec.locate(environment);
    if let Some(problem) = location.problem {
        bail!("cannot register with {}: {problem}", spec.name);
    }
    let path = files::resolve(&location.config);
    let _lock = if spec.claude_lock {
        Some(files::DirectoryLock::acquire(&path, std::time::Duration::from_secs(5))?)
    } else {
        None
    };
    let original = files::read_text(&path)?;
    let text = original.clone().unwrap_or_default();
    let servers = installer_clients::read_servers(spec, &text)
        .with_context(|| format!("`{}` does not parse; doctor leaves it alone", path.display()))?;
    let binary = std::env::current_exe().context("could not find this obsmcp binary's path")?;
    let binary = binary.to_str().context("this obsmcp binary's path is not UTF-8")?.to_owned();
    let fresh_args = || {
        let mut args = vec!["bridge".to_owned(), "--vault".to_owned(), vault.to_string_lossy().into_owned()];
        if config_dir != DEFAULT_CONFIG_DIR {
            args.extend(["--config-dir".to_owned(), config_dir.to_owned()]);
        }
        args
    };
    let (name, args) = match server {
        Some(name) if servers.contains_key(name) => (name.to_owned(), args.map_or_else(fresh_args, <[String]>::to_vec)),
        _ => (server_name(&servers, vault), fresh_args()),
    };
    let values: BTreeMap<&str, Value> = BTreeMap::from([("command", json!(binary)), ("args", json!(args))]);
    let entry = spec.template().render(&values);
    let operation = Operation::Merge { path: spec.entry_path(&name), value: entry };
    let edited = document::apply(spec.format, &text, &[operation]).with_context(|| format!("could not edit `{}`", path.display()))?;
    if original.as_deref() == Some(edited.as_str()) {
        return Ok(None);
    }
    files::write_atomic(&path, edited.as_bytes(), spec.new_file_mode)?;
    Ok(Some(format!("{} entry `{name}` in `{}` now runs `{binary}`", spec.name, path.display())))
}

/// `obsidian`, or `obsidian-<vault slug>` when that name is taken by something else.
fn server_name(servers: &serde_json::Map<String, Value>, vault: &Path) -> String {
    if !servers.contains_key("obsidian") {
        return "obsidian".to_owned();
    }
    let slug = obsmcp_installer::vaults::slug(&obsmcp_installer::vaults::vault_name(vault));
    let base = format!("obsidian-{slug}");
    (1..)
        .map(|index| if index == 1 { base.clone() } else { format!("{base}-{index}") })
        .find(|name| !servers.contains_key(name))
        .expect("an unused name exists")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_salvaged_from_a_truncated_file() {
        let text = "{\n  \"port\": 22411,\n  \"token\": \"abc123\",\n  \"readOnly\": tr";
        assert_eq!(salvage(text, "token").as_deref(), Some("abc123"));
        assert_eq!(salvage(text, "port").as_deref(), Some("22411"));
        assert_eq!(salvage("{\"port\": }", "port"), None);
    }
}
