//! Replays the committed fuzz inputs through the bodies the fuzz targets run, so that ordinary `cargo test` keeps
//! them passing without cargo-fuzz or a nightly compiler: the hand-made seeds (`seeds/<target>/`), the minimized
//! corpus (`corpus/<target>/`) and every input the fuzzers once broke an invariant with (`regressions/<target>/`).
//!
//! Each crate owns the bodies of its own targets (`obsmcp::fuzzing`, `obsmcp_installer::document::fuzzing`) and
//! compiles them only for tests and under cargo-fuzz, so neither can call the other's. This file is the one replay
//! both use: their unit tests include it with `#[path]`, and a failure reads the same whichever crate found it.

use std::path::{Path, PathBuf};

/// What a fuzz target runs on one input; it panics on a failure.
pub(crate) type Body = fn(&[u8]);

/// The files of one input folder, sorted; none when the folder does not exist (a target with no regressions yet).
pub(crate) fn inputs(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable corpus folder").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every file of one kind (`seeds`, `corpus` or `regressions`, under the `fuzz` folder) through its target's
/// body and returns how many ran. Fails listing every failing file, each with the command that reproduces it under
/// the fuzzer.
pub(crate) fn replay(fuzz: &Path, kind: &str, targets: &[(&str, Body)]) -> usize {
    let mut replayed = 0;
    let mut failures = Vec::new();
    for (target, body) in targets {
        for file in inputs(&fuzz.join(kind).join(target)) {
            let data = std::fs::read(&file).expect("a readable corpus file");
            replayed += 1;
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failures.push(format!(
                    "{target} fails on {0} (reproduce: cd fuzz && cargo fuzz run {target} {0})",
                    file.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    replayed
}

/// Checks that every target has seeds, then replays them.
pub(crate) fn replay_seeds(fuzz: &Path, targets: &[(&str, Body)]) -> usize {
    for (target, _) in targets {
        let folder = fuzz.join("seeds").join(target);
        assert!(
            !inputs(&folder).is_empty(),
            "no seeds for {target} in {}",
            folder.display()
        );
    }
    replay(fuzz, "seeds", targets)
}

/// The replay tests of one crate's targets, the same in both crates: every target has seeds and they pass, the
/// minimized corpus passes, every regression passes. `$fuzz` is the workspace's `fuzz/` folder and `$targets` the
/// crate's targets with their bodies; it expands inside the test module of the module that includes this file.
macro_rules! replay_tests {
    ($fuzz:expr, $targets:expr) => {
        #[test]
        fn every_target_has_seeds_and_they_pass() {
            super::replay::replay_seeds(&$fuzz, $targets);
        }

        #[test]
        fn the_minimized_corpus_passes() {
            super::replay::replay(&$fuzz, "corpus", $targets);
        }

        #[test]
        fn every_input_the_fuzzers_crashed_on_is_fixed() {
            super::replay::replay(&$fuzz, "regressions", $targets);
        }
    };
}

pub(crate) use replay_tests;
