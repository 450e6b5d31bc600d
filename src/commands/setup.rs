//! `obsmcp setup`: choose vaults and clients (asking on a terminal, from flags otherwise), plan every change with the
//! installer library, show it, confirm it, apply it, and say what to do next.
//!
//! About 310 lines of code and 190 of unit tests.

use std::path::PathBuf;
use std::process::ExitCode;

use obsmcp_installer::clients::{CLIENTS, ClientSpec};
use obsmcp_installer::environment::Environment;
use obsmcp_installer::obsidian::registry;
use obsmcp_installer::plan::Change;
use obsmcp_installer::setup::{self as planner, FixedDecisions, SetupRequest, VaultTarget};

use crate::cli::SetupArgs;
use crate::commands::shared::{self, UsageError};
use crate::ui::prompt::{AskToReplace, Prompter};
use crate::ui::report::{Outcome, Printer, Report};

/// Runs `obsmcp setup`.
pub(crate) fn run(args: SetupArgs) -> anyhow::Result<ExitCode> {
    let environment = shared::environment()?;
    let refusal = UsageError {
        message: "setup needs a terminal to ask its questions, and there is none".to_owned(),
        hint: "run it with flags instead: obsmcp setup --vault PATH --client claude-code --client codex --client hermes --yes \
               (add --dry-run to only see the changes, --json for a report)"
            .to_owned(),
    };
    shared::drive("setup", args.run, refusal, |prompter, printer| {
        execute(&args, &environment, prompter, printer)
    })
}

/// The whole run, with the prompter and output injected.
pub(crate) fn execute(
    args: &SetupArgs,
    environment: &Environment,
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let vaults = choose_vaults(args, environment, prompter.as_deref_mut())?;
    let clients = choose_clients(args, environment, prompter.as_deref_mut())?;
    let (binary, install) = shared::entry_binary(environment)?;
    let request = SetupRequest {
        environment,
        vaults,
        clients,
        binary,
        read_only: args.read_only,
        hide: args
            .hide
            .iter()
            .map(|rule| rule.trim().to_string())
            .filter(|rule| !rule.is_empty())
            .collect(),
        hide_excluded_files: args.hide_excluded_files,
        skill: !args.no_skill,
        always_load: args.always_load,
        permissions: !args.no_claude_permissions,
        bundle: crate::assets::BUNDLE,
        data_template: crate::assets::DATA_TEMPLATE,
        read_only_tools: crate::assets::read_only_tools(),
        port_is_free: &shared::port_is_free,
    };
    let mut plan = match prompter.as_deref_mut() {
        Some(prompter) if !args.replace_existing => {
            planner::plan(&request, &mut AskToReplace { prompter })
        }
        _ => planner::plan(&request, &mut FixedDecisions(args.replace_existing)),
    };

    let mut report = Report {
        command: "setup",
        outcome: Outcome::AlreadyConfigured,
        vaults: plan.vaults.clone(),
        items: plan.items.clone(),
        notes: plan.notes.clone(),
        problems: plan.problems.clone(),
        next_steps: Vec::new(),
        diffs: Vec::new(),
    };
    if let Some(install) = &install {
        let (item, note) = shared::binary_report(install);
        report.items.insert(0, item);
        report.notes.insert(0, note);
        plan.state.installed_binary = Some(install.to.clone());
        plan.state
            .created_dirs
            .extend(install.folders_to_create(&environment.state_home()));
    }
    let binary_changes = install
        .as_ref()
        .is_some_and(|install| install.change != Change::Unchanged);
    if plan.changes_anything() || binary_changes {
        shared::confirm_and_apply(
            &mut report,
            &plan.files,
            args.run.dry_run,
            prompter,
            printer,
            ("Apply these changes?", true),
            || {
                if let Some(install) = &install
                    && let Err(problem) = shared::install_binary(install)
                {
                    return vec![problem];
                }
                plan.apply(environment)
            },
        )?;
    }
    if report.outcome != Outcome::Cancelled && !plan.vaults.is_empty() {
        let working: Vec<&ClientSpec> = request
            .clients
            .iter()
            .copied()
            .filter(|client| {
                !report
                    .problems
                    .iter()
                    .any(|problem| problem.scope == client.name)
            })
            .collect();
        let lookup = shared::path_lookup(environment, &request.binary);
        report.next_steps = next_steps(
            &report,
            &plan.vaults,
            &working,
            (&lookup, &request.binary, install.is_some()),
        );
    }
    Ok(printer.finish(&report)?)
}

