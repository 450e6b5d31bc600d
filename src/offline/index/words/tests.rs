//! The word index: narrowing, case folding, long words, counts and compaction.

use super::*;

fn index(notes: &[&str]) -> Words {
    let mut words = Words::default();
    for note in notes {
        words.add(&words_of(note));
    }
    words
}

fn docs(words: &Words, query: &str) -> Vec<u32> {
    let set = words.candidates(query).expect("narrowed");
    (0..words.docs).filter(|&doc| set.contains(doc)).collect()
}

#[test]
fn a_query_narrows_to_the_notes_that_can_hold_it() {
    let words = index(&[
        "The Garden method",
        "gardening notes",
        "a method-garden",
        "nothing here",
    ]);
    assert_eq!(docs(&words, "garden"), vec![0, 1, 2], "inside a word");
    // A word ending in "garden" and one starting with "method": note 2 has both, so it is read and checked.
    assert_eq!(docs(&words, "garden method"), vec![0, 2]);
    assert_eq!(docs(&words, "den met"), vec![0, 2]);
    assert_eq!(
        docs(&words, "garden notes"),
        Vec::<u32>::new(),
        "no word ends in garden in note 1"
    );
    assert_eq!(
        docs(&words, " garden "),
        vec![0, 2],
        "the whole word, whatever is around it"
    );
    assert_eq!(docs(&words, "zzqx"), Vec::<u32>::new());
    assert_eq!(docs(&words, "zzqx garden"), Vec::<u32>::new());
    assert_eq!(docs(&words, "garden zzqx"), Vec::<u32>::new());
    assert!(words.candidates("--").is_none(), "no word to narrow with");
}

#[test]
fn parts_of_words_added_after_a_search_are_found_by_the_next() {
    let mut words = index(&["The Garden method", "nothing here"]);
    assert_eq!(docs(&words, "den met"), vec![0]);
    let doc = words.add(&words_of("a golden metal"));
    assert_eq!(
        docs(&words, "den met"),
        vec![0, doc],
        "a new word ends in den"
    );
    assert_eq!(docs(&words, "olde"), vec![doc], "a new word holds olde");
}

#[test]
fn case_is_folded_as_the_plugin_folds_it() {
    let words = index(&["ÜBER straße", "Kelvin", "\u{212A}elvin"]);
    assert_eq!(docs(&words, "über"), vec![0]);
    assert_eq!(docs(&words, "STRAßE"), vec![0]);
    assert_eq!(
        docs(&words, "kelvin"),
        vec![1],
        "KELVIN SIGN does not fold to K"
    );
}

#[test]
fn long_runs_are_kept_as_possible_matches() {
    let blob = "x".repeat(LONG_WORD + 10);
    let words = index(&[&format!("data {blob} end"), "plain"]);
    assert_eq!(docs(&words, "xxxx"), vec![0]);
    assert_eq!(docs(&words, &format!(" {blob} ")), vec![0]);
    assert_eq!(
        docs(&words, " xxxx "),
        Vec::<u32>::new(),
        "an exact short word is never a long one"
    );
}

#[test]
fn retired_documents_are_dropped_on_compaction_and_numbers_stay() {
    let mut words = Words::default();
    for i in 0..3000 {
        words.add(&words_of(&format!("note {i} common")));
    }
    for _ in 0..2000 {
        words.retire();
    }
    assert!(words.wants_compaction());
    let live = words.doc_set(2000..3000);
    words.compact(&live);
    assert!(!words.wants_compaction());
    let common = docs(&words, "common");
    assert_eq!(common.len(), 1000);
    assert_eq!(common[0], 2000);
    assert_eq!(docs(&words, " 2500 "), vec![2500]);
    assert_eq!(docs(&words, " 5 "), Vec::<u32>::new());
    let added = words.add(&words_of("fresh common"));
    assert_eq!(added, 3000);
    assert!(docs(&words, "common").contains(&3000));
}

#[test]
fn plain_words_are_counted_at_word_starts_and_the_counts_survive_compaction() {
    let blob = "garden".repeat(10);
    let mut words = index(&[
        "Garden garden GARDENS gardening",
        "regarden engarden",
        &format!("{blob} garden"),
        &"garden ".repeat(300),
    ]);
    let counts =
        |words: &Words, term: &str| words.plain_words(&[term]).map(|mut found| found.remove(0));
    let (set, garden) = counts(&words, "gArDeN").expect("a plain word");
    assert!(
        (0..4).all(|doc| set.contains(doc)),
        "the notes candidates gives"
    );
    assert_eq!(
        garden.to_vec(),
        vec![4, 0, 1, 300],
        "a long word is not counted: its note is read"
    );
    assert_eq!(docs(&words, "garden"), vec![0, 1, 2, 3]);
    assert_eq!(
        (0..4)
            .filter(|&doc| words.long_docs().contains(doc))
            .collect::<Vec<u32>>(),
        vec![2]
    );
    assert!(counts(&words, "c++").is_none(), "not a plain word");
    assert!(!is_plain_word("") && !is_plain_word("a b") && is_plain_word("B2b"));
    assert!(is_plain_word("über") && is_plain_word("東京") && !is_plain_word("l'été"));
    for _ in 0..1000 {
        words.add(&words_of("filler"));
        words.retire();
    }
    words.compact(&words.doc_set([1, 3]));
    let (_, garden) = counts(&words, "garden").unwrap();
    assert_eq!((garden.get(0), garden.get(1), garden.get(3)), (0, 0, 300));
    words.drop_for(0);
    assert!(
        counts(&words, "garden").is_none(),
        "a dropped index counts nothing"
    );
}

