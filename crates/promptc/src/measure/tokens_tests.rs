//! Unit tests of `tokens`.

use std::path::Path;

use std::collections::BTreeMap;

use super::disk::{shard_of, write_shard, MAX_SHARD_BYTES};
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

/// The shard file that holds (or would hold) the count of `text` with o200k_base.
fn shard_for(file: &CacheFile, text: &str) -> (usize, std::path::PathBuf) {
    let shard = shard_of(&key_of(text));
    (shard, file.shard("o200k_base", shard).path)
}

#[test]
fn corrupt_cache_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    let (_, shard) = shard_for(&file, "hello world");
    for garbage in [&b"{not json"[..], b"promptc token cache 3\n", &[0u8; 200]] {
        std::fs::write(&shard, garbage).unwrap();
        let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert!(c.warnings()[0].message.contains("is not a token cache promptc wrote"), "{:?}", c.warnings());
        assert_eq!(c.count("hello world").unwrap(), 2);
        c.save();
        let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert!(again.warnings().is_empty(), "rewritten: {:?}", again.warnings());
        assert_eq!(again.count("hello world").unwrap(), 2);
        assert_eq!(again.stats().hits, 1);
    }
}

#[test]
fn implausible_counts_are_recounted() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    let key = key_of("hello world");
    for bogus in [0u64, u64::MAX, 12] {
        // Written with this user's key: only the count itself gives it away.
        let entries = BTreeMap::from([(key.clone(), bogus)]);
        write_shard(&file, "o200k_base", shard_of(&key), entries.iter().map(|(k, v)| (k.as_str(), *v)), |_| true)
            .unwrap();
        let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert_eq!(c.count("hello world").unwrap(), 2, "a cached {bogus} is not believed");
        let mut primed = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        primed.prime(&["hello world"]).unwrap();
        assert_eq!(primed.count("hello world").unwrap(), 2);
    }
}

/// A committed cache whose every count is 1 (plausible for any text): without this user's MAC
/// no count is believed — the JSON cache of earlier versions, a shard whose MAC is zeros or
/// another key's, a count changed under a valid MAC, a valid shard copied to another shard's
/// name — and saving rewrites the shard with a valid MAC.
#[test]
fn counts_without_this_user_s_mac_are_recounted_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    let text = "The quick brown fox jumps over the lazy dog";
    let key = key_of(text);
    let (shard, path) = shard_for(&file, text);
    let right = Counter::new(Tokenizer::Exact(Encoding::O200kBase), None).count(text).unwrap();
    assert!(right > 1);
    let valid = |count: u64| {
        write_shard(&file, "o200k_base", shard, [(key.as_str(), count)], |_| true).unwrap();
        std::fs::read(&path).unwrap()
    };
    let one = valid(1);
    let mut zeroed = one.clone();
    let n = zeroed.len();
    zeroed[n - 32..].fill(0);
    let mut changed = valid(right);
    changed[n - 40..n - 32].copy_from_slice(&1u64.to_le_bytes());
    type Forge<'a> = Box<dyn Fn() + 'a>;
    let forgeries: [(&str, Forge); 4] = [
        (
            "an earlier version's JSON",
            Box::new(|| {
                let json = format!(r#"{{"format": 2, "counts": {{"o200k_base": {{"{key}": [1, ""]}}}}}}"#);
                std::fs::write(&file.path, json).unwrap();
                let _ = std::fs::remove_file(&path);
            }),
        ),
        ("a zeroed MAC", Box::new(|| std::fs::write(&path, &zeroed).unwrap())),
        ("a count changed under a valid MAC", Box::new(|| std::fs::write(&path, &changed).unwrap())),
        (
            "a valid shard under another shard's name",
            Box::new(|| {
                write_shard(&file, "o200k_base", (shard + 1) % 16, [(key.as_str(), 1)], |_| true).unwrap();
                std::fs::rename(file.shard("o200k_base", (shard + 1) % 16).path, &path).unwrap();
            }),
        ),
    ];
    for (what, forge) in forgeries {
        forge();
        let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert!(c.warnings().is_empty(), "{what}: {:?}", c.warnings());
        assert_eq!(c.count(text).unwrap(), right, "{what}");
        assert_eq!(c.stats(), CacheStats { hits: 0, misses: 1, tokenizer_built: true }, "{what}");
        c.save();
        let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
        assert_eq!(again.count(text).unwrap(), right);
        assert_eq!(again.stats(), CacheStats { hits: 1, misses: 0, tokenizer_built: false }, "{what}: rewritten");
    }
}

#[test]
fn a_full_shard_keeps_the_run_s_counts_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = cache_in(dir.path(), "tokens.json");
    // A shard one past its bound, of counts no run uses; then a run's count for its shard.
    let text = "hello world";
    let (shard, path) = shard_for(&file, text);
    let hex = |i: usize| format!("{:x}{:063x}", shard, i);
    let stale: BTreeMap<String, u64> = (0..disk::MAX_SHARD_ENTRIES + 1).map(|i| (hex(i), 5)).collect();
    assert!(write_shard(&file, "o200k_base", shard, stale.iter().map(|(k, v)| (k.as_str(), *v)), |_| true).is_ok());
    assert!(std::fs::metadata(&path).unwrap().len() <= MAX_SHARD_BYTES, "written within the bound");
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
    assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    assert_eq!(c.count(text).unwrap(), 2);
    c.save();
    assert!(std::fs::metadata(&path).unwrap().len() <= MAX_SHARD_BYTES, "saved within the bound");
    let mut again = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file));
    assert_eq!(again.count(text).unwrap(), 2);
    assert_eq!(again.stats().hits, 1, "the run's own count was kept");
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
    // A folder where a shard should be: neither read nor written, never an error.
    let file = cache_in(dir.path(), "tokens.json");
    let (_, path) = shard_for(&file, "hello world");
    std::fs::create_dir(&path).unwrap();
    let mut c = Counter::new(Tokenizer::Exact(Encoding::O200kBase), Some(file.clone()));
    assert!(c.warnings()[0].message.contains("not a regular file"));
    c.count("hello world").unwrap();
    c.save();
    assert_eq!(c.warnings().len(), 2);
    assert!(c.warnings()[1].message.contains("was not saved"));
    // Too large to read.
    std::fs::remove_dir(&path).unwrap();
    std::fs::write(&path, vec![b' '; MAX_SHARD_BYTES as usize + 1]).unwrap();
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
