//! Replays the hand-made seeds (`fuzz/seeds/<target>/`), the committed fuzz corpus (`fuzz/corpus/<target>/`) and
//! every input the fuzzers crashed on (`fuzz/regressions/<target>/`) through the same checks the fuzz targets run, so `cargo test` keeps them passing
//! without cargo-fuzz or a nightly compiler.

use std::path::{Path, PathBuf};

use obsmcp::fuzzing;

/// What a fuzz target runs on one input; it panics on a failure.
type Body = fn(&[u8]);

/// Every fuzz target and its body.
const TARGETS: &[(&str, Body)] = &[
    ("jsonrpc_line", fuzzing::jsonrpc_line),
    ("vault_path", fuzzing::vault_path),
    ("document_json", fuzzing::document_json),
    ("document_jsonc", fuzzing::document_jsonc),
    ("document_toml", fuzzing::document_toml),
    ("document_yaml", fuzzing::document_yaml),
];

fn inputs(folder: &Path) -> Vec<PathBuf> {
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

/// Runs every file of one kind through its target's body; lists every failing file, each with the command that
/// reproduces it under the fuzzer.
fn replay(kind: &str) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind);
    let mut failures = Vec::new();
    for (target, body) in TARGETS {
        for file in inputs(&fuzz.join(target)) {
            let data = std::fs::read(&file).expect("a readable corpus file");
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failures.push(format!(
                    "{target} fails on {0} (reproduce: cd fuzz && cargo fuzz run {target} {0})",
                    file.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_target_has_seeds_and_they_pass() {
    for (target, _) in TARGETS {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/seeds")
            .join(target);
        assert!(
            !inputs(&folder).is_empty(),
            "no seeds for {target} in {}",
            folder.display()
        );
    }
    replay("seeds");
}

#[test]
fn the_minimized_corpus_passes() {
    replay("corpus");
}

#[test]
fn every_input_the_fuzzers_crashed_on_is_fixed() {
    replay("regressions");
}

/// The YAML target lets the editor refuse, as unsupported, a valid file whose layout its tree reads differently from
/// YAML readers. Real configs must never land there: every hand-made YAML seed is edited or refused for a reason of
/// its own (not a mapping, not YAML at all, or an alias on the path, which is refused as unsupported with its own
/// reason).
#[test]
fn no_yaml_seed_is_refused_as_unsupported() {
    use obsmcp_installer::document::{self, DocumentError, Format, Operation};
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/document_yaml");
    let upsert = [Operation::Merge {
        path: document::key_path(&["mcp_servers", "obsidian"]),
        value: serde_json::json!({"command": "obsmcp", "args": ["bridge"]}),
    }];
    let files = inputs(&folder);
    assert!(files.len() >= 20, "the YAML seeds are missing");
    for file in files {
        let text =
            String::from_utf8_lossy(&std::fs::read(&file).expect("a readable seed")).into_owned();
        let result = document::apply(Format::Yaml, &text, &upsert);
        // An alias on the path is refused on purpose, with its own reason.
        let alias = matches!(&result, Err(DocumentError::Unsupported { message, .. }) if message.contains("is an alias"));
        assert!(
            alias || !matches!(result, Err(DocumentError::Unsupported { .. })),
            "{} is refused as unsupported: {result:?}",
            file.display()
        );
    }
}
