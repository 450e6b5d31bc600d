//! The companion skill: a short `SKILL.md` (from `templates/skill/`) that teaches an agent to use obsmcp's tools well
//! (outline before reading, `batch`, `expected_hash` on every edit, what "Obsidian is closed" means). Setup puts it
//! where each client that reads skills from a folder looks (Claude Code, Codex, Hermes), uninstall takes it away,
//! and doctor says when it is missing or older than this binary's.

use std::path::PathBuf;

use crate::clients::ClientSpec;
use crate::environment::Environment;

/// The skill's folder name, which is also the `name` in its frontmatter.
pub const NAME: &str = "obsmcp";

/// The skill's text, as this binary installs it.
pub const TEXT: &str = include_str!("../../templates/skill/SKILL.md");

/// Where `client` reads the skill from, for clients that read skills from a folder.
pub fn file(client: &ClientSpec, environment: &Environment) -> Option<PathBuf> {
    let folder = (client.skills?)(environment);
    Some(folder.join(NAME).join("SKILL.md"))
}

/// How the installed skill compares with this binary's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// Not there.
    Missing,
    /// There, with this binary's text.
    Current,
    /// There, with other text (an older obsmcp's, or edited by hand).
    Different,
}

/// What is installed for `client`, or `None` when the client has no skills folder.
pub fn installed(client: &ClientSpec, environment: &Environment) -> Option<Installed> {
    let path = file(client, environment)?;
    Some(match std::fs::read_to_string(path) {
        Ok(text) if text == TEXT => Installed::Current,
        Ok(_) => Installed::Different,
        Err(_) => Installed::Missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skill_names_itself_and_says_when_to_use_it_in_its_frontmatter() {
        let frontmatter = TEXT
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map(|(frontmatter, _)| frontmatter)
            .expect("SKILL.md starts with a frontmatter block");
        let fields: serde_json::Value = yaml_serde::from_str(frontmatter).expect("valid YAML");
        assert_eq!(fields["name"], NAME);
        let description = fields["description"].as_str().expect("a description");
        assert!(
            description.len() > 40 && description.len() <= 1024,
            "{description}"
        );
        assert!(
            TEXT.len() < 4_000,
            "a skill is loaded into context: keep it short"
        );
    }

    #[test]
    fn claude_codex_and_hermes_read_skills_from_their_folders() {
        let home = tempfile::tempdir().unwrap();
        let environment = Environment::new(crate::environment::Os::Linux, home.path());
        let at = |id: &str| file(crate::clients::find(id).unwrap(), &environment);
        assert_eq!(
            at("claude-code"),
            Some(home.path().join(".claude/skills/obsmcp/SKILL.md"))
        );
        assert_eq!(
            at("codex"),
            Some(home.path().join(".agents/skills/obsmcp/SKILL.md"))
        );
        assert_eq!(
            at("hermes"),
            Some(home.path().join(".hermes/skills/obsmcp/SKILL.md"))
        );
        assert_eq!(at("gemini"), None);
    }
}
