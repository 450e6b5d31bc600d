//! A client config that does not parse, for the only chosen client, registers nothing and installs
//! no plugin, and every run says it failed (the second one too, where nothing is left to change).

use super::Machine;

#[test]
fn an_unparsable_config_of_the_only_client_installs_no_plugin_and_every_run_says_it_failed() {
    let machine = Machine::new();
    let broken = "[mcp_servers.other\ncommand = \"x\"\n";
    machine.write(".codex/config.toml", broken);
    let vault = machine.vault.to_str().unwrap().to_owned();
    for attempt in ["first", "second"] {
        let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--yes"]);
        assert_ne!(run.code, 0, "{attempt} run: {}", run.stderr);
        assert!(
            run.stderr.contains("config.toml"),
            "{attempt} run: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("already configured"),
            "{attempt} run: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("obsmcp is set up."),
            "{attempt} run: {}",
            run.stderr
        );
        assert!(
            !machine.vault.join(".obsidian/plugins/obsmcp").exists(),
            "{attempt} run installed the plugin: {}",
            run.stderr
        );
        assert_eq!(machine.read(".codex/config.toml"), broken);
    }
}
