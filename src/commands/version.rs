//! `obsmcp --version`: the version line (the binary's and the bundled plugin's), then which binary this is, which
//! binaries the AI clients' obsmcp entries run, and whether the `obsmcp` on `PATH` is another, newer one. The first
//! line stays alone when `OBSMCP_VERSION_BRIEF` is set: that is how one obsmcp asks another for its version (doctor,
//! this command), so that asking never recurses.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use obsmcp_installer::environment::Environment;

use crate::commands::shared;

/// Prints the version and where obsmcp runs from.
pub(crate) fn run() -> ExitCode {
    let mut lines = vec![format!("obsmcp {}", crate::version::LONG)];
    if std::env::var_os(crate::version::BRIEF).is_none()
        && let (Ok(environment), Ok(running)) = (shared::environment(), shared::binary())
    {
        lines.extend(whereabouts(&environment, &running));
    }
    let mut stdout = std::io::stdout().lock();
    for line in lines {
        if writeln!(stdout, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// The lines after the first: this binary, what the entries run, and what `PATH` runs.
fn whereabouts(environment: &Environment, running: &Path) -> Vec<String> {
    let mut lines = vec![format!("binary: {}", running.display())];
    let own = env!("CARGO_PKG_VERSION");
    let entries = obsmcp_installer::clients::entry_binaries(environment);
    if entries.is_empty() {
        lines.push("client entries: none (run `obsmcp setup`)".to_owned());
    }
    for (command, clients) in entries {
        let path = Path::new(&command);
        let real = obsmcp_installer::environment::real_path(path).ok();
        let what = if real.as_deref() == Some(running) {
            "this binary".to_owned()
        } else if !path.is_file() {
            "missing: run `obsmcp setup` again".to_owned()
        } else {
            match version_of(path) {
                Some(version) => format!("obsmcp {version}"),
                None => "does not answer --version".to_owned(),
            }
        };
        lines.push(format!(
            "client entries ({}) run: {command} ({what})",
            clients.join(", ")
        ));
    }
    match shared::path_lookup(environment, running) {
        shared::PathLookup::ThisBinary => lines.push("on PATH: this binary".to_owned()),
        shared::PathLookup::Nothing => lines.push("on PATH: no obsmcp".to_owned()),
        shared::PathLookup::ManagerLink { link, manager } => lines.push(format!(
            "on PATH: no obsmcp ({} linked this binary at {}; `{}` puts its folder on PATH)",
            manager.name(),
            link.display(),
            manager.path_command()
        )),
        shared::PathLookup::Another(other) => {
            let verdict = match version_of(&other) {
                Some(version) if crate::version::newer(&version, own) => {
                    format!("obsmcp {version}, newer than this binary")
                }
                Some(version) => format!("obsmcp {version}"),
                None => "does not answer --version".to_owned(),
            };
            lines.push(format!("on PATH: {} ({verdict})", other.display()));
        }
    }
    lines
}

/// Another binary's version number, asked the way doctor asks (bounded, never recursing).
fn version_of(binary: &Path) -> Option<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    let line = runtime
        .block_on(crate::doctor::bridge_probe::version_of(
            binary.display().to_string(),
        ))
        .ok()?;
    Some(line.split_whitespace().next()?.to_owned())
}