#[test]
fn words_added_after_a_search_are_found_by_the_next() {
    let mut words = index(&["alpha beta", "gardengarden regardengarden"]);
    let counts =
        |words: &Words, term: &str| words.plain_words(&[term]).map(|mut found| found.remove(0));
    let (set, garden) = counts(&words, "garden").unwrap();
    assert_eq!(
        garden.to_vec(),
        vec![0, 1],
        "a word holding the term twice counts once"
    );
    assert!(set.contains(1) && !set.contains(0));
    assert_eq!(
        counts(&words, "garden").unwrap().1.to_vec(),
        garden.to_vec(),
        "the same, from the words kept"
    );
    assert_eq!(counts(&words, "gamma").unwrap().1.to_vec(), vec![0, 0]);
    let inside = |words: &Words, term: &str| {
        let (set, _) = counts(words, term).unwrap();
        (0..words.docs)
            .filter(|&doc| set.contains(doc))
            .collect::<Vec<u32>>()
    };
    assert_eq!(inside(&words, "arden"), vec![1], "inside a word");
    assert_eq!(
        inside(&words, "arden"),
        vec![1],
        "the same, from the kept set"
    );
    let doc = words.add(&words_of("gamma gammas"));
    let (set, gamma) = counts(&words, "gamma").unwrap();
    assert!(set.contains(doc));
    assert_eq!(gamma.get(doc), 2);
    let later = words.add(&words_of("a hidden garden"));
    assert_eq!(
        inside(&words, "arden"),
        vec![1, later],
        "a note added after the set was kept"
    );
    assert_eq!(inside(&words, "idde"), vec![later]);
}

#[test]
fn words_mixing_ascii_and_other_letters_are_split_and_folded_as_character_by_character() {
    let text = "Straße ÉCOLE école naïve x-ray Ωmega ﬁne 😀smile café\u{301} 中文 end";
    let folded: String = text
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_ascii_uppercase()
            } else {
                js_canonicalize(c)
            }
        })
        .collect();
    let expected: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .fold(Vec::new(), |mut distinct, word| {
            if !distinct.contains(&word) {
                distinct.push(word);
            }
            distinct
        });
    let words = words_of(text);
    assert_eq!(words.joined.split('\0').collect::<Vec<_>>(), expected);
    // "école" is "ÉCOLE" once folded: one word, counted twice.
    assert_eq!(expected.iter().filter(|word| **word == "ÉCOLE").count(), 1);
}

/// Every answer the index gives for these notes and questions, to compare two indexes holding the same documents.
fn answers(words: &Words) -> Vec<String> {
    let queries = [
        "garden",
        "GARDEN",
        "gard",
        "arden",
        "den met",
        "method",
        "the garden",
        " garden ",
        "x",
        "é",
        "école",
        "zzqx",
        "ΩMEGA",
        "méga",
        "regarden",
        "a",
    ];
    let mut out: Vec<String> = queries
        .iter()
        .map(|query| {
            format!(
                "{query}: {:?}",
                words.candidates(query).map(|set| listed(words, &set))
            )
        })
        .collect();
    for term in ["garden", "a", "gamma", "école", "ωmega", "zzqx"] {
        let found = words.plain_words(&[term]).map(|mut found| found.remove(0));
        out.push(format!(
            "{term}: {:?}",
            found.map(|(set, counts)| (listed(words, &set), counts))
        ));
    }
    out.push(format!("long: {:?}", listed(words, &words.long_docs())));
    out
}

fn listed(words: &Words, set: &DocSet) -> Vec<u32> {
    (0..words.docs).filter(|&doc| set.contains(doc)).collect()
}

const NOTES: [&str; 8] = [
    "The Garden method, gardening",
    "a method-garden and a gamma",
    "École école ecole Ωmega",
    "regardengarden gamma gamma gammas",
    "nothing here at all",
    "a long one: 0123456789012345678901234567890123456789012345678901234567890123456789",
    "garden garden garden Méga",
    "x X x-ray",
];

