//! A `tokenizer.json` is untrusted input (a project's `chat_templates: {tokenizer:}` comes with
//! a pull request): before the `tokenizers` crate builds anything from it, its shape is checked
//! against bounds every published tokenizer keeps, so no file can make the build or a count run
//! for minutes or take gigabytes. What is bounded, and why:
//!
//! - **Sizes.** Vocabulary entries, merges and added tokens are counted; the longest vocabulary
//!   piece and added token are measured (a 30 MB added token took 4.8 GB to build).
//! - **Normalizers and pre-tokenizers.** Nesting depth and how many there are in all (30 chained
//!   `Replace` normalizers that each double the text); a `Replace` whose content is long, and the
//!   product of the growth factors of every `Replace` (content over pattern length), which bounds
//!   how much the normalized text can grow.
//! - **Regexes** (`Split` and `Replace` patterns, run by Oniguruma, a backtracking engine): a
//!   quantified group that itself holds a quantifier (`(a+)+`, the classic catastrophic shape) and
//!   backreferences are refused; published tokenizers use neither (their look-aheads, such as
//!   `\s+(?!\S)`, hold no nested quantifier and are allowed).
//!
//! Each refusal names the JSON path of what it refuses and the bound.

use serde_json::Value;

/// Vocabulary entries at most (Gemma 3: 262,144).
pub const MAX_VOCAB: usize = 400_000;
/// BPE merges at most (Gemma 3's `tokenizer.json`: about 514,000; Llama 3: 280,000).
pub const MAX_MERGES: usize = 600_000;
/// Added tokens at most.
pub const MAX_ADDED_TOKENS: usize = 100_000;
/// Bytes of one vocabulary piece or added token at most (published ones: under 200).
pub const MAX_PIECE_BYTES: usize = 1024;
/// How deep normalizers and pre-tokenizers nest (`Sequence` in `Sequence`) at most.
pub const MAX_NESTING: usize = 4;
/// Normalizers, or pre-tokenizers, in all at most.
pub const MAX_CHAIN: usize = 16;
/// Bytes of a `Replace` normalizer's content at most.
pub const MAX_REPLACEMENT_BYTES: usize = 64;
/// How many times the normalizers together may multiply a text's length at most (`▁` for a
/// space is 3).
pub const MAX_GROWTH: usize = 16;
/// Bytes of one regex at most (Llama 3's pre-tokenizer pattern: about 110).
pub const MAX_REGEX_BYTES: usize = 1024;

/// Refuse a tokenizer file whose shape passes a bound; the reason names where in the file.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("not a tokenizer.json: {e}"))?;
    let model = &v["model"];
    if let Some(vocab) = model.get("vocab") {
        let pieces: Vec<&str> = match vocab {
            Value::Object(m) => m.keys().map(String::as_str).collect(),
            // Unigram: `[[piece, score], …]`.
            Value::Array(a) => a.iter().filter_map(|e| e.get(0).and_then(Value::as_str)).collect(),
            _ => Vec::new(),
        };
        count("model.vocab", pieces.len(), MAX_VOCAB, "entries")?;
        if let Some(p) = pieces.iter().find(|p| p.len() > MAX_PIECE_BYTES) {
            return Err(too_long("a piece of model.vocab", p.len()));
        }
    }
    if let Some(merges) = model.get("merges").and_then(Value::as_array) {
        count("model.merges", merges.len(), MAX_MERGES, "merges")?;
    }
    if let Some(added) = v.get("added_tokens").and_then(Value::as_array) {
        count("added_tokens", added.len(), MAX_ADDED_TOKENS, "tokens")?;
        for (i, t) in added.iter().enumerate() {
            let content = t.get("content").and_then(Value::as_str).unwrap_or("");
            if content.len() > MAX_PIECE_BYTES {
                return Err(too_long(&format!("added_tokens[{i}].content"), content.len()));
            }
        }
    }
    let mut walk = Walk { count: 0, growth: 1, what: "normalizer" };
    walk.node(&v["normalizer"], "normalizer", 0)?;
    let mut walk = Walk { count: 0, growth: 1, what: "pre_tokenizer" };
    walk.node(&v["pre_tokenizer"], "pre_tokenizer", 0)?;
    Ok(())
}

