//! Where the binary lives: what setup installs, keeps or refuses to replace.

use super::*;

fn environment(home: &Path) -> Environment {
    Environment::new(Os::Linux, home).with_var("TMPDIR", "/nonexistent-tmp")
}

#[test]
fn build_folders_caches_and_npx_do_not_last_and_other_places_do() {
    let root = tempfile::tempdir().unwrap();
    let root = crate::environment::real_path(root.path()).unwrap();
    let home = root.join("home");
    let environment = environment(&home);
    let project = root.join("project");
    std::fs::create_dir_all(project.join("target/release")).unwrap();
    std::fs::write(project.join("Cargo.toml"), "").unwrap();
    std::fs::write(
        project.join("target/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55",
    )
    .unwrap();
    let uv = home.join(".cache/uv");
    std::fs::create_dir_all(uv.join("archive-v0/abc/bin")).unwrap();
    std::fs::write(
        uv.join("CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55",
    )
    .unwrap();

    assert_eq!(
        transience(&environment, &project.join("target/release/obsmcp")),
        Some(Transience::BuildFolder(project.join("target")))
    );
    assert_eq!(
        transience(&environment, &uv.join("archive-v0/abc/bin/obsmcp")),
        Some(Transience::Cache(uv.clone()))
    );
    assert_eq!(
        transience(
            &environment,
            &home.join(".npm/_npx/1f2e/node_modules/obsmcp-linux-x64/bin/obsmcp")
        ),
        Some(Transience::Npx)
    );
    for lasting in [
        home.join(".cargo/bin/obsmcp"),
        home.join(".local/pipx/venvs/obsmcp/bin/obsmcp"),
        root.join("usr/lib/node_modules/obsmcp-linux-x64/bin/obsmcp"),
    ] {
        assert_eq!(
            transience(&environment, &lasting),
            None,
            "{}",
            lasting.display()
        );
    }
}

/// uv marks its tools folder as a cache, and pipx's may sit under a tagged folder too; a tool
/// either installed lasts, and setup then runs it where it is instead of copying it over their link.
#[test]
fn tools_pipx_and_uv_installed_last_even_under_a_cache_tag() {
    let root = tempfile::tempdir().unwrap();
    let root = crate::environment::real_path(root.path()).unwrap();
    let home = root.join("home");
    let environment = environment(&home);
    let tag = "Signature: 8a477f597d28d172789f06886806bc55";
    for tagged in [".local/share/uv/tools", ".local/share/pipx"] {
        std::fs::create_dir_all(home.join(tagged)).unwrap();
        std::fs::write(home.join(tagged).join("CACHEDIR.TAG"), tag).unwrap();
    }
    for tool in [
        home.join(".local/share/uv/tools/obsmcp/bin/obsmcp"),
        home.join(".local/share/pipx/venvs/obsmcp/bin/obsmcp"),
    ] {
        assert_eq!(transience(&environment, &tool), None, "{}", tool.display());
    }
    // uv's own cache, where uvx runs tools from, is still a cache.
    std::fs::create_dir_all(home.join(".cache/uv")).unwrap();
    std::fs::write(home.join(".cache/uv/CACHEDIR.TAG"), tag).unwrap();
    assert!(matches!(
        transience(
            &environment,
            &home.join(".cache/uv/archive-v0/x/bin/obsmcp")
        ),
        Some(Transience::Cache(_))
    ));
}

#[test]
fn the_temporary_folder_does_not_last_unless_home_is_inside_it() {
    let root = tempfile::tempdir().unwrap();
    let root = crate::environment::real_path(root.path()).unwrap();
    let home = root.join("home");
    let environment = Environment::new(Os::Linux, &home).with_var("TMPDIR", root.to_str().unwrap());
    assert_eq!(
        transience(&environment, &root.join("unpacked/obsmcp")),
        Some(Transience::Temporary)
    );
    assert_eq!(transience(&environment, &home.join("bin/obsmcp")), None);
}

/// A home inside a temporary folder and a binary in a Cargo build folder beside it (which does not last):
/// the folder's guard, the home, its environment and the binary's path (not written yet).
fn build_folder() -> (tempfile::TempDir, PathBuf, Environment, PathBuf) {
    let guard = tempfile::tempdir().unwrap();
    let root = crate::environment::real_path(guard.path()).unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::write(root.join("target/CACHEDIR.TAG"), "").unwrap();
    (
        guard,
        home.clone(),
        environment(&home),
        root.join("target/debug/obsmcp"),
    )
}

#[test]
fn the_copy_is_planned_as_added_updated_or_unchanged_and_lands_executable() {
    let (_root, home, environment, running) = build_folder();
    let build = |name: &str| [name.as_bytes(), MARKER].concat();
    std::fs::write(&running, build("build one")).unwrap();

    let install = plan(&environment, &running)
        .expect("a build folder does not last")
        .unwrap();
    assert_eq!(install.to, home.join(".local/bin/obsmcp"));
    assert_eq!(install.change, Change::Added);
    install.apply().unwrap();
    assert_eq!(std::fs::read(&install.to).unwrap(), build("build one"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&install.to).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    assert_eq!(
        plan(&environment, &running).unwrap().unwrap().change,
        Change::Unchanged
    );
    std::fs::write(&running, build("build two")).unwrap();
    let update = plan(&environment, &running).unwrap().unwrap();
    assert_eq!(update.change, Change::Updated);
    update.apply().unwrap();
    assert_eq!(std::fs::read(&update.to).unwrap(), build("build two"));
    remove(&update.to).unwrap();
    assert!(!update.to.exists());
    assert!(
        plan(&environment, &update.to).is_none(),
        "a copy under home lasts"
    );
}

#[test]
fn the_marker_is_found_anywhere_in_a_file_and_only_whole() {
    assert!(carries_marker(MARKER));
    assert!(carries_marker(
        &[b"\x7fELF".as_slice(), MARKER, b"tail"].concat()
    ));
    // A near miss just before the real marker must not hide it.
    let near_miss = &MARKER[..MARKER.len() - 1];
    assert!(carries_marker(&[near_miss, MARKER].concat()));
    assert!(!carries_marker(near_miss));
    assert!(!carries_marker(b"#!/bin/sh\nexec my-tool \"$@\"\n"));
    assert!(!carries_marker(b""));
}

#[test]
fn regression_a_file_of_the_users_at_the_stable_path_is_refused_not_replaced() {
    let (_root, _, environment, running) = build_folder();
    std::fs::write(&running, [b"this build".as_slice(), MARKER].concat()).unwrap();
    let stable = stable_path(&environment);
    std::fs::create_dir_all(stable.parent().unwrap()).unwrap();

    let script = b"#!/bin/sh\nexec my-obsidian-tool \"$@\"\n";
    std::fs::write(&stable, script).unwrap();
    let refusal = plan(&environment, &running).unwrap().unwrap_err();
    assert!(
        matches!(&refusal, Occupied::NotObsmcp { path } if *path == stable),
        "{refusal:?}"
    );
    assert!(refusal.hint().contains("aside"), "{}", refusal.hint());
    assert!(matches!(occupant(&stable), Err(Occupied::NotObsmcp { .. })));
    assert_eq!(std::fs::read(&stable).unwrap(), script);
    std::fs::remove_file(&stable).unwrap();

    #[cfg(unix)]
    {
        // Even a link to this very build: the user made it, and the copy would write through it.
        std::os::unix::fs::symlink(&running, &stable).unwrap();
        let refusal = plan(&environment, &running).unwrap().unwrap_err();
        assert!(
            matches!(&refusal, Occupied::Symlink { target, .. } if *target == running),
            "{refusal:?}"
        );
        assert!(matches!(occupant(&stable), Err(Occupied::Symlink { .. })));
        std::fs::remove_file(&stable).unwrap();
    }

    std::fs::create_dir(&stable).unwrap();
    assert!(matches!(
        plan(&environment, &running).unwrap(),
        Err(Occupied::NotAFile { .. })
    ));
}

#[cfg(unix)]
#[test]
fn a_link_to_a_lasting_build_of_the_same_bytes_is_run_where_it_is() {
    let (root, _, environment, running) = build_folder();
    std::fs::write(&running, [b"this build".as_slice(), MARKER].concat()).unwrap();
    let tool = root
        .path()
        .join("home/.local/share/pipx/venvs/obsmcp/bin/obsmcp");
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::fs::copy(&running, &tool).unwrap();
    let stable = stable_path(&environment);
    std::fs::create_dir_all(stable.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&tool, &stable).unwrap();
    let refusal = plan(&environment, &running).unwrap().unwrap_err();
    let tool = crate::environment::real_path(&tool).unwrap();
    assert_eq!(
        lasting_twin(&environment, &refusal, &running),
        Some(tool.clone())
    );

    // Another build behind the link: suggested, never run in this one's place.
    std::fs::write(&tool, [b"another build".as_slice(), MARKER].concat()).unwrap();
    assert_eq!(lasting_twin(&environment, &refusal, &running), None);
    assert_eq!(
        lasting_obsmcp_behind(&environment, &refusal),
        Some(tool.clone())
    );
    // Not obsmcp behind the link: neither.
    std::fs::write(&tool, b"#!/bin/sh\n").unwrap();
    assert_eq!(lasting_obsmcp_behind(&environment, &refusal), None);
}
