//! `cargo bench --bench chat`: the chat transport's two figures (issue 28).
//!
//! - `render --transport chat` against `render` on the example, for the heaviest real
//!   templates (target: ≤ 2× `render`).
//! - Counting a 10,000-token text with a 150,000-entry vocabulary, after loading (target:
//!   ≤ 20 ms). The vocabulary is a byte-level BPE built here (256 bytes, then merges of
//!   existing tokens into longer ones, deterministic) and read through `HfTokenizer` from the
//!   same `tokenizer.json` bytes a model ships.

mod support;

use std::time::{Duration, Instant};

use promptc::open_weight::HfTokenizer;
use support::{median_run, ms};

const TEMPLATES: [&str; 3] = [
    "fixtures/chat-templates/Qwen-Qwen2.5-7B-Instruct.jinja",
    "fixtures/chat-templates/meetkai-functionary-medium-v3.2.jinja",
    "fixtures/chat-templates/openai-gpt-oss-120b.jinja",
];

/// GPT-2's byte-to-character table (printable bytes as themselves, the rest shifted past 255).
fn byte_chars() -> Vec<char> {
    let mut printable: Vec<u32> = (b'!' as u32..=b'~' as u32).chain(0xa1..=0xac).chain(0xae..=0xff).collect();
    let mut chars: Vec<u32> = printable.clone();
    let mut n = 0;
    for b in 0..256u32 {
        if !printable.contains(&b) {
            printable.push(b);
            chars.push(256 + n);
            n += 1;
        }
    }
    let mut table = vec!['\0'; 256];
    for (b, c) in printable.iter().zip(chars) {
        table[*b as usize] = char::from_u32(c).unwrap();
    }
    table
}

/// A `tokenizer.json` with `size` tokens: merges of frequent pairs of `corpus`, then merges of
/// existing tokens, all deterministic.
fn tokenizer_json(size: usize, corpus: &str) -> String {
    let table = byte_chars();
    let mut vocab: Vec<String> = table.iter().map(|c| c.to_string()).collect();
    let mut index: std::collections::HashMap<String, usize> =
        vocab.iter().cloned().enumerate().map(|(i, t)| (t, i)).collect();
    let mut merges: Vec<(String, String)> = Vec::new();
    let mut add = |a: String, b: String, vocab: &mut Vec<String>, merges: &mut Vec<(String, String)>| {
        let t = format!("{a}{b}");
        if !index.contains_key(&t) {
            index.insert(t.clone(), vocab.len());
            vocab.push(t);
            merges.push((a, b));
        }
    };
    // Merges the corpus uses: each word's bytes joined left to right.
    for word in corpus.split_whitespace().take(20_000) {
        let mapped: Vec<String> = word.bytes().map(|b| table[b as usize].to_string()).collect();
        let mut acc = mapped[0].clone();
        for next in &mapped[1..] {
            add(acc.clone(), next.clone(), &mut vocab, &mut merges);
            acc.push_str(next);
        }
    }
    // Then longer tokens from pairs of existing ones, until the vocabulary has `size` entries.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    while vocab.len() < size {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (a, b) = (
            vocab[(seed % vocab.len().min(4096) as u64) as usize].clone(),
            vocab[((seed >> 20) % vocab.len() as u64) as usize].clone(),
        );
        if a.chars().count() + b.chars().count() <= 16 {
            add(a, b, &mut vocab, &mut merges);
        }
    }
    let vocab_map: serde_json::Map<String, serde_json::Value> =
        vocab.iter().enumerate().map(|(i, t)| (t.clone(), serde_json::Value::from(i))).collect();
    serde_json::json!({
        "version": "1.0",
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
        "post_processor": null,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab_map, "merges": merges.iter().map(|(a, b)| vec![a, b]).collect::<Vec<_>>()}
    })
    .to_string()
}

fn main() {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let render = median_run(&repo, &["render", "--nonce", "c0ffee"], 21);
    assert_eq!(render.code, Some(0));
    println!("render (example, default cell)            {}", ms(render.wall));
    for t in TEMPLATES {
        let chat = median_run(&repo, &["render", "--nonce", "c0ffee", "--chat-template", t], 21);
        assert_eq!(chat.code, Some(0), "{}", chat.stderr);
        let ratio = chat.wall.as_secs_f64() / render.wall.as_secs_f64();
        println!(
            "render --transport chat {:<40} {} ({ratio:.2}× render; target ≤ 2×)",
            t.rsplit('/').next().unwrap(),
            ms(chat.wall)
        );
    }

    // The text: the example's prompt, line by line (repeated), to just over 10,000 tokens.
    let prompt = String::from_utf8(median_run(&repo, &["render", "--nonce", "c0ffee"], 1).stdout).unwrap();
    let json = tokenizer_json(150_000, &prompt);
    let start = Instant::now();
    let tok = HfTokenizer::from_bytes("synthetic-150k.json", json.as_bytes()).unwrap();
    let load = start.elapsed();
    let mut text = String::new();
    'fill: loop {
        for line in prompt.split_inclusive('\n') {
            if tok.count(&text).unwrap() >= 10_000 {
                break 'fill;
            }
            text.push_str(line);
        }
    }
    let tokens = tok.count(&text).unwrap();
    let mut times: Vec<Duration> = (0..21)
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(tok.count(std::hint::black_box(&text)).unwrap());
            s.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "count {tokens} tokens ({} bytes) with a 150,000-entry vocabulary: {} median after loading (target ≤ 20 ms); load {}",
        text.len(),
        ms(times[10]),
        ms(load)
    );
}
