//! The snapshot built from vault folders: what it keeps of each note, and what it answers.

use super::*;

fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, Snapshot) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
    let snapshot = Snapshot::refresh(dir.path(), &real, None);
    (dir, snapshot)
}

type Counts = Vec<(String, usize)>;

/// A note's resolved and unresolved links as (path or linkpath, count).
fn links(snapshot: &Snapshot, path: &str) -> (Counts, Counts) {
    let links = snapshot.links_of(path).expect("a readable note");
    let own = |(text, count): (&str, usize)| (text.to_string(), count);
    (
        links.resolved().map(own).collect(),
        links.unresolved().map(own).collect(),
    )
}

fn dest(snapshot: &Snapshot, link: &str, source: &str) -> Option<String> {
    snapshot
        .first_linkpath_dest(link, source)
        .map(|i| snapshot.files[i].path.clone())
}

#[test]
fn listing_skips_hidden_and_config_and_sorts_depth_first() {
    let (_dir, snapshot) = vault(&[
        ("b.md", ""),
        ("a/z.md", ""),
        ("a/c.md", ""),
        (".obsidian/app.json", "{}"),
        (".trash/old.md", ""),
        ("x/.hidden.md", ""),
        ("Image.PNG", ""),
    ]);
    let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["Image.PNG", "a/c.md", "a/z.md", "b.md"]);
    assert_eq!(snapshot.folders, vec!["a", "x"]);
    assert_eq!(snapshot.files[0].extension(), "PNG");
}

#[test]
fn resolution_prefers_exact_then_same_folder_then_shortest() {
    let (_dir, snapshot) = vault(&[
        ("Note.md", ""),
        ("deep/er/Note.md", ""),
        ("deep/Note.md", ""),
        ("deep/Other.md", ""),
        ("pics/photo.png", ""),
        ("x/Same.md", ""),
        ("y/Same.md", ""),
        ("y/z/Same.md", ""),
    ]);
    assert_eq!(
        dest(&snapshot, "Note", "elsewhere.md").as_deref(),
        Some("Note.md")
    );
    assert_eq!(
        dest(&snapshot, "note", "deep/Other.md").as_deref(),
        Some("deep/Note.md"),
        "same folder wins"
    );
    assert_eq!(
        dest(&snapshot, "er/Note", "x.md").as_deref(),
        Some("deep/er/Note.md"),
        "partial path"
    );
    assert_eq!(
        dest(&snapshot, "Same", "root.md").as_deref(),
        Some("x/Same.md"),
        "shortest, then code-unit order"
    );
    assert_eq!(
        dest(&snapshot, "Same", "y/z/a.md").as_deref(),
        Some("y/z/Same.md")
    );
    assert_eq!(
        dest(&snapshot, "photo.png", "a.md").as_deref(),
        Some("pics/photo.png")
    );
    assert_eq!(
        dest(&snapshot, "photo", "a.md"),
        None,
        "attachments need their extension"
    );
    assert_eq!(
        dest(&snapshot, "./Other", "deep/Note.md").as_deref(),
        Some("deep/Other.md")
    );
    assert_eq!(
        dest(&snapshot, "../Note", "deep/Other.md").as_deref(),
        Some("Note.md")
    );
    assert_eq!(dest(&snapshot, "../../Note", "deep/Other.md"), None);
    assert_eq!(
        dest(&snapshot, "/deep/Note", "x.md").as_deref(),
        Some("deep/Note.md")
    );
    assert_eq!(
        dest(&snapshot, "", "deep/Other.md").as_deref(),
        Some("deep/Other.md")
    );
    assert_eq!(dest(&snapshot, "Missing", "a.md"), None);
}