fn choose_vaults(
    args: &SetupArgs,
    environment: &Environment,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> anyhow::Result<Vec<VaultTarget>> {
    if !args.vault.is_empty() {
        return args
            .vault
            .iter()
            .map(|path| shared::vault_target(environment, path, args.config_dir.as_deref()))
            .collect();
    }
    let (registered, errors) = registry::discover(environment);
    for error in &errors {
        crate::ui::stderr_line(format_args!("warning: {error}"));
    }
    let found: Vec<_> = registered
        .into_iter()
        .filter(|vault| vault.path.is_dir())
        .collect();
    if found.is_empty() {
        // Run again (after an update, or from an installed copy) with no vault Obsidian lists: the vaults an earlier
        // setup set up are the ones meant.
        let known: Vec<(PathBuf, String)> = obsmcp_installer::plan::state::State::load(environment)
            .vaults
            .into_iter()
            .filter(|(path, _)| path.is_dir())
            .collect();
        if !known.is_empty() {
            return known
                .iter()
                .map(|(path, config_dir)| shared::vault_target(environment, path, Some(config_dir)))
                .collect();
        }
        if let Some(prompter) = prompter {
            let answer =
                prompter.input("No vault is listed by Obsidian. Vault folder to set up")?;
            let path = PathBuf::from(answer.trim());
            return Ok(vec![shared::vault_target(
                environment,
                &path,
                args.config_dir.as_deref(),
            )?]);
        }
        return Err(UsageError {
            message: "no Obsidian vault was found in Obsidian's vault list".to_owned(),
            hint: "name the vault folder with --vault PATH (any folder can be a vault)".to_owned(),
        }
        .into());
    }
    let chosen: Vec<PathBuf> = match prompter {
        Some(prompter) => {
            let labels: Vec<String> = found
                .iter()
                .map(|vault| {
                    let open = if vault.open { "  (open)" } else { "" };
                    format!(
                        "{}  {}{open}",
                        registry::vault_name(&vault.path),
                        vault.path.display()
                    )
                })
                .collect();
            let any_open = found.iter().any(|vault| vault.open);
            let checked: Vec<bool> = found
                .iter()
                .map(|vault| found.len() == 1 || vault.open || !any_open)
                .collect();
            let picked = prompter.select(
                "Vaults to connect (space toggles, enter confirms)",
                &labels,
                &checked,
            )?;
            picked
                .into_iter()
                .map(|index| found[index].path.clone())
                .collect()
        }
        None => found.iter().map(|vault| vault.path.clone()).collect(),
    };
    if chosen.is_empty() {
        return Err(UsageError {
            message: "no vault was chosen".to_owned(),
            hint: "choose at least one, or use --vault PATH".to_owned(),
        }
        .into());
    }
    chosen
        .iter()
        .map(|path| shared::vault_target(environment, path, args.config_dir.as_deref()))
        .collect()
}

fn choose_clients(
    args: &SetupArgs,
    environment: &Environment,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> anyhow::Result<Vec<&'static ClientSpec>> {
    if !args.client.is_empty() {
        return shared::named_clients(&args.client);
    }
    let locations: Vec<_> = CLIENTS
        .iter()
        .map(|client| client.locate(environment))
        .collect();
    let chosen: Vec<&'static ClientSpec> = match prompter {
        Some(prompter) => {
            let labels: Vec<String> = CLIENTS
                .iter()
                .zip(&locations)
                .map(|(client, location)| {
                    let state = if location.detected {
                        ""
                    } else {
                        "  (not detected)"
                    };
                    format!("{}  {}{state}", client.name, location.config.display())
                })
                .collect();
            let checked: Vec<bool> = locations.iter().map(|location| location.detected).collect();
            let picked =
                prompter.select("AI clients to register obsmcp with", &labels, &checked)?;
            picked.into_iter().map(|index| &CLIENTS[index]).collect()
        }
        None => CLIENTS
            .iter()
            .zip(&locations)
            .filter(|(_, location)| location.detected)
            .map(|(client, _)| client)
            .collect(),
    };
    if chosen.is_empty() {
        let ids: Vec<&str> = CLIENTS.iter().map(|client| client.id).collect();
        return Err(UsageError {
            message: "no AI client was detected or chosen".to_owned(),
            hint: format!("name them with --client (repeatable): {}", ids.join(", ")),
        }
        .into());
    }
    Ok(chosen)
}

