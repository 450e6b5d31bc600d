//! Property tests of the editors on generated documents: every format, with other keys and servers, comments where
//! the format has them, CRLF or LF, with or without a final newline, and the servers container absent, empty or
//! full; YAML also with anchors, aliases, merge keys and flow style, TOML with inline tables and dotted keys. Each
//! case plays setup's plan (merge our entry) and uninstall's (remove it, prune a container setup created) and checks
//! what the issue promises: twice equals once, removal restores the input, nothing else moves, and every result
//! parses.
//!
//! Longer than 400 lines because most of it is the three generators (JSON and JSONC, TOML, YAML), each writing its
//! format by hand so the layouts are the ones people write; the four properties at the end are short.

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Value, json};

use super::*;

/// Cases per property: enough variety to find layout bugs, few enough to keep `cargo test` quick.
const CASES: u32 = 96;

/// A generated document and what the checks need to know about it.
#[derive(Debug, Clone)]
struct Case {
    format: Format,
    text: String,
    servers: KeyPath,
    name: String,
    entry: Value,
    /// Marker text of every comment written into `text`; each must still be there after the upsert.
    comments: Vec<String>,
}

/// Where the servers live and what they hold before setup.
#[derive(Debug, Clone)]
enum Container {
    Absent,
    Empty,
    Present(Vec<(String, Value)>),
}

fn key_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "model",
        "theme",
        "numStartups",
        "x_unknown",
        "provider",
        "verbose",
    ])
    .prop_map(str::to_owned)
}

fn server_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "github",
        "filesystem",
        "memory",
        "off",
        "yes",
        "my-tools",
    ])
    .prop_map(str::to_owned)
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z][a-z0-9 ._/-]{0,12}".prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

fn other_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => scalar(),
        1 => prop::collection::vec("[a-z]{1,6}".prop_map(Value::from), 0..3).prop_map(Value::Array),
        1 => prop::collection::btree_map("[a-z]{1,6}", scalar(), 1..3)
            .prop_map(|map| Value::Object(map.into_iter().collect())),
    ]
}

fn server() -> impl Strategy<Value = Value> {
    (
        "[a-z][a-z-]{0,10}",
        prop::collection::vec("[a-z@/-]{1,10}", 0..3),
        any::<bool>(),
    )
        .prop_map(|(command, args, enabled)| {
            let mut server = Map::new();
            server.insert("command".into(), Value::from(command));
            server.insert("args".into(), json!(args));
            if !enabled {
                server.insert("enabled".into(), Value::Bool(false));
            }
            Value::Object(server)
        })
}

fn others() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::btree_map(key_name(), other_value(), 0..4)
        .prop_map(|map| map.into_iter().collect())
}

fn container() -> impl Strategy<Value = Container> {
    prop_oneof![
        1 => Just(Container::Absent),
        1 => Just(Container::Empty),
        3 => prop::collection::btree_map(server_name(), server(), 1..4)
            .prop_map(|map| Container::Present(map.into_iter().collect())),
    ]
}

/// Our entry as setup writes it, under a name the file does not hold yet (setup never reuses a taken name).
fn our_entry() -> impl Strategy<Value = (String, Value)> {
    let names = prop::sample::select(vec!["obsidian", "obsidian-notes", "no"]);
    let vaults = prop::sample::select(vec![
        "/home/me/Notes",
        "/home/me/My Notes: 2026 # draft",
        "C:\\Users\\Zoë\\Obsidian Vault",
        "/home/me/- dash [x] {y} & *z",
    ]);
    (names, vaults, any::<bool>()).prop_map(|(name, vault, read_only)| {
        let mut args = vec!["bridge", "--vault", vault];
        if read_only {
            args.push("--read-only");
        }
        (
            name.to_owned(),
            json!({"command": "/opt/obs mcp/obsmcp", "args": args}),
        )
    })
}

/// Whether the whole file is empty, as a client's file often is before anything is configured.
fn empty_file() -> impl Strategy<Value = bool> {
    prop::bool::weighted(0.125)
}

/// Line endings and the last byte, applied to a whole generated text.
#[derive(Debug, Clone, Copy)]
struct Ending {
    crlf: bool,
    final_newline: bool,
}

fn ending() -> impl Strategy<Value = Ending> {
    (any::<bool>(), any::<bool>()).prop_map(|(crlf, final_newline)| Ending {
        crlf,
        final_newline,
    })
}