#[test]
fn names_and_paths_are_matched_ignoring_case_in_any_script() {
    let (_dir, snapshot) = vault(&[
        ("Deep/Mixed Case.md", ""),
        ("Ünï/Café Straße.md", ""),
        ("Ünï/ΟΔΟΣ.md", ""),
        ("pics/Photo.PNG", ""),
    ]);
    for (link, expected) in [
        ("mixed case", Some("Deep/Mixed Case.md")),
        ("deep/MIXED case", Some("Deep/Mixed Case.md")),
        ("eep/mixed case", None),
        ("café straße", Some("Ünï/Café Straße.md")),
        ("ünï/CAFÉ STRASSE", None),
        ("ÜNÏ/café straße", Some("Ünï/Café Straße.md")),
        // The name is lower-cased with its extension, so its Σ is not final: σ, as JavaScript lowers it.
        ("οδοσ", Some("Ünï/ΟΔΟΣ.md")),
        ("οδος", None),
        ("photo.png", Some("pics/Photo.PNG")),
    ] {
        assert_eq!(dest(&snapshot, link, "a.md").as_deref(), expected, "{link}");
    }
}

#[test]
fn resolved_and_unresolved_maps_count_links_embeds_and_frontmatter() {
    let (_dir, snapshot) = vault(&[
        (
            "a.md",
            "---\nup: \"[[b]]\"\n---\n[[b]] [[b#h]] ![[c.png]] [[nope]] [[#self]] `[[code]]`",
        ),
        ("b.md", ""),
        ("c.png", ""),
    ]);
    let (resolved, unresolved) = links(&snapshot, "a.md");
    assert_eq!(
        resolved,
        vec![
            ("b.md".to_string(), 3),
            ("a.md".to_string(), 1),
            ("c.png".to_string(), 1)
        ]
    );
    assert_eq!(unresolved, vec![("nope".to_string(), 1)]);
}

#[test]
fn refresh_rereads_only_changed_notes() {
    let (dir, first) = vault(&[("a.md", "[[b]]"), ("b.md", "")]);
    let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
    assert!(
        Snapshot::refresh_if_changed(
            dir.path(),
            walk(dir.path(), &real, &HiddenRules::default(), &|_, _| {}),
            Some(&first),
            &mut Words::default()
        )
        .is_none()
    );
    let same = Snapshot::refresh(dir.path(), &real, Some(&first));
    let note = |snapshot: &Snapshot, path| Arc::clone(snapshot.note(path).unwrap());
    assert!(Arc::ptr_eq(&note(&first, "a.md"), &note(&same, "a.md")));
    std::fs::write(dir.path().join("a.md"), "[[c]] and more").unwrap();
    std::fs::write(dir.path().join("c.md"), "").unwrap();
    let changed = Snapshot::refresh_if_changed(
        dir.path(),
        walk(dir.path(), &real, &HiddenRules::default(), &|_, _| {}),
        Some(&same),
        &mut Words::default(),
    )
    .expect("a change is seen");
    assert_eq!(links(&changed, "a.md").0, vec![("c.md".to_string(), 1)]);
    assert!(Arc::ptr_eq(&note(&same, "b.md"), &note(&changed, "b.md")));
}

fn hidden_snapshot(dir: &Path, rules: &[&str]) -> Snapshot {
    let rules: Vec<String> = rules.iter().map(|rule| rule.to_string()).collect();
    let hidden = HiddenRules::compile(&rules, &[]).unwrap();
    let real = RealVault::new(std::fs::canonicalize(dir).unwrap(), ".obsidian");
    let listing = walk(dir, &real, &hidden, &|_, _| {});
    Snapshot::refresh_if_changed(dir, listing, None, &mut Words::default()).unwrap()
}

