use proptest::prelude::*;

use super::*;
use crate::measure::tokens::engine::Engine;
use crate::model::tokenizer::Encoding;

fn o200k() -> &'static bpe_openai::Tokenizer {
    bpe_openai::o200k_base()
}

/// The count of `text` by chunks, with a memo of its own and with `memo`, against the count of
/// the whole text.
fn agrees(memo: &mut Memo, text: &str) -> std::result::Result<(), String> {
    let whole = o200k().count(text);
    let fresh = Memo::default().count(text, |c| o200k().count(c));
    let shared = memo.count(text, |c| o200k().count(c));
    if (fresh, shared) == (whole, whole) {
        Ok(())
    } else {
        let cut: Vec<&str> = chunks(text).collect();
        Err(format!("{text:?}: whole {whole}, by chunks {fresh}, remembered {shared}; chunks {cut:?}"))
    }
}

#[test]
fn chunks_concatenate_to_the_text_and_are_never_empty() {
    for text in ["", "a", "\n", "a\nb", "x\n\n/y\nz", "{\"a\":\"b\",\"c\":[1,2]}", "é\nü\n", "\n\n\n"] {
        let parts: Vec<&str> = chunks(text).collect();
        assert_eq!(parts.concat(), text);
        assert!(parts.iter().all(|p| !p.is_empty()), "{parts:?}");
    }
    assert_eq!(
        chunks("one\ntwo\n  three\n/four\nfive").collect::<Vec<_>>(),
        ["one\n", "two\n  three\n/four\n", "five"]
    );
}

#[test]
fn compact_json_is_cut_between_punctuation_and_names() {
    let json = r#"[{"type":"function","name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]"#;
    let parts: Vec<&str> = chunks(json).collect();
    assert!(parts.len() > 3, "{parts:?}");
    for p in &parts[1..] {
        assert!(p.as_bytes()[0].is_ascii_alphanumeric(), "{parts:?}");
    }
}

/// The rules' edges, one by one: what may follow a line feed, what may precede a cut before a
/// letter, and the characters each pattern of o200k_base treats apart.
#[test]
fn chunked_counts_equal_whole_counts_at_the_edges_of_the_rules() {
    let mut memo = Memo::default();
    let after_newline =
        ["a", "A", "1", "\"", "{", "-", "'s", "/", "//x", " x", "\tx", "\r\nx", "\n", "é", "\u{a0}x", "\u{2028}"];
    let before = ["x", "x.", "x.\n", "x. \n", "x \n", "x\r\n", "x\n\n", "}", "\"},", "'", "''", ".../", "123", "é"];
    for b in before {
        for a in after_newline {
            agrees(&mut memo, &format!("{b}\n{a}")).unwrap();
            agrees(&mut memo, &format!("{b}\n{a}{a} tail")).unwrap();
        }
    }
    let puncts = ["\"", ",", "{", "}", ":", "[", "]", "'", "(", ")", "-", "_", ".", "/", "!", "<", ">", "|"];
    let heads = ["a", "S", "s", "t", "re", "1", "123456", "é", "日本"];
    for p in puncts {
        for q in puncts {
            for h in heads {
                for lead in ["", "x", "1", " ", "\n", "it", "don"] {
                    agrees(&mut memo, &format!("{lead}{p}{q}{h} and more{p}{q}{h}")).unwrap();
                }
            }
        }
    }
}

/// Pieces at the edges of o200k_base's patterns, for generated texts.
const PIECES: [&str; 40] = [
    "a", "Ab", "ABC", "é", "日本", "ß", "'s", "'T", "'re", "'ll", "1", "12", "1234", "\n", "\n\n", "\r\n", "\r", " ",
    "  ", "\t", "\u{a0}", "\u{2028}", "\u{b}", ".", ",", "\"", "{", "}", ":", "[", "]", "/", "//", "-", "_", "!", "#",
    "\"},{\"", "\":\"", "<tool>",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, .. ProptestConfig::default() })]

    /// Any text made of the pieces counts the same by chunks as whole.
    #[test]
    fn chunked_counts_equal_whole_counts_on_generated_texts(ix in proptest::collection::vec(0..PIECES.len(), 0..60)) {
        let text: String = ix.iter().map(|&i| PIECES[i]).collect();
        let mut memo = Memo::default();
        prop_assert!(agrees(&mut memo, &text).is_ok(), "{}", agrees(&mut memo, &text).unwrap_err());
    }
}

/// Every text a matrix report counts, for the example and every good fixture.
pub(crate) fn texts_of_the_example_and_the_fixtures() -> std::collections::BTreeSet<String> {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut dirs = vec![root.join("profiles")];
    let good = root.join("fixtures/good");
    let mut fixtures: Vec<_> = std::fs::read_dir(&good).unwrap().map(|e| e.unwrap().path()).collect();
    fixtures.sort();
    dirs.extend(fixtures.into_iter().filter(|d| d.join("promptc.yaml").is_file()));
    let mut all = std::collections::BTreeSet::new();
    for dir in &dirs {
        let Ok(project) = crate::load(dir) else { continue };
        let Ok(compiled) = crate::compile::compile_matrix(&project) else { continue };
        for c in &compiled {
            for p in crate::measure::account::providers_of(&project, c.transport) {
                all.extend(crate::measure::account::texts(&project, c, p));
            }
        }
    }
    all
}

/// Every text a matrix report counts, for the example and every good fixture, counts the same
/// by chunks as whole — through one memo, as a run counts them.
#[test]
fn chunked_counts_equal_whole_counts_over_the_example_and_the_fixtures() {
    let (mut memo, mut texts, mut bytes) = (Memo::default(), 0, 0);
    for t in texts_of_the_example_and_the_fixtures() {
        agrees(&mut memo, &t).unwrap();
        bytes += t.len();
        texts += 1;
    }
    // The prompts, messages and tool JSON of every cell (parts are marks in these, not texts).
    assert!(texts > 400 && bytes > 500_000, "{texts} texts, {bytes} bytes");
}

/// Through the engine, the counts are the tokenizer's, and a chunk is counted once.
#[test]
fn the_prebuilt_tokenizer_counts_by_chunks_and_remembers_them() {
    let engine = Engine::new(Encoding::O200kBase);
    let bpe = engine.get().unwrap_or_else(|e| panic!("{e:?}"));
    let mut memo = Memo::default();
    let text = "Line one.\nLine two, {\"k\":\"v\"}.\nLine one.\n";
    assert_eq!(bpe.count_chunked(&mut memo, text), bpe.count(text));
    let remembered = memo.counts.len();
    assert!(remembered >= 2, "{remembered}");
    assert_eq!(bpe.count_chunked(&mut memo, text), bpe.count(text));
    assert_eq!(memo.counts.len(), remembered, "nothing new to remember");
}
