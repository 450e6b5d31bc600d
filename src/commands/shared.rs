//! What `setup` and `uninstall` share (and doctor's `--fix`, which replays setup): the environment, this binary and
//! how a shell runs it, command-line values turned into validated targets, and the flow of a run (plan, show,
//! confirm, apply, report) with its usage errors. The planning itself is the `obsmcp-installer` library's; the
//! terminal parts (prompts, the report printer) are in `crate::ui`.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use obsmcp_installer::clients::{self, CLIENTS, ClientSpec};
use obsmcp_installer::environment::Environment;
use obsmcp_installer::obsidian_files::registry;
use obsmcp_installer::plan::binary::BinaryInstall;
use obsmcp_installer::plan::binary::transience;
use obsmcp_installer::plan::{FileChange, Item, Note, Problem};
use obsmcp_installer::setup::VaultTarget;

use crate::cli::RunArgs;
use crate::ui::{prompt, report};

/// The process's environment, or an error saying why there is none.
pub(crate) fn environment() -> anyhow::Result<Environment> {
    Environment::from_process()
        .context("could not find your home folder (HOME, or USERPROFILE on Windows, is not set)")
}

/// The absolute path of the running `obsmcp`, which every client entry runs.
pub(crate) fn binary() -> anyhow::Result<PathBuf> {
    let path =
        std::env::current_exe().context("could not find the path of the running obsmcp binary")?;
    Ok(obsmcp_installer::environment::real_path(&path).unwrap_or(path))
}

/// The binary client entries run, and the copy of the running one to make first when its place would not last (a
/// build folder, npx's or uv's cache, a temporary folder: `plan::binary`). When the copy's place holds something that
/// is not obsmcp's, the run is refused as a [`UsageError`] whose hint says how to free it: entries may neither run
/// a binary that will not last nor have the user's file replaced under them.
pub(crate) fn entry_binary(
    environment: &Environment,
) -> anyhow::Result<(PathBuf, Option<BinaryInstall>)> {
    let running = binary()?;
    match obsmcp_installer::plan::binary::plan(environment, &running) {
        None => Ok((running, None)),
        Some(Ok(install)) => Ok((install.to.clone(), Some(install))),
        Some(Err(occupied)) => {
            use obsmcp_installer::plan::binary;
            // The link is pipx's or uv's to this very build: the entries run that copy where it lasts.
            if let Some(twin) = binary::lasting_twin(environment, &occupied, &running) {
                return Ok((twin, None));
            }
            let why = binary::transience(environment, &running)
                .map(|why| format!(" ({why})"))
                .unwrap_or_default();
            let hint = match binary::lasting_obsmcp_behind(environment, &occupied) {
                Some(lasting) => format!(
                    "`{link}` runs an obsmcp installed where it lasts (`{lasting}`): run this command through it \
                     (`{link} …`) instead",
                    link = occupied.path().display(),
                    lasting = lasting.display()
                ),
                None => occupied.hint(),
            };
            Err(UsageError {
                message: format!(
                    "client entries need a copy of this obsmcp where it lasts{why}, but {occupied}; it was left \
                     as it is and nothing was changed"
                ),
                hint,
            }
            .into())
        }
    }
}

/// The report's line for that copy, and the note that says why it was made.
pub(crate) fn binary_report(install: &BinaryInstall) -> (Item, Note) {
    let item = Item {
        scope: "obsmcp".to_owned(),
        subject: "binary that client entries run".to_owned(),
        change: install.change,
        path: install.to.clone(),
    };
    let note = Note {
        scope: "obsmcp".to_owned(),
        message: format!(
            "client entries run `{}`, a copy of this binary: {} ({})",
            install.to.display(),
            install.why,
            install.from.display()
        ),
    };
    (item, note)
}

