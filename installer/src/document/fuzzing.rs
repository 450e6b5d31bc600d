//! Bodies of the editor fuzz targets under `fuzz/` (`document_json`, `document_jsonc`, `document_toml`,
//! `document_yaml`). Not part of any stable interface: each `pub fn` takes the fuzzer's bytes as a config file, plays
//! setup's upsert and uninstall's removal on it through [`document::apply`], and panics when an invariant breaks. The
//! fuzz targets are one-liners over these bodies, and the tests at the end replay the committed inputs through the
//! same bodies in ordinary `cargo test`.
//!
//! Compiled only for tests and under cargo-fuzz, which builds with `--cfg fuzzing`: release builds do not carry it.
//! Longer than 400 lines because the checks are one piece: what each refusal may be, and how exactly removal must
//! give the input back, format by format.

use serde_json::{Map, Value, json};

use crate::document::{self, DocumentError, Format, KeyPath, Operation};

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

#[cfg(test)]
#[path = "../../../fuzz/replay.rs"]
mod replay;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::replay::{self, Body, inputs};
    use super::*;

    /// The editor targets and their bodies.
    const TARGETS: &[(&str, Body)] = &[
        ("document_json", document_json),
        ("document_jsonc", document_jsonc),
        ("document_toml", document_toml),
        ("document_yaml", document_yaml),
    ];

    /// The workspace's `fuzz/` folder, beside this crate's.
    fn fuzz() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the installer sits in the workspace")
            .join("fuzz")
    }

    replay::replay_tests!(fuzz(), TARGETS);

    /// The YAML target lets the editor refuse, as unsupported, a valid file whose layout its tree reads differently
    /// from YAML readers. Real configs must never land there: every hand-made YAML seed is edited or refused for a
    /// reason of its own (not a mapping, not YAML at all, or an alias on the path, which is refused as unsupported
    /// with its own reason).
    #[test]
    fn no_yaml_seed_is_refused_as_unsupported() {
        let folder = fuzz().join("seeds/document_yaml");
        let upsert = [Operation::Merge {
            path: document::key_path(&["mcp_servers", "obsidian"]),
            value: json!({"command": "obsmcp", "args": ["bridge"]}),
        }];
        let files = inputs(&folder);
        assert!(files.len() >= 20, "the YAML seeds are missing");
        for file in files {
            let text = String::from_utf8_lossy(&std::fs::read(&file).expect("a readable seed"))
                .into_owned();
            let result = document::apply(Format::Yaml, &text, &upsert);
            // An alias on the path is refused on purpose, with its own reason.
            let alias = matches!(&result, Err(DocumentError::Unsupported { message, .. }) if message.contains("is an alias"));
            assert!(
                alias || !matches!(result, Err(DocumentError::Unsupported { .. })),
                "{} is refused as unsupported: {result:?}",
                file.display()
            );
        }
    }
}
