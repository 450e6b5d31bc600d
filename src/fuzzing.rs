//! Entry points for the fuzz targets under `fuzz/`. Not part of any stable interface: each `pub fn` takes the
//! fuzzer's bytes, drives one parser or editor with them and panics when an invariant breaks. The fuzz targets are
//! one-liners over these bodies, and `tests/it/fuzz_corpus.rs` replays the committed corpus through the same bodies
//! in ordinary `cargo test`.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use obsmcp_installer::document::{self, DocumentError, Format, KeyPath, Operation};
use serde_json::{Map, Value, json};

use crate::bridge::jsonrpc::{self, Line, Message};
use crate::offline::paths;

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

/// The entry every editor target adds: a path with spaces, `#`, `:` and non-ASCII, and a nested table.
fn fuzz_entry() -> Value {
    json!({
        "command": "/opt/obs mcp/obsmcp",
        "args": ["bridge", "--vault", "/home/zoë/My Notes: 2026 # draft", "--read-only"],
        "env": {"OBSMCP_LOG": "warn"}
    })
}

/// A strict JSON file (`~/.claude.json`, Claude Desktop, Claude's `settings.json`, Obsidian's
/// `community-plugins.json`) through the editor; see [`document_jsonc`] for the checks.
pub fn document_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    server_entry(Format::Json, &text, &["mcpServers"]);
    let rules = vec![
        "mcp__obsidian__read_note".to_owned(),
        "mcp__obsidian__search".to_owned(),
    ];
    string_array(Format::Json, &text, &["permissions", "allow"], rules);
    string_array(Format::Json, &text, &[], vec!["obsmcp".to_owned()]);
}

/// A JSONC file (VS Code, Zed, Gemini, Cursor, opencode) through the editor: setup's upsert never panics; a text
/// that does not read is refused; one that reads is edited or refused only for a non-object on the path; the result
/// reads back with the entry and everything else as it was; a second upsert changes no byte; and uninstall's
/// removal gives back the input.
pub fn document_jsonc(data: &[u8]) {
    server_entry(
        Format::Jsonc,
        &String::from_utf8_lossy(data),
        &["mcpServers"],
    );
}

/// A TOML file (Codex `config.toml`) through the editor; see [`document_jsonc`] for the checks.
pub fn document_toml(data: &[u8]) {
    server_entry(
        Format::Toml,
        &String::from_utf8_lossy(data),
        &["mcp_servers"],
    );
}

/// A YAML file (Hermes `config.yaml`) through the editor; see [`document_jsonc`] for the checks.
pub fn document_yaml(data: &[u8]) {
    server_entry(
        Format::Yaml,
        &String::from_utf8_lossy(data),
        &["mcp_servers"],
    );
}

fn keys(path: &[&str]) -> KeyPath {
    document::key_path(path)
}

/// Setup's upsert of one server entry and uninstall's removal of it.
fn server_entry(format: Format, text: &str, servers: &[&str]) {
    let servers = keys(servers);
    let mut entry_path = servers.clone();
    entry_path.push("obsidian".to_owned());
    let entry = fuzz_entry();
    let upsert = [Operation::Merge {
        path: entry_path.clone(),
        value: entry.clone(),
    }];
    let Some((before, added)) = edited(format, text, &upsert, &entry_path, false) else {
        return;
    };
    let after = read_back(format, &added);
    // Merge keeps the keys a user added to an existing entry of that name.
    let mut wanted = document::lookup(&before, &entry_path)
        .cloned()
        .unwrap_or(Value::Null);
    merge(&mut wanted, &entry);
    assert_eq!(
        document::lookup(&after, &entry_path),
        Some(&wanted),
        "{format:?}: the entry is not as merged in:\n{added}"
    );
    let had_entry = document::lookup(&before, &entry_path).is_some();
    if !had_entry {
        let mut rest = after;
        if let Some(Value::Object(map)) = lookup_mut(&mut rest, &servers) {
            map.shift_remove("obsidian");
        }
        // A container setup created is left empty here; it is not the user's.
        if document::lookup(&before, &servers).is_none()
            && let Some(Value::Object(map)) = lookup_mut(&mut rest, &servers[..servers.len() - 1])
        {
            map.shift_remove(&servers[servers.len() - 1]);
        }
        assert_eq!(
            meaning(format, rest),
            user_content(format, &before, &servers),
            "{format:?}: the upsert moved the user's content:\n{added}"
        );
    }
    assert_twice_is_once(format, &added, &upsert);
    if had_entry {
        // Uninstall removes only what setup added; this entry was the user's.
        return;
    }
    let mut removal = vec![Operation::Remove { path: entry_path }];
    if document::lookup(&before, &servers).is_none() {
        removal.push(Operation::RemoveIfEmpty {
            path: servers.clone(),
        });
    }
    assert_restored(format, text, &before, &added, &removal, &servers);
}

