//! Unit tests of `tokens`.

use super::*;
use crate::model::tokenizer::{Factors, Family};

#[test]
fn exact_counts_match_known_values() {
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), None);
    assert_eq!(c.count("hello world").unwrap(), 2);
    assert_eq!(c.count("").unwrap(), 0);
    // Special tokens typed as text are ordinary text, never the special token.
    assert!(c.count("<|endoftext|>").unwrap() > 1);
    let mut c = Counter::new(Tokenizer::Exact(Encoding::Cl100kBase), None);
    assert_eq!(c.count("hello world").unwrap(), 2);
}

#[test]
fn cache_hits_skip_the_tokenizer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache/tokens.json");
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    let n = c.count("The quick brown fox").unwrap();
    c.count("The quick brown fox").unwrap();
    assert_eq!(c.stats(), CacheStats { hits: 0, misses: 1, tokenizer_built: true });
    c.save().unwrap();
    let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    assert_eq!(again.count("The quick brown fox").unwrap(), n);
    assert_eq!(again.stats(), CacheStats { hits: 1, misses: 0, tokenizer_built: false });
    // Another encoding has its own entries.
    let mut other = Counter::new(Tokenizer::Exact(Encoding::Cl100kBase), Some(path));
    other.count("The quick brown fox").unwrap();
    assert!(other.stats().tokenizer_built);
}

#[test]
fn priming_counts_in_parallel_and_matches_single_counts() {
    let texts: Vec<String> = (0..50).map(|i| format!("text number {i} {}", "word ".repeat(i * 37))).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut primed = Counter::new(Tokenizer::Exact(Encoding::Cl100kBase), None);
    primed.prefetch();
    primed.prime(&refs).unwrap();
    let mut single = Counter::new(Tokenizer::Exact(Encoding::Cl100kBase), None);
    for t in &refs {
        assert_eq!(primed.count(t).unwrap(), single.count(t).unwrap());
    }
    assert_eq!(primed.stats().misses, 50);
}

#[test]
fn corrupt_cache_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.json");
    std::fs::write(&path, "{not json").unwrap();
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    assert_eq!(c.count("hello world").unwrap(), 2);
    c.save().unwrap();
    assert!(serde_json::from_slice::<serde_json::Value>(&std::fs::read(&path).unwrap()).is_ok());
}

#[test]
fn estimates_scale_and_round_up() {
    let factors: Factors = [(Family::Claude, 1.5)].into_iter().collect();
    let t = Tokenizer::from_name("claude", &factors).unwrap();
    assert!(!t.exact());
    let mut c = Counter::new(t, None);
    assert_eq!(c.count("hello world").unwrap(), 3);
    assert!(t.method().contains("estimate"));
}
