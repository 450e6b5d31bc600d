//! The command line itself: help lists every command, and a command that is not built yet fails loudly.

use assert_cmd::Command;

fn obsmcp() -> Command {
    Command::cargo_bin("obsmcp").expect("the obsmcp binary is built for integration tests")
}

#[test]
fn help_lists_every_command() {
    let output = obsmcp().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for command in ["setup", "doctor", "bridge", "uninstall"] {
        assert!(
            help.contains(&format!("  {command} ")),
            "`{command}` missing from --help:\n{help}"
        );
    }
}

#[test]
fn version_names_the_bundled_plugin() {
    let output = obsmcp().arg("--version").output().unwrap();
    let version = String::from_utf8(output.stdout).unwrap();
    assert!(version.contains("(plugin 0."), "{version}");
}
