//! Unit tests of `model::tokenizer`.

use super::*;

#[test]
fn models_map_to_encodings_and_families() {
    let f = Factors::new();
    assert_eq!(Tokenizer::for_model("gpt-4o", &f), Some(Tokenizer::Exact(Encoding::O200kBase)));
    assert_eq!(Tokenizer::for_model("openai/o1-mini", &f), Some(Tokenizer::Exact(Encoding::O200kBase)));
    assert_eq!(Tokenizer::for_model("gpt-4", &f), Some(Tokenizer::Exact(Encoding::Cl100kBase)));
    assert!(matches!(
        Tokenizer::for_model("anthropic/claude-sonnet-4", &f),
        Some(Tokenizer::Estimate { family: Family::Claude, .. })
    ));
    assert_eq!(Tokenizer::for_model("gemini-2.5-pro", &f), Some(Tokenizer::Exact(Encoding::Gemma3)));
    assert_eq!(Tokenizer::for_model("google/gemini-2.0-flash", &f), Some(Tokenizer::Exact(Encoding::Gemma3)));
    assert_eq!(Tokenizer::for_model("llama-3", &f), None);
}

#[test]
fn unknown_tokenizer_lists_the_known_ones() {
    let e = Tokenizer::from_name("o200k", &Factors::new()).unwrap_err();
    let d = &e.diagnostics()[0];
    assert!(d.help.as_deref().unwrap().contains("did you mean `o200k_base`"), "{:?}", d.help);
}

#[test]
fn gemini_names_the_exact_gemma3_encoding() {
    let f = Factors::new();
    assert_eq!(Tokenizer::from_name("gemini", &f).unwrap(), Tokenizer::Exact(Encoding::Gemma3));
    assert_eq!(Tokenizer::from_name("gemma3", &f).unwrap(), Tokenizer::Exact(Encoding::Gemma3));
    assert!(Tokenizer::Exact(Encoding::Gemma3).exact());
    assert!(Tokenizer::names().contains(&"gemini"), "{:?}", Tokenizer::names());
}
