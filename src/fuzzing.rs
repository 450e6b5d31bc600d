//! Bodies of the fuzz targets under `fuzz/` that drive the binary's own parsers: `jsonrpc_line` (the bridge's
//! framing of stdin lines) and `vault_path` (the offline reader's path checks). Not part of any stable interface:
//! each `pub fn` takes the fuzzer's bytes, drives one parser with them and panics when an invariant breaks. The fuzz
//! targets are one-liners over these bodies, and the tests at the end replay the committed inputs through the same
//! bodies in ordinary `cargo test`. The editor targets' bodies are the installer's, in
//! `obsmcp_installer::document::fuzzing`.
//!
//! Compiled only for tests and under cargo-fuzz, which builds with `--cfg fuzzing`: release builds do not carry it.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::bridge::jsonrpc::{self, Line, Message};
use crate::offline::plugin::vault::paths;

/// One stdin line through the bridge's framing: never a panic; blank, not-JSON and messages told apart exactly as
/// JSON says; a batch yields one message per member; each message sorted by the JSON-RPC rules (a request's id is a
/// string or a number, a null id makes a notification) and carrying the member's own id, method and params.
pub fn jsonrpc_line(data: &[u8]) {
    let trimmed = data.trim_ascii();
    let whole_line_is_json = serde_json::from_slice::<Value>(data).is_ok();
    let parsed = serde_json::from_slice::<Value>(trimmed);
    match jsonrpc::parse_line(data) {
        Line::Blank => assert!(trimmed.is_empty(), "a line with content was taken as blank"),
        Line::NotJson(reason) => {
            assert!(!trimmed.is_empty(), "a blank line was reported as not JSON");
            assert!(!whole_line_is_json, "valid JSON was reported as not JSON");
            assert!(parsed.is_err(), "valid JSON was reported as not JSON");
            assert!(!reason.is_empty(), "a parse error without a reason");
        }
        Line::Messages(messages) => {
            let value = parsed.expect("a line sorted into messages is JSON");
            let members = match value {
                Value::Array(members) if !members.is_empty() => members,
                single => vec![single],
            };
            assert_eq!(
                messages.len(),
                members.len(),
                "a batch must yield one message per member"
            );
            for (message, member) in messages.into_iter().zip(members) {
                check_message(message, &member);
            }
        }
    }
}

/// The kind JSON-RPC 2.0 (with MCP's `"id": null` notifications) gives a member, worked out independently.
#[derive(Debug, PartialEq)]
enum Kind {
    Request,
    Notification,
    Response,
    Invalid,
}

fn expected_kind(member: &Value) -> Kind {
    let Some(object) = member.as_object() else {
        return Kind::Invalid;
    };
    match (object.get("method"), object.get("id")) {
        (Some(Value::String(_)), None | Some(Value::Null)) => Kind::Notification,
        (Some(Value::String(_)), Some(Value::String(_) | Value::Number(_))) => Kind::Request,
        (Some(_), _) => Kind::Invalid,
        (None, _) if object.contains_key("result") || object.contains_key("error") => {
            Kind::Response
        }
        (None, _) => Kind::Invalid,
    }
}

/// The id as an answer carries it once written out (an id a float cannot hold exactly travels as its text).
fn answered_id(id: &Value) -> Value {
    let answer = serde_json::json!({ "id": id });
    let line =
        crate::bridge::jsonrpc::restore_raw_id(&answer, serde_json::to_vec(&answer).unwrap());
    serde_json::from_slice::<Value>(&line).expect("an answer parses")["id"].clone()
}

fn check_message(message: Message, member: &Value) {
    let field = |key: &str| member.as_object().and_then(|object| object.get(key));
    let kind = match message {
        Message::Request { id, method, params } => {
            assert!(
                id.is_string() || id.is_number(),
                "request id {id} is neither a string nor a number"
            );
            assert_eq!(Some(&answered_id(&id)), field("id"));
            assert_eq!(Some(&Value::String(method)), field("method"));
            assert_eq!(params.as_ref(), field("params"));
            Kind::Request
        }
        Message::Notification { method, params } => {
            assert!(field("id").is_none_or(Value::is_null));
            assert_eq!(Some(&Value::String(method)), field("method"));
            assert_eq!(params.as_ref(), field("params"));
            Kind::Notification
        }
        Message::Response { id, body } => {
            assert_eq!(&answered_id(&id), field("id").unwrap_or(&Value::Null));
            let mut rest = member.as_object().cloned().unwrap_or_default();
            rest.shift_remove("id");
            assert_eq!(body, Value::Object(rest), "a response body lost a field");
            Kind::Response
        }
        Message::Invalid { id, reason } => {
            assert!(!reason.is_empty());
            assert!(
                id.is_null() || Some(&answered_id(&id)) == field("id"),
                "an invalid message answered with an id it did not carry"
            );
            Kind::Invalid
        }
    };
    assert_eq!(kind, expected_kind(member), "{member} was sorted wrongly");
}