impl Ending {
    fn apply(self, text: String) -> String {
        let text = if self.final_newline {
            text
        } else {
            text.trim_end_matches('\n').to_owned()
        };
        if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        }
    }
}

/// Writes comments with numbered markers so the checks can find each one again.
struct Comments {
    enabled: bool,
    prefix: &'static str,
    written: Vec<String>,
}

impl Comments {
    fn line(&mut self, indent: &str, out: &mut String) {
        if self.enabled {
            let marker = format!("note {}", self.written.len());
            if self.prefix == "//" && self.written.len() % 3 == 2 {
                out.push_str(&format!(
                    "{indent}/* {marker}\n{indent}   on two lines */\n"
                ));
            } else {
                out.push_str(&format!("{indent}{} {marker}\n", self.prefix));
            }
            self.written.push(marker);
        }
    }

    fn trailing(&mut self) -> String {
        if self.enabled {
            let marker = format!("tail {}", self.written.len());
            let text = format!("  {} {marker}", self.prefix);
            self.written.push(marker);
            text
        } else {
            String::new()
        }
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).expect("values serialise")
}

/// JSON (strict, no comments) or JSONC (comments and trailing commas), pretty or on one line.
fn json_case(format: Format) -> impl Strategy<Value = Case> {
    (
        others(),
        container(),
        our_entry(),
        ending(),
        any::<bool>(),
        any::<bool>(),
        0usize..4,
        prop::sample::select(vec!["  ", "    ", "\t"]),
        empty_file(),
    )
        .prop_map(
            move |(
                others,
                servers,
                (name, entry),
                ending,
                one_line,
                trailing_commas,
                at,
                indent,
                empty,
            )| {
                let jsonc = format == Format::Jsonc;
                let servers_key = if jsonc { "servers" } else { "mcpServers" };
                let mut comments = Comments {
                    enabled: jsonc,
                    prefix: "//",
                    written: Vec::new(),
                };
                let mut properties: Vec<(String, String)> = others
                    .iter()
                    .map(|(key, value)| (key.clone(), compact(value)))
                    .collect();
                let servers_text = match &servers {
                    Container::Absent => None,
                    Container::Empty => Some("{}".to_owned()),
                    Container::Present(list) if one_line => {
                        Some(compact(&Value::Object(list.iter().cloned().collect())))
                    }
                    Container::Present(list) => {
                        let mut text = "{\n".to_owned();
                        for (index, (server, value)) in list.iter().enumerate() {
                            comments.line(&indent.repeat(2), &mut text);
                            let comma = if index + 1 < list.len() || (jsonc && trailing_commas) {
                                ","
                            } else {
                                ""
                            };
                            text.push_str(&format!(
                                "{}{}: {}{comma}{}\n",
                                indent.repeat(2),
                                compact(&Value::from(server.as_str())),
                                compact(value),
                                comments.trailing()
                            ));
                        }
                        text.push_str(indent);
                        text.push('}');
                        Some(text)
                    }
                };
                if let Some(servers_text) = servers_text {
                    properties.insert(
                        at.min(properties.len()),
                        (servers_key.to_owned(), servers_text),
                    );
                }
                let text = if empty {
                    comments.written.clear();
                    String::new()
                } else if one_line || properties.is_empty() {
                    let body: Vec<String> = properties
                        .iter()
                        .map(|(key, value)| {
                            format!("{}: {value}", compact(&Value::from(key.as_str())))
                        })
                        .collect();
                    format!("{{{}}}\n", body.join(", "))
                } else {
                    let mut text = String::new();
                    comments.line("", &mut text);
                    text.push_str("{\n");
                    for (index, (key, value)) in properties.iter().enumerate() {
                        comments.line(indent, &mut text);
                        let comma = if index + 1 < properties.len() || (jsonc && trailing_commas) {
                            ","
                        } else {
                            ""
                        };
                        text.push_str(&format!(
                            "{indent}{}: {value}{comma}\n",
                            compact(&Value::from(key.as_str()))
                        ));
                    }
                    text.push_str("}\n");
                    text
                };
                Case {
                    format,
                    text: ending.apply(text),
                    servers: key_path(&[servers_key]),
                    name,
                    entry,
                    comments: comments.written,
                }
            },
        )
}

