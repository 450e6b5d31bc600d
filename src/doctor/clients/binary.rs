//! The check of the binary an entry runs: there, absolute, executable, this doctor's version, and in a place that
//! lasts.

use std::path::Path;

use super::super::report::{Check, Repair};
use super::super::vault::shell_quote;
use super::{ClientContext, ServerEntry};

pub(super) fn binary_check(
    entry: &ServerEntry,
    context: &ClientContext<'_>,
    repair: Option<Repair>,
    reregister: &str,
) -> Check {
    let name = &entry.name;
    let with_repair = |check: Check| match &repair {
        Some(repair) => check.with_repair(repair.clone()),
        None => check,
    };
    let Some(command) = entry.command.as_deref() else {
        return Check::fail(
            "client.binary",
            format!("`{name}` has no command"),
            reregister.to_owned(),
        );
    };
    let path = Path::new(command);
    if !path.is_absolute() {
        return with_repair(Check::warn(
            "client.binary",
            format!(
                "`{name}` starts `{command}` through PATH: apps started from the desktop often have a shorter PATH"
            ),
            format!(
                "{} doctor --fix, or {reregister} (writes the absolute path)",
                context.obsmcp
            ),
        ));
    }
    if !path.is_file() {
        return with_repair(Check::fail(
            "client.binary",
            format!("`{name}` starts `{command}`, which does not exist"),
            format!(
                "{} doctor --fix, or {reregister} (points the entry at this obsmcp)",
                context.obsmcp
            ),
        ));
    }
    if !is_executable(path) {
        return Check::fail(
            "client.binary",
            format!("`{command}` is not executable"),
            format!("chmod +x {}", shell_quote(command)),
        );
    }
    let real = obsmcp_installer::environment::real_path(path).unwrap_or_else(|_| path.to_owned());
    let transience = obsmcp_installer::plan::binary::transience(context.environment, &real);
    match context.versions.get(command) {
        Some(Ok(version)) if version == context.own_version => match transience {
            None => Check::ok(
                "client.binary",
                format!("`{command}` exists, version {version}"),
            ),
            Some(why) => with_repair(Check::warn(
                "client.binary",
                format!("`{name}` runs `{command}`, which will not last: {why}"),
                format!(
                    "{} doctor --fix, or {reregister} (installs a copy in {} and points the entry at it)",
                    context.obsmcp,
                    obsmcp_installer::plan::binary::stable_path(context.environment).display()
                ),
            )),
        },
        Some(Ok(version)) => with_repair(Check::warn(
            "client.binary",
            format!(
                "`{command}` is obsmcp {version}, but this doctor is {}",
                context.own_version
            ),
            format!(
                "{} doctor --fix, or {reregister} (points the entry at this obsmcp)",
                context.obsmcp
            ),
        )),
        Some(Err(error)) => with_repair(Check::fail(
            "client.binary",
            format!("`{command}` does not run: {error}"),
            format!(
                "{} doctor --fix, or {reregister} (points the entry at this obsmcp)",
                context.obsmcp
            ),
        )),
        None => Check::skip(
            "client.binary",
            format!("`{command}` exists; its version was not asked"),
        ),
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|metadata| metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    true
}
