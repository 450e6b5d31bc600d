//! Unit tests of `obsmcp setup`'s guided run, with scripted answers.

use obsmcp_installer::environment::Os;

use super::*;
use crate::ui::prompt::scripted::Scripted;

fn args() -> SetupArgs {
    SetupArgs {
        vault: Vec::new(),
        config_dir: None,
        client: Vec::new(),
        run: crate::cli::RunArgs {
            yes: false,
            dry_run: false,
            json: false,
        },
        read_only: false,
        replace_existing: false,
        no_claude_permissions: false,
        hide: Vec::new(),
        hide_excluded_files: false,
        no_skill: false,
        always_load: false,
        entry_per_vault: false,
        semantic: false,
        model: None,
    }
}

struct Home {
    dir: tempfile::TempDir,
    first: PathBuf,
    second: PathBuf,
}

/// A home with two registered vaults (the second open) and Codex installed.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let root = obsmcp_installer::environment::real_path(dir.path()).unwrap();
    let (first, second) = (root.join("Archive"), root.join("Daily"));
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    std::fs::create_dir_all(root.join(".codex")).unwrap();
    let registry = serde_json::json!({"vaults": {"a": {"path": first, "ts": 1}, "b": {"path": second, "ts": 2, "open": true}}});
    std::fs::create_dir_all(root.join(".config/obsidian")).unwrap();
    std::fs::write(
        root.join(".config/obsidian/obsidian.json"),
        registry.to_string(),
    )
    .unwrap();
    Home { dir, first, second }
}

fn environment(home: &Home) -> Environment {
    Environment::new(
        Os::Linux,
        obsmcp_installer::environment::real_path(home.dir.path()).unwrap(),
    )
}

fn run(
    args: &SetupArgs,
    environment: &Environment,
    prompter: &mut Scripted,
) -> (ExitCode, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut printer = Printer {
        out: &mut out,
        err: &mut err,
        json: false,
        body_shown: false,
        problems_shown: 0,
    };
    let code = execute(args, environment, Some(prompter), &mut printer).unwrap();
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn codex_index() -> usize {
    CLIENTS
        .iter()
        .position(|client| client.id == "codex")
        .unwrap()
}

#[test]
fn guided_run_offers_vaults_and_detected_clients_then_shows_the_diff_and_asks() {
    let home = home();
    let environment = environment(&home);
    let mut prompter = Scripted::default();
    prompter.selections.extend([vec![1], vec![codex_index()]]);
    prompter.confirmations.push_back(true);
    let (code, out, err) = run(&args(), &environment, &mut prompter);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let vault_question = &prompter.asked[0];
    assert!(
        vault_question.contains("Archive")
            && vault_question.contains("Daily")
            && vault_question.contains("(open)")
    );
    assert!(
        vault_question.ends_with("[false, true]"),
        "the open vault starts selected: {vault_question}"
    );
    let client_question = &prompter.asked[1];
    let checked: Vec<bool> = CLIENTS.iter().map(|client| client.id == "codex").collect();
    assert!(
        client_question.ends_with(&format!("{checked:?}")),
        "only the detected client starts selected: {client_question}"
    );
    assert_eq!(prompter.asked[2], "Apply these changes?");
    assert!(
        out.contains("+[mcp_servers.obsidian]"),
        "the diff is shown before the question: {out}"
    );
    assert!(err.contains("Trust author and enable plugins"), "{err}");
    let codex = std::fs::read_to_string(environment.home().join(".codex/config.toml")).unwrap();
    assert!(
        codex.contains(home.second.to_str().unwrap())
            && !codex.contains(home.first.to_str().unwrap())
    );
}

#[test]
fn with_no_vault_listed_the_guided_run_asks_for_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = obsmcp_installer::environment::real_path(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("Notes")).unwrap();
    std::fs::create_dir_all(root.join(".codex")).unwrap();
    let environment = Environment::new(Os::Linux, &root);
    let mut prompter = Scripted::default();
    prompter
        .inputs
        .push_back(format!("{}\n", root.join("Notes").display()));
    prompter.selections.push_back(vec![codex_index()]);
    prompter.confirmations.push_back(true);
    let (code, _, err) = run(&args(), &environment, &mut prompter);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(prompter.asked[0].starts_with("No vault is listed by Obsidian"));
    assert!(
        root.join("Notes/.obsidian/plugins/obsmcp/main.js")
            .is_file()
    );
}

