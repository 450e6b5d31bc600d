//! Hidden paths offline: the rules that make private notes (therapy, health, finance) absent from every tool, read
//! from the plugin's `data.json` and, when `hideExcludedFiles` is on, Obsidian's "Excluded files" in `app.json`.
//!
//! The rules are the contract of `obsidian-plugin/src/tools/README.md` ("Hidden paths") and match the plugin's
//! `src/vault/hidden.ts` form for form: paths and rules folded (NFC, then lower case), a rule without `/` tested
//! against every name of a path, a rule with `/` against the path and each of its folders, each also without a final
//! `.md`; excluded-files filters as a path prefix, or a `/…/` regular expression tested against the path as written.
//!
//! The design choice: the rules are applied once, when the vault is listed (`crate::offline::obsidian::metadata`), so that
//! a hidden file or folder is simply not in the index and every tool (listing, counts, search, links and their
//! resolution, tags, batch) behaves as if it did not exist, with the very messages of a path that is not there. A rule
//! set that cannot be known or applied exactly (a settings file that is not JSON, a filter Rust's `regex` cannot
//! compile) is an error that makes offline mode refuse every tool: answering without it could show a note the user hid.
//!
//! About 300 lines of code and 370 of unit tests: every way a rule can match, one test each.

use std::path::Path;

use obsmcp_installer::obsidian_files::plugin_data::{self, HiddenSettings, PluginDataError};
use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use crate::offline::js::js_trim;
use crate::offline::plugin::vault::paths::{self, quote};
use crate::offline::plugin::vault::regex::{first_line, translate_javascript_regex};

/// One compiled rule.
#[derive(Debug, Clone)]
enum Rule {
    /// A rule of the settings without `/`: a file or folder name at any depth.
    Name(Regex),
    /// A rule of the settings with `/`: a path from the vault root.
    Path(Regex),
    /// An excluded-files filter written `/…/`: a regular expression searched in the path as written.
    Pattern(Regex),
    /// Any other excluded-files filter: a folded path prefix.
    Prefix(String),
}

impl Rule {
    /// Whether the rule hides a path, given folded and as written.
    fn hides(&self, folded: &str, raw: &str) -> bool {
        match self {
            Rule::Name(pattern) => folded
                .split('/')
                .any(|name| forms(name).any(|form| pattern.is_match(form))),
            Rule::Path(pattern) => folded
                .match_indices('/')
                .map(|(slash, _)| &folded[..slash])
                .chain([folded])
                .any(|path| forms(path).any(|form| pattern.is_match(form))),
            Rule::Pattern(pattern) => pattern.is_match(raw),
            // `Archive/` names the folder too, not only what is inside it.
            Rule::Prefix(prefix) => {
                folded.starts_with(prefix.as_str()) || prefix.strip_suffix('/') == Some(folded)
            }
        }
    }
}

/// The rules in force for a vault.
#[derive(Debug, Clone, Default)]
pub(crate) struct HiddenRules {
    rules: Vec<Rule>,
}

/// Why the rules cannot be applied offline; its text is the answer to every tool while it lasts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum HiddenRulesError {
    /// The plugin's `data.json` exists but cannot be read or is not JSON, so the rules it holds are unknown.
    #[error(
        "offline mode cannot answer: the obsmcp plugin's settings ({file}) {reason}, so its hidden paths are unknown \
         and notes they hide could show. Open the vault in Obsidian, or repair the file."
    )]
    Settings { file: String, reason: String },
    /// `app.json` cannot be read or is not JSON while the settings ask to hide Obsidian's excluded files.
    #[error(
        "offline mode cannot answer: Obsidian's settings ({file}) {reason}, so the excluded files that the obsmcp \
         plugin hides (hideExcludedFiles is on) are unknown and notes they hide could show. Open the vault in \
         Obsidian, or repair the file."
    )]
    ExcludedFiles { file: String, reason: String },
    /// A rule or filter that cannot be compiled here.
    #[error(
        "offline mode cannot answer: the {what} {rule} cannot be applied offline ({reason}), and answering without it \
         could show notes it hides. Open the vault in Obsidian, where the obsmcp plugin applies it, or change it."
    )]
    Rule {
        what: &'static str,
        rule: String,
        reason: String,
    },
}