/// What to do next, from what happened: Obsidian only for a vault whose plugin changed, a client only when its entry
/// changed and it was not refused, and the doctor check always.
fn next_steps(
    report: &Report,
    vaults: &[obsmcp_installer::setup::VaultPlan],
    clients: &[&ClientSpec],
    (lookup, binary, installed): (&shared::PathLookup, &std::path::Path, bool),
) -> Vec<String> {
    // A write that failed is reported under the file's path: its client is not ready either.
    let failed = |scope: &str| {
        report.problems.iter().any(|problem| {
            problem.scope == scope
                || report.items.iter().any(|item| {
                    item.scope == scope && problem.scope == item.path.display().to_string()
                })
        })
    };
    let changed = |scope: &str| {
        !failed(scope)
            && report
                .items
                .iter()
                .any(|item| item.scope == scope && item.change != Change::Unchanged)
    };
    let mut steps = Vec::new();
    if report.outcome == Outcome::Planned {
        steps.push("Run the same command without --dry-run to make these changes.".to_owned());
    }
    for vault in vaults
        .iter()
        .filter(|vault| changed(&format!("vault {}", vault.name)))
    {
        let action = if vault.open {
            "Restart Obsidian (or reload the vault)"
        } else {
            "Open Obsidian"
        };
        steps.push(format!(
            "{action} on the vault {}. If Obsidian asks \"Trust author and enable plugins?\", choose to trust: obsmcp \
             loads only after that. Check that obsmcp is on in Settings → Community plugins.",
            vault.name
        ));
    }
    for client in clients.iter().filter(|client| changed(client.name)) {
        steps.push(format!("{}: {}.", client.name, client.after_change));
    }
    let command = shared::command_for(lookup, binary);
    let mut check = format!("Run `{command} doctor` to check every link from client to vault.");
    match lookup {
        shared::PathLookup::ThisBinary => {}
        shared::PathLookup::Nothing => match binary.parent() {
            Some(folder) if installed => check.push_str(&format!(
                " (`{}` is not on your PATH: add it to type plain `obsmcp`.)",
                folder.display()
            )),
            _ => check.push_str(
                " (obsmcp is not on your PATH: `cargo install --locked --path .` in the source folder puts it there.)",
            ),
        },
        shared::PathLookup::Another(other) => check.push_str(&format!(
            " (The `obsmcp` on your PATH is another binary, {}.)",
            other.display()
        )),
    }
    steps.push(check);
    steps
}

#[cfg(test)]
mod tests {
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
        let root = std::fs::canonicalize(dir.path()).unwrap();
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
        Environment::new(Os::Linux, std::fs::canonicalize(home.dir.path()).unwrap())
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
        let root = std::fs::canonicalize(dir.path()).unwrap();
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
            let value = obsmcp_installer::document::read_value(
                obsmcp_installer::document::Format::Toml,
                &text,
            )
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
}