/// Setup's addition of strings to an array (permission rules, the enabled-plugins list) and uninstall's removal.
fn string_array(format: Format, text: &str, path: &[&str], items: Vec<String>) {
    let path = keys(path);
    let add = [Operation::AddToArray {
        path: path.clone(),
        items: items.clone(),
    }];
    let Some((before, added)) = edited(format, text, &add, &path, true) else {
        return;
    };
    let after = read_back(format, &added);
    let array = document::lookup(&after, &path).and_then(Value::as_array);
    let array = array.unwrap_or_else(|| panic!("{format:?}: the array is missing from:\n{added}"));
    for item in &items {
        assert!(array.iter().any(|value| value == item), "{item} not added");
    }
    assert_twice_is_once(format, &added, &add);
    let present = document::lookup(&before, &path).and_then(Value::as_array);
    if present.is_some_and(|array| {
        array
            .iter()
            .any(|value| items.iter().any(|item| value == item))
    }) || path.is_empty() && before.is_null()
    {
        // The user's own items stay; a file setup created from nothing is deleted whole by uninstall instead.
        return;
    }
    let mut removal = vec![Operation::RemoveFromArray {
        path: path.clone(),
        items,
    }];
    // Setup records the containers it created; uninstall prunes them deepest first when they are empty.
    for depth in (1..=path.len()).rev() {
        if document::lookup(&before, &path[..depth]).is_none() {
            removal.push(Operation::RemoveIfEmpty {
                path: path[..depth].to_vec(),
            });
        }
    }
    let mut parent = path.clone();
    parent.pop();
    assert_restored(format, text, &before, &added, &removal, &parent);
}

/// Applies `operations`; `None` when the text rightly could not be edited. Checks that only a text that does not
/// read is refused as unparseable, and only a non-object on `path` refuses the edit otherwise.
fn edited(
    format: Format,
    text: &str,
    operations: &[Operation],
    path: &[String],
    wants_array: bool,
) -> Option<(Value, String)> {
    let result = document::apply(format, text, operations);
    let before = match document::read_value(format, text) {
        Ok(before) => before,
        Err(_) => {
            assert!(
                matches!(result, Err(DocumentError::Parse { .. })),
                "{format:?}: a text that does not read was edited: {result:?}"
            );
            return None;
        }
    };
    match result {
        Ok(added) => Some((before, added)),
        // The tree cannot tell which copy of a key readers keep.
        Err(DocumentError::Parse { message, .. })
            if matches!(format, Format::Json | Format::Jsonc)
                && message.contains("appears twice") =>
        {
            None
        }
        // Valid YAML the lossless tree cannot take apart (an anchored empty key) is refused as such.
        Err(DocumentError::Unsupported { .. }) if format == Format::Yaml => None,
        // Editing through an alias would change the anchored node too.
        Err(DocumentError::Shape { .. }) if format == Format::Yaml && text.contains('*') => None,
        Err(DocumentError::Shape { .. }) => {
            assert!(
                blocked(&before, path, wants_array),
                "{format:?}: refused as the wrong shape, though every node on {path:?} is an object"
            );
            None
        }
        Err(error) => panic!("{format:?}: {error}\non a text that reads as {before}"),
    }
}