/// Copies the binary into its stable place, or says why it could not (then nothing else may be written: no entry
/// may point at a binary that is not there).
pub(crate) fn install_binary(install: &BinaryInstall) -> Result<(), Problem> {
    install.apply().map_err(|error| Problem {
        scope: "obsmcp".to_owned(),
        message: format!(
            "could not install obsmcp to `{}`: {error}; nothing else was changed",
            install.to.display()
        ),
        hint: error.hint().or_else(|| {
            Some("run setup with a binary installed where it lasts (`cargo install`, `pipx install obsmcp`, `npm install -g obsmcp`)".to_owned())
        }),
    })
}

/// What a bare `obsmcp` typed in a shell would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathLookup {
    /// The running binary: `obsmcp` is the right thing to tell people to type.
    ThisBinary,
    /// Nothing: `obsmcp` is `command not found` (after `cargo run --release -- setup`, say).
    Nothing,
    /// Another binary, at this path.
    Another(PathBuf),
    /// Nothing, but pipx or `uv tool` keeps the binary and linked it at `link`, in a folder that is not on PATH.
    ManagerLink {
        link: PathBuf,
        manager: obsmcp_installer::plan::tool_install::ToolManager,
    },
}

/// Searches `PATH` for `obsmcp` the way a shell does (first match wins) and says whether it is `binary`.
pub(crate) fn path_lookup(environment: &Environment, binary: &Path) -> PathLookup {
    let windows = environment.os() == obsmcp_installer::environment::Os::Windows;
    let (names, separator): (&[&str], char) = if windows {
        (&["obsmcp.exe", "obsmcp"], ';')
    } else {
        (&["obsmcp"], ':')
    };
    // What npx and uvx put on PATH for the run they start is gone when it ends: a shell later will not find it there.
    let found = environment
        .var("PATH")
        .unwrap_or_default()
        .split(separator)
        .filter(|folder| !folder.is_empty())
        .flat_map(|folder| names.iter().map(move |name| Path::new(folder).join(name)))
        .filter(|candidate| candidate.is_file())
        .map(|found| obsmcp_installer::environment::real_path(&found).unwrap_or(found))
        .find(|real| real == binary || transience(environment, real).is_none());
    let managed = || {
        use obsmcp_installer::plan::tool_install;
        let manager = tool_install::manager_of(binary)?;
        let link = tool_install::link_to(environment, manager, binary)?;
        Some(PathLookup::ManagerLink { link, manager })
    };
    match found {
        None => managed().unwrap_or(PathLookup::Nothing),
        Some(real) if real == binary || is_npm_launcher_of(&real, binary) => PathLookup::ThisBinary,
        Some(real) => PathLookup::Another(real),
    }
}

/// Whether `launcher` is the npm package's `obsmcp.js` that runs `binary` (a global npm install puts that launcher on
/// PATH and the binary in a platform package beside it, in the same `node_modules`).
fn is_npm_launcher_of(launcher: &Path, binary: &Path) -> bool {
    let node_modules = |path: &Path| {
        path.ancestors()
            .find(|folder| {
                folder
                    .file_name()
                    .is_some_and(|name| name == "node_modules")
            })
            .map(Path::to_owned)
    };
    launcher.file_name().is_some_and(|name| name == "obsmcp.js")
        && node_modules(launcher).is_some_and(|folder| Some(folder) == node_modules(binary))
}

/// How to type `binary` in a shell: `obsmcp` when `PATH` runs it, its full path (quoted if it has spaces) otherwise.
pub(crate) fn command_for(lookup: &PathLookup, binary: &Path) -> String {
    let shown = match lookup {
        PathLookup::ThisBinary => return "obsmcp".to_owned(),
        // The manager's link is what lasts across its upgrades, and what the user will find on PATH once it is there.
        PathLookup::ManagerLink { link, .. } => link.display().to_string(),
        PathLookup::Nothing | PathLookup::Another(_) => binary.display().to_string(),
    };
    if shown.contains(char::is_whitespace) {
        format!("\"{shown}\"")
    } else {
        shown
    }
}