fn toml_scalar(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(key, value)| format!("{key} = {}", toml_scalar(value)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_scalar).collect();
            format!("[{}]", items.join(", "))
        }
        other => compact(other),
    }
}

fn toml_key(key: &str) -> String {
    if key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_owned()
    } else {
        compact(&Value::from(key))
    }
}

/// How a TOML file spells its servers.
#[derive(Debug, Clone, Copy)]
enum TomlStyle {
    /// `[mcp_servers.github]` headers.
    Tables,
    /// `mcp_servers = { github = { … } }` on one line.
    Inline,
    /// `mcp_servers.github.command = "…"` at the top level.
    Dotted,
    /// `[mcp_servers]` with `github = { … }` under it.
    HeaderWithInline,
    /// `[mcp_servers]` with `github.command = "…"` under it.
    HeaderWithDotted,
}

fn toml_case() -> impl Strategy<Value = Case> {
    (
        others(),
        container(),
        our_entry(),
        ending(),
        any::<bool>(),
        prop::sample::select(vec![
            TomlStyle::Tables,
            TomlStyle::Inline,
            TomlStyle::Dotted,
            TomlStyle::HeaderWithInline,
            TomlStyle::HeaderWithDotted,
        ]),
        any::<bool>(),
        empty_file(),
    )
        .prop_map(
            |(others, servers, (name, entry), ending, commented, style, profile, empty)| {
                let mut comments = Comments {
                    enabled: commented,
                    prefix: "#",
                    written: Vec::new(),
                };
                let mut text = String::new();
                comments.line("", &mut text);
                for (key, value) in &others {
                    text.push_str(&format!(
                        "{key} = {}{}\n",
                        toml_scalar(value),
                        comments.trailing()
                    ));
                }
                let list = match &servers {
                    Container::Present(list) => list.clone(),
                    _ => Vec::new(),
                };
                let mut tables = String::new();
                match (&servers, style) {
                    (Container::Absent, _) => {}
                    (Container::Empty, TomlStyle::Inline | TomlStyle::Dotted) => {
                        text.push_str("mcp_servers = {}\n");
                    }
                    (Container::Empty, _) => {
                        tables.push_str("\n[mcp_servers]\n");
                        comments.line("", &mut tables);
                    }
                    (_, TomlStyle::Tables) => {
                        for (server, value) in &list {
                            tables.push('\n');
                            comments.line("", &mut tables);
                            tables.push_str(&format!("[mcp_servers.{}]\n", toml_key(server)));
                            for (key, field) in value.as_object().expect("servers are objects") {
                                tables.push_str(&format!(
                                    "{key} = {}{}\n",
                                    toml_scalar(field),
                                    comments.trailing()
                                ));
                            }
                        }
                    }
                    (_, TomlStyle::Inline) => {
                        let fields: Vec<String> = list
                            .iter()
                            .map(|(server, value)| {
                                format!("{} = {}", toml_key(server), toml_scalar(value))
                            })
                            .collect();
                        text.push_str(&format!(
                            "mcp_servers = {{ {} }}{}\n",
                            fields.join(", "),
                            comments.trailing()
                        ));
                    }
                    (_, TomlStyle::Dotted) => {
                        for (server, value) in &list {
                            comments.line("", &mut text);
                            for (key, field) in value.as_object().expect("servers are objects") {
                                text.push_str(&format!(
                                    "mcp_servers.{}.{key} = {}\n",
                                    toml_key(server),
                                    toml_scalar(field)
                                ));
                            }
                        }
                    }
                    (_, TomlStyle::HeaderWithInline) => {
                        tables.push_str("\n[mcp_servers]\n");
                        for (server, value) in &list {
                            comments.line("", &mut tables);
                            tables.push_str(&format!(
                                "{} = {}\n",
                                toml_key(server),
                                toml_scalar(value)
                            ));
                        }
                    }
                    (_, TomlStyle::HeaderWithDotted) => {
                        tables.push_str("\n[mcp_servers]\n");
                        for (server, value) in &list {
                            comments.line("", &mut tables);
                            for (key, field) in value.as_object().expect("servers are objects") {
                                tables.push_str(&format!(
                                    "{}.{key} = {}{}\n",
                                    toml_key(server),
                                    toml_scalar(field),
                                    comments.trailing()
                                ));
                            }
                        }
                    }
                }
                text.push_str(&tables);
                if profile {
                    text.push('\n');
                    comments.line("", &mut text);
                    text.push_str("[profiles.work]\nmodel = \"o3\"\n");
                }
                let text = if empty { String::new() } else { text };
                let comments = if empty { Vec::new() } else { comments.written };
                Case {
                    format: Format::Toml,
                    text: ending.apply(text),
                    servers: key_path(&["mcp_servers"]),
                    name,
                    entry,
                    comments,
                }
            },
        )
}