/// Whether a node on `path` (the root included, the last key excluded) is there and not an object, or, for an
/// array edit, the node at `path` itself is there and not an array.
fn blocked(value: &Value, path: &[String], wants_array: bool) -> bool {
    let mut node = value;
    for key in path {
        match node {
            Value::Object(map) => match map.get(key) {
                Some(child) => node = child,
                None => return false,
            },
            _ => return true,
        }
    }
    wants_array && !node.is_array()
}

fn read_back(format: Format, text: &str) -> Value {
    document::read_value(format, text).unwrap_or_else(|error| {
        panic!("{format:?}: the edited text does not read: {error}\n{text}")
    })
}

fn assert_twice_is_once(format: Format, once: &str, operations: &[Operation]) {
    match document::apply(format, once, operations) {
        Ok(twice) => assert_eq!(twice, once, "{format:?}: applying twice differs from once"),
        Err(error) => panic!("{format:?}: the second apply failed: {error}\n{once}"),
    }
}

fn assert_restored(
    format: Format,
    text: &str,
    before: &Value,
    added: &str,
    removal: &[Operation],
    servers: &[String],
) {
    let restored = document::apply(format, added, removal)
        .unwrap_or_else(|error| panic!("{format:?}: removal failed: {error}\n{added}"));
    assert_eq!(
        meaning(format, read_back(format, &restored)),
        user_content(format, before, servers),
        "{format:?}: removal did not give back the input; after the upsert it was:\n{added}\nand then:\n{restored}"
    );
    // The editors promise the bytes back too, except where uninstall restores the user's bytes from its backup.
    // Those exceptions: a container the user left `null`; a bare CR (a line break to YAML, whitespace to JSON), which
    // no editor's line-ending handling keeps; mixed line endings, which come back all CRLF (one style per file).
    let null_container = document::lookup(before, servers).is_some_and(Value::is_null);
    let lone_cr = text.replace("\r\n", "").contains('\r');
    let mixed = text.contains("\r\n") && text.replace("\r\n", "").contains('\n');
    if null_container || lone_cr || mixed || restored == text {
        return;
    }
    let unchanged = match format {
        // JSON's tree lays an object out anew when a member goes in (one written on one line, or with a member on its
        // brace's line, gains a line per member), and a text with no value (blank, or only comments) comes back as
        // `{}`. Beyond that, the tokens and every comment come back in order, and only whitespace between them moves.
        Format::Json | Format::Jsonc => before.is_null() || same_but_for_layout(text, &restored),
        // A document that is only a null scalar (`~`) takes the entry as an empty file does.
        Format::Yaml
            if before.is_null()
                && text
                    .lines()
                    .any(|line| matches!(line.trim(), "~" | "null" | "Null" | "NULL")) =>
        {
            true
        }
        // A file that ends inside a block scalar without a final line break gets `-` in that block's header.
        Format::Yaml => rechomped(text, &restored),
        // toml_edit writes the dotted keys of one table together: a file that interleaves them with another
        // table's (`a.x`, `b.y`, `a.z`) comes back with those lines regrouped, each line intact.
        Format::Toml => same_lines_regrouped(text, &restored),
    };
    assert!(
        unchanged,
        "{format:?}: removal did not give back the bytes; after the upsert it was:\n{added}\nand then:\n{restored:?}\ninstead of\n{text:?}"
    );
}

