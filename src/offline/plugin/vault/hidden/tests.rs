//! Hidden-path rules read from the plugin's settings and Obsidian's, and applied to the listing.

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
