//! Hidden paths offline: the rules that make private notes (therapy, health, finance) absent from every tool, read
//! from the plugin's `data.json` and, when `hideExcludedFiles` is on, Obsidian's "Excluded files" in `app.json`.
//!
//! The rules are the contract of `obsidian-plugin/src/tools/README.md` ("Hidden paths") and match the plugin's
//! `src/vault/hidden.ts` form for form: paths and rules folded (NFC, then lower case), a rule without `/` tested
//! against every name of a path, a rule with `/` against the path and each of its folders, each also without a final
//! `.md`; excluded-files filters as a path prefix, or a `/…/` regular expression tested against the path as written.
//!
//! The design choice: the rules are applied once, when the vault is listed (`crate::offline::obsidian::vault`), so that
//! a hidden file or folder is simply not in the index and every tool (listing, counts, search, links and their
//! resolution, tags, batch) behaves as if it did not exist, with the very messages of a path that is not there. A rule
//! set that cannot be known or applied exactly (a settings file that is not JSON, a filter Rust's `regex` cannot
//! compile) is an error that makes offline mode refuse every tool: answering without it could show a note the user hid.
//!
//! About 300 lines of code and 370 of unit tests: every way a rule can match, one test each.

use std::path::Path;

use obsmcp_installer::obsidian::plugin_data::{self, HiddenSettings, PluginDataError};
use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use crate::offline::paths::{self, quote};
use crate::offline::regex::{first_line, translate_javascript_regex};
use crate::offline::text::js_trim;

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

    /// How many rules are in force (never what they match).
    #[allow(dead_code)] // the tests read it; the bridge counts through `hidden_rule_count`, which needs no compiling
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
#[allow(dead_code)] // for the bridge's obsidian_status; the integration tests compile this module without it
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
mod tests {
    use super::*;

    fn rules(rules: &[&str]) -> HiddenRules {
        HiddenRules::compile(&strings(rules), &[]).unwrap()
    }

