//! A binary that pipx or `uv tool` keeps, through the sequence a user of theirs goes through. Setup run
//! through the manager's link points every entry at the manager's copy and leaves the link alone; its last line names
//! the manager's command for PATH; a later setup from a build folder of the same build uses the manager's copy, and
//! one of another build refuses to replace the link and says to run through it; the vault moves and
//! setup follows it; doctor passes after each setup; and a full uninstall leaves the home as it was, the manager's
//! install included.
//!
//! Unix only: the managers' links are symlinks, which Windows makes for administrators only.
#![cfg(unix)]

use std::path::Path;

use serde_json::Value;

use super::{Machine, Run, tree_diff};

/// The managers, each with where it keeps the binary under home and the command that puts its link folder on PATH.
const MANAGERS: [(&str, &str, &str); 2] = [
    (
        "pipx",
        ".local/share/pipx/venvs/obsmcp/bin/obsmcp",
        "pipx ensurepath",
    ),
    (
        "uv tool",
        ".local/share/uv/tools/obsmcp/bin/obsmcp",
        "uv tool update-shell",
    ),
];

fn setup_at(machine: &Machine, binary: &Path, vault: &Path) -> Run {
    machine.obsmcp_at(
        binary,
        &[
            "setup",
            "--vault",
            vault.to_str().unwrap(),
            "--client",
            "codex",
            "--client",
            "claude-code",
            "--yes",
        ],
    )
}

/// The command of Codex's `obsidian` entry.
fn codex_command(machine: &Machine) -> String {
    let text = machine.read(".codex/config.toml");
    let spec = obsmcp_installer::clients::find("codex").unwrap();
    let servers = obsmcp_installer::clients::read_servers(spec, &text).unwrap();
    let (_, entry) = servers
        .iter()
        .find(|(name, _)| *name == "obsidian")
        .unwrap_or_else(|| panic!("no obsidian entry in Codex's config:\n{text}"));
    entry["command"].as_str().unwrap_or_default().to_owned()
}

fn assert_doctor_passes(machine: &Machine, binary: &Path) {
    let run = machine.obsmcp_at(binary, &["doctor", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", run.stdout, run.stderr));
    let failures: Vec<&Value> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap())
        .filter(|check| check["status"] == "fail")
        .collect();
    assert!(
        failures.is_empty() && run.code == 0,
        "doctor fails: {failures:#?}"
    );
}

#[cfg(unix)]
#[test]
fn a_pipx_or_uv_tool_install_is_used_where_it_is_through_setup_a_move_and_uninstall() {
    for (manager, kept_at, path_command) in MANAGERS {
        let mut machine = Machine::new().with_client_fixtures();
        let home = machine.home();
        let tool = machine.install_binary(kept_at);
        // uv marks its data folder's tools as a cache; the tool must still count as lasting.
        if manager == "uv tool" {
            machine.write(
                ".local/share/uv/tools/CACHEDIR.TAG",
                "Signature: 8a477f597d28d172789f06886806bc55",
            );
        }
        let link = home.join(".local/bin/obsmcp");
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&tool, &link).unwrap();
        let before = machine.tree();
        let first_place = machine.vault.clone();

        let run = setup_at(&machine, &link, &machine.vault);
        assert_eq!(run.code, 0, "{manager}: {}", run.stderr);
        assert_eq!(
            codex_command(&machine),
            tool.display().to_string(),
            "{manager}: the entries run the manager's copy"
        );
        let last = run.stderr.lines().last().unwrap_or_default();
        assert!(
            last.contains(&format!("`{}`", link.parent().unwrap().display()))
                && last.contains(path_command)
                && last.contains(&format!("Run `{} doctor`", link.display())),
            "{manager}: the last line names the link folder and `{path_command}`: {last}"
        );
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            tool,
            "{manager}: link kept"
        );
        assert_doctor_passes(&machine, &link);

        // A build folder's setup would copy itself to ~/.local/bin/obsmcp, where the manager's link is. The same
        // build behind the link: the entries run the manager's copy, as through the link.
        let build = machine.install_binary("src/obsmcp/target/release/obsmcp");
        machine.write("src/obsmcp/Cargo.toml", "[package]\n");
        machine.write(
            "src/obsmcp/target/CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55",
        );
        let run = setup_at(&machine, &build, &machine.vault);
        assert_eq!(run.code, 0, "{manager}: {}", run.stderr);
        assert_eq!(
            codex_command(&machine),
            tool.display().to_string(),
            "{manager}: the same build run from a build folder uses the manager's copy"
        );
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            tool,
            "{manager}: link kept"
        );
        assert_doctor_passes(&machine, &build);

        // Another build (bytes appended: it still runs): the link is not its to replace, and the hint says to run
        // through it.
        {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&build)
                .unwrap();
            file.write_all(b"another build").unwrap();
        }
        let settled = machine.tree();
        let run = setup_at(&machine, &build, &machine.vault);
        assert_eq!(
            run.code, 2,
            "{manager}: refused: {}\n{}",
            run.stdout, run.stderr
        );
        assert!(
            run.stderr.contains(&format!(
                "run this command through it (`{} …`)",
                link.display()
            )),
            "{manager}: {}",
            run.stderr
        );
        let changed = tree_diff(&settled, &machine.tree());
        assert!(
            changed.is_empty(),
            "{manager}: a refused setup changed:\n{}",
            changed.join("\n")
        );
        std::fs::remove_dir_all(home.join("src")).unwrap();

        // The vault moves; setup through the link follows it.
        let moved = home.join("Elsewhere/My Notes");
        std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
        std::fs::rename(&machine.vault, &moved).unwrap();
        let run = setup_at(&machine, &link, &moved);
        assert_eq!(run.code, 0, "{manager}: {}", run.stderr);
        machine.vault = moved.clone();
        assert_doctor_passes(&machine, &link);

        let run = machine.obsmcp_at(&link, &["uninstall", "--yes"]);
        assert_eq!(run.code, 0, "{manager}: {}", run.stderr);
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            tool,
            "{manager}: link kept"
        );
        std::fs::rename(&moved, &first_place).unwrap();
        std::fs::remove_dir(moved.parent().unwrap()).unwrap();
        machine.vault = first_place;
        let left = tree_diff(&before, &machine.tree());
        assert!(
            left.is_empty(),
            "{manager}: left behind:\n{}",
            left.join("\n")
        );
    }
}
