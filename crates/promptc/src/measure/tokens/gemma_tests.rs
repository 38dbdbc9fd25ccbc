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

/// Segments cover `text`, none is empty, and their tokens, in order, are the whole text's.
fn segments_agree(g: &Gemma, text: &str) -> std::result::Result<(), String> {
    let parts: Vec<&str> = segments(text).collect();
    if parts.concat() != text || parts.iter().any(|p| p.is_empty()) {
        return Err(format!("the segments of {text:?} are not the text: {parts:?}"));
    }
    let by_parts: Vec<usize> = parts.iter().flat_map(|p| g.token_lens(p)).collect();
    let whole = g.token_lens(text);
    if by_parts != whole {
        return Err(format!("{text:?}: whole {whole:?}, by segments {by_parts:?} ({parts:?})"));
    }
    Ok(())
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
            "<start_of_turn>user\nHi<end_of_turn>\n<b>bold</b> <unused7>x",
        ]
        .map(String::from),
    );
    texts.push(format!("{}\n{}", "\n".repeat(40), "word ".repeat(50)));
    for text in texts {
        segments_agree(&g, &text).unwrap();
    }
}

#[test]
fn prose_and_compact_json_are_cut_at_nearly_every_word() {
    let json =
        r#"[{"name":"read_file","description":"Read a file from the workspace.","parameters":{"type":"object"}}]"#;
    let prose = "Read the file, then answer the question in one short paragraph.";
    for (text, at_least) in [(json, 10), (prose, 8)] {
        let parts: Vec<&str> = segments(text).collect();
        assert!(parts.len() >= at_least, "{parts:?}");
        segments_agree(&Gemma::new(), text).unwrap();
    }
}

/// Fragments at the edges of the cut: user-defined pieces and their halves, runs of spaces,
/// tabs and line feeds, JSON punctuation, characters outside the vocabulary (byte fallback).
const FRAGMENTS: &[&str] = &[
    "a",
    "the",
    "The",
    "ing",
    " ",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\t",
    "\t\t",
    "\r\n",
    "<start_of_turn>",
    "<start_of",
    "_turn>",
    "<b>",
    "</b>",
    "<unused12>",
    "<",
    ">",
    "{\"",
    "\":",
    "\",",
    "},{",
    "[",
    "]",
    ".",
    "...",
    ",",
    "1",
    "2024",
    "é",
    "日本語",
    "🙂",
    "\u{0}",
    "\u{7f}",
    "▁",
    "\u{200b}",
    "\u{10ffff}",
    "x_y",
    "__init__",
    "->",
    "=>",
    "//",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
    #[test]
    fn tokens_by_segments_are_the_whole_texts(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..48),
    ) {
        segments_agree(&Gemma::new(), &parts.concat()).map_err(proptest::test_runner::TestCaseError::fail)?;
    }
}

/// Real text nobody on the team wrote: every file of the import corpus
/// (`fixtures/import/corpus`, sources and licences in its SOURCES.json: MCP servers' tool
/// schemas, coding agents' requests, a function-calling benchmark), as written and, for JSON,
/// compact on one line (how a tools JSON is sent): cut by `segments`, its tokens are the whole
/// text's.
#[test]
fn segments_of_real_tool_definitions_are_the_whole_texts() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/import/corpus"));
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "{} files", files.len());
    let g = Gemma::new();
    let mut texts = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let compact = serde_json::from_str::<serde_json::Value>(&text).ok().map(|v| v.to_string());
        for t in std::iter::once(text).chain(compact) {
            segments_agree(&g, &t).unwrap_or_else(|e| panic!("{}: {}", path.display(), &e[..e.len().min(400)]));
            texts += 1;
        }
    }
    assert!(texts > 200, "{texts} texts");
}
