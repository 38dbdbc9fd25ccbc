//! Each hostile shape of issue 42 is refused by what the file holds (counts, lengths, nesting,
//! the regex's form), before anything is built; the regexes published tokenizers use pass.

use serde_json::json;

use super::*;

fn file(v: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

fn refused(v: serde_json::Value) -> String {
    check(&file(v)).expect_err("a hostile tokenizer file was accepted")
}

/// The pre-tokenizer patterns of GPT-2/Qwen2 (`tokenizer.json` of Qwen/Qwen2.5-0.5B-Instruct),
/// Llama 3 (meta-llama/Llama-3.1-8B-Instruct) and o200k-style (GPT-4o, as in tiktoken), and
/// Metaspace's `Replace` of a space, are accepted.
#[test]
fn the_regexes_published_tokenizers_use_pass() {
    for re in [
        concat!(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*",
            r"|\s*[\r\n]+|\s+(?!\S)|\s+"
        ),
        concat!(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*",
            r"|\s*[\r\n]+|\s+(?!\S)|\s+"
        ),
        concat!(
            r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+",
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
        ),
    ] {
        let pre = json!({"type": "Split", "pattern": {"Regex": re}, "behavior": "Isolated", "invert": false});
        let v = json!({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer":
            {"type": "Sequence", "pretokenizers": [pre, {"type": "ByteLevel"}]}});
        assert_eq!(check(&file(v)), Ok(()), "{re}");
    }
    let metaspace = json!({"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"});
    let v =
        json!({"model": {"type": "BPE", "vocab": {}}, "normalizer": {"type": "Sequence", "normalizers": [metaspace]}});
    assert_eq!(check(&file(v)), Ok(()));
}

/// A look-ahead that backtracks without end, a repeated alternation and a backreference are
/// refused, in the pre-tokenizer and in a normalizer.
#[test]
fn backtracking_regexes_are_refused_by_their_form() {
    for re in [r"(?=(a+)+$)", r"(\s*)*x", r"(a|aa)+b", r"(a)\1", r"(?:(?:x{1,9})+)+"] {
        let why = refused(json!({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": re}}}));
        assert!(why.starts_with("pre_tokenizer.pattern.Regex: "), "{re}: {why}");
        let why = refused(json!({"normalizer": {"type": "Replace", "pattern": {"Regex": re}, "content": "b"}}));
        assert!(why.starts_with("normalizer.pattern.Regex: "), "{re}: {why}");
    }
    let long = "a".repeat(MAX_REGEX_BYTES + 1);
    assert!(refused(json!({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": long}}})).contains("bytes long"));
}

/// 30 chained normalizers that each double the text, a replacement of 100 kB, and sequences
/// nested past the bound are refused.
#[test]
fn normalizers_that_grow_the_text_or_nest_are_refused() {
    let double = json!({"type": "Replace", "pattern": {"String": "a"}, "content": "aa"});
    let chain = json!({"normalizer": {"type": "Sequence", "normalizers": vec![double; 30]}});
    assert!(refused(chain).contains("times longer"));
    let huge = json!({"type": "Replace", "pattern": {"String": "a"}, "content": "x".repeat(100_000)});
    assert!(refused(json!({"normalizer": huge})).contains("a replacement may have"));
    let mut nested = json!({"type": "Lowercase"});
    for _ in 0..=MAX_NESTING + 1 {
        nested = json!({"type": "Sequence", "normalizers": [nested]});
    }
    assert!(refused(json!({"normalizer": nested})).contains("nest deeper"));
    let many = json!({"pre_tokenizer": {"type": "Sequence", "pretokenizers": vec![json!({"type": "Digits"}); 40]}});
    assert!(refused(many).contains("pre_tokenizers in all"));
}

/// A 30 MB added token, a Unigram vocabulary of long overlapping pieces, and more merges or
/// vocabulary entries than any published tokenizer are refused by count and length.
#[test]
fn oversized_tokens_and_tables_are_refused() {
    let big = json!({"added_tokens": [{"id": 0, "content": "x".repeat(30 << 20), "special": true}]});
    assert!(refused(big).starts_with("added_tokens[0].content is 31457280 bytes long"));
    let pieces: Vec<serde_json::Value> = (1..3000).map(|n| json!(["a".repeat(n), -1.0])).collect();
    let unigram = json!({"model": {"type": "Unigram", "vocab": pieces}});
    assert!(refused(unigram).starts_with("a piece of model.vocab is"));
    let merges = json!({"model": {"type": "BPE", "vocab": {}, "merges": vec!["a b"; MAX_MERGES + 1]}});
    assert!(refused(merges).starts_with("model.merges has 600001 merges"));
    let vocab: serde_json::Map<String, serde_json::Value> =
        (0..=MAX_VOCAB).map(|i| (i.to_string(), json!(i))).collect();
    assert!(refused(json!({"model": {"type": "WordLevel", "vocab": vocab}})).starts_with("model.vocab has"));
}