/// Whether two JSON texts hold the same tokens (commas aside) and comments in the same order, with the same line-ending style (where
/// the restored text has a line break) and final line break, and differ only in the whitespace between tokens.
fn same_but_for_layout(text: &str, restored: &str) -> bool {
    fn tokens(text: &str) -> String {
        let mut kept = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    kept.push(c);
                    while let Some(c) = chars.next() {
                        kept.push(c);
                        match c {
                            '\\' => kept.extend(chars.next()),
                            '"' => break,
                            _ => {}
                        }
                    }
                }
                '/' if chars.peek() == Some(&'/') => {
                    kept.push(c);
                    while let Some(c) = chars.next_if(|c| *c != '\n' && *c != '\r') {
                        kept.push(c);
                    }
                    kept.push('\n');
                }
                '/' if chars.peek() == Some(&'*') => {
                    kept.push(c);
                    // The opening `*` is not the closing one's: `/*/` opens a comment.
                    kept.extend(chars.next());
                    let mut last = ' ';
                    for c in chars.by_ref() {
                        kept.push(c);
                        if last == '*' && c == '/' {
                            break;
                        }
                        last = c;
                    }
                }
                // Whitespace moves, and a trailing comma (JSONC) may go with the last member; a misplaced comma
                // would not read as the same value, which is checked apart.
                // JSONC takes JavaScript's whitespace (vertical tab, no-break space, …) between tokens too.
                ',' | '\u{feff}' => {}
                c if c.is_whitespace() => {}
                c => kept.push(c),
            }
        }
        kept
    }
    let crlf = |text: &str| text.contains("\r\n");
    let final_break = |text: &str| text.ends_with('\n');
    // An object emptied again may fold onto one line, keeping no line break to show the style by.
    tokens(text) == tokens(restored)
        && (!restored.contains('\n') || crlf(text) == crlf(restored))
        && final_break(text) == final_break(restored)
}

/// Whether `restored` holds exactly the lines of `text`, in another order, and `text` has dotted keys.
fn same_lines_regrouped(text: &str, restored: &str) -> bool {
    fn sorted(text: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        lines
    }
    let dotted = text.lines().any(|line| {
        line.split_once('=')
            .is_some_and(|(key, _)| key.contains('.') && !key.trim_start().starts_with(['#', '[']))
    });
    dotted && sorted(text) == sorted(restored)
}

/// Whether `restored` is `text` with the chomping indicator of one line changed (and perhaps a final line break).
fn rechomped(text: &str, restored: &str) -> bool {
    let restored = restored.strip_suffix('\n').unwrap_or(restored);
    if text.ends_with('\n') || text.lines().count() != restored.lines().count() {
        return false;
    }
    let differing: Vec<(&str, &str)> = text
        .lines()
        .zip(restored.lines())
        .filter(|(a, b)| a != b)
        .collect();
    let indicators = |line: &str| line.replace(['+', '-'], "");
    matches!(differing.as_slice(), [(a, b)] if indicators(a) == indicators(b) && b.contains(['|', '>']))
}

/// What `before` means to a reader, with a container left `null` by the user read as the empty object that setup
/// and uninstall leave there.
fn user_content(format: Format, before: &Value, servers: &[String]) -> Value {
    let mut expected = meaning(format, before.clone());
    if !servers.is_empty()
        && let Some(slot) = lookup_mut(&mut expected, servers)
        && slot.is_null()
    {
        *slot = Value::Object(Map::new());
    }
    meaning(format, expected)
}

/// A document as every reader of its format sees it: an empty file is an empty object, and TOML writes nothing for
/// an empty table, so empty tables do not count there.
fn meaning(format: Format, value: Value) -> Value {
    fn without_empty_tables(value: Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, child)| (key, without_empty_tables(child)))
                    .filter(|(_, child)| !child.as_object().is_some_and(Map::is_empty))
                    .collect(),
            ),
            other => other,
        }
    }
    let value = if value.is_null() { json!({}) } else { value };
    if format == Format::Toml {
        without_empty_tables(value)
    } else {
        value
    }
}

/// `value` merged into `slot` key by key, as [`Operation::Merge`] promises.
fn merge(slot: &mut Value, value: &Value) {
    match (slot, value) {
        (Value::Object(existing), Value::Object(wanted)) => {
            for (key, child) in wanted {
                merge(existing.entry(key.clone()).or_insert(Value::Null), child);
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

fn lookup_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter()
        .try_fold(value, |node, key| node.as_object_mut()?.get_mut(key))
}