#[test]
fn saying_no_at_the_confirmation_writes_nothing() {
    let home = home();
    let environment = environment(&home);
    let mut prompter = Scripted::default();
    prompter
        .selections
        .extend([vec![0, 1], vec![codex_index()]]);
    prompter.confirmations.push_back(false);
    let (code, _, err) = run(&args(), &environment, &mut prompter);
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(err.contains("Cancelled: nothing was written."), "{err}");
    assert!(!environment.home().join(".codex/config.toml").exists());
    assert!(!home.first.join(".obsidian").exists());
}

#[test]
fn a_foreign_entry_is_replaced_only_when_the_user_agrees() {
    for (agree, expected) in [(true, "obsidian"), (false, "obsidian-daily")] {
        let home = home();
        let environment = environment(&home);
        let config = environment.home().join(".codex/config.toml");
        std::fs::write(&config, "[mcp_servers.obsidian]\ncommand = \"npx\"\nargs = [\"mcp-remote\", \"http://localhost:22360/sse\"]\n").unwrap();
        let mut prompter = Scripted::default();
        prompter.selections.extend([vec![1], vec![codex_index()]]);
        prompter.confirmations.extend([agree, true]);
        let (code, _, err) = run(&args(), &environment, &mut prompter);
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        assert!(
            prompter.asked[2].contains("npx mcp-remote http://localhost:22360/sse"),
            "{:?}",
            prompter.asked
        );
        let text = std::fs::read_to_string(&config).unwrap();
        let value =
            obsmcp_installer::document::read_value(obsmcp_installer::document::Format::Toml, &text)
                .unwrap();
        assert_eq!(
            value["mcp_servers"][expected]["args"][0], "bridge",
            "{text}"
        );
        assert_eq!(
            value["mcp_servers"]["obsidian"]["command"] == "npx",
            !agree,
            "{text}"
        );
    }
}

/// A vault renamed where nothing recorded can tell (a record from an older obsmcp, without the token's
/// digest) is asked about, and a yes re-points its entry in place under its name.
#[test]
fn a_renamed_vault_nothing_recognises_is_asked_about_and_a_yes_keeps_its_entry() {
    let home = home();
    let environment = environment(&home);
    let mut first_run = args();
    first_run.vault = vec![home.first.clone()];
    first_run.client = vec!["codex".to_owned()];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut printer = Printer {
        out: &mut out,
        err: &mut err,
        json: false,
        body_shown: false,
        problems_shown: 0,
    };
    assert_eq!(
        execute(&first_run, &environment, None, &mut printer).unwrap(),
        ExitCode::SUCCESS
    );
    let record = environment.state_home().join("installed.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    state.as_object_mut().unwrap().remove("identities");
    std::fs::write(&record, state.to_string()).unwrap();
    let renamed = home.first.with_file_name("Old Stuff");
    std::fs::rename(&home.first, &renamed).unwrap();

    let mut again = args();
    again.vault = vec![renamed.clone()];
    again.client = vec!["codex".to_owned()];
    let mut prompter = Scripted::default();
    prompter.confirmations.extend([true, true]);
    let (code, _, err) = run(&again, &environment, &mut prompter);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(
        prompter.asked[0].contains("which is gone") && prompter.asked[0].contains("Old Stuff"),
        "{:?}",
        prompter.asked
    );
    let codex = std::fs::read_to_string(environment.home().join(".codex/config.toml")).unwrap();
    assert!(
        codex.contains("[mcp_servers.obsidian]") && codex.contains("Old Stuff"),
        "{codex}"
    );
    assert!(
        !codex.contains(home.first.to_str().unwrap()) && !codex.contains("obsidian-old-stuff"),
        "{codex}"
    );
}