/// How filters and rules are named in messages.
const EXCLUDED_FILTER: &str =
    "excluded-files filter (Obsidian's userIgnoreFilters, hidden because hideExcludedFiles is on)";
const HIDDEN_PATH_RULE: &str = "hidden-path rule";

impl HiddenRules {
    /// Reads the rules in force for a vault: `data.json`'s `hiddenPaths` and, when `hideExcludedFiles` is on,
    /// `app.json`'s `userIgnoreFilters`. No `data.json` means no rules, as for a plugin never configured.
    pub(crate) fn load(vault: &Path, config_dir: &str) -> Result<Self, HiddenRulesError> {
        let settings = settings(vault, config_dir)?;
        let filters = if settings.hide_excluded_files {
            excluded_filters(vault, config_dir)?
        } else {
            Vec::new()
        };
        Self::compile(&settings.hidden_paths, &filters)
    }

    /// Compiles the rules of the settings and the excluded-files filters.
    pub(crate) fn compile(rules: &[String], filters: &[String]) -> Result<Self, HiddenRulesError> {
        let mut compiled = Vec::new();
        for rule in rules {
            let Some(text) = setting_rule_text(rule) else {
                continue;
            };
            let pattern = glob_regex(&fold(text)).map_err(|error| HiddenRulesError::Rule {
                what: HIDDEN_PATH_RULE,
                rule: quote(rule),
                reason: first_line(&error.to_string()),
            })?;
            compiled.push(if text.contains('/') {
                Rule::Path(pattern)
            } else {
                Rule::Name(pattern)
            });
        }
        for filter in filters.iter().filter(|filter| is_active_filter(filter)) {
            match regex_source(filter) {
                Some(source) => {
                    let pattern =
                        Regex::new(&translate_javascript_regex(source)).map_err(|error| {
                            HiddenRulesError::Rule {
                                what: EXCLUDED_FILTER,
                                rule: quote(filter),
                                reason: first_line(&error.to_string()),
                            }
                        })?;
                    compiled.push(Rule::Pattern(pattern));
                }
                None => compiled.push(Rule::Prefix(fold(filter))),
            }
        }
        Ok(Self { rules: compiled })
    }

    /// Whether a vault path is hidden by the rules themselves (no symlink followed); the root never is.
    pub(crate) fn hides(&self, path: &str) -> bool {
        if self.rules.is_empty() || path.is_empty() || path == "/" {
            return false;
        }
        let folded = fold(path);
        self.rules.iter().any(|rule| rule.hides(&folded, path))
    }

    /// How many rules are in force (never what they match), for the tests: the bridge counts through
    /// [`hidden_rule_count`], which compiles nothing.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.rules.len()
    }

    /// Whether no rule is in force.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// How many hidden-path rules are in force for a vault, for `obsidian_status`: the rules of the plugin's settings
/// that are not blank or comments, plus, when `hideExcludedFiles` is on, Obsidian's non-empty excluded-files
/// filters. A filter offline mode cannot compile counts (it is in force: offline mode refuses every tool for it);
/// a settings file that cannot be read counts as none, and an `app.json` that cannot be read as no filters.
pub(crate) fn hidden_rule_count(vault: &Path, config_dir: &str) -> usize {
    let Ok(settings) = settings(vault, config_dir) else {
        return 0;
    };
    let rules = settings
        .hidden_paths
        .iter()
        .filter(|rule| setting_rule_text(rule).is_some())
        .count();
    let filters = if settings.hide_excluded_files {
        excluded_filters(vault, config_dir)
            .unwrap_or_default()
            .iter()
            .filter(|filter| is_active_filter(filter))
            .count()
    } else {
        0
    };
    rules + filters
}