/// How to type the running `obsmcp` in a shell ([`command_for`] after [`path_lookup`]), for hints that name a command.
pub(crate) fn own_command(environment: &Environment) -> String {
    match binary() {
        Ok(binary) => command_for(&path_lookup(environment, &binary), &binary),
        // Without its own path (no /proc, say), the plain name is the best guess a hint can make.
        Err(_) => "obsmcp".to_owned(),
    }
}

/// The real path of the `obsmcp` a shell runs (`PATH`), if any.
pub(crate) fn obsmcp_on_path(environment: &Environment) -> Option<PathBuf> {
    let binary = binary().ok()?;
    match path_lookup(environment, &binary) {
        PathLookup::ThisBinary => Some(binary),
        PathLookup::Another(other) => Some(other),
        PathLookup::Nothing | PathLookup::ManagerLink { .. } => None,
    }
}

/// A folder given on the command line, made absolute: a leading `~` (left unexpanded when quoted, as in
/// `--vault "~/Notes"`) is the home folder, and a relative path is taken from the current folder.
pub(crate) fn absolute_folder(environment: &Environment, path: &Path) -> std::io::Result<PathBuf> {
    let text = path.to_string_lossy();
    if text == "~" {
        return Ok(environment.home().to_owned());
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return Ok(environment.home().join(rest));
    }
    if path.is_absolute() {
        return Ok(path.to_owned());
    }
    Ok(std::env::current_dir()?.join(path))
}

/// The clients named with `--client`, or an error listing the known ones.
pub(crate) fn named_clients(names: &[String]) -> anyhow::Result<Vec<&'static ClientSpec>> {
    let mut chosen: Vec<&'static ClientSpec> = Vec::new();
    for name in names {
        let Some(client) = clients::find(name) else {
            let known: Vec<&str> = CLIENTS.iter().map(|client| client.id).collect();
            return Err(UsageError {
                message: format!("unknown client `{name}`"),
                hint: format!("--client takes one of: {}", known.join(", ")),
            }
            .into());
        };
        if !chosen.iter().any(|known| known.id == client.id) {
            chosen.push(client);
        }
    }
    Ok(chosen)
}

/// A folder given with `--vault`, made absolute and checked.
pub(crate) fn vault_target(
    environment: &Environment,
    path: &Path,
    config_dir: Option<&str>,
) -> anyhow::Result<VaultTarget> {
    let absolute = absolute_folder(environment, path)?;
    if !absolute.is_dir() {
        bail!("the vault folder `{}` does not exist", absolute.display());
    }
    let absolute = obsmcp_installer::environment::real_path(&absolute).unwrap_or(absolute);
    let (registered, _) = registry::discover(environment);
    let open = registered
        .iter()
        .any(|vault| vault.open && vault.path == absolute);
    let (config_dir, config_dir_source) = registry::config_dir(&absolute, config_dir);
    Ok(VaultTarget {
        path: absolute,
        config_dir,
        config_dir_source,
        open,
        moved_from: Vec::new(),
    })
}

/// Whether a loopback port can be bound now.
pub(crate) fn port_is_free(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// A mistake in how obsmcp was asked to run, with the flag that fixes it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct UsageError {
    /// What is wrong.
    pub(crate) message: String,
    /// What to run instead.
    pub(crate) hint: String,
}

