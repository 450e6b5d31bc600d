//! Whole doctor runs: `--probe-bridge`, `--fix` from nothing, vaults from Obsidian's registry, a read-only file `--fix`
//! leaves alone, a hanging entry command, a broken vault list.

use super::*;

#[test]
fn probe_bridge_runs_the_exact_entry_and_reports_what_the_client_would_see() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let mut broken = Machine::our_entry(&machine.vault);
    broken["args"]
        .as_array_mut()
        .unwrap()
        .push(json!("--no-such-flag"));
    machine
        .claude(json!({"obsidian": Machine::our_entry(&machine.vault), "obsidian-broken": broken}));
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);

    let bundle = machine.home.path().join("probe.zip");
    let run = machine.doctor(&[
        "--json",
        "--probe-bridge",
        "--bundle",
        bundle.to_str().unwrap(),
    ]);
    let report = run.json();
    let probes = checks(&report, "client.probe");
    assert_eq!(probes.len(), 2, "{report:#}");
    let good = probes
        .iter()
        .find(|check| check["finding"].as_str().unwrap().starts_with("`obsidian`"))
        .unwrap();
    assert_eq!(good["status"], "ok", "{good:#}");
    let listed: usize = good["finding"]
        .as_str()
        .unwrap()
        .split("listed ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // The entry names no --tools: the core list (src/bridge/profile.rs), its status tool and obsidian_tools.
    assert_eq!(listed, 10, "the bridge lists the core: {good:#}");
    let bad = probes
        .iter()
        .find(|check| {
            check["finding"]
                .as_str()
                .unwrap()
                .starts_with("`obsidian-broken`")
        })
        .unwrap();
    assert_eq!(bad["status"], "fail");
    assert!(
        bad["finding"].as_str().unwrap().contains("--no-such-flag"),
        "the child's own error is quoted: {bad:#}"
    );
    assert_eq!(run.code, 1);
    // The probed bridge wrote its own diagnostics log into the temporary home; the bundle carries its tail.
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut tail = String::new();
    archive
        .by_name("diagnostics-log-tail.jsonl")
        .unwrap()
        .read_to_string(&mut tail)
        .unwrap();
    assert!(
        tail.lines()
            .any(|line| line.contains("\"event\":\"start\"")),
        "{tail}"
    );
    assert!(!tail.contains(TOKEN));
    host.stop();
}

