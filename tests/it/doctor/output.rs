//! What doctor prints and writes: the text report without colour, the JSON report's shape (a snapshot), the support
//! bundle and its redactions, a bundle that cannot be written, a reader that closes stdout early.

use super::*;

#[test]
fn text_output_marks_read_without_colour_and_end_with_a_summary() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap();
    Machine::install_plugin(&machine.vault);
    let mut command = machine.command(&["--vault", vault]);
    command.env("NO_COLOR", "1");
    let run = machine.doctor_with(command);
    assert_eq!(run.code, 1);
    let text = &run.stdout;
    assert!(!text.contains('\u{1b}'), "no colour codes: {text}");
    assert!(text.contains("Vault ~/Notes (.obsidian)"), "{text}");
    assert!(text.contains("  ✓ vault.folder"), "{text}");
    assert!(text.contains("  ✗ plugin.enabled"), "{text}");
    assert!(text.contains("  ! clients.found"), "{text}");
    let binary = typed_binary();
    assert!(
        text.contains(&format!("fix: {binary} doctor --fix")),
        "{text}"
    );
    let summary = text.lines().last().unwrap();
    assert!(summary.starts_with("Problems found: 2 failed"), "{summary}");
    assert!(
        summary.contains(&format!("`{binary} doctor --fix` can repair 2")),
        "{summary}"
    );
}

#[test]
fn the_json_report_keeps_its_shape() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    std::fs::write(machine.vault.join(".obsidian/community-plugins.json"), "[]").unwrap();
    machine.claude(json!({
        "obsidian": Machine::our_entry(&machine.vault),
        "legacy": {"command": "npx", "args": ["mcp-remote", "http://127.0.0.1:22360/sse"]},
    }));
    let run = machine.doctor(&["--json"]);
    let home = machine.home.path().to_str().unwrap();
    let version: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("obsidian-plugin/manifest.json")).unwrap(),
    )
    .unwrap();
    let normalized = run
        .stdout
        .replace(&typed_binary(), "[OBSMCP]")
        .replace(obsmcp_binary(), "[OBSMCP]")
        .replace(home, "[HOME]")
        .replace(&port.to_string(), "[PORT]")
        .replace(
            &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
            "\"[VERSION]\"",
        )
        .replace(
            &format!(
                "{} (plugin {})",
                env!("CARGO_PKG_VERSION"),
                version["version"].as_str().unwrap()
            ),
            "[VERSION]",
        )
        .replace(
            &format!("plugin {} installed", version["version"].as_str().unwrap()),
            "plugin [PLUGIN] installed",
        )
        .replace(
            &format!("\"{}\"", version["version"].as_str().unwrap()),
            "\"[PLUGIN]\"",
        );
    insta::assert_snapshot!("doctor_json_report", normalized);
}

#[test]
fn the_bundle_holds_the_report_entries_and_log_tail_with_secrets_redacted() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let mut entry = Machine::our_entry(&machine.vault);
    entry["env"] = json!({"OBSIDIAN_API_KEY": "sekrit-api-key-value", "LANG": "C.UTF-8", "NOTE": format!("t={TOKEN}")});
    machine.claude(json!({
        "obsidian": entry,
        "unrelated": {"command": "/usr/bin/unrelated-server", "env": {"GITHUB_TOKEN": "ghp-unrelated"}},
    }));
    let log_dir = machine.home.path().join(".local/state/obsmcp");
    std::fs::create_dir_all(&log_dir).unwrap();
    let log: String = (0..300)
        .map(|index| {
            json!({"ts": index, "event": "call", "tool": "read_note", "content": "Secret note body", "trace": format!("x{TOKEN}")})
                .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(log_dir.join("bridge.log"), log).unwrap();
    let bundle = machine.home.path().join("report.zip");

    let run = machine.doctor(&["--json", "--bundle", bundle.to_str().unwrap()]);
    assert!(
        run.stderr.contains("Support bundle written"),
        "{}",
        run.stderr
    );
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut files: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        files.insert(file.name().unwrap().into_owned(), text);
    }
    for name in [
        "report.json",
        "versions.json",
        "clients/claude-code.json",
        "diagnostics-log-tail.jsonl",
        "README.txt",
    ] {
        assert!(
            files.contains_key(name),
            "{name} missing from {:?}",
            files.keys()
        );
    }
    for (name, text) in &files {
        for secret in [
            TOKEN,
            "sekrit-api-key-value",
            "Secret note body",
            "ghp-unrelated",
        ] {
            assert!(!text.contains(secret), "{name} leaks {secret:?}");
        }
    }
    let report: Value = serde_json::from_str(&files["report.json"]).unwrap();
    assert_eq!(
        report,
        run.json(),
        "the bundled report is the one --json printed"
    );
    let client: Value = serde_json::from_str(&files["clients/claude-code.json"]).unwrap();
    let bundled_entry = &client["config_state"]["obsidian_entries"]["obsidian"];
    assert_eq!(bundled_entry["env"]["OBSIDIAN_API_KEY"], "<redacted>");
    assert_eq!(bundled_entry["env"]["LANG"], "C.UTF-8");
    assert_eq!(bundled_entry["command"], obsmcp_binary());
    assert!(
        client["config_state"]["obsidian_entries"]
            .get("unrelated")
            .is_none(),
        "only Obsidian entries are bundled"
    );
    let tail: Vec<&str> = files["diagnostics-log-tail.jsonl"].lines().collect();
    assert_eq!(tail.len(), 200);
    assert!(
        tail.last().unwrap().contains("\"ts\":299") && tail.last().unwrap().contains("read_note")
    );
    let versions: Value = serde_json::from_str(&files["versions.json"]).unwrap();
    assert_eq!(versions["obsmcp"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_bundle_that_cannot_be_written_is_a_clear_error() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let target = machine.home.path().join("no/such/folder/report.zip");
    let run = machine.doctor(&[
        "--vault",
        machine.vault.to_str().unwrap(),
        "--bundle",
        target.to_str().unwrap(),
    ]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("could not write the support bundle"),
        "{}",
        run.stderr
    );
    assert!(!target.exists());
}

#[test]
fn a_reader_that_closes_stdout_early_ends_doctor_quietly() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    for format in [&["--json"][..], &[]] {
        let mut command = machine.command(format);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("obsmcp runs");
        // The reader goes away before doctor has written anything, as `obsmcp doctor | head -0` would.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
            "{format:?}: {stderr}"
        );
        assert!(
            output.status.code().is_some(),
            "{format:?}: killed by a signal"
        );
    }
}