/// Config folder names a vault may use; a path is checked against each.
const CONFIG_DIRS: &[&str] = &[".obsidian", ".obsidian-mobile", "/.config/", "Meta"];

/// One agent-supplied vault path through the offline reader's checks: never a panic, and nothing accepted can
/// leave the vault or reach its config folder, on any OS the bridge runs on: no absolute, drive or UNC form, no `..`,
/// no NUL, control character or backslash; each segment one plain file name; the cleaned form accepted again
/// unchanged; and on disk, nothing reached through a symlink that leads outside is judged inside.
pub fn vault_path(data: &[u8]) {
    let raw = String::from_utf8_lossy(data);
    let mut accepted = None;
    for config_dir in CONFIG_DIRS {
        match paths::clean_vault_path(&raw, config_dir, "path") {
            Ok(path) => {
                check_clean_path(&path, config_dir);
                accepted = Some(path);
            }
            Err(crate::offline::ToolError(message)) => {
                assert!(message.starts_with("path "), "unnamed refusal: {message}")
            }
        }
    }
    if let Some(path) = accepted {
        check_on_disk(&path);
    }
}

fn check_clean_path(path: &str, config_dir: &str) {
    let again = paths::clean_vault_path(path, config_dir, "path");
    assert_eq!(
        again.as_deref(),
        Ok(path),
        "a cleaned path is not accepted again unchanged"
    );
    assert!(path.encode_utf16().count() <= 1024);
    assert!(
        !path
            .chars()
            .any(|c| c <= '\u{1f}' || c == '\u{7f}' || c == '\\'),
        "{path:?} holds a control character or backslash"
    );
    if path.is_empty() {
        return;
    }
    let segments: Vec<&str> = path.split('/').collect();
    for segment in &segments {
        assert!(
            !segment.is_empty() && *segment != "." && *segment != "..",
            "{path:?} has an empty, `.` or `..` segment"
        );
        let bytes = segment.as_bytes();
        // `C:` pushed onto a Windows path replaces the vault folder with that drive.
        assert!(
            !(bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'),
            "{path:?} has a drive segment"
        );
        // Windows opens `NUL.md` or `notes/com1/x` as a device, on a vault synced there from any OS.
        assert!(
            !opens_a_windows_device(segment),
            "{path:?} has a segment that is a Windows device name"
        );
    }
    assert!(!paths::is_in_config_dir(path, config_dir));
    // Windows drops trailing dots and spaces from a name: `.obsidian. /app.json` opens `.obsidian/app.json`.
    let config = config_dir.trim_matches('/').to_lowercase();
    let as_windows_opens = segments
        .iter()
        .map(|segment| segment.trim_end_matches(['.', ' ']).to_lowercase())
        .collect::<Vec<_>>()
        .join("/");
    assert!(
        !(as_windows_opens == config || as_windows_opens.starts_with(&format!("{config}/"))),
        "{path:?} reaches the config folder {config_dir} on Windows"
    );
    let root = Path::new("vault");
    let full = paths::full_path(root, path);
    let below: Vec<Component> = full
        .strip_prefix(root)
        .expect("a vault path stays under the vault")
        .components()
        .collect();
    assert_eq!(
        below.len(),
        segments.len(),
        "{path:?} is not one name per segment"
    );
    assert!(
        below
            .iter()
            .all(|component| matches!(component, Component::Normal(_))),
        "{path:?} resolves to something other than names below the vault"
    );
}

/// Whether Windows reads a file name as a device, written apart from `paths`: the name before its first `.` or `:`,
/// trailing spaces dropped, is CON, PRN, AUX, NUL, or COM or LPT with a digit 1-9 or superscript ¹ ² ³, in any case
/// (Microsoft's "Naming Files, Paths, and Namespaces"; COM0 and LPT0 are not reserved).
fn opens_a_windows_device(name: &str) -> bool {
    let end = name.find(['.', ':']).unwrap_or(name.len());
    let base = name[..end].trim_end_matches(' ').to_lowercase();
    let ports = ["com", "lpt"].iter().flat_map(|port| {
        "123456789¹²³"
            .chars()
            .map(move |digit| format!("{port}{digit}"))
    });
    ["con", "prn", "aux", "nul"]
        .iter()
        .map(|name| name.to_string())
        .chain(ports)
        .any(|device| device == base)
}

/// A vault on disk with links that lead out (`out`, `leak.md`, `in/up`), a link that stays in (`in/back`) and a loop.
struct Fixture {
    root: PathBuf,
    real: paths::RealVault,
}

/// Names whose path, once reached, lies outside the vault.
const ESCAPES: &[&[&str]] = &[&["out"], &["leak.md"], &["in", "up"]];

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // One fixed folder, rebuilt idempotently: fuzz runs and test runs share it instead of leaving one per run.
        let base = std::env::temp_dir().join("obsmcp-fuzz-vault-path");
        let root = base.join("vault");
        std::fs::create_dir_all(root.join("in")).expect("fixture folder");
        std::fs::create_dir_all(base.join("outside")).expect("fixture folder");
        std::fs::write(root.join("in").join("note.md"), "in").expect("fixture note");
        std::fs::write(base.join("outside").join("secret.md"), "out").expect("fixture note");
        #[cfg(unix)]
        for (target, link) in [
            (base.join("outside"), root.join("out")),
            (base.join("outside").join("secret.md"), root.join("leak.md")),
            (PathBuf::from("../.."), root.join("in").join("up")),
            (PathBuf::from(".."), root.join("in").join("back")),
            (PathBuf::from("loop"), root.join("loop")),
        ] {
            match std::os::unix::fs::symlink(&target, &link) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(error) => panic!("fixture link {}: {error}", link.display()),
            }
        }
        let real = paths::RealVault::new(
            std::fs::canonicalize(&root).expect("fixture vault"),
            ".obsidian",
        );
        Fixture { root, real }
    })
}

