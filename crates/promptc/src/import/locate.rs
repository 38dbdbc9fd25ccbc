//! Where a JSON path (`tools[3].input_schema.properties.mode.anyOf`) is in the input's text,
//! so an import error points at the line and column like every other promptc diagnostic.
//! The text has already parsed as JSON; this only walks it.

/// One step of a path.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of `path`; `None` when a key holds `.` or `[` (the path is then ambiguous).
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() && out.is_empty() {
            return None;
        }
        if !key.is_empty() {
            out.push(Step::Key(key.to_string()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            out.push(Step::Index(r[..close].parse().ok()?));
            rest = &r[close + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// One past the closing quote of the string opening at `i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// One past the end of the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{') | Some(b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                j += 1;
            }
            j
        }
    }
}

/// The byte range to underline for `path` in `text` (a key's name, or an element's start);
/// `root_is_list` when the input is the tools list itself, which paths call `tools`.
pub fn locate(text: &str, path: &str, root_is_list: bool) -> Option<(usize, usize)> {
    let mut steps = steps(path)?;
    if root_is_list && steps.first() == Some(&Step::Key("tools".into())) {
        steps.remove(0);
    }
    let b = text.as_bytes();
    let mut at = ws(b, 0);
    let mut span = (at, at + 1);
    for step in &steps {
        match (step, b.get(at)) {
            (Step::Key(k), Some(b'{')) => {
                let mut i = ws(b, at + 1);
                loop {
                    if b.get(i) != Some(&b'"') {
                        return None;
                    }
                    let end = string_end(b, i);
                    let name: String = serde_json::from_str(text.get(i..end)?).ok()?;
                    let v = ws(b, ws(b, end) + 1);
                    if &name == k {
                        span = (i, end);
                        at = v;
                        break;
                    }
                    i = ws(b, value_end(b, v));
                    if b.get(i) != Some(&b',') {
                        return None;
                    }
                    i = ws(b, i + 1);
                }
            }
            (Step::Index(n), Some(b'[')) => {
                let mut i = ws(b, at + 1);
                for _ in 0..*n {
                    i = ws(b, value_end(b, i));
                    if b.get(i) != Some(&b',') {
                        return None;
                    }
                    i = ws(b, i + 1);
                }
                span = (i, i + 1);
                at = i;
            }
            _ => return None,
        }
    }
    Some(span)
}

#[cfg(test)]
#[path = "locate_tests.rs"]
mod tests;
