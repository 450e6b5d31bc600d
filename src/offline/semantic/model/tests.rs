//! A small model written by hand, in the real files' format: four dimensions, each a subject (money, travel,
//! cooking, and the rest), so that a test can ask in words a note does not use.

use std::path::Path;

use super::*;

/// The words of the small model and their vectors: 0 money, 1 travel, 2 cooking, 3 the rest.
pub(crate) const WORDS: &[(&str, [f32; 4])] = &[
    ("[UNK]", [0.0; 4]),
    ("pricing", [1.0, 0.0, 0.0, 0.1]),
    ("price", [1.0, 0.0, 0.0, 0.1]),
    ("cost", [0.95, 0.05, 0.0, 0.1]),
    ("budget", [0.9, 0.0, 0.0, 0.2]),
    ("money", [1.0, 0.0, 0.0, 0.0]),
    ("flight", [0.0, 1.0, 0.0, 0.1]),
    ("trip", [0.05, 0.95, 0.0, 0.1]),
    ("travel", [0.0, 1.0, 0.0, 0.0]),
    ("hotel", [0.1, 0.9, 0.0, 0.1]),
    ("soup", [0.0, 0.0, 1.0, 0.1]),
    ("recipe", [0.0, 0.0, 0.95, 0.1]),
    ("onion", [0.0, 0.0, 0.9, 0.2]),
    ("the", [0.0, 0.0, 0.0, 0.3]),
    ("we", [0.0, 0.0, 0.0, 0.3]),
    ("notes", [0.0, 0.0, 0.0, 1.0]),
    ("meeting", [0.1, 0.1, 0.0, 0.9]),
    ("offsite", [0.0, 0.3, 0.0, 0.8]),
    ("q3", [0.0, 0.0, 0.0, 0.5]),
    ("##s", [0.0, 0.0, 0.0, 0.05]),
];

/// Writes the small model into `folder`.
pub(crate) fn write_model(folder: &Path) {
    std::fs::create_dir_all(folder).unwrap();
    let vocab: serde_json::Map<String, serde_json::Value> = WORDS
        .iter()
        .enumerate()
        .map(|(id, (word, _))| ((*word).to_owned(), id.into()))
        .collect();
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
            "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": vocab},
    });
    std::fs::write(folder.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    let data: Vec<u8> = WORDS
        .iter()
        .flat_map(|(_, vector)| vector.iter().flat_map(|value| value.to_le_bytes()))
        .collect();
    std::fs::write(folder.join("model.safetensors"), safetensors_file(&data)).unwrap();
    std::fs::write(
        folder.join("config.json"),
        r#"{"model_type": "model2vec", "hidden_dim": 4, "normalize": true}"#,
    )
    .unwrap();
}

fn safetensors_file(data: &[u8]) -> Vec<u8> {
    let header = serde_json::json!({
        "embeddings": {"dtype": "F32", "shape": [WORDS.len(), 4], "data_offsets": [0, data.len()]},
        "__metadata__": {"format": "pt"},
    })
    .to_string();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn a_text_is_the_mean_of_its_known_tokens_scaled_to_length_one() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let model = Model::load(dir.path()).unwrap();
    assert_eq!(model.dims(), 4);
    assert_eq!(model.fingerprint().len(), 64);
    let soup = model.embed("Soup!").unwrap();
    let expected = [0.0, 0.0, 1.0, 0.1];
    let norm = expected.iter().map(|v: &f32| v * v).sum::<f32>().sqrt();
    for (got, want) in soup.iter().zip(expected) {
        // Rows are kept as signed bytes: within a step of 1/127 of the row's largest value.
        assert!((got - want / norm).abs() < 0.01, "{soup:?}");
    }
    // Other words than the note's, the same subject.
    let question = model.embed("what was the cost of the trip").unwrap();
    let budget = model.embed("Budget for travel").unwrap();
    let recipe = model.embed("onion soup recipe").unwrap();
    assert!(cosine(&question, &budget) > 0.8 + cosine(&question, &recipe));
    assert!(model.embed("zzz qqq").is_none());
}

#[test]
fn a_model_that_cannot_be_used_says_which_file_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let missing = Model::load(dir.path()).err().unwrap().to_string();
    assert!(missing.contains("model.safetensors"), "{missing}");
    write_model(dir.path());
    let tensors = dir.path().join("model.safetensors");
    let bytes = std::fs::read(&tensors).unwrap();
    std::fs::write(&tensors, &bytes[..bytes.len() - 3]).unwrap();
    let truncated = Model::load(dir.path()).err().unwrap().to_string();
    assert!(truncated.contains("truncated"), "{truncated}");
    write_model(dir.path());
    std::fs::write(dir.path().join("tokenizer.json"), "{").unwrap();
    let broken = Model::load(dir.path()).err().unwrap().to_string();
    assert!(broken.contains("tokenizer.json"), "{broken}");
}

/// The integration tests' copy of the small model (`tests/it/support/model`) is this one, byte for byte; with
/// `OBSMCP_WRITE_FIXTURES=1` the test writes it.
#[test]
fn the_integration_tests_copy_is_the_small_model() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/model");
    if std::env::var_os("OBSMCP_WRITE_FIXTURES").is_some() {
        write_model(&committed);
    }
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    for name in MODEL_FILES {
        assert_eq!(
            std::fs::read(committed.join(name)).ok(),
            Some(std::fs::read(dir.path().join(name)).unwrap()),
            "tests/it/support/model/{name} differs from the small model: run this test with OBSMCP_WRITE_FIXTURES=1"
        );
    }
}