fn check_on_disk(path: &str) {
    let fixture = fixture();
    let inside = paths::is_inside_vault_on_disk(&fixture.root, &fixture.real, path);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if cfg!(unix) && ESCAPES.iter().any(|escape| segments.starts_with(escape)) {
        assert!(
            !inside,
            "{path:?} leads outside the vault through a symlink"
        );
    }
    if path.is_empty() || segments == ["in"] || segments == ["in", "note.md"] {
        assert!(inside, "{path:?} is inside the vault");
    }
}

#[cfg(test)]
#[path = "../fuzz/replay.rs"]
mod replay;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::replay::{self, Body};
    use super::*;

    /// The binary's targets and their bodies.
    const TARGETS: &[(&str, Body)] = &[("jsonrpc_line", jsonrpc_line), ("vault_path", vault_path)];

    /// The workspace's `fuzz/` folder.
    fn fuzz() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
    }

    replay::replay_tests!(fuzz(), TARGETS);

    /// The replay is only worth its name if a body that panics on an input fails it, and says how to reproduce that.
    #[test]
    fn a_body_that_panics_fails_the_replay_with_the_command_that_reproduces_it() {
        fn panics_on_boom(data: &[u8]) {
            assert_ne!(data, b"boom", "the body broke");
        }
        let fuzz = tempfile::tempdir().expect("a temporary folder");
        let folder = fuzz.path().join("corpus").join("some_target");
        std::fs::create_dir_all(&folder).expect("a corpus folder");
        std::fs::write(folder.join("fine"), "fine").expect("an input");
        std::fs::write(folder.join("crash"), "boom").expect("an input");
        let targets: &[(&str, Body)] = &[("some_target", panics_on_boom)];
        let failure = std::panic::catch_unwind(|| replay::replay(fuzz.path(), "corpus", targets))
            .expect_err("a panicking body must fail the replay");
        let message = failure
            .downcast_ref::<String>()
            .expect("the replay fails with a message");
        let crash = folder.join("crash");
        assert_eq!(
            message,
            &format!(
                "some_target fails on {0} (reproduce: cd fuzz && cargo fuzz run some_target {0})",
                crash.display()
            )
        );
        assert_eq!(replay::replay(fuzz.path(), "seeds", targets), 0);
    }
}
