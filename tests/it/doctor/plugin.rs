//! Doctor on the plugin's port: the real plugin up, read-only, down, a wrong token, an impostor, a plain web server,
//! a listener that is not HTTP, a stale plugin, one that differs from its files, a port that never answers.

use super::*;

#[test]
fn a_healthy_setup_with_the_real_plugin_up_reports_every_link_ok() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);

    let run = machine.doctor(&["--json"]);
    let report = run.json();
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["verdict"], "ok");
    assert_check(
        &report,
        "obsidian.identity",
        "ok",
        &["obsmcp plugin", &port.to_string()],
        &[],
    );
    let tools = format!("{} tools", catalog_size());
    assert_check(
        &report,
        "obsidian.handshake",
        "ok",
        &["plugin 0.", &tools, "read-write"],
        &[],
    );
    assert_check(&report, "obsidian.restricted_mode", "ok", &[], &[]);
    assert_check(&report, "client.entry", "ok", &["`obsidian`", "Notes"], &[]);
    assert_check(&report, "client.binary", "ok", &["version"], &[]);
    assert_check(&report, "client.conflicts", "ok", &[], &[]);
    host.stop();
}

#[test]
fn read_only_plugin_is_reported_as_read_only() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &["--read-only"]);
    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(&report, "obsidian.handshake", "ok", &["read-only"], &[]);
    host.stop();
}

/// Obsidian still indexing after a start is said, and is no fault: the check stays ok.
#[test]
fn obsidian_still_indexing_is_reported_in_the_handshake_and_stays_ok() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &["--index-hold", "0"]);
    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "obsidian.handshake",
        "ok",
        &["Obsidian still indexing (0 of ", " notes;"],
        &[],
    );
    host.stop();
}

#[test]
fn obsidian_down_is_a_warning_with_the_restricted_mode_click_path_and_the_run_is_fast() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));

    let run = machine.doctor(&["--json"]);
    let report = run.json();
    assert_eq!(run.code, 0, "warnings alone exit 0: {}", run.stdout);
    assert!(
        run.elapsed < Duration::from_secs(3),
        "doctor took {:?} with Obsidian down",
        run.elapsed
    );
    assert_check(
        &report,
        "obsidian.port",
        "warn",
        &["nothing answers", &port.to_string()],
        &["open the vault in Obsidian"],
    );
    assert_check(
        &report,
        "obsidian.restricted_mode",
        "warn",
        &["cannot be read from a file"],
        &["Settings → Community plugins"],
    );
    assert_eq!(check(&report, "obsidian.handshake")["status"], "skip");
}

#[test]
fn a_wrong_token_is_called_a_token_mismatch() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    // The plugin keeps the token it loaded; data.json now says something else, as after an edit behind its back.
    Machine::write_data(&machine.vault, port, OTHER_TOKEN);

    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &["token mismatch", "refuses the token"],
        &["turn obsmcp off and on"],
    );
    host.stop();
}

/// Doctor sent `Authorization: Bearer <token>` to whatever held the port.
#[test]
fn an_impostor_on_the_port_never_gets_the_token_and_is_named_as_unproven() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let log = machine.home.path().join("impostor.log");
    let _impostor = crate::support::start_impostor(port, &log);
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &[
            "cannot prove it knows this vault's token",
            "posing as the plugin",
        ],
        &["setup"],
    );
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(seen.contains("obsmcp-challenge"), "doctor asked: {seen}");
    assert!(
        !seen.contains(TOKEN),
        "the token reached the impostor: {seen}"
    );
}

/// Starts a Node one-liner server on `port` and waits for it to say it listens.
fn node_server(name: &str, script: &str, port: u16) -> ChildGuard {
    let mut command = Command::new("node");
    command.args(["-e", script, &port.to_string()]);
    crate::support::start_listener(name, command)
}

#[test]
fn a_plain_web_server_on_the_port_is_named_as_something_else() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "web server",
        "require('http').createServer((q, s) => { s.writeHead(404, {server: 'PlainWeb'}); s.end('no'); })\
         .listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(&report, "obsidian.port", "ok", &["answers"], &[]);
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &[
            "another program, not the obsmcp plugin",
            "HTTP 404",
            "PlainWeb",
        ],
        &["Port"],
    );
}

#[test]
fn a_listener_that_does_not_speak_http_is_named_as_such() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "raw tcp server",
        "require('net').createServer(c => c.end('garbage\\r\\n\\r\\n'))\
         .listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &["does not speak HTTP"],
        &["free the port"],
    );
}

#[test]
fn a_stale_plugin_is_outdated_and_fix_updates_it() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let manifest = Machine::plugin_dir(&machine.vault).join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let bundled: Value = serde_json::from_str(&text).unwrap();
    std::fs::write(
        &manifest,
        text.replace(bundled["version"].as_str().unwrap(), "0.0.1"),
    )
    .unwrap();
    std::fs::write(
        Machine::plugin_dir(&machine.vault).join("main.js"),
        "// an older build\n",
    )
    .unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "plugin.files",
        "fail",
        &["0.0.1", "outdated"],
        &["obsmcp doctor --fix"],
    );
    assert_eq!(check(&run.json(), "plugin.files")["fixable"], true);

    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    // ok means the manifest's version and main.js's bytes both equal what the binary carries.
    assert_check(
        &fixed.json(),
        "plugin.files",
        "ok",
        &["the version this obsmcp bundles"],
        &[],
    );
    let manifest_after: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(manifest_after["version"], bundled["version"]);
}

#[test]
fn a_running_plugin_that_differs_from_the_files_on_disk_asks_for_a_reload() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let manifest = Machine::plugin_dir(&machine.vault).join("manifest.json");
    let mut files: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    files["version"] = json!("0.0.9");
    std::fs::write(&manifest, files.to_string()).unwrap();

    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "obsidian.handshake",
        "warn",
        &["files on disk are 0.0.9", "not reloaded"],
        &["turn obsmcp off and on"],
    );
    assert_check(&report, "plugin.files", "fail", &["0.0.9", "outdated"], &[]);
    host.stop();
}

#[test]
fn a_port_that_accepts_but_never_answers_is_reported_within_the_time_limit() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "silent server",
        "require('net').createServer(() => {}).listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert!(
        run.elapsed < Duration::from_secs(3),
        "took {:?}",
        run.elapsed
    );
    let report = run.json();
    assert_check(
        &report,
        "obsidian.port",
        "fail",
        &["does not answer in time"],
        &["restart"],
    );
    assert_eq!(check(&report, "obsidian.handshake")["status"], "skip");
}