/// JSON is YAML's flow style, and its quoted strings keep `yes` or `off` strings for every YAML reader.
fn yaml_scalar(value: &Value) -> String {
    compact(value)
}

fn yaml_case() -> impl Strategy<Value = Case> {
    (
        others(),
        container(),
        our_entry(),
        ending(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec!["  ", "    "]),
        any::<bool>(),
        empty_file(),
        any::<bool>(),
    )
        .prop_map(
            |(others, servers, (name, entry), ending, commented, anchors, flow, indent, start, empty, flow_args)| {
                let mut comments = Comments {
                    enabled: commented,
                    prefix: "#",
                    written: Vec::new(),
                };
                let mut text = String::new();
                if start {
                    text.push_str("---\n");
                }
                comments.line("", &mut text);
                if anchors {
                    text.push_str(&format!(
                        "defaults: &defaults\n{indent}timeout: 120\n{indent}connect_timeout: 30\nargs_common: &args [\"--stdio\"]\n"
                    ));
                }
                for (key, value) in &others {
                    text.push_str(&format!("{key}: {}{}\n", yaml_scalar(value), comments.trailing()));
                }
                match &servers {
                    Container::Absent => {}
                    // `mcp_servers:` with nothing under it is how a user empties the section by hand.
                    Container::Empty if flow => text.push_str("mcp_servers: {}\n"),
                    Container::Empty => text.push_str("mcp_servers:\n"),
                    Container::Present(list) if flow => {
                        let fields: Vec<String> = list
                            .iter()
                            .map(|(server, value)| format!("{}: {}", compact(&Value::from(server.as_str())), compact(value)))
                            .collect();
                        text.push_str(&format!("mcp_servers: {{{}}}\n", fields.join(", ")));
                    }
                    Container::Present(list) => {
                        text.push_str("mcp_servers:\n");
                        for (index, (server, value)) in list.iter().enumerate() {
                            comments.line(indent, &mut text);
                            text.push_str(&format!(
                                "{indent}{}:\n",
                                compact(&Value::from(server.as_str()))
                            ));
                            if anchors && index == 0 {
                                text.push_str(&format!("{indent}{indent}<<: *defaults\n"));
                            }
                            for (key, field) in value.as_object().expect("servers are objects") {
                                if anchors && index == 0 && key == "args" {
                                    text.push_str(&format!("{indent}{indent}{key}: *args\n"));
                                } else if let (Value::Array(items), false) = (field, flow_args) {
                                    text.push_str(&format!("{indent}{indent}{key}:{}\n", comments.trailing()));
                                    for item in items {
                                        text.push_str(&format!("{indent}{indent}  - {}\n", yaml_scalar(item)));
                                    }
                                } else {
                                    text.push_str(&format!(
                                        "{indent}{indent}{key}: {}{}\n",
                                        yaml_scalar(field),
                                        comments.trailing()
                                    ));
                                }
                            }
                        }
                    }
                }
                comments.line("", &mut text);
                text.push_str(&format!("terminal:\n{indent}backend: local\n"));
                let text = if empty { String::new() } else { text };
                let comments = if empty { Vec::new() } else { comments.written };
                Case {
                    format: Format::Yaml,
                    text: ending.apply(text),
                    servers: key_path(&["mcp_servers"]),
                    name,
                    entry,
                    comments,
                }
            },
        )
}

impl Case {
    fn entry_path(&self) -> KeyPath {
        let mut path = self.servers.clone();
        path.push(self.name.clone());
        path
    }

    fn upsert(&self) -> Vec<Operation> {
        vec![Operation::Merge {
            path: self.entry_path(),
            value: self.entry.clone(),
        }]
    }

    /// Uninstall's plan: remove the entry, and the servers container only if setup created it.
    fn removal(&self) -> Vec<Operation> {
        let mut operations = vec![Operation::Remove {
            path: self.entry_path(),
        }];
        if lookup(&self.before(), &self.servers).is_none() {
            operations.push(Operation::RemoveIfEmpty {
                path: self.servers.clone(),
            });
        }
        operations
    }