    fn filters(filters: &[&str]) -> HiddenRules {
        HiddenRules::compile(&[], &strings(filters)).unwrap()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    fn hidden<'a>(rules: &HiddenRules, paths: &[&'a str]) -> Vec<&'a str> {
        paths
            .iter()
            .copied()
            .filter(|path| rules.hides(path))
            .collect()
    }

    #[test]
    fn blank_lines_and_comments_are_ignored_and_slashes_at_the_ends_dropped() {
        let set = rules(&[
            "",
            "   ",
            "\u{feff}\t",
            "# Private",
            "  #x",
            "/",
            "///",
            " /Private/ ",
        ]);
        assert_eq!(set.count(), 1);
        assert!(set.hides("Private"));
        assert!(
            set.hides("deep/Private/note.md"),
            "a name once the slashes are dropped"
        );
        assert!(!set.hides("# Private"));
        assert!(!rules(&["# Private"]).hides("# Private"));
        assert!(!rules(&[]).hides("anything.md"));
    }

    #[test]
    fn paths_and_rules_compare_case_insensitively() {
        let set = rules(&["private/X.md", "THERAPY"]);
        assert_eq!(
            hidden(
                &set,
                &[
                    "Private/x.md",
                    "PRIVATE/X.MD",
                    "private/x.md",
                    "a/Therapy",
                    "a/therapy/b.md",
                    "Private/y.md"
                ]
            ),
            [
                "Private/x.md",
                "PRIVATE/X.MD",
                "private/x.md",
                "a/Therapy",
                "a/therapy/b.md"
            ]
        );
    }

    #[test]
    fn composed_and_decomposed_characters_meet_the_same_rule() {
        let composed = "Th\u{e9}rapie";
        let decomposed = "The\u{301}rapie";
        for rule in [composed, decomposed] {
            let set = rules(&[rule]);
            for path in [
                format!("{composed}.md"),
                format!("{decomposed}.md"),
                format!("Notes/{}/x.md", decomposed.to_uppercase()),
            ] {
                assert!(set.hides(&path), "{rule:?} hides {path:?}");
            }
            assert!(!set.hides("Therapie.md"));
        }
        let path_rule = rules(&[&format!("Journal/{decomposed}")]);
        assert!(path_rule.hides(&format!("journal/{composed}/2024.md")));
    }

    #[test]
    fn a_name_hides_that_name_at_any_depth_and_everything_inside() {
        let set = rules(&["Private"]);
        assert_eq!(
            hidden(
                &set,
                &[
                    "Private",
                    "Private/a.md",
                    "x/y/Private/z/a.md",
                    "x/Private.md",
                    "Private.png",
                    "x/Privately.md",
                    "x/my Private.md",
                ]
            ),
            [
                "Private",
                "Private/a.md",
                "x/y/Private/z/a.md",
                "x/Private.md"
            ]
        );
    }

    #[test]
    fn a_path_hides_from_the_root_with_everything_inside() {
        let set = rules(&["Journal/Private"]);
        assert_eq!(
            hidden(
                &set,
                &[
                    "Journal/Private",
                    "Journal/Private/a.md",
                    "Journal/Private/b/c.md",
                    "Journal/Private.md",
                    "x/Journal/Private/a.md",
                    "Journal/Privately/a.md",
                    "Journal",
                    "Private/a.md",
                ]
            ),
            [
                "Journal/Private",
                "Journal/Private/a.md",
                "Journal/Private/b/c.md",
                "Journal/Private.md"
            ]
        );
    }

    #[test]
    fn a_note_is_also_tested_without_its_md() {
        assert!(rules(&["Diary"]).hides("Diary.md"));
        assert!(rules(&["Diary"]).hides("a/DIARY.MD"), "folded first");
        assert!(rules(&["Diary.md"]).hides("Diary.md"));
        assert!(!rules(&["Diary.md"]).hides("Diary"));
        assert!(!rules(&["Diary"]).hides("Diary.txt"));
        assert!(
            rules(&["Diary"]).hides("Diary.md/inside.txt"),
            "a folder named Diary.md"
        );
        assert!(rules(&["a/Diary"]).hides("a/Diary.md"));
        assert!(!rules(&["Diary"]).hides("Diary.md.bak"));
    }

    #[test]
    fn globs_stop_at_slashes_except_the_double_star() {
        let star = rules(&["Journal/2024-*"]);
        assert_eq!(
            hidden(
                &star,
                &[
                    "Journal/2024-01.md",
                    "Journal/2024-/x.md",
                    "Journal/2023-01.md",
                    "Journal/x/2024-01.md"
                ]
            ),
            ["Journal/2024-01.md", "Journal/2024-/x.md"]
        );
        assert!(!rules(&["a*b"]).hides("a/b"), "`*` does not cross `/`");
        assert!(rules(&["a/**/secret.md"]).hides("a/x/y/secret.md"));
        assert!(rules(&["a/**"]).hides("a/x"));
        assert!(rules(&["**/secret.md"]).hides("deep/er/secret.md"));
        assert!(
            !rules(&["**/secret.md"]).hides("secret.md"),
            "`**/` needs a folder"
        );
        let question = rules(&["day-?"]);
        assert_eq!(
            hidden(
                &question,
                &["day-1.md", "day-\u{1F600}.md", "day-12.md", "day-.md"]
            ),
            ["day-1.md", "day-\u{1F600}.md"],
            "`?` is one character, an emoji included"
        );
        assert!(!rules(&["a?b"]).hides("a/b"));
        for literal in ["a.b", "(x)", "a+", "[ab]", "x{2}", "^x$", "a|b", "\\d"] {
            let set = rules(&[literal]);
            assert!(set.hides(literal), "{literal} is literal");
        }
        assert!(!rules(&["a.b"]).hides("axb"));
        assert!(!rules(&["[ab]"]).hides("a"));
    }

    #[test]
    fn the_vault_root_is_never_hidden() {
        let set = rules(&["**", "*"]);
        assert!(!set.hides(""));
        assert!(!set.hides("/"));
        assert!(set.hides("a.md"));
    }

    #[test]
    fn an_excluded_prefix_hides_the_paths_that_start_with_it_folded() {
        let set = filters(&["", "Archive/", "Old "]);
        assert_eq!(set.count(), 2, "an empty filter is ignored");
        assert_eq!(
            hidden(
                &set,
                &[
                    "Archive/a.md",
                    "archive/deep/b.md",
                    "Archive",
                    "Archived.md",
                    "Old notes.md",
                    "Older.md",
                    "x/Archive/a.md"
                ]
            ),
            [
                "Archive/a.md",
                "archive/deep/b.md",
                "Archive",
                "Old notes.md"
            ],
            "prefixes, and the folder a filter ending in `/` names"
        );
        let composed = filters(&["Th\u{e9}"]);
        assert!(composed.hides("THE\u{301}RAPIE.md"));
    }

    #[test]
    fn an_excluded_regex_is_searched_in_the_path_as_written() {
        let set = filters(&[r"/^Daily/\d{4}-/"]);
        assert!(set.hides("Daily/2024-01-01.md"));
        assert!(
            !set.hides("daily/2024-01-01.md"),
            "case-sensitive, as JavaScript's RegExp"
        );
        assert!(
            !set.hides("Daily/\u{0663}\u{0663}\u{0663}\u{0663}-01.md"),
            "`\\d` is ASCII"
        );
        assert!(
            filters(&["/secret/"]).hides("a/top secret/b.md"),
            "not anchored"
        );
        assert!(
            filters(&[r"/a\sb/"]).hides("a\u{a0}b.md"),
            "`\\s` is JavaScript's"
        );
        assert!(filters(&[r"/\/x\//"]).hides("a/x/b.md"), "escaped slashes");
        assert!(
            !filters(&["/"]).hides("a/b"),
            "a lone `/` is a prefix no path has"
        );
    }

    #[test]
    fn an_excluded_regex_rust_cannot_compile_is_an_error_naming_it() {
        let error = HiddenRules::compile(&[], &strings(&["Archive/", "/(?<=a)b/"])).unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("offline mode cannot answer: the excluded-files filter")
                && text.contains(r#""/(?<=a)b/""#)
                && text.contains("Open the vault in Obsidian"),
            "{text}"
        );
        assert!(HiddenRules::compile(&[], &strings(&["/(unclosed/"])).is_err());
        assert!(
            HiddenRules::compile(&[], &strings(&["(?<=a)b"])).is_ok(),
            "a prefix, not a regex"
        );
    }

    fn vault_with(data_json: Option<&str>, app_json: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".obsidian");
        std::fs::create_dir_all(config.join("plugins/obsmcp")).unwrap();
        if let Some(text) = data_json {
            std::fs::write(config.join("plugins/obsmcp/data.json"), text).unwrap();
        }
        if let Some(text) = app_json {
            std::fs::write(config.join("app.json"), text).unwrap();
        }
        dir
    }

    #[test]
    fn excluded_files_count_only_when_the_settings_ask() {
        let app = r#"{"userIgnoreFilters": ["Archive/", "/^Old/", 3, ""]}"#;
        let off = vault_with(
            Some(r#"{"port":1,"token":"t","hiddenPaths":["Private"]}"#),
            Some(app),
        );
        let rules = HiddenRules::load(off.path(), ".obsidian").unwrap();
        assert_eq!(rules.count(), 1);
        assert!(!rules.hides("Archive/a.md"));
        assert_eq!(hidden_rule_count(off.path(), ".obsidian"), 1);

        let on = vault_with(
            Some(r#"{"hiddenPaths":"Private","hideExcludedFiles":true}"#),
            Some(app),
        );
        let rules = HiddenRules::load(on.path(), ".obsidian").unwrap();
        assert_eq!(rules.count(), 3);
        assert!(rules.hides("Archive/a.md") && rules.hides("Old.md") && rules.hides("x/Private"));
        assert_eq!(hidden_rule_count(on.path(), ".obsidian"), 3);
    }

    #[test]
    fn no_settings_mean_no_rules_and_unreadable_ones_refuse() {
        let none = vault_with(None, None);
        assert!(
            HiddenRules::load(none.path(), ".obsidian")
                .unwrap()
                .is_empty()
        );
        assert_eq!(hidden_rule_count(none.path(), ".obsidian"), 0);

        let broken = vault_with(Some(r#"{"hiddenPaths": ["Priv"#), None);
        let error = HiddenRules::load(broken.path(), ".obsidian").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("settings (.obsidian/plugins/obsmcp/data.json) is not JSON"),
            "{error}"
        );
        assert!(
            !error
                .to_string()
                .contains(&*broken.path().to_string_lossy()),
            "no absolute path: {error}"
        );

        let bad_app = vault_with(Some(r#"{"hideExcludedFiles":true}"#), Some("{\"userIgnore"));
        let error = HiddenRules::load(bad_app.path(), ".obsidian").unwrap_err();
        assert!(
            matches!(error, HiddenRulesError::ExcludedFiles { .. }),
            "{error}"
        );
        let ignored_app = vault_with(Some(r#"{"hiddenPaths":["a"]}"#), Some("{\"userIgnore"));
        assert_eq!(
            HiddenRules::load(ignored_app.path(), ".obsidian")
                .unwrap()
                .count(),
            1
        );
        let not_a_list = vault_with(
            Some(r#"{"hideExcludedFiles":true}"#),
            Some(r#"{"userIgnoreFilters":"Archive/"}"#),
        );
        assert!(
            HiddenRules::load(not_a_list.path(), ".obsidian")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_filter_that_cannot_be_applied_still_counts_as_in_force() {
        let dir = vault_with(
            Some(r##"{"hideExcludedFiles":true,"hiddenPaths":["# note","a"]}"##),
            Some(r#"{"userIgnoreFilters":["/(?=x)/"]}"#),
        );
        assert!(HiddenRules::load(dir.path(), ".obsidian").is_err());
        assert_eq!(hidden_rule_count(dir.path(), ".obsidian"), 2);
    }
}
