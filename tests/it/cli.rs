//! The command line itself: help lists every command, `--version` names the plugin this binary really carries, and
//! the completion scripts are loaded by the real shells and complete our commands.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use assert_cmd::Command;

use crate::support::{TempHome, repo_root};

fn obsmcp() -> Command {
    Command::cargo_bin("obsmcp").expect("the obsmcp binary is built for integration tests")
}

#[test]
fn help_lists_every_command() {
    let output = obsmcp().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for command in ["setup", "doctor", "bridge", "uninstall", "completions"] {
        assert!(
            help.contains(&format!("  {command} ")),
            "`{command}` missing from --help:\n{help}"
        );
    }
}

/// The plugin version in `obsidian-plugin/manifest.json`, read the way a person would check it.
fn manifest_version() -> String {
    let text = std::fs::read_to_string(repo_root().join("obsidian-plugin/manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    manifest["version"]
        .as_str()
        .expect("manifest.json has a version string")
        .to_owned()
}

#[test]
fn version_names_the_binary_and_the_bundled_plugin_from_its_manifest() {
    let expected = format!(
        "obsmcp {} (plugin {})\n",
        env!("CARGO_PKG_VERSION"),
        manifest_version()
    );
    let home = tempfile::tempdir().unwrap();
    let obsmcp = || {
        let mut command = obsmcp();
        command
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", home.path());
        command
    };
    for flag in ["--version", "-V"] {
        let output = obsmcp().arg(flag).output().unwrap();
        assert!(output.status.success(), "{flag} failed");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.starts_with(&expected), "{flag}: {text}");
        // Then where obsmcp runs from (`commands/version.rs`); nothing is set up in this home.
        let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_obsmcp")).unwrap();
        assert!(
            text.contains(&format!("\nbinary: {}\n", binary.display())),
            "{text}"
        );
        assert!(text.contains("client entries: none"), "{text}");
        // One obsmcp asking another gets the version line alone.
        let brief = obsmcp()
            .arg(flag)
            .env("OBSMCP_VERSION_BRIEF", "1")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(brief.stdout).unwrap(), expected, "{flag}");
    }
}

/// Writes `obsmcp completions <shell>` into the temporary home and returns the script's path.
fn completion_script(home: &TempHome, shell: &str) -> PathBuf {
    let output = obsmcp().args(["completions", shell]).output().unwrap();
    assert!(
        output.status.success(),
        "completions {shell} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "completions {shell} wrote on stderr"
    );
    let path = home.path().join(format!("obsmcp.{shell}"));
    std::fs::write(&path, output.stdout).unwrap();
    path
}

/// Runs a shell with the temporary home (so it never reads or writes the developer's dotfiles), or `None` with the
/// reason printed when that shell is not installed here.
fn shell(home: &TempHome, name: &str, args: &[&str]) -> Option<std::process::Output> {
    let mut command = Process::new(name);
    command
        .args(args)
        .envs(home.env())
        .env("ZDOTDIR", home.path());
    match command.output() {
        Ok(output) => Some(output),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "skipped: `{name}` is not installed on this machine, its completion script was not loaded"
            );
            None
        }
        Err(error) => panic!("could not start {name}: {error}"),
    }
}

