//! `obsmcp setup`: choose vaults and clients (asking on a terminal, from flags otherwise), plan every change with the
//! installer library, show it, confirm it, apply it, and say what to do next.
//!
//! Its unit tests, with scripted answers, are in `setup_tests.rs`.

use std::path::PathBuf;
use std::process::ExitCode;

use obsmcp_installer::clients::{CLIENTS, ClientSpec};
use obsmcp_installer::environment::Environment;
use obsmcp_installer::obsidian_files::registry;
use obsmcp_installer::plan::Change;
use obsmcp_installer::plan::moves;
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
        hide: hide_rules(args),
        hide_excluded_files: args.hide_excluded_files,
        skill: !args.no_skill,
        always_load: args.always_load,
        keep_tools: false,
        layout: layout_of(args),
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
        remaining: Vec::new(),
    };
    if let Some(install) = &install {
        let (item, note) = shared::binary_report(install);
        report.items.insert(0, item);
        report.notes.insert(0, note);
        plan.state.installed_binary = Some(install.to.clone());
        let state_home = environment.state_home();
        plan.state
            .created_dirs
            .extend(install.folders_to_create(&state_home));
        plan.state
            .own_dirs
            .extend(install.own_folders_to_create(&state_home));
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
    if args.semantic && report.outcome != Outcome::Cancelled {
        super::setup_model::set_up(args, environment, &mut report);
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
        report.next_steps = next_steps(&report, &plan.vaults, &working, (&lookup, &request.binary));
    }
    Ok(printer.finish(&report)?)
}

