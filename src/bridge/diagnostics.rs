//! The diagnostics log: one JSON object per line, for `obsmcp doctor --bundle` and for people reading a bug report.
//!
//! What may be written is fixed by the [`Record`] type: an event name, a trace id per request, method and tool names,
//! outcome words, timings and sizes. It has no field for free text, so note content, tool arguments, paths and
//! tokens cannot end up here by accident. The file is created with mode 0600 and rotates to `bridge.log.1` at a few
//! MiB. A log that cannot be opened or written never stops the bridge: it says so once on stderr and goes on.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::lock::lock;
use serde::Serialize;

/// Rotate when the file grows past this.
const ROTATE_AT: u64 = 4 * 1024 * 1024;

/// One line of the log. Only closed vocabularies, names and numbers: nothing a user typed into a note.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Record<'a> {
    /// What happened, e.g. `call`, `connected`, `connection_lost`.
    pub(crate) event: &'static str,
    /// Ties together the lines of one request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<u64>,
    /// The JSON-RPC method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) method: Option<&'a str>,
    /// The tool name of a call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<&'a str>,
    /// How it ended: `ok`, `tool_error`, `unreachable`, `lost`, `timeout`, `refused`, `cancelled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<&'static str>,
    /// The upstream kind: `vault`, `url`, `command`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) upstream: Option<&'static str>,
    /// The transport actually used: `streamable_http`, `legacy_sse`, `stdio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) transport: Option<&'static str>,
    /// Milliseconds taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) duration_ms: Option<f64>,
    /// Bytes of the request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bytes_in: Option<usize>,
    /// Bytes of the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bytes_out: Option<usize>,
    /// A count: reconnections, tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) count: Option<u64>,
}

/// The open log.
pub(crate) struct Diagnostics {
    path: Option<PathBuf>,
    file: Mutex<Option<(File, u64)>>,
}

impl Diagnostics {
    /// Opens (or creates) the log at `path`, or at the platform default when `None`.
    pub(crate) fn open(path: Option<PathBuf>) -> Self {
        let path = path.or_else(default_path);
        let file = path.as_deref().and_then(|path| match open_private(path) {
            Ok(opened) => Some(opened),
            Err(error) => {
                tracing::warn!(
                    "diagnostics log `{}` could not be opened, going on without it: {error}",
                    path.display()
                );
                None
            }
        });
        Self {
            path,
            file: Mutex::new(file),
        }
    }

    /// Appends one record.
    pub(crate) fn record(&self, record: &Record<'_>) {
        #[derive(Serialize)]
        struct Line<'a, 'b> {
            ts_ms: u128,
            #[serde(flatten)]
            record: &'a Record<'b>,
        }
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis())
            .unwrap_or_default();
        let Ok(mut line) = serde_json::to_vec(&Line {
            ts_ms: timestamp,
            record,
        }) else {
            return;
        };
        line.push(b'\n');
        let mut guard = lock(&self.file);
        let Some((file, size)) = guard.as_mut() else {
            return;
        };
        if let Err(error) = file.write_all(&line) {
            tracing::warn!("diagnostics log write failed, closing it: {error}");
            *guard = None;
            return;
        }
        *size += line.len() as u64;
        if *size >= ROTATE_AT {
            *guard = self.path.as_deref().and_then(|path| rotate(path).ok());
        }
    }
}

/// `$XDG_STATE_HOME/obsmcp/bridge.log` (default `~/.local/state/obsmcp/`), `~/Library/Logs/obsmcp/` on macOS,
/// the local app-data folder elsewhere.
pub(crate) fn default_path() -> Option<PathBuf> {
    let folder = if cfg!(target_os = "macos") {
        dirs::home_dir()?
            .join("Library")
            .join("Logs")
            .join("obsmcp")
    } else {
        dirs::state_dir()
            .or_else(dirs::data_local_dir)?
            .join("obsmcp")
    };
    Some(folder.join("bridge.log"))
}

fn open_private(path: &Path) -> std::io::Result<(File, u64)> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        let file = options.open(path)?;
        // A file made by something else, or before this rule, is narrowed too: the log names the tools a user ran.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        let size = file.metadata()?.len();
        Ok((file, size))
    }
    #[cfg(not(unix))]
    {
        let file = options.open(path)?;
        let size = file.metadata()?.len();
        Ok((file, size))
    }
}

fn rotate(path: &Path) -> std::io::Result<(File, u64)> {
    let mut previous = path.as_os_str().to_owned();
    previous.push(".1");
    std::fs::rename(path, PathBuf::from(previous))?;
    open_private(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_json_lines_in_a_private_file_that_rotates() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state").join("bridge.log");
        let log = Diagnostics::open(Some(path.clone()));
        log.record(&Record {
            event: "call",
            trace: Some(7),
            tool: Some("read_note"),
            outcome: Some("ok"),
            ..Record::default()
        });
        let text = std::fs::read_to_string(&path).unwrap();
        let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(line["event"], "call");
        assert_eq!(line["trace"], 7);
        assert!(line.get("bytes_in").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let big = Record {
            event: "call",
            tool: Some(&"x".repeat(1000)),
            ..Record::default()
        };
        for _ in 0..(ROTATE_AT / 1000 + 10) {
            log.record(&big);
        }
        assert!(folder.path().join("state").join("bridge.log.1").exists());
        assert!(std::fs::metadata(&path).unwrap().len() < ROTATE_AT);
    }
}