/// The plugin's hidden-path settings; none when it has no `data.json`.
fn settings(vault: &Path, config_dir: &str) -> Result<HiddenSettings, HiddenRulesError> {
    let file = || format!("{config_dir}/plugins/{}/data.json", plugin_data::PLUGIN_ID);
    match plugin_data::read_hidden_settings(vault, config_dir) {
        Ok(settings) => Ok(settings),
        Err(PluginDataError::Missing { .. }) => Ok(HiddenSettings::default()),
        Err(PluginDataError::Unreadable { source, .. }) => Err(HiddenRulesError::Settings {
            file: file(),
            reason: format!("cannot be read: {}", source.kind()),
        }),
        Err(PluginDataError::Invalid { source, .. }) => Err(HiddenRulesError::Settings {
            file: file(),
            reason: format!("is not JSON ({source})"),
        }),
        Err(other) => Err(HiddenRulesError::Settings {
            file: file(),
            reason: format!("cannot be used: {other}"),
        }),
    }
}

/// The strings of `userIgnoreFilters` in `<configDir>/app.json`, as Obsidian keeps them; none when the file or the
/// key is missing or the key is not a list.
fn excluded_filters(vault: &Path, config_dir: &str) -> Result<Vec<String>, HiddenRulesError> {
    let file = format!("{config_dir}/app.json");
    let text = match std::fs::read_to_string(paths::full_path(vault, &file)) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(HiddenRulesError::ExcludedFiles {
                file,
                reason: format!("cannot be read: {}", error.kind()),
            });
        }
    };
    // A half-written app.json (Obsidian rewrites it whole) is refused like a broken one: the next call reads it again.
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|error| HiddenRulesError::ExcludedFiles {
            file,
            reason: format!("is not JSON ({error})"),
        })?;
    Ok(value["userIgnoreFilters"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// A rule of the settings as it is matched: trimmed, slashes at both ends dropped; `None` for a blank line, a
/// comment (`#…`) or a rule of slashes only.
fn setting_rule_text(rule: &str) -> Option<&str> {
    let text = js_trim(rule);
    if text.is_empty() || text.starts_with('#') {
        return None;
    }
    let text = text.trim_start_matches('/').trim_end_matches('/');
    (!text.is_empty()).then_some(text)
}

/// Whether an excluded-files filter hides anything (an empty one is ignored, as Obsidian ignores it).
fn is_active_filter(filter: &str) -> bool {
    !filter.is_empty()
}

/// The regular expression of a filter written `/…/`.
fn regex_source(filter: &str) -> Option<&str> {
    (filter.len() > 1 && filter.starts_with('/') && filter.ends_with('/'))
        .then(|| &filter[1..filter.len() - 1])
}

/// The one form paths and rules are compared in: NFC, then lower case (`normalize("NFC").toLowerCase()`).
pub(crate) fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfc().collect::<String>().to_lowercase()
}

/// A name or path as it is, and without a final `.md`.
fn forms(text: &str) -> impl Iterator<Item = &str> {
    [Some(text), text.strip_suffix(".md")].into_iter().flatten()
}

/// A glob as an anchored regex over a folded path: `**` any text, `*` any text within a name, `?` one character
/// within a name, everything else literal.
fn glob_regex(glob: &str) -> Result<Regex, regex::Error> {
    let mut source = String::from("(?s)^");
    let mut rest = glob;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("**") {
            source.push_str(".*");
            rest = after;
            continue;
        }
        match c {
            '*' => source.push_str("[^/]*"),
            '?' => source.push_str("[^/]"),
            other => source.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
        }
        rest = &rest[c.len_utf8()..];
    }
    source.push('$');
    Regex::new(&source)
}

#[cfg(test)]
mod tests;
