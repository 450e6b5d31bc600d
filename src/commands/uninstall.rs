//! `obsmcp uninstall`: remove obsmcp's client entries, the permission rules setup added, and the plugin, keeping
//! everything else; planned, shown and confirmed like setup.

use std::path::PathBuf;
use std::process::ExitCode;

use obsmcp_installer::clients::CLIENTS;
use obsmcp_installer::environment::Environment;
use obsmcp_installer::uninstall::{self as planner, UninstallRequest};

use crate::cli::UninstallArgs;
use crate::ui::prompt::Prompter;
use obsmcp_installer::plan::Change;

use crate::commands::shared::{self, UsageError};
use crate::ui::report::{Outcome, Printer, Report};

/// Runs `obsmcp uninstall`.
pub(crate) fn run(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    let environment = shared::environment()?;
    let refusal = UsageError {
        message: "uninstall needs a terminal to confirm, and there is none".to_owned(),
        hint: "run `obsmcp uninstall --yes` (add --dry-run to only see the changes, --keep-plugin to keep the plugin)"
            .to_owned(),
    };
    shared::drive("uninstall", args.run, refusal, |prompter, printer| {
        execute(&args, &environment, prompter, printer)
    })
}

/// The whole run, with the prompter and output injected.
pub(crate) fn execute(
    args: &UninstallArgs,
    environment: &Environment,
    prompter: Option<&mut (dyn Prompter + 'static)>,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let clients = if args.client.is_empty() {
        CLIENTS.iter().collect()
    } else {
        shared::named_clients(&args.client)?
    };
    let vaults = args
        .vault
        .iter()
        .map(|path| {
            let absolute = shared::absolute_folder(environment, path)?;
            Ok(obsmcp_installer::environment::real_path(&absolute).unwrap_or(absolute))
        })
        .collect::<anyhow::Result<Vec<PathBuf>>>()?;
    let request = UninstallRequest {
        environment,
        clients,
        vaults,
        config_dir: args.config_dir.clone(),
        keep_plugin: args.keep_plugin,
        read_only_tools: crate::assets::read_only_tools(),
    };
    let mut plan = planner::plan(&request);
    let mut report = Report {
        command: "uninstall",
        outcome: Outcome::NothingToRemove,
        vaults: Vec::new(),
        items: plan.items.clone(),
        notes: plan.notes.clone(),
        problems: plan.problems.clone(),
        next_steps: Vec::new(),
        diffs: Vec::new(),
        remaining: Vec::new(),
    };
    if plan.changes_anything() {
        let files = plan.files.clone();
        let applied = shared::confirm_and_apply(
            &mut report,
            &files,
            args.run.dry_run,
            prompter,
            printer,
            ("Remove obsmcp as shown?", false),
            || plan.apply(environment),
        )?;
        if applied {
            report.next_steps = next_steps(&report);
            report.remaining = remaining(environment);
        }
    }
    Ok(printer.finish(&report)?)
}

/// What to do after the removal, from what was removed: Obsidian only where the plugin went, and each client whose
/// entry went.
fn next_steps(report: &Report) -> Vec<String> {
    let mut steps = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for item in report
        .items
        .iter()
        .filter(|item| item.change == Change::Removed)
    {
        // obsmcp's own caches (saved offline indexes) need nobody to restart.
        if seen.contains(&item.scope.as_str()) || item.scope == "obsmcp" {
            continue;
        }
        seen.push(&item.scope);
        match item.scope.strip_prefix("vault ") {
            Some(vault) => steps.push(format!(
                "Restart Obsidian (or reload the vault {vault}) so the plugin it still has loaded stops."
            )),
            None => steps.push(format!(
                "{}: start a new session (or restart it) so it drops obsmcp.",
                item.scope
            )),
        }
    }
    steps
}

/// What obsmcp still serves after a partial uninstall: each vault with the clients whose entries use it.
fn remaining(environment: &Environment) -> Vec<String> {
    obsmcp_installer::clients::served_vaults(environment, |_| true)
        .into_iter()
        .map(|(vault, clients)| {
            format!(
                "vault {} ({}): {}",
                obsmcp_installer::obsidian_files::registry::vault_name(&vault),
                vault.display(),
                clients.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use obsmcp_installer::environment::Os;

    use super::*;
    use crate::ui::prompt::scripted::Scripted;

    #[test]
    fn uninstall_asks_and_a_no_keeps_everything() {
        let home = tempfile::tempdir().unwrap();
        let root = obsmcp_installer::environment::real_path(home.path()).unwrap();
        let original = "[mcp_servers.obsidian]\ncommand = \"/usr/bin/obsmcp\"\nargs = [\"bridge\", \"--vault\", \"/v\"]\n";
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        std::fs::write(root.join(".codex/config.toml"), original).unwrap();
        let environment = Environment::new(Os::Linux, &root);
        let args = UninstallArgs {
            vault: Vec::new(),
            config_dir: None,
            client: vec!["codex".to_owned()],
            run: crate::cli::RunArgs {
                yes: false,
                dry_run: false,
                json: false,
            },
            keep_plugin: true,
        };
        for (answer, kept) in [(false, true), (true, false)] {
            let mut prompter = Scripted::default();
            prompter.confirmations.push_back(answer);
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut printer = Printer {
                out: &mut out,
                err: &mut err,
                json: false,
                body_shown: false,
                problems_shown: 0,
            };
            let code = execute(&args, &environment, Some(&mut prompter), &mut printer).unwrap();
            assert_eq!(code, ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&err));
            assert_eq!(prompter.asked, ["Remove obsmcp as shown?"]);
            assert!(
                String::from_utf8(out)
                    .unwrap()
                    .contains("-[mcp_servers.obsidian]")
            );
            let now = std::fs::read_to_string(root.join(".codex/config.toml")).unwrap_or_default();
            assert_eq!(now == original, kept, "{now}");
        }
    }
}