fn count(path: &str, n: usize, max: usize, what: &str) -> Result<(), String> {
    match n > max {
        true => Err(format!("{path} has {n} {what}, more than the {max} a tokenizer may have")),
        false => Ok(()),
    }
}

fn too_long(what: &str, n: usize) -> String {
    format!("{what} is {n} bytes long, more than the {MAX_PIECE_BYTES} a token may have")
}

/// The normalizers or pre-tokenizers of a file, walked: how many, and the growth so far.
struct Walk {
    count: usize,
    growth: usize,
    what: &'static str,
}

impl Walk {
    fn node(&mut self, v: &Value, path: &str, depth: usize) -> Result<(), String> {
        if v.is_null() {
            return Ok(());
        }
        if depth > MAX_NESTING {
            return Err(format!("{path}: {}s nest deeper than {MAX_NESTING} levels", self.what));
        }
        self.count += 1;
        if self.count > MAX_CHAIN {
            return Err(format!("{path}: more than {MAX_CHAIN} {}s in all", self.what));
        }
        if let Some(pattern) = v.get("pattern") {
            if let Some(re) = pattern.get("Regex").and_then(Value::as_str) {
                regex(re).map_err(|why| format!("{path}.pattern.Regex: {why}"))?;
            }
        }
        if v.get("type").and_then(Value::as_str) == Some("Replace") {
            let content = v.get("content").and_then(Value::as_str).unwrap_or("");
            if content.len() > MAX_REPLACEMENT_BYTES {
                return Err(format!(
                    "{path}.content is {} bytes long, more than the {MAX_REPLACEMENT_BYTES} a replacement may have",
                    content.len()
                ));
            }
            // A regex pattern matches at least one character (an empty match is not replaced).
            let from = v["pattern"].get("String").and_then(Value::as_str).map_or(1, |s| s.len().max(1));
            self.growth = self.growth.saturating_mul(content.len().div_ceil(from).max(1));
            if self.growth > MAX_GROWTH {
                return Err(format!(
                    "{path}: the normalizers can make a text {} times longer, more than the {MAX_GROWTH} allowed",
                    self.growth
                ));
            }
        }
        for key in ["normalizers", "pretokenizers"] {
            if let Some(list) = v.get(key).and_then(Value::as_array) {
                for (i, child) in list.iter().enumerate() {
                    self.node(child, &format!("{path}.{key}[{i}]"), depth + 1)?;
                }
            }
        }
        Ok(())
    }
}

/// Refuse a regex Oniguruma could backtrack on without end: longer than [`MAX_REGEX_BYTES`], a
/// backreference, or a quantified group that holds a quantifier itself.
fn regex(re: &str) -> Result<(), String> {
    if re.len() > MAX_REGEX_BYTES {
        return Err(format!("the regex is {} bytes long, more than the {MAX_REGEX_BYTES} allowed", re.len()));
    }
    // Whether each open group holds a quantifier, or an alternation, so far.
    let mut groups: Vec<(bool, bool)> = vec![(false, false)];
    let chars: Vec<char> = re.chars().collect();
    let mut i = 0;
    let quantifier = |c: Option<&char>| matches!(c, Some('*' | '+' | '{'));
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if matches!(chars.get(i + 1), Some('1'..='9' | 'k' | 'g')) {
                    return Err("it holds a backreference, which a tokenizer never needs".into());
                }
                i += 2;
                continue;
            }
            '[' => {
                // A class: skip to its end (`]` first in it is a member; escapes skip a char).
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
            }
            '(' => groups.push((false, false)),
            ')' => {
                let (held, alternates) = groups.pop().unwrap_or_default();
                let repeated = quantifier(chars.get(i + 1));
                if repeated && (held || alternates) {
                    return Err("a repeated group holds a repetition or an alternation itself (as `(a+)+` or \
                                `(a|a)*`), which can backtrack without end"
                        .into());
                }
                if let Some(outer) = groups.last_mut() {
                    outer.0 |= held || repeated;
                }
            }
            '*' | '+' | '{' => {
                if let Some(g) = groups.last_mut() {
                    g.0 = true;
                }
            }
            '|' => {
                if let Some(g) = groups.last_mut() {
                    g.1 = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
#[path = "tokenizer_guard_tests.rs"]
mod tests;