    fn before(&self) -> Value {
        read_value(self.format, &self.text)
            .unwrap_or_else(|error| panic!("the generator wrote an invalid document: {error}"))
    }

    fn added(&self) -> String {
        apply(self.format, &self.text, &self.upsert())
            .unwrap_or_else(|error| panic!("upsert failed: {error}"))
    }
}

/// A value as every reader of the format sees it: an empty file and an empty object are the same empty document.
fn meaning(format: Format, value: Value) -> Value {
    match (format, value) {
        (_, Value::Null) => json!({}),
        (_, value) => comparable(format, value),
    }
}

fn any_case() -> impl Strategy<Value = Case> {
    prop_oneof![
        json_case(Format::Json),
        json_case(Format::Jsonc),
        toml_case(),
        yaml_case(),
    ]
}

proptest! {
    // Failures are reported with their minimal case; a regression worth keeping becomes a named test instead.
    #![proptest_config(Config { cases: CASES, failure_persistence: None, ..Config::default() })]

    #[test]
    fn upserting_twice_gives_the_same_bytes_as_once(case in any_case()) {
        let once = case.added();
        let twice = apply(case.format, &once, &case.upsert()).unwrap();
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn upsert_then_remove_restores_the_input(case in any_case()) {
        let added = case.added();
        let restored = apply(case.format, &added, &case.removal()).unwrap();
        let mut expected = meaning(case.format, case.before());
        // A limit of the editor alone: a YAML `mcp_servers:` with nothing under it is present (null), so it is not
        // pruned, and the emptied mapping comes back as `mcp_servers: {}` (yaml-edit writes an empty mapping in flow
        // style). Uninstall restores such a file from its backup, which holds the user's bytes.
        let null_container = lookup(&expected, &case.servers).is_some_and(Value::is_null);
        if null_container {
            *slot_mut(&mut expected, &case.servers).unwrap() = json!({});
        }
        prop_assert_eq!(
            meaning(case.format, read_value(case.format, &restored).unwrap()),
            expected,
            "after the upsert it was:\n{}", added
        );
        // The editors promise the bytes back too, except for two JSON layouts uninstall restores from its backup:
        // an empty file comes back as `{}`, and a one-line object keeps the line breaks its new entry brought.
        let json = matches!(case.format, Format::Json | Format::Jsonc);
        let one_line = !case.text.trim().contains('\n');
        if !(null_container || json && (case.text.trim().is_empty() || one_line)) {
            prop_assert_eq!(restored, case.text.clone(), "after the upsert it was:\n{}", added);
        }
    }

    #[test]
    fn everything_outside_our_entry_survives_the_upsert(case in any_case()) {
        let added = case.added();
        let before = case.before();
        let after = read_value(case.format, &added).unwrap();
        let mut expected = meaning(case.format, before);
        let mut actual = meaning(case.format, after);
        if let Some(Value::Object(servers)) = lookup_mut(&mut actual, &case.servers) {
            servers.shift_remove(&case.name);
        }
        // A container setup created is left behind empty in `actual`; it is not the user's.
        if lookup(&expected, &case.servers).is_none() {
            remove_value(&mut actual, &case.servers);
        } else if lookup(&expected, &case.servers).is_some_and(Value::is_null) {
            *slot_mut(&mut expected, &case.servers).unwrap() = json!({});
        }
        prop_assert_eq!(comparable(case.format, actual), comparable(case.format, expected));
        for marker in &case.comments {
            prop_assert!(added.contains(marker.as_str()), "comment `{}` lost:\n{}", marker, added);
        }
        let crlf = case.text.contains("\r\n");
        prop_assert_eq!(added.contains("\r\n"), crlf, "line endings changed:\n{:?}", added);
        if crlf {
            prop_assert!(!added.replace("\r\n", "").contains('\n'), "a bare LF crept in:\n{:?}", added);
        }
    }

    #[test]
    fn every_result_parses_and_holds_our_entry(case in any_case()) {
        let added = case.added();
        let value = read_value(case.format, &added).unwrap();
        prop_assert_eq!(lookup(&value, &case.entry_path()), Some(&case.entry));
        let restored = apply(case.format, &added, &case.removal()).unwrap();
        let value = read_value(case.format, &restored).unwrap();
        prop_assert_eq!(lookup(&value, &case.entry_path()), None);
    }
}
