//! `--bundle FILE.zip`: a bug-report archive a user can attach to an issue without reading it first.
//!
//! It holds the JSON report, the obsmcp-related entries of each client config, the tail of the diagnostics log and
//! the versions. Redaction is by construction rather than by hope: entries pass through [`redact_entry`] (secret-
//! looking `env` names and every known token replaced), log lines are re-serialised without content-bearing keys,
//! and no file of a vault is ever read here, so no note can end up inside.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::clients::{ClientConfig, ConfigState, ServerEntry};
use super::report::Report;

/// What replaces a secret.
pub(crate) const REDACTED: &str = "<redacted>";

/// How many lines of the diagnostics log to keep.
const LOG_TAIL_LINES: usize = 200;

/// Keys of log records that could carry user data; dropped from the tail whatever the bridge logs.
const CONTENT_KEYS: [&str; 8] = [
    "content",
    "text",
    "arguments",
    "args",
    "params",
    "result",
    "body",
    "query",
];

/// Everything the bundle is made of.
pub(crate) struct BundleInput<'a> {
    /// The report, as `--json` would print it.
    pub(crate) report: &'a Report,
    /// The client configs read during the run.
    pub(crate) clients: &'a [ClientConfig],
    /// Tokens known from the vaults' `data.json`, to be scrubbed wherever they appear.
    pub(crate) tokens: &'a [String],
    /// Folders where the bridge may keep its diagnostics log, most likely first.
    pub(crate) log_folders: Vec<PathBuf>,
}

/// Writes the archive to `path` (through a temporary file, so a failed run leaves no half archive).
pub(crate) fn write(path: &Path, input: &BundleInput<'_>) -> anyhow::Result<Vec<String>> {
    use anyhow::Context as _;
    let mut files: Vec<(String, String)> = Vec::new();
    files.push(("report.json".to_owned(), super::print::json(input.report)));
    files.push(("versions.json".to_owned(), pretty(&versions(input.report))));
    for client in input.clients {
        files.push((
            format!("clients/{}.json", client.spec.id),
            pretty(&client_entries(client, input.tokens)),
        ));
    }
    let (log_name, tail) = log_tail(&input.log_folders, input.tokens);
    files.push(("diagnostics-log-tail.jsonl".to_owned(), tail));
    files.push(("README.txt".to_owned(), readme(log_name.as_deref())));

    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o600);
    for (name, text) in &files {
        let text = scrub(text, input.tokens);
        archive
            .start_file(name.as_str(), options)
            .context("could not add a file to the bundle")?;
        archive
            .write_all(text.as_bytes())
            .context("could not add a file to the bundle")?;
    }
    let bytes = archive
        .finish()
        .context("could not finish the bundle")?
        .into_inner();
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, bytes)
        .with_context(|| format!("could not write `{}`", temporary.display()))?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("could not write `{}`", path.display()))?;
    Ok(files.into_iter().map(|(name, _)| name).collect())
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plain JSON always serialises");
    text.push('\n');
    text
}

fn versions(report: &Report) -> Value {
    let plugins: Vec<Value> = report
        .sections
        .iter()
        .filter_map(|section| match &section.subject {
            super::report::Subject::Vault { path, .. } => Some(json!({
                "vault": path,
                "checks": section.checks.iter()
                    .filter(|check| check.id == "plugin.files" || check.id == "obsidian.handshake")
                    .map(|check| json!({"id": check.id, "finding": check.finding}))
                    .collect::<Vec<_>>(),
            })),
            _ => None,
        })
        .collect();
    json!({
        "obsmcp": report.obsmcp_version,
        "bundled_plugin": report.bundled_plugin_version,
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "plugins": plugins,
    })
}

fn client_entries(client: &ClientConfig, tokens: &[String]) -> Value {
    let state = match &client.state {
        ConfigState::Absent => json!({"state": "absent"}),
        ConfigState::Unparsable(error) => json!({"state": "unparsable", "error": error}),
        ConfigState::Parsed(entries) => {
            let related: Map<String, Value> = entries
                .iter()
                .filter(|entry| is_related(entry))
                .map(|entry| (entry.name.clone(), redact_entry(&entry.raw, tokens)))
                .collect();
            json!({"state": "parsed", "entries_total": entries.len(), "obsidian_entries": related})
        }
    };
    json!({"client": client.spec.id, "name": client.name, "config": client.path, "config_state": state})
}

/// Entries worth a bug report: ours, and anything else that reaches Obsidian.
fn is_related(entry: &ServerEntry) -> bool {
    let text = entry.raw.to_string().to_ascii_lowercase();
    entry.is_obsmcp()
        || entry.name.contains("obsidian")
        || text.contains("obsidian")
        || text.contains(":22360")
}