/// Runs setup or uninstall with the real terminal: questions only on a terminal and without `--yes`, `--json` or
/// `--dry-run`; without a terminal, `refusal` unless `--yes` or `--dry-run` says what to do. A [`UsageError`] from
/// the run is printed with its hint and exits 2, like a refusal.
pub(crate) fn drive(
    command: &'static str,
    run: RunArgs,
    refusal: UsageError,
    execute: impl FnOnce(
        Option<&mut (dyn prompt::Prompter + 'static)>,
        &mut report::Printer<'_>,
    ) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let interactive = terminal && !run.yes && !run.json && !run.dry_run;
    if !interactive && !run.yes && !run.dry_run {
        json_failure(command, run, &refusal.message, Some(&refusal.hint));
        return Ok(usage_error(&refusal));
    }
    let mut terminal_prompter = prompt::Terminal;
    let prompter: Option<&mut (dyn prompt::Prompter + 'static)> = if interactive {
        Some(&mut terminal_prompter)
    } else {
        None
    };
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let mut printer = report::Printer {
        out: &mut stdout,
        err: &mut stderr,
        json: run.json,
        body_shown: false,
        problems_shown: 0,
    };
    let outcome = execute(prompter, &mut printer);
    drop(stdout);
    match outcome {
        Ok(code) => Ok(code),
        Err(error) => match error.downcast::<UsageError>() {
            Ok(usage) => {
                json_failure(command, run, &usage.message, Some(&usage.hint));
                Ok(usage_error(&usage))
            }
            Err(error) => {
                json_failure(command, run, &format!("{error:#}"), None);
                Err(error)
            }
        },
    }
}

/// With `--json`, a run that fails before its report still prints one on stdout: an agent reading it gets the
/// error and its hint, not an empty stream.
fn json_failure(command: &str, run: RunArgs, message: &str, hint: Option<&str>) {
    if !run.json {
        return;
    }
    let report = serde_json::json!({
        "command": command,
        "outcome": "failed",
        "error": message,
        "hint": hint,
    });
    #[allow(
        clippy::print_stdout,
        reason = "the --json report is the one thing on stdout"
    )]
    {
        println!("{report}");
    }
}