#[test]
fn hidden_entries_and_everything_inside_them_do_not_exist() {
    let (dir, _) = vault(&[
        ("Private/a.md", "#private-tag"),
        ("Private/deep/b.md", ""),
        ("Notes/Secret.md", ""),
        ("Notes/Open.md", ""),
        ("x/Secret.md", ""),
        ("Home.md", "[[a]] [[Secret]] [[Private/a]] [[notes/secret]]"),
    ]);
    let snapshot = hidden_snapshot(dir.path(), &["private", "Notes/Secret"]);
    let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["Home.md", "Notes/Open.md", "x/Secret.md"]);
    assert_eq!(snapshot.folders, ["Notes", "x"]);
    assert!(!snapshot.is_folder("Private") && snapshot.note("Private/a.md").is_none());
    let (resolved, unresolved) = links(&snapshot, "Home.md");
    assert_eq!(
        resolved,
        [("x/Secret.md".to_string(), 1)],
        "`Secret` goes to the best visible candidate (Obsidian's own answer, Notes/Secret.md, is hidden)"
    );
    assert_eq!(
        unresolved,
        [
            ("a".to_string(), 1),
            ("Private/a".to_string(), 1),
            ("notes/secret".to_string(), 1)
        ]
    );
    assert_eq!(snapshot.backlink_sources("Private/a.md").count(), 0);
}

#[cfg(unix)]
#[test]
fn a_symlink_whose_real_location_is_hidden_is_hidden_too() {
    let (dir, _) = vault(&[
        ("Private/a.md", "x"),
        ("Notes/Secret.md", "x"),
        ("Notes/Open.md", "x"),
        ("Visible.md", "x"),
    ]);
    let link = |target: &str, name: &str| {
        std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
    };
    link("Private", "Shortcut");
    link("Private/a.md", "alias.md");
    link("Notes", "Mirror");
    link("Visible.md", "Also visible.md");
    let snapshot = hidden_snapshot(dir.path(), &["Private", "Notes/Secret.md"]);
    let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["Also visible.md", "Mirror/Open.md", "Visible.md"],
        "a link to a hidden folder or file, and a hidden file inside a linked folder, are left out"
    );
    assert_eq!(snapshot.folders, ["Mirror", "Notes"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_into_the_config_folder_is_listed_but_never_entered_or_read() {
    let (dir, _) = vault(&[
        ("a.md", ""),
        (".obsidian/plugins/obsmcp/data.json", "{\"token\":\"t\"}"),
    ]);
    std::os::unix::fs::symlink(".obsidian", dir.path().join("cfglink")).unwrap();
    std::os::unix::fs::symlink(
        ".obsidian/plugins/obsmcp/data.json",
        dir.path().join("token.md"),
    )
    .unwrap();
    let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
    let snapshot = Snapshot::refresh(dir.path(), &real, None);
    assert!(snapshot.file("cfglink/plugins/obsmcp/data.json").is_none());
    assert!(!snapshot.file("token.md").unwrap().inside);
    assert!(snapshot.note("token.md").is_none());
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_listed_but_never_read() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "[[a]] secret").unwrap();
    let (dir, _) = vault(&[("a.md", "")]);
    std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("leak.md"))
        .unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
    let snapshot = Snapshot::refresh(dir.path(), &real, None);
    let leak = snapshot.file("leak.md").unwrap();
    assert!(!leak.inside);
    assert!(snapshot.note("leak.md").is_none());
    assert_eq!(
        snapshot.folders,
        vec!["loop"],
        "a folder reached twice is listed once, without its content"
    );
}

#[test]
fn a_large_build_makes_the_table_of_names_a_first_search_would_make() {
    let texts: Vec<(String, String)> = (0..1001)
        .map(|i| {
            (
                format!("f{}/Note {i}.md", i % 7),
                format!(
                    "---\naliases: [Alias {i}]\n---\nbody {i} [[Note {}]]\n",
                    i / 2
                ),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    // More than 1,000 notes read: made beside the links' resolution.
    let (_dir, large) = vault(&files);
    let made = large.names.get().expect("made by the build");
    let lazily = NoteNames::build(&large.files, &large.folders, &large.notes);
    assert!(made.is_some());
    assert_eq!(format!("{made:?}"), format!("{lazily:?}"));
    let (_dir, small) = vault(&files[..1000]);
    assert!(small.names.get().is_none(), "left to the first search");
}