/// The vaults to set up: those given with `--vault`; otherwise, on a terminal, those the user picks from Obsidian's
/// list and the earlier setup's; without one, the earlier setup's vaults, or every vault Obsidian lists.
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
    let found: Vec<PathBuf> = registered
        .into_iter()
        .map(|vault| vault.path)
        .filter(|path| path.is_dir())
        .collect();
    // A run after an earlier setup means the vaults set up then, where they are now: a vault Obsidian lists that was
    // never chosen is not set up without asking.
    let earlier = earlier_vaults(environment, &found);
    let mut offered = found.clone();
    for (path, _) in &earlier {
        if !offered.contains(path) {
            offered.push(path.clone());
        }
    }
    if offered.is_empty() {
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
        Some(prompter) => ask_for_vaults(prompter, environment, &offered, &earlier)?,
        None if earlier.is_empty() => found,
        None => return earlier_vaults_again(args, environment, &found, &earlier),
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

/// Asks which of the `offered` vaults to set up: those set up earlier are checked; on a first run, the open ones (or
/// all, when none is open or there is one).
fn ask_for_vaults(
    prompter: &mut (dyn Prompter + 'static),
    environment: &Environment,
    offered: &[PathBuf],
    earlier: &[(PathBuf, String)],
) -> anyhow::Result<Vec<PathBuf>> {
    let (registered, _) = registry::discover(environment);
    let is_open = |path: &PathBuf| {
        registered
            .iter()
            .any(|vault| vault.open && &vault.path == path)
    };
    let labels: Vec<String> = offered
        .iter()
        .map(|path| {
            let open = if is_open(path) { "  (open)" } else { "" };
            format!("{}  {}{open}", registry::vault_name(path), path.display())
        })
        .collect();
    let any_open = offered.iter().any(is_open);
    let checked: Vec<bool> = offered
        .iter()
        .map(|path| match earlier.is_empty() {
            false => earlier.iter().any(|(known, _)| known == path),
            true => offered.len() == 1 || is_open(path) || !any_open,
        })
        .collect();
    let picked = prompter.select(
        "Vaults to connect (space toggles, enter confirms)",
        &labels,
        &checked,
    )?;
    Ok(picked
        .into_iter()
        .map(|index| offered[index].clone())
        .collect())
}

/// The vaults set up earlier, set up again where they are now; the other vaults Obsidian lists are named and left
/// alone.
fn earlier_vaults_again(
    args: &SetupArgs,
    environment: &Environment,
    found: &[PathBuf],
    earlier: &[(PathBuf, String)],
) -> anyhow::Result<Vec<VaultTarget>> {
    let others: Vec<String> = found
        .iter()
        .filter(|path| !earlier.iter().any(|(known, _)| known == *path))
        .map(|path| registry::vault_name(path))
        .collect();
    if !others.is_empty() {
        crate::ui::stderr_line(format_args!(
            "note: set up again the vaults set up before; Obsidian also lists {}, which stay as they are \
             (add one with --vault PATH)",
            others.join(", ")
        ));
    }
    earlier
        .iter()
        .map(|(path, config_dir)| {
            shared::vault_target(
                environment,
                path,
                args.config_dir.as_deref().or(Some(config_dir)),
            )
        })
        .collect()
}

/// The vaults an earlier setup set up (its record and the clients' entries), each where it is now, with its config
/// folder: one that moved or was renamed is found among `found` (see `obsmcp_installer::plan::moves`).
fn earlier_vaults(environment: &Environment, found: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let state = obsmcp_installer::plan::state::State::load(environment);
    let mut places: Vec<PathBuf> = state.vaults.keys().cloned().collect();
    for (vault, _) in obsmcp_installer::clients::served_vaults(environment, |_| true) {
        places.push(vault);
    }
    let candidates: Vec<(PathBuf, String)> = found
        .iter()
        .map(|path| (path.clone(), registry::config_dir(path, None).0))
        .collect();
    let found_moves = moves::find(environment, &state, &candidates);
    let mut earlier: Vec<(PathBuf, String)> = Vec::new();
    for place in places {
        let now = match found_moves.iter().find(|moved| moved.from == place) {
            Some(moved) => moved.to.clone(),
            None if place.is_dir() => {
                obsmcp_installer::environment::real_path(&place).unwrap_or(place.clone())
            }
            None => continue,
        };
        if !earlier.iter().any(|(known, _)| *known == now) {
            earlier.push((now, moves::config_dir_of(&state, &place)));
        }
    }
    earlier
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
    (lookup, binary): (&shared::PathLookup, &std::path::Path),
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
        // Wherever the entries' binary lives (the copy setup made, an unpacked archive), its folder is what to add.
        shared::PathLookup::Nothing => {
            if let Some(folder) = binary.parent() {
                check.push_str(&format!(
                    " (`{}` is not on your PATH: add it to type plain `obsmcp`.)",
                    folder.display()
                ));
            }
        }
        // The manager's link folder is the one to add, and the manager has a command that adds it.
        shared::PathLookup::ManagerLink { link, manager } => {
            if let Some(folder) = link.parent() {
                check.push_str(&format!(
                    " (`{}`, where {} linked obsmcp, is not on your PATH: `{}` adds it, to type plain `obsmcp`.)",
                    folder.display(),
                    manager.name(),
                    manager.path_command()
                ));
            }
        }
        shared::PathLookup::Another(other) => check.push_str(&format!(
            " (The `obsmcp` on your PATH is another binary, {}.)",
            other.display()
        )),
    }
    steps.push(check);
    steps
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;

/// One entry for every vault, or one each with `--entry-per-vault`.
fn layout_of(args: &SetupArgs) -> obsmcp_installer::setup::EntryLayout {
    if args.entry_per_vault {
        obsmcp_installer::setup::EntryLayout::PerVault
    } else {
        obsmcp_installer::setup::EntryLayout::Shared
    }
}

/// The `--hide` rules, trimmed, empty ones left out.
fn hide_rules(args: &SetupArgs) -> Vec<String> {
    args.hide
        .iter()
        .map(|rule| rule.trim().to_string())
        .filter(|rule| !rule.is_empty())
        .collect()
}