#[test]
fn words_laid_out_flat_answer_as_the_words_added_one_by_one() {
    let added = index(&NOTES);
    let expected = answers(&added);
    let mut frozen = index(&NOTES);
    frozen.freeze();
    assert_eq!(answers(&frozen), expected, "all laid out");
    assert!(frozen.added.is_empty() && frozen.is_sound());
    assert!(
        frozen.bytes() < added.bytes(),
        "laid out costs less: {} against {}",
        frozen.bytes(),
        added.bytes()
    );

    // Half laid out, the rest added after: words in both parts, in one part only, and a new word.
    let mut half = index(&NOTES[..4]);
    half.freeze();
    for note in &NOTES[4..] {
        half.add(&words_of(note));
    }
    assert!(!half.added.is_empty());
    assert_eq!(answers(&half), expected, "half laid out");

    // Saved and read back as the saved index does, then laid out again over what was added.
    let bytes = postcard::to_allocvec(&half).expect("encoded");
    let mut read: Words = postcard::from_bytes(&bytes).expect("decoded");
    assert!(read.is_sound());
    assert_eq!(answers(&read), expected, "read back");
    read.freeze();
    assert_eq!(answers(&read), expected, "read back and laid out again");

    // Compacted: the same as an index of the live notes alone, numbered as before.
    let live = [0u32, 2, 3, 6];
    half.compact(&half.doc_set(live));
    let mut only_live = Words::default();
    for (doc, note) in NOTES.iter().enumerate() {
        only_live.add(&words_of(if live.contains(&(doc as u32)) {
            note
        } else {
            ""
        }));
    }
    assert_eq!(answers(&half), answers(&only_live), "compacted");
    assert!(half.added.is_empty() && half.is_sound());
}

#[test]
fn a_vocabulary_out_of_order_or_out_of_bounds_is_not_sound() {
    let mut sorted = Vocabulary::default();
    for word in ["ALPHA", "BETA", "GAMMA"] {
        sorted.push(word);
    }
    assert!(sorted.is_sorted_and_sound());
    assert_eq!(sorted.find("BETA"), Some(1));
    assert_eq!(sorted.find("DELTA"), None);
    let mut unsorted = Vocabulary::default();
    for word in ["BETA", "ALPHA"] {
        unsorted.push(word);
    }
    assert!(!unsorted.is_sorted_and_sound());
    let mut twice = Vocabulary::default();
    for word in ["ALPHA", "ALPHA"] {
        twice.push(word);
    }
    assert!(!twice.is_sorted_and_sound(), "a word twice");
}

/// The words of a text as the index defines them, the slow way: fold every character, split at every character
/// that is not alphanumeric, count each distinct word in order of first sight, leave out the long ones.
fn words_by_definition(text: &str) -> (Vec<String>, Vec<u32>, bool) {
    let folded: String = text.chars().map(js_canonicalize).collect();
    let (mut words, mut counts, mut long) = (Vec::<String>::new(), Vec::new(), false);
    for word in folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        if word.chars().count() > LONG_WORD {
            long = true;
        } else if let Some(at) = words.iter().position(|known| known == word) {
            counts[at] += 1;
        } else {
            words.push(word.to_string());
            counts.push(1);
        }
    }
    (words, counts, long)
}

#[test]
fn words_are_split_and_counted_as_the_definition_says() {
    let pieces = [
        "garden",
        "Garden",
        "GARDEN",
        "é",
        "É",
        "ß",
        "ǅ",
        "ǆ",
        "Σ",
        "ς",
        "σ",
        "ﬁ",
        "ı",
        "İ",
        "µ",
        "Ωmega",
        "東京",
        "😀",
        "٣",
        "x9",
        "0",
        " ",
        "-",
        "—",
        "\n",
        "é\u{301}",
        "\u{0}",
        "café",
        "zürich",
        "aaaaaaaaaa",
        "ł",
    ];
    // A fixed walk through the pieces (a linear congruential sequence), long enough to make runs over 48 characters.
    let mut seed = 7u64;
    for _ in 0..300 {
        let mut text = String::new();
        for _ in 0..40 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        let found = words_of(&text);
        let (words, counts, long) = words_by_definition(&text);
        let joined: Vec<&str> = if found.joined.is_empty() {
            Vec::new()
        } else {
            found.joined.split('\0').collect()
        };
        assert_eq!(joined, words, "{text:?}");
        assert_eq!(found.counts, counts, "{text:?}");
        assert_eq!(found.has_long, long, "{text:?}");
    }
}

#[test]
fn every_character_is_folded_as_javascript_folds_it() {
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let text = c.to_string();
        let found = words_of(&text);
        let expected = if c.is_alphanumeric() {
            js_canonicalize(c).to_string()
        } else {
            String::new()
        };
        assert_eq!(found.joined, expected, "U+{:04X}", c as u32);
    }
}

#[test]
fn counts_past_a_byte_add_up_exactly() {
    let mut counts = super::DocCounts::zeros(4);
    for (doc, count) in [
        (0, 200),
        (0, 54),
        (1, 254),
        (2, 255),
        (3, 1),
        (0, 7),
        (2, 1),
        (9, 5),
    ] {
        counts.add(doc, count);
    }
    // 200 + 54 and 254 stay in their byte; 254 + 7 and 255 pass it, and go on adding there.
    assert_eq!(counts.to_vec(), vec![261, 254, 256, 1]);
    assert_eq!(counts.get(9), 0, "a document past the last counts nothing");
    counts.add(1, u32::MAX);
    assert_eq!(counts.get(1), u32::MAX, "saturates rather than wraps");
}
