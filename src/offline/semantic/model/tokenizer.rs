//! The BERT WordPiece tokenizer of a Model2Vec model, read from its Hugging Face `tokenizer.json`: the normalizer
//! (`BertNormalizer`: clean text, Chinese characters set apart, accents stripped, lower case), the pre-tokenizer
//! (`BertPreTokenizer`: split at white space, every punctuation character a word of its own) and the model
//! (`WordPiece`: longest known piece first, continuations prefixed `##`, a word with no split `[UNK]`).
//!
//! Our own reader instead of the `tokenizers` crate: a static model needs only the token ids of a text, and this is
//! the whole of what the models we read use (a tokenizer of another kind is refused by name). Unknown words yield no
//! id at all, since Model2Vec drops the unknown token before pooling.

use regex::Regex;
use serde::Deserialize;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;

/// Why a `tokenizer.json` cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum TokenizerError {
    #[error("tokenizer.json is not valid JSON of a Hugging Face tokenizer: {0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "tokenizer.json has a {0} model; obsmcp reads WordPiece tokenizers (BERT's), as the potion models use"
    )]
    Kind(String),
    #[error("tokenizer.json has a {0} normalizer; obsmcp reads BertNormalizer or none")]
    Normalizer(String),
    #[error("tokenizer.json's vocabulary is empty")]
    Empty,
}

/// The first look at the file: what kind of model it has (read before the vocabulary, whose shape depends on it).
#[derive(Deserialize)]
struct Kind {
    model: KindSection,
}

#[derive(Deserialize)]
struct KindSection {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct File {
    model: ModelSection,
    #[serde(default)]
    normalizer: Option<NormalizerSection>,
}

#[derive(Deserialize)]
struct ModelSection {
    #[serde(default)]
    vocab: HashMap<Box<str>, u32>,
    #[serde(default = "unknown_token")]
    unk_token: String,
    #[serde(default = "continuing_prefix")]
    continuing_subword_prefix: String,
    #[serde(default = "max_word_chars")]
    max_input_chars_per_word: usize,
}

fn unknown_token() -> String {
    "[UNK]".into()
}

fn continuing_prefix() -> String {
    "##".into()
}

fn max_word_chars() -> usize {
    100
}

#[derive(Deserialize)]
struct NormalizerSection {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default = "yes")]
    clean_text: bool,
    #[serde(default = "yes")]
    handle_chinese_chars: bool,
    #[serde(default)]
    strip_accents: Option<bool>,
    #[serde(default = "yes")]
    lowercase: bool,
}

fn yes() -> bool {
    true
}

/// What the normalizer does to a text before it is split.
#[derive(Debug, Clone, Copy)]
struct Normalize {
    clean_text: bool,
    chinese: bool,
    strip_accents: bool,
    lowercase: bool,
}

/// A WordPiece tokenizer: text in, vocabulary ids out.
pub(crate) struct Tokenizer {
    /// Every piece, continuations with their prefix (`##ing`), the unknown token left out.
    pieces: HashMap<Box<str>, u32>,
    /// The prefix of a piece that continues a word.
    prefix: String,
    normalize: Option<Normalize>,
    max_word_chars: usize,
    /// Runs of non-space, non-punctuation characters, or one punctuation character (BertPreTokenizer).
    words: Regex,
    vocab_size: usize,
}

impl Tokenizer {
    /// Reads a `tokenizer.json`.
    pub(crate) fn from_json(bytes: &[u8]) -> Result<Self, TokenizerError> {
        let kind: Kind = serde_json::from_slice(bytes)?;
        let kind = kind.model.kind.unwrap_or_else(|| "WordPiece".into());
        if kind != "WordPiece" {
            return Err(TokenizerError::Kind(kind));
        }
        let file: File = serde_json::from_slice(bytes)?;
        let normalize = match file.normalizer {
            None => None,
            Some(section) if section.kind == "BertNormalizer" => Some(Normalize {
                clean_text: section.clean_text,
                chinese: section.handle_chinese_chars,
                strip_accents: section.strip_accents.unwrap_or(section.lowercase),
                lowercase: section.lowercase,
            }),
            Some(section) => return Err(TokenizerError::Normalizer(section.kind)),
        };
        let mut pieces = file.model.vocab;
        if pieces.is_empty() {
            return Err(TokenizerError::Empty);
        }
        let vocab_size = pieces
            .values()
            .map(|&id| id as usize + 1)
            .max()
            .unwrap_or(0);
        // The unknown token is dropped before pooling, so it is never looked up.
        pieces.remove(file.model.unk_token.as_str());
        Ok(Self {
            pieces,
            prefix: file.model.continuing_subword_prefix,
            normalize,
            max_word_chars: file.model.max_input_chars_per_word,
            words: Regex::new(r"[^\s\p{P}\x21-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E]+|[\p{P}\x21-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E]")
                .expect("a valid pattern"),
            vocab_size,
        })
    }

