//! Unit tests of `tokens`.

use std::path::Path;

use super::disk::MAX_CACHE_BYTES;
use super::*;
use crate::model::tokenizer::{Encoding, Factors, Family};

/// A cache file inside `dir` (canonical, as the project root is).
fn cache_in(dir: &Path, rel: &str) -> CacheFile {
    let root = dir.canonicalize().unwrap();
    CacheFile { path: root.join(rel), root }
}

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
    let path = cache_in(dir.path(), "cache/tokens.json");
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    let n = c.count("The quick brown fox").unwrap();
    c.count("The quick brown fox").unwrap();
    assert_eq!(c.stats(), CacheStats { hits: 0, misses: 1, tokenizer_built: true });
    c.save();
    assert!(c.warnings().is_empty());
    let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    assert_eq!(again.count("The quick brown fox").unwrap(), n);
    assert_eq!(again.stats(), CacheStats { hits: 1, misses: 0, tokenizer_built: false });
    // Another encoding has its own entries.
    let mut other = Counter::new(Tokenizer::Exact(Encoding::Cl100kBase), Some(path));
    other.count("The quick brown fox").unwrap();
    assert!(other.stats().tokenizer_built);
}

#[test]
fn priming_counts_each_text_and_matches_single_counts() {
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
    let path = cache_in(dir.path(), "tokens.json");
    std::fs::write(&path.path, "{not json").unwrap();
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(path.clone()));
    assert!(c.warnings()[0].message.contains("is not a token cache promptc wrote"));
    assert_eq!(c.count("hello world").unwrap(), 2);
    c.save();
    assert!(serde_json::from_slice::<serde_json::Value>(&std::fs::read(&path.path).unwrap()).is_ok());
}

#[test]
fn implausible_counts_are_recounted() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    let key = sha256_hex(b"hello world");
    for bogus in [0u64, u64::MAX, 12] {
        // Tagged with this user's key: only the count itself gives it away.
        let tag = disk::Entry::tagged("o200k_base", &key, bogus).1;
        let json = format!(r#"{{"format": 2, "counts": {{"o200k_base": {{"{key}": [{bogus}, "{tag}"]}}}}}}"#);
        std::fs::write(&file.path, json).unwrap();
        let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert_eq!(c.count("hello world").unwrap(), 2, "a cached {bogus} is not believed");
        let mut primed = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        primed.prime(&["hello world"]).unwrap();
        assert_eq!(primed.count("hello world").unwrap(), 2);
    }
}

/// A committed cache whose every count is 1 (plausible for any text): without this user's tag
/// no count is believed — untagged (format 1), tagged by another key, or tag copied to another
/// count — and saving rewrites the entries with valid tags.
#[test]
fn counts_without_this_user_s_tag_are_recounted_and_retagged() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    let text = "The quick brown fox jumps over the lazy dog";
    let key = sha256_hex(text.as_bytes());
    let right = Counter::new(Tokenizer::Exact(Encoding::O200kBase), None).count(text).unwrap();
    assert!(right > 1);
    let forged_tag = disk::Entry::tagged("o200k_base", &key, right).1;
    for json in [
        format!(r#"{{"format": 1, "counts": {{"o200k_base": {{"{key}": 1}}}}}}"#),
        format!(r#"{{"format": 2, "counts": {{"o200k_base": {{"{key}": [1, "00112233445566778899aabbccddeeff"]}}}}}}"#),
        format!(r#"{{"format": 2, "counts": {{"o200k_base": {{"{key}": [1, "{forged_tag}"]}}}}}}"#),
        format!(r#"{{"format": 2, "counts": {{"o200k_base": {{"{key}": [1, ""]}}}}}}"#),
    ] {
        std::fs::write(&file.path, &json).unwrap();
        let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
        assert_eq!(c.count(text).unwrap(), right, "{json}");
        assert_eq!(c.stats(), CacheStats { hits: 0, misses: 1, tokenizer_built: true }, "{json}");
        c.save();
        let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert_eq!(again.count(text).unwrap(), right);
        assert_eq!(
            again.stats(),
            CacheStats { hits: 1, misses: 0, tokenizer_built: false },
            "rewritten with a valid tag"
        );
    }
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file.path).unwrap()).unwrap();
    assert_eq!(saved["format"], 2);
    assert_eq!(saved["counts"]["o200k_base"][&key][0], right);
}

#[test]
fn the_cache_is_never_written_through_a_link_out_of_the_project() {
    let outside = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), project.path().join("h")).unwrap();
    let file = cache_in(project.path(), "h/authorized_keys");
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file));
    c.count("hello world").unwrap();
    c.save();
    assert!(c.warnings()[0].message.contains("was not saved"), "{:?}", c.warnings());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was written outside");
}