/// Whether an environment variable's name says it holds a secret.
pub(crate) fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "token",
        "secret",
        "key",
        "pass",
        "auth",
        "credential",
        "bearer",
        "cookie",
        "session",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// A copy of an entry with secrets in `env`/`environment`/`headers` and after `--token`-like flags replaced.
pub(crate) fn redact_entry(raw: &Value, tokens: &[String]) -> Value {
    let mut entry = raw.clone();
    if let Some(object) = entry.as_object_mut() {
        for key in [
            "env",
            "environment",
            "headers",
            "http_headers",
            "env_http_headers",
        ] {
            if let Some(map) = object.get_mut(key).and_then(Value::as_object_mut) {
                for (name, value) in map.iter_mut() {
                    if secret_name(name) || key.contains("header") {
                        *value = json!(REDACTED);
                    }
                }
            }
        }
        for key in ["args", "command"] {
            if let Some(items) = object.get_mut(key).and_then(Value::as_array_mut) {
                let mut hide_next = false;
                for item in items.iter_mut() {
                    let Some(text) = item.as_str().map(str::to_owned) else {
                        continue;
                    };
                    let flag = text.starts_with('-')
                        && (secret_name(&text) || text == "--header" || text == "-H");
                    if hide_next {
                        *item = json!(REDACTED);
                    } else if flag && text.contains('=') {
                        let name = text.split('=').next().unwrap_or_default();
                        *item = json!(format!("{name}={REDACTED}"));
                    }
                    hide_next = flag && !text.contains('=');
                }
            }
        }
    }
    serde_json::from_str(&scrub(&entry.to_string(), tokens)).unwrap_or(entry)
}

/// Replaces every known token in `text`.
fn scrub(text: &str, tokens: &[String]) -> String {
    tokens
        .iter()
        .filter(|token| token.len() >= 8)
        .fold(text.to_owned(), |text, token| {
            text.replace(token.as_str(), REDACTED)
        })
}

/// The last lines of the newest diagnostics log, with content-bearing keys removed.
fn log_tail(folders: &[PathBuf], tokens: &[String]) -> (Option<String>, String) {
    let newest = folders
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
            entry.path().is_file() && (name.contains("log") || name.ends_with(".jsonl"))
        })
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .max_by_key(|(modified, _)| *modified);
    let Some((_, path)) = newest else {
        return (None, String::new());
    };
    let Ok(bytes) = std::fs::read(&path) else {
        return (Some(path.display().to_string()), String::new());
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    let mut tail = String::new();
    for line in &lines[start..] {
        let kept = match serde_json::from_str::<Value>(line) {
            Ok(mut record) => {
                strip_content(&mut record);
                record.to_string()
            }
            Err(_) => format!("[a line that is not JSON, {} bytes, left out]", line.len()),
        };
        tail.push_str(&scrub(&kept, tokens));
        tail.push('\n');
    }
    (Some(path.display().to_string()), tail)
}

fn strip_content(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in CONTENT_KEYS {
                if map.contains_key(key) {
                    map.insert(key.to_owned(), json!(REDACTED));
                }
            }
            map.values_mut().for_each(strip_content);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_content),
        _ => {}
    }
}

fn readme(log: Option<&str>) -> String {
    format!(
        "obsmcp support bundle\n\n\
         report.json                 the doctor report (same as `obsmcp doctor --json`)\n\
         versions.json               obsmcp, the bundled plugin, the OS, the plugin each vault runs\n\
         clients/<client>.json       the Obsidian-related entries of each AI client config; secrets in env redacted\n\
         diagnostics-log-tail.jsonl  the last {LOG_TAIL_LINES} records of the diagnostics log ({}), content keys redacted\n\n\
         No note content is included: doctor never reads notes. Tokens are replaced by {REDACTED}.\n",
        log.unwrap_or("none found")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_env_and_flags_are_redacted() {
        let raw = json!({"command": "npx", "args": ["mcp-remote", "http://x", "--header", "Authorization: Bearer abcdefgh12", "--api-key=k1"],
                         "env": {"OBSIDIAN_API_KEY": "k2", "PATH": "/usr/bin", "OTHER": "holds tok-123456789"}});
        let redacted = redact_entry(&raw, &["tok-123456789".to_owned()]);
        let text = redacted.to_string();
        for secret in ["abcdefgh12", "k1\"", "k2", "tok-123456789"] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
        assert_eq!(redacted["env"]["PATH"], "/usr/bin");
        assert_eq!(redacted["args"][4], "--api-key=<redacted>");
    }

    #[test]
    fn log_records_lose_content_keys() {
        let mut record = json!({"event": "call", "tool": "read_note", "arguments": {"path": "x"}, "nested": {"text": "note"}});
        strip_content(&mut record);
        assert_eq!(record["arguments"], REDACTED);
        assert_eq!(record["nested"]["text"], REDACTED);
        assert_eq!(record["tool"], "read_note");
    }
}