/// What setup and uninstall share once their plan changes something: a dry run only keeps the diffs; otherwise the
/// plan is shown and `question` asked when someone can answer, then `apply` runs. Leaves the outcome in `report` and
/// says whether the plan was applied.
pub(crate) fn confirm_and_apply(
    report: &mut report::Report,
    files: &[FileChange],
    dry_run: bool,
    prompter: Option<&mut (dyn prompt::Prompter + 'static)>,
    printer: &mut report::Printer<'_>,
    (question, default): (&str, bool),
    apply: impl FnOnce() -> Vec<Problem>,
) -> anyhow::Result<bool> {
    report.outcome = report::Outcome::Planned;
    if dry_run {
        report.diffs = report::diffs(files);
        return Ok(false);
    }
    if let Some(prompter) = prompter {
        printer.preview(report, &report::diffs(files))?;
        if !prompter.confirm(question, default)? {
            report.outcome = report::Outcome::Cancelled;
            return Ok(false);
        }
    }
    report.problems.extend(apply());
    report.outcome = report::Outcome::Changed;
    Ok(true)
}

/// Prints a usage error with its hint; exit code 2, as for clap's own usage errors.
pub(crate) fn usage_error(error: &UsageError) -> std::process::ExitCode {
    crate::ui::stderr_line(format_args!("error: {}", error.message));
    crate::ui::stderr_line(format_args!("hint: {}", error.hint));
    std::process::ExitCode::from(2)
}

// Unix only, every test: PATH is split on `:` there, and npm's and the tool managers' links are symlinks.
#[cfg(all(test, unix))]
mod tests {
    use obsmcp_installer::environment::Os;

    use super::*;

    // Unix only: PATH is split on `:` here, and the files found are named without Windows' `.exe`.
    #[cfg(unix)]
    #[test]
    fn path_lookup_tells_this_binary_from_another_and_from_none() {
        let folder = tempfile::tempdir().unwrap();
        let root = obsmcp_installer::environment::real_path(folder.path()).unwrap();
        let (first, second) = (root.join("first"), root.join("build dir"));
        for dir in [&first, &second] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("obsmcp"), "").unwrap();
        }
        let running = second.join("obsmcp");
        let path = |value: String| Environment::new(Os::Linux, &root).with_var("PATH", value);

        let nothing = path(format!("{}:", root.join("empty").display()));
        assert_eq!(path_lookup(&nothing, &running), PathLookup::Nothing);
        assert_eq!(
            command_for(&PathLookup::Nothing, &running),
            format!("\"{}\"", running.display())
        );

        let shadowed = path(format!("{}:{}", first.display(), second.display()));
        assert_eq!(
            path_lookup(&shadowed, &running),
            PathLookup::Another(first.join("obsmcp")),
            "the first folder on PATH wins, as in a shell"
        );

        let found = path(second.display().to_string());
        assert_eq!(path_lookup(&found, &running), PathLookup::ThisBinary);
        assert_eq!(command_for(&PathLookup::ThisBinary, &running), "obsmcp");
    }

    /// npx's launcher on PATH for the child is not what a shell finds later, and a global npm
    /// install's launcher runs this very binary.
    // Unix only: npm's link on PATH is a symlink, and PATH is split on `:`.
    #[cfg(unix)]
    #[test]
    fn path_lookup_skips_npx_and_uvx_folders_and_knows_the_npm_launcher() {
        let folder = tempfile::tempdir().unwrap();
        let root = obsmcp_installer::environment::real_path(folder.path()).unwrap();
        let npx = root.join(".npm/_npx/1a2b/node_modules/.bin");
        let uvx = root.join(".cache/uv/archive-v0/x/bin");
        let local = root.join(".local/bin");
        for dir in [&npx, &uvx, &local] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("obsmcp"), "").unwrap();
        }
        std::fs::write(
            root.join(".cache/uv/CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        let installed = local.join("obsmcp");
        let path = |value: String| Environment::new(Os::Linux, &root).with_var("PATH", value);
        let launched = path(format!("{}:{}", npx.display(), uvx.display()));
        assert_eq!(path_lookup(&launched, &installed), PathLookup::Nothing);
        let with_local = path(format!(
            "{}:{}:{}",
            npx.display(),
            uvx.display(),
            local.display()
        ));
        assert_eq!(path_lookup(&with_local, &installed), PathLookup::ThisBinary);

        let global = root.join("prefix/lib/node_modules");
        let launcher = global.join("obsmcp/bin/obsmcp.js");
        let binary = global.join("@obsmcp/linux-x64/bin/obsmcp");
        for file in [&launcher, &binary] {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "").unwrap();
        }
        let bin = root.join("prefix/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&launcher, bin.join("obsmcp")).unwrap();
        assert_eq!(
            path_lookup(&path(bin.display().to_string()), &binary),
            PathLookup::ThisBinary
        );
    }

    /// A pipx or `uv tool` install whose link folder is off PATH is told to add that folder (with
    /// the manager's own command), not the tool environment's private `bin`, and to type the link.
    #[cfg(unix)]
    #[test]
    fn a_tool_managers_link_off_path_is_the_folder_to_add() {
        let folder = tempfile::tempdir().unwrap();
        let root = obsmcp_installer::environment::real_path(folder.path()).unwrap();
        let binary = root.join(".local/share/pipx/venvs/obsmcp/bin/obsmcp");
        std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
        std::fs::write(&binary, "").unwrap();
        let local = root.join(".local/bin");
        std::fs::create_dir_all(&local).unwrap();
        std::os::unix::fs::symlink(&binary, local.join("obsmcp")).unwrap();
        let environment = Environment::new(Os::Linux, &root).with_var("PATH", "/usr/bin:/bin");
        let lookup = path_lookup(&environment, &binary);
        assert_eq!(
            lookup,
            PathLookup::ManagerLink {
                link: local.join("obsmcp"),
                manager: obsmcp_installer::plan::tool_install::ToolManager::Pipx,
            }
        );
        assert_eq!(
            command_for(&lookup, &binary),
            local.join("obsmcp").display().to_string()
        );
        let on_path = environment.with_var("PATH", local.display().to_string());
        assert_eq!(path_lookup(&on_path, &binary), PathLookup::ThisBinary);
    }
}