fn text(output: &std::process::Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Asks bash's completion function for the candidates of a command line whose last word is being typed, as bash
/// itself does on TAB: `COMP_WORDS`, `COMP_CWORD` set, the function called with (command, current word, previous).
fn bash_complete(home: &TempHome, script: &Path, words: &[&str]) -> Vec<String> {
    let words_list = words
        .iter()
        .map(|word| format!("'{word}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let program = format!(
        r#"source '{script}' || exit 3
COMP_WORDS=({words_list}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE="${{COMP_WORDS[*]}}"; COMP_POINT=${{#COMP_LINE}}
function=$(complete -p obsmcp | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
[ -n "$function" ] || exit 4
"$function" obsmcp "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        script = script.display()
    );
    let output = shell(home, "bash", &["--norc", "--noprofile", "-c", &program])
        .expect("bash is installed wherever the tests run");
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn bash_loads_the_completion_script_and_completes_commands_flags_and_shells() {
    let home = TempHome::new();
    let script = completion_script(&home, "bash");
    let program = format!("source '{}' && complete -p obsmcp", script.display());
    let output = shell(&home, "bash", &["--norc", "--noprofile", "-c", &program]).unwrap();
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("-F _obsmcp "),
        "bash did not register our function: {}",
        text(&output)
    );

    assert_eq!(bash_complete(&home, &script, &["obsmcp", "se"]), ["setup"]);
    assert_eq!(
        bash_complete(&home, &script, &["obsmcp", "un"]),
        ["uninstall"]
    );
    assert_eq!(
        bash_complete(&home, &script, &["obsmcp", "setup", "--dry"]),
        ["--dry-run"]
    );
    assert_eq!(
        bash_complete(&home, &script, &["obsmcp", "bridge", "--read"]),
        ["--read-only"]
    );
    assert_eq!(
        bash_complete(&home, &script, &["obsmcp", "completions", "z"]),
        ["zsh"]
    );
}

#[test]
fn zsh_registers_the_completion_function() {
    let home = TempHome::new();
    let script = completion_script(&home, "zsh");
    let Some(parse) = shell(&home, "zsh", &["-n", script.to_str().unwrap()]) else {
        return;
    };
    assert!(parse.status.success(), "zsh -n: {}", text(&parse));
    // compinit without a dump file, then the script as a user's fpath would load it: `compdef` maps obsmcp to it.
    let program = format!(
        "autoload -U compinit && compinit -u -D && source '{}' && print -r -- $_comps[obsmcp]",
        script.display()
    );
    let output = shell(&home, "zsh", &["-f", "-c", &program]).unwrap();
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "_obsmcp",
        "{}",
        text(&output)
    );
}

#[test]
fn fish_parses_the_script_and_completes_commands() {
    let home = TempHome::new();
    let script = completion_script(&home, "fish");
    let Some(parse) = shell(
        &home,
        "fish",
        &["--no-config", "-n", script.to_str().unwrap()],
    ) else {
        return;
    };
    assert!(parse.status.success(), "fish -n: {}", text(&parse));
    let program = format!(
        "source '{}'; complete --do-complete 'obsmcp se'; complete --do-complete 'obsmcp doctor --pro'",
        script.display()
    );
    let output = shell(&home, "fish", &["--no-config", "-c", &program]).unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let candidates: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.split('\t').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(candidates, ["setup", "--probe-bridge"], "{}", text(&output));
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    let home = TempHome::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = std::fs::read_to_string(completion_script(&home, shell)).unwrap();
        for command in ["setup", "doctor", "bridge", "uninstall", "completions"] {
            assert!(script.contains(command), "{shell} script lacks `{command}`");
        }
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_list_of_shells() {
    let output = obsmcp().args(["completions", "nushell"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("invalid value 'nushell'")
            && stderr.contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{stderr}"
    );
}

/// `obsmcp` in `home` with nothing on stdin, no PATH to find anything on, and `stderr` as given.
fn in_home(home: &TempHome, args: &[&str], stderr: Stdio) -> std::process::Output {
    Process::new(env!("CARGO_BIN_EXE_obsmcp"))
        .args(args)
        .env_clear()
        .envs(home.env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .output()
        .expect("obsmcp runs")
}

#[test]
fn a_failing_command_keeps_its_exit_code_when_stderr_is_a_broken_pipe() {
    let home = TempHome::new();
    let obsidian = home.path().join(".config/obsidian");
    std::fs::create_dir_all(&obsidian).unwrap();
    std::fs::write(obsidian.join("obsidian.json"), "{not json").unwrap();
    let missing = home.path().join("Missing");
    let missing = missing.to_str().unwrap();
    let bundle = home.path().join("bundle.zip");
    let bundle = bundle.to_str().unwrap();
    let runs: [(&[&str], i32); 4] = [
        // An error chain, printed by main.
        (&["setup", "--yes", "--vault", missing], 1),
        // A warning (Obsidian's vault list does not parse), then a usage error and its hint: no vault found.
        (&["setup", "--yes"], 2),
        // The bridge refusing to start without an upstream.
        (&["bridge"], 2),
        // Doctor failing (no vault to check), then saying where the support bundle went.
        (&["doctor", "--bundle", bundle], 1),
    ];
    for (args, code) in runs {
        let seen = in_home(&home, args, Stdio::piped());
        let said = String::from_utf8_lossy(&seen.stderr);
        assert_eq!(seen.status.code(), Some(code), "{args:?}: {said}");
        assert!(
            !said.is_empty(),
            "{args:?} must print on stderr for this test to mean anything"
        );

        // A pipe whose reader is gone before obsmcp starts: every write to stderr fails with EPIPE (Rust programs
        // ignore SIGPIPE), as under `obsmcp … 2>&1 | head -0`. `eprintln!` panics on that, and a panic exits 101.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let gone = in_home(&home, args, Stdio::from(writer));
        assert_eq!(
            gone.status.code(),
            Some(code),
            "{args:?} with stderr broken: 101 is a panic while printing the error"
        );
        assert_eq!(
            String::from_utf8_lossy(&gone.stdout),
            String::from_utf8_lossy(&seen.stdout),
            "{args:?}: nothing moves to stdout"
        );
    }
}
