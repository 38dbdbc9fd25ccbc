//! Unit tests of `measure::tokens::gemma`: counts and token starts equal SentencePiece's.

use super::*;

/// `(text, count, starts)` of `tests/golden/gemma3.json` (scripts/gemma3-golden.py: SentencePiece
/// itself over the same model).
fn golden() -> Vec<(String, usize, Vec<usize>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden/gemma3.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(v["model_sha256"], "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c");
    let cases = v["cases"].as_array().unwrap();
    let usizes = |v: &serde_json::Value| v.as_array().unwrap().iter().map(|n| n.as_u64().unwrap() as usize).collect();
    cases
        .iter()
        .map(|c| (c["text"].as_str().unwrap().to_string(), c["count"].as_u64().unwrap() as usize, usizes(&c["starts"])))
        .collect()
}

fn starts(lens: &[usize]) -> Vec<usize> {
    lens.iter().scan(0, |at, l| Some(std::mem::replace(at, *at + l))).collect()
}

#[test]
fn counts_and_token_starts_are_sentencepieces() {
    let g = Gemma::new();
    let cases = golden();
    assert!(cases.len() > 200, "{} cases", cases.len());
    for (text, count, expected) in cases {
        let lens = g.token_lens(&text);
        assert_eq!(lens.len(), count, "count of {text:?}");
        assert_eq!(starts(&lens), expected, "token starts of {text:?}");
        assert_eq!(lens.iter().sum::<usize>(), text.len(), "the tokens cover {text:?}");
    }
}

#[test]
fn user_defined_pieces_are_whole_tokens_that_never_merge() {
    let g = Gemma::new();
    // A run of 40 line feeds is the 31-long piece and the 9-long one.
    assert_eq!(g.token_lens(&"\n".repeat(40)), [31, 9]);
    assert_eq!(g.token_lens("<start_of_turn>"), [15]);
    assert_eq!(g.count("What is your name?"), 5, "google-genai's own example");
}

#[test]
fn segments_cover_the_text_and_their_tokens_are_the_whole_texts() {
    let g = Gemma::new();
    let mut texts: Vec<String> = golden().into_iter().map(|(t, ..)| t).collect();
    texts.extend(
        [
            "",
            "\n",
            "a\nb",
            "\n\n\nx",
            "x\n\n\n",
            "é\n\n日本\n<start_of_turn>\n",
            "  \n  \n",
            "\t\n\t",
            "line one\n\n  - item  \n\n\n\n## Heading\r\n```json\n{}\n```\n",
        ]
        .map(String::from),
    );
    texts.push(format!("{}\n{}", "\n".repeat(40), "word ".repeat(50)));
    for text in texts {
        let parts: Vec<&str> = segments(&text).collect();
        assert_eq!(parts.concat(), text, "the segments of {text:?} are the text");
        assert!(parts.iter().skip(1).all(|p| p.starts_with('\n')), "{parts:?}");
        let by_parts: Vec<usize> = parts.iter().flat_map(|p| g.token_lens(p)).collect();
        assert_eq!(by_parts, g.token_lens(&text), "tokens of {text:?} by segments");
    }
}