#[test]
fn an_unusable_cache_file_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // A folder where the cache file should be: neither read nor written, never an error.
    let file = cache_in(dir.path(), "tokens.json");
    std::fs::create_dir(&file.path).unwrap();
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
    assert!(c.warnings()[0].message.contains("not a regular file"));
    c.count("hello world").unwrap();
    c.save();
    assert_eq!(c.warnings().len(), 2);
    // Too large to read.
    std::fs::remove_dir(&file.path).unwrap();
    std::fs::write(&file.path, vec![b' '; MAX_CACHE_BYTES as usize + 1]).unwrap();
    let c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file));
    assert!(c.warnings()[0].message.contains("larger than"));
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

#[test]
fn background_counts_match_and_each_distinct_text_is_counted_once() {
    let texts: Vec<String> = (0..40).map(|i| format!("text {i} {}", "lorem ipsum ".repeat(i * 11))).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokenizer = Tokenizer::Exact(Encoding::O200kBase);
    let mut counters = Counters::new(None);
    let counted: Vec<u64> = counters
        .with_background(|counters, bg| {
            // The same texts twice, in overlapping batches: the second submission queues nothing.
            let first = bg.submit(counters, &tokenizer, &refs[..30])?;
            let second = bg.submit(counters, &tokenizer, &refs[10..])?;
            let again = bg.submit(counters, &tokenizer, &refs)?;
            assert!(first >= 1 && second > first && again == second);
            assert!(bg.wait(counters, again, true)?);
            refs.iter().map(|t| counters.count(&tokenizer, t)).collect()
        })
        .unwrap();
    let mut single = Counter::new(tokenizer, None);
    let expected: Vec<u64> = refs.iter().map(|t| single.count(t).unwrap()).collect();
    assert_eq!(counted, expected);
    assert_eq!(counters.stats(), CacheStats { hits: 0, misses: 40, tokenizer_built: true });
}

#[test]
fn background_waits_without_blocking_until_counts_are_in() {
    let tokenizer = Tokenizer::Exact(Encoding::Cl100kBase);
    let mut counters = Counters::new(None);
    counters
        .with_background(|counters, bg| {
            // Nothing submitted: ticket 0 is already in.
            assert!(bg.wait(counters, 0, false)?);
            let ticket = bg.submit(counters, &tokenizer, &["hello world"])?;
            while !bg.wait(counters, ticket, false)? {
                std::thread::yield_now();
            }
            assert_eq!(counters.count(&tokenizer, "hello world")?, 2);
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_panic_beside_the_counting_thread_ends_it_instead_of_hanging() {
    let tokenizer = Tokenizer::Exact(Encoding::Cl100kBase);
    let texts: Vec<String> = (0..200).map(|i| format!("text {i} {}", "word ".repeat(2000))).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut counters = Counters::new(None);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        counters.with_background(|counters, bg| -> Result<()> {
            bg.submit(counters, &tokenizer, &refs)?;
            panic!("a bug in the caller");
        })
    }));
    // Reaching this line at all is the point: the scope joined the counting thread.
    assert!(outcome.is_err());
}