    /// One more than the largest id.
    pub(crate) fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// Calls `each` with the id of every known piece of `text`, in order; unknown words give none.
    pub(crate) fn for_each_id(&self, text: &str, mut each: impl FnMut(u32)) {
        let normalized = match self.normalize {
            Some(rules) => normalized(text, rules),
            None => text.to_owned(),
        };
        for word in self.words.find_iter(&normalized) {
            self.word_pieces(word.as_str(), &mut each);
        }
    }

    /// WordPiece on one word: the longest known piece from the left, again and again; a word that does not split
    /// whole into known pieces is unknown.
    fn word_pieces(&self, word: &str, each: &mut impl FnMut(u32)) {
        if word.len() > self.max_word_chars && word.chars().count() > self.max_word_chars {
            return;
        }
        let mut pieces = [0u32; 32];
        let mut found = 0;
        let mut start = 0;
        // A continuation is looked up with its prefix, written once into this buffer.
        let mut continued = String::with_capacity(self.prefix.len() + word.len());
        while start < word.len() {
            let rest = &word[start..];
            let lookup = |end: usize, continued: &mut String| {
                if start == 0 {
                    return self.pieces.get(&rest[..end]).copied();
                }
                continued.clear();
                continued.push_str(&self.prefix);
                continued.push_str(&rest[..end]);
                self.pieces.get(continued.as_str()).copied()
            };
            let piece = rest
                .char_indices()
                .map(|(at, c)| at + c.len_utf8())
                .rev()
                .find_map(|end| lookup(end, &mut continued).map(|id| (end, id)));
            let Some((end, id)) = piece else {
                return;
            };
            if found == pieces.len() {
                // A word of more than 32 pieces: the ones so far are given, the rest follow as found.
                pieces.iter().for_each(|&id| each(id));
                found = 0;
            }
            pieces[found] = id;
            found += 1;
            start += end;
        }
        pieces[..found].iter().for_each(|&id| each(id));
    }
}

/// BertNormalizer.
fn normalized(text: &str, rules: Normalize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        if rules.clean_text {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                continue;
            }
            if c.is_whitespace() {
                out.push(' ');
                continue;
            }
        }
        if rules.chinese && is_chinese(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    if rules.strip_accents && !out.is_ascii() {
        out = out
            .nfd()
            .filter(|&c| !unicode_normalization::char::is_combining_mark(c))
            .collect();
    }
    if rules.lowercase {
        if out.is_ascii() {
            out.make_ascii_lowercase();
        } else {
            out = out.to_lowercase();
        }
    }
    out
}

/// Control and format characters, except the white space ones (BERT's rule).
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    c.is_control()
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// The CJK Unified Ideographs blocks BERT sets apart.
fn is_chinese(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let json = serde_json::json!({
            "normalizer": {"type": "BertNormalizer", "lowercase": true, "strip_accents": null},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "the": 1, "heap": 2, "un": 3, "##believ": 4, "##able": 5, ",": 6,
                    "cafe": 7, "box": 8, "##es": 9, "中": 10}}
        });
        Tokenizer::from_json(json.to_string().as_bytes()).unwrap()
    }

    fn ids(tokenizer: &Tokenizer, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        tokenizer.for_each_id(text, |id| out.push(id));
        out
    }

    #[test]
    fn words_split_into_the_longest_known_pieces() {
        let tokenizer = tiny();
        assert_eq!(
            ids(&tokenizer, "The HEAP, unbelievable"),
            [1, 2, 6, 3, 4, 5]
        );
        assert_eq!(ids(&tokenizer, "boxes"), [8, 9]);
        assert_eq!(tokenizer.vocab_size(), 11);
    }

    #[test]
    fn unknown_words_give_no_id_and_accents_are_stripped() {
        let tokenizer = tiny();
        // `unbelievabl` leaves `l` with no piece: the whole word is unknown.
        assert_eq!(ids(&tokenizer, "unbelievabl heap"), [2]);
        assert_eq!(ids(&tokenizer, "Café"), [7]);
        assert_eq!(ids(&tokenizer, "中文"), [10]);
        // A zero-width space is dropped, not a break: one unknown word.
        assert_eq!(ids(&tokenizer, "the\u{200b}heap"), Vec::<u32>::new());
    }

    #[test]
    fn other_tokenizers_are_refused_by_name() {
        let json = r#"{"model": {"type": "Unigram", "vocab": []}}"#;
        let error = Tokenizer::from_json(json.as_bytes()).err().unwrap();
        assert!(error.to_string().contains("Unigram"), "{error}");
    }
}