#[test]
fn fix_repairs_a_broken_setup_from_nothing_then_doctor_exits_zero() {
    let machine = Machine::new();
    std::fs::write(machine.claude_json(), "{\"numStartups\": 1}").unwrap();
    let vault = machine.vault.to_str().unwrap();

    let before = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(before.code, 1);
    for id in ["plugin.files", "plugin.enabled", "client.entry"] {
        assert_eq!(check(&before.json(), id)["status"], "fail", "{id}");
    }

    let fixed = machine.doctor(&["--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}\n{}", fixed.stdout, fixed.stderr);
    assert!(
        fixed.stdout.contains("Repaired by --fix:"),
        "{}",
        fixed.stdout
    );

    let after = machine.doctor(&["--json"]);
    assert_eq!(after.code, 0, "{}", after.stdout);
    let report = after.json();
    assert_eq!(report["summary"]["fail"], 0);
    assert_check(&report, "client.entry", "ok", &["`obsidian`", vault], &[]);
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(Machine::plugin_dir(&machine.vault).join("data.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(data["token"].as_str().unwrap().len(), 64);
    for file in ["main.js", "manifest.json", "styles.css"] {
        assert_eq!(
            std::fs::read(Machine::plugin_dir(&machine.vault).join(file)).unwrap(),
            std::fs::read(repo_root().join("obsidian-plugin").join(file)).unwrap(),
            "{file} is the bundled one"
        );
    }
}

#[test]
fn vaults_come_from_obsidians_registry_and_none_at_all_is_a_failure() {
    let machine = Machine::new();
    let nothing = machine.doctor(&["--json"]);
    assert_eq!(nothing.code, 1);
    assert_check(
        &nothing.json(),
        "vaults.found",
        "fail",
        &["no vault to check"],
        &["obsmcp setup --vault"],
    );

    Machine::ready(&machine.vault, TOKEN);
    let other = machine.home.path().join("Unrelated");
    Machine::make_vault(&other);
    let registry = machine.home.path().join(".config/obsidian");
    std::fs::create_dir_all(&registry).unwrap();
    let vaults = json!({"vaults": {
        "0123456789abcdef": {"path": machine.vault, "ts": 1, "open": true},
        "fedcba9876543210": {"path": other, "ts": 2},
    }});
    std::fs::write(registry.join("obsidian.json"), vaults.to_string()).unwrap();
    let report = machine.doctor(&["--json"]).json();
    assert_check(
        &report,
        "vaults.found",
        "ok",
        &["1 vault", "with the plugin, from Obsidian's vault list"],
        &[],
    );
    let paths: Vec<&str> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|section| section["path"].as_str())
        .collect();
    assert_eq!(
        paths,
        [machine.vault.to_str().unwrap()],
        "a registered vault without the plugin is not checked"
    );
}

#[test]
fn fix_leaves_a_read_only_file_alone_and_says_so() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let list = machine.vault.join(".obsidian/community-plugins.json");
    std::fs::write(&list, "[\"dataview\"]").unwrap();
    let mut permissions = std::fs::metadata(&list).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&list, permissions).unwrap();

    let run = machine.doctor(&[
        "--json",
        "--fix",
        "--vault",
        machine.vault.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "fix.failed",
        "fail",
        &["community-plugins.json", "read-only"],
        &["by hand"],
    );
    assert_check(&report, "plugin.enabled", "fail", &["not enabled"], &[]);
    assert_eq!(std::fs::read_to_string(&list).unwrap(), "[\"dataview\"]");
}

#[cfg(unix)]
#[test]
fn a_hanging_entry_command_is_bounded_and_killed() {
    use std::os::unix::fs::PermissionsExt as _;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let pids = machine.home.path().join("pids");
    let hanging = machine.home.path().join("stuck/obsmcp");
    std::fs::create_dir_all(hanging.parent().unwrap()).unwrap();
    std::fs::write(
        &hanging,
        format!(
            "#!/bin/sh\necho $$ >> {}\nexec /bin/sleep 60\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hanging, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut entry = Machine::our_entry(&machine.vault);
    entry["command"] = json!(hanging);
    machine.claude(json!({"obsidian": entry}));

    let run = machine.doctor(&["--json", "--probe-bridge"]);
    assert!(
        run.elapsed < Duration::from_secs(8),
        "took {:?}",
        run.elapsed
    );
    let report = run.json();
    assert_check(
        &report,
        "client.binary",
        "fail",
        &["does not run", "no answer within 2 s"],
        &["--fix"],
    );
    assert_check(
        &report,
        "client.probe",
        "fail",
        &["did not finish initialize + tools/list within 5 s"],
        &[],
    );
    let started = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<u32> = started.lines().map(|pid| pid.parse().unwrap()).collect();
    assert_eq!(pids.len(), 2, "one --version run and one probe");
    for pid in pids {
        assert!(
            crate::support::wait_until(Duration::from_secs(2), || !crate::support::process_alive(
                pid
            )),
            "child {pid} was left running"
        );
    }
}

#[test]
fn a_broken_obsidian_vault_list_is_a_warning_and_the_rest_goes_on() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let registry = machine.home.path().join(".config/obsidian");
    std::fs::create_dir_all(&registry).unwrap();
    std::fs::write(registry.join("obsidian.json"), "{\"vaults\": {").unwrap();
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_check(
        &report,
        "vaults.registry",
        "warn",
        &["obsidian.json", "not valid"],
        &["open Obsidian once"],
    );
    assert_check(&report, "vaults.found", "ok", &["1 vault"], &[]);
}
