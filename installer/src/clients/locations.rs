//! Where each client keeps its files on each OS: its config file (the `locate` function of its row in
//! [`super::CLIENTS`]), its settings and its skills folder, and whether it is installed at all.

use std::path::{Path, PathBuf};

use crate::environment::{Environment, Os};

use super::Location;

fn detected(environment: &Environment, folders: &[&Path], command: &str) -> bool {
    folders.iter().any(|folder| folder.exists()) || environment.find_executable(command).is_some()
}

fn claude_config_home(environment: &Environment) -> PathBuf {
    environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| environment.home().join(".claude"))
}

/// `~/.claude.json`, as Claude Code 2.1 computes it: `$CLAUDE_CONFIG_DIR` replaces the home folder, a custom OAuth
/// URL adds a suffix, and a legacy `.config.json` in the config folder wins when it exists.
pub(super) fn claude_code(environment: &Environment) -> Location {
    let legacy = claude_config_home(environment).join(".config.json");
    let base = environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| environment.home().to_owned());
    let suffix = if environment.var("CLAUDE_CODE_CUSTOM_OAUTH_URL").is_some() {
        "-custom-oauth"
    } else {
        ""
    };
    let config = if legacy.is_file() {
        legacy
    } else {
        base.join(format!(".claude{suffix}.json"))
    };
    let folder = claude_config_home(environment);
    let is_detected = config.exists() || detected(environment, &[&folder], "claude");
    Location {
        config,
        detected: is_detected,
        problem: None,
    }
}

pub(super) fn claude_code_settings(environment: &Environment) -> PathBuf {
    claude_config_home(environment).join("settings.json")
}

/// Claude Code's user skills: `skills/` beside its `settings.json` (`~/.claude`, or `$CLAUDE_CONFIG_DIR`).
pub(super) fn claude_code_skills(environment: &Environment) -> PathBuf {
    claude_config_home(environment).join("skills")
}

/// Codex's user skills: `~/.agents/skills` (the shared agents folder; `$CODEX_HOME/skills` is its legacy place).
pub(super) fn codex_skills(environment: &Environment) -> PathBuf {
    environment.home().join(".agents").join("skills")
}

/// Hermes' skills: `skills/` in the Hermes home its config is in (the active profile's, when one is set).
pub(super) fn hermes_skills(environment: &Environment) -> PathBuf {
    let config = hermes(environment).config;
    config
        .parent()
        .map_or_else(|| environment.home().join(".hermes"), Path::to_path_buf)
        .join("skills")
}

/// `$CODEX_HOME/config.toml`, default `~/.codex`; Codex refuses a `CODEX_HOME` that does not exist.
pub(super) fn codex(environment: &Environment) -> Location {
    match environment.var_path("CODEX_HOME") {
        Some(home) => Location {
            config: home.join("config.toml"),
            detected: true,
            problem: (!home.is_dir()).then(|| {
                format!(
                    "CODEX_HOME points to `{}`, which does not exist (Codex refuses it too)",
                    home.display()
                )
            }),
        },
        None => {
            let folder = environment.home().join(".codex");
            Location {
                config: folder.join("config.toml"),
                detected: detected(environment, &[&folder], "codex"),
                problem: None,
            }
        }
    }
}

/// Hermes' home: `$HERMES_HOME`, else the default home, switched to `profiles/<name>` by `active_profile`.
pub(super) fn hermes(environment: &Environment) -> Location {
    if let Some(home) = environment.var_path("HERMES_HOME") {
        return Location {
            config: home.join("config.yaml"),
            detected: true,
            problem: None,
        };
    }
    let default_home = match environment.os() {
        Os::Windows => environment.local_app_data().join("hermes"),
        Os::Linux | Os::MacOs => environment.home().join(".hermes"),
    };
    let profile = std::fs::read_to_string(default_home.join("active_profile"))
        .ok()
        .map(|text| text.trim().to_owned())
        .filter(|name| !name.is_empty() && name != "default");
    let home = match profile {
        Some(name) => default_home.join("profiles").join(name),
        None => default_home.clone(),
    };
    Location {
        config: home.join("config.yaml"),
        detected: detected(environment, &[&default_home], "hermes"),
        problem: None,
    }
}

/// Claude Desktop; on Windows the MSIX install (the default since early 2026) keeps its own copy and ignores the
/// classic path.
pub(super) fn claude_desktop(environment: &Environment) -> Location {
    let file = "claude_desktop_config.json";
    let folder = match environment.os() {
        Os::MacOs => environment
            .home()
            .join("Library/Application Support/Claude"),
        Os::Linux => environment.xdg_config_home().join("Claude"),
        Os::Windows => {
            let packages = environment.local_app_data().join("Packages");
            let msix = std::fs::read_dir(&packages)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|entry| entry.file_name().to_string_lossy().starts_with("Claude_"))
                .map(|entry| {
                    entry
                        .path()
                        .join("LocalCache")
                        .join("Roaming")
                        .join("Claude")
                })
                .find(|folder| folder.parent().is_some_and(Path::exists));
            msix.unwrap_or_else(|| environment.app_data().join("Claude"))
        }
    };
    Location {
        config: folder.join(file),
        detected: folder.exists(),
        problem: None,
    }
}

pub(super) fn gemini(environment: &Environment) -> Location {
    let base = environment
        .var_path("GEMINI_CLI_HOME")
        .unwrap_or_else(|| environment.home().to_owned());
    let folder = base.join(".gemini");
    Location {
        config: folder.join("settings.json"),
        detected: detected(environment, &[&folder], "gemini"),
        problem: None,
    }
}

pub(super) fn cursor(environment: &Environment) -> Location {
    let folder = environment.home().join(".cursor");
    Location {
        config: folder.join("mcp.json"),
        detected: folder.exists(),
        problem: None,
    }
}

pub(super) fn vscode(environment: &Environment) -> Location {
    let folder = environment.config_home().join("Code").join("User");
    Location {
        config: folder.join("mcp.json"),
        detected: detected(environment, &[&folder], "code"),
        problem: None,
    }
}

pub(super) fn windsurf(environment: &Environment) -> Location {
    let folder = environment.home().join(".codeium").join("windsurf");
    Location {
        config: folder.join("mcp_config.json"),
        detected: folder.exists(),
        problem: None,
    }
}

pub(super) fn zed(environment: &Environment) -> Location {
    let folder = match environment.os() {
        Os::Windows => environment.app_data().join("Zed"),
        Os::Linux => environment.xdg_config_home().join("zed"),
        Os::MacOs => environment.home().join(".config").join("zed"),
    };
    Location {
        config: folder.join("settings.json"),
        detected: detected(environment, &[&folder], "zed"),
        problem: None,
    }
}

/// opencode's global config (`opencode.jsonc` when that is the one present); `$OPENCODE_CONFIG` names another file.
pub(super) fn opencode(environment: &Environment) -> Location {
    if let Some(file) = environment.var_path("OPENCODE_CONFIG") {
        return Location {
            config: file,
            detected: true,
            problem: None,
        };
    }
    let folder = match environment.os() {
        Os::Windows => environment.home().join(".config").join("opencode"),
        Os::Linux | Os::MacOs => environment.xdg_config_home().join("opencode"),
    };
    let jsonc = folder.join("opencode.jsonc");
    let config = if jsonc.is_file() {
        jsonc
    } else {
        folder.join("opencode.json")
    };
    Location {
        config,
        detected: detected(environment, &[&folder], "opencode"),
        problem: None,
    }
}
