//! Tools that pipx or `uv tool` installed: each keeps the binary in a virtual environment of its own and puts a link
//! to it in a folder meant for PATH. Setup uses such a binary where it is and never touches the link; what it tells
//! the user to add to PATH is the manager's link folder, never the environment's private `bin`.

use std::path::{Path, PathBuf};

use crate::environment::{Environment, Os};

/// The package manager that keeps a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolManager {
    /// pipx: `…/pipx/venvs/<tool>/`.
    Pipx,
    /// `uv tool`: `…/uv/tools/<tool>/`.
    Uv,
}

impl ToolManager {
    /// The manager's own command that puts its link folder on PATH.
    pub fn path_command(self) -> &'static str {
        match self {
            Self::Pipx => "pipx ensurepath",
            Self::Uv => "uv tool update-shell",
        }
    }

    /// How the manager is named to people.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pipx => "pipx",
            Self::Uv => "uv tool",
        }
    }

    /// The variable that moves the manager's link folder from its default.
    fn link_folder_variable(self) -> &'static str {
        match self {
            Self::Pipx => "PIPX_BIN_DIR",
            Self::Uv => "UV_TOOL_BIN_DIR",
        }
    }
}

/// The manager that keeps `binary`, when it lives in a pipx or `uv tool` environment (also `.local/pipx` and
/// `%APPDATA%\uv` on other systems).
pub fn manager_of(binary: &Path) -> Option<ToolManager> {
    let parts: Vec<&std::ffi::OsStr> = binary.components().map(|part| part.as_os_str()).collect();
    parts.windows(3).find_map(|window| {
        let [owner, kind, _tool] = window else {
            return None;
        };
        if *owner == "pipx" && *kind == "venvs" {
            Some(ToolManager::Pipx)
        } else if *owner == "uv" && *kind == "tools" {
            Some(ToolManager::Uv)
        } else {
            None
        }
    })
}

/// The manager's link to `binary` (a real path): the first of its link folders (its own variable, `XDG_BIN_HOME`
/// for uv, then `~/.local/bin`) whose `obsmcp` leads to `binary`. On Windows the managers copy rather than link, so
/// an `obsmcp.exe` there is taken as theirs.
pub fn link_to(environment: &Environment, manager: ToolManager, binary: &Path) -> Option<PathBuf> {
    let mut folders: Vec<PathBuf> = environment
        .var_path(manager.link_folder_variable())
        .into_iter()
        .collect();
    if manager == ToolManager::Uv {
        folders.extend(environment.var_path("XDG_BIN_HOME"));
    }
    folders.push(environment.home().join(".local").join("bin"));
    let name = match environment.os() {
        Os::Windows => "obsmcp.exe",
        Os::Linux | Os::MacOs => "obsmcp",
    };
    let wanted = std::fs::canonicalize(binary).unwrap_or_else(|_| binary.to_owned());
    folders
        .into_iter()
        .map(|folder| folder.join(name))
        .find(|link| match environment.os() {
            Os::Windows => link.is_file(),
            Os::Linux | Os::MacOs => std::fs::canonicalize(link).is_ok_and(|real| real == wanted),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipx_or_uv_tool_environment_names_its_manager_and_nothing_else_does() {
        let uv = Path::new("/home/u/.local/share/uv/tools/obsmcp/bin/obsmcp");
        let pipx = Path::new("/home/u/.local/share/pipx/venvs/obsmcp/bin/obsmcp");
        assert_eq!(manager_of(uv), Some(ToolManager::Uv));
        assert_eq!(manager_of(pipx), Some(ToolManager::Pipx));
        assert_eq!(manager_of(Path::new("/home/u/.local/bin/obsmcp")), None);
        assert_eq!(manager_of(Path::new("/home/u/uv/obsmcp")), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_link_is_the_one_that_leads_to_the_binary() {
        let home = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(home.path()).unwrap();
        let binary = root.join(".local/share/uv/tools/obsmcp/bin/obsmcp");
        std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
        std::fs::write(&binary, "").unwrap();
        let bin = root.join(".local/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let environment = Environment::new(Os::Linux, &root);
        assert_eq!(
            link_to(&environment, ToolManager::Uv, &binary),
            None,
            "no link yet"
        );
        std::fs::write(bin.join("obsmcp"), "").unwrap();
        assert_eq!(
            link_to(&environment, ToolManager::Uv, &binary),
            None,
            "a file of someone else's is not the manager's link"
        );
        std::fs::remove_file(bin.join("obsmcp")).unwrap();
        std::os::unix::fs::symlink(&binary, bin.join("obsmcp")).unwrap();
        assert_eq!(
            link_to(&environment, ToolManager::Uv, &binary),
            Some(bin.join("obsmcp"))
        );
        let elsewhere = root.join("tools-bin");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&binary, elsewhere.join("obsmcp")).unwrap();
        let moved = environment.with_var("UV_TOOL_BIN_DIR", elsewhere.display().to_string());
        assert_eq!(
            link_to(&moved, ToolManager::Uv, &binary),
            Some(elsewhere.join("obsmcp")),
            "the manager's own variable comes first"
        );
    }
}
