//! promptc's exact token counts must equal the reference tokenizer's. The golden file
//! `tests/golden/tokens.json` holds counts produced by Python tiktoken (offline, from the same
//! vocabulary files tiktoken-rs embeds; `scripts/token-golden.py --check` re-verifies it in
//! CI) over the example's sections, prompts and tool JSON plus edge cases: CRLF, long runs of
//! spaces, 200 KB single words, special-token text, emoji, combining accents, CJK, …

use promptc::{Encoding, TokenCounter, Tokenizer};

#[test]
fn every_count_equals_the_reference_tokenizer() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/tokens.json");
    let golden: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let encodings: Vec<Encoding> = golden["encodings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Encoding::parse(e.as_str().unwrap()).expect("known encoding"))
        .collect();
    assert_eq!(encodings.len(), Encoding::TIKTOKEN.len(), "the golden file covers every tiktoken encoding");
    let cases = golden["cases"].as_array().unwrap();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let mut counters: Vec<TokenCounter> = encodings.iter().map(|e| TokenCounter::new(Tokenizer::Exact(*e))).collect();
    let mut mismatches = Vec::new();
    let mut largest = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let text = match (&case["text"], &case["repeat"]) {
            (serde_json::Value::String(t), _) => t.clone(),
            (_, r) if r.is_object() => r["unit"].as_str().unwrap().repeat(r["times"].as_u64().unwrap() as usize),
            _ => panic!("case {name} has neither text nor repeat"),
        };
        largest = largest.max(text.len());
        for (e, counter) in encodings.iter().zip(counters.iter_mut()) {
            let expected = case["counts"][e.name()].as_u64().unwrap_or_else(|| panic!("{name}: no {} count", e.name()));
            let actual = counter.count(&text).unwrap();
            if actual != expected {
                mismatches.push(format!("{name} [{}]: golden {expected}, promptc {actual}", e.name()));
            }
        }
    }
    assert!(mismatches.is_empty(), "token counts differ from tiktoken:\n{}", mismatches.join("\n"));
    assert!(largest >= 200_000, "the corpus includes a 200 KB input");
}
