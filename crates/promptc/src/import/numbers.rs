//! Numbers an import cannot carry: a promptc project holds a number as a 64-bit integer or a
//! double (its YAML reader, the model and every projection), so an integer beyond 64 bits or a
//! decimal with more digits than a double keeps would come back as another number
//! (`123456789012345678901234567890` as `1.2345678901234568e+29`). Each such number is a
//! problem at its own line and column, never a silent change.
//!
//! Only the value counts, not its spelling: `1.50` comes back as `1.5` and `1e2` as `100.0`,
//! the same numbers. A number is carried when the text promptc writes back for it (serde_json's
//! shortest round-trip form) is exactly the decimal the input wrote.

use serde_json::{Number, Value};

use crate::diagnostic::{Diagnostic, Label, Position};

use super::Problem;

/// A problem, located at the number itself, for every number of `value` (parsed from `text`)
/// that promptc would write back as another number. `root_is_list`: the input is the tools
/// list itself, which paths call `tools`.
pub(super) fn uncarried(text: &str, source: &str, value: &Value, root_is_list: bool) -> Vec<Problem> {
    let mut parsed = Vec::new();
    walk(value, if root_is_list { "tools" } else { "" }, &mut parsed);
    let tokens = tokens(text);
    // The parser keeps objects' keys in input order (`preserve_order`) and refuses a key given
    // twice, so the numbers of the tree and of the text pair up one to one.
    if tokens.len() != parsed.len() {
        return Vec::new();
    }
    tokens
        .into_iter()
        .zip(parsed)
        .filter_map(|((start, end), (path, number))| {
            let written = &text[start..end];
            let back = number.to_string();
            if same_number(written, &back) {
                return None;
            }
            let d = Diagnostic::error(format!(
                "the number `{}` cannot be carried exactly: promptc holds numbers as 64-bit integers or doubles, and \
                 would send `{back}` (at `{path}`)",
                crate::diagnostic::excerpt(written, 60)
            ))
            .with_label(Label::at(source, text, Position::from_byte_range(text, start, end)))
            .with_help(
                "integers must lie between -9223372036854775808 and 18446744073709551615, and decimals have at most \
                 17 significant digits: write the number the provider should receive (a string where a schema \
                 allows one), or leave the keyword out",
            );
            Some((path, d))
        })
        .collect()
}

/// Every number of `v` with its JSON path, in document order.
fn walk<'a>(v: &'a Value, path: &str, out: &mut Vec<(String, &'a Number)>) {
    match v {
        Value::Number(n) => out.push((path.to_string(), n)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                walk(x, &p, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// The byte range of every number token of valid JSON `text`, in document order.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                out.push((start, i));
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether two JSON numbers (or Rust's `{:e}` forms) are the same decimal number.
pub(super) fn same_number(a: &str, b: &str) -> bool {
    decimal(a) == decimal(b)
}

/// A number's exact decimal value: sign, significant digits without leading or trailing zeros,
/// and the power of ten they are multiplied by (zero: no digits, positive).
fn decimal(s: &str) -> (bool, String, i64) {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    // An exponent too large for an i64 is clamped: such a number is out of a double's range
    // either way, and compares unequal to what comes back.
    let exponent: i64 = match exponent.strip_prefix('-') {
        Some(digits) => digits.parse::<i64>().map_or(i64::MIN / 2, |e| -e),
        None => exponent.trim_start_matches('+').parse::<i64>().unwrap_or(if exponent.is_empty() {
            0
        } else {
            i64::MAX / 2
        }),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return (false, String::new(), 0);
    }
    let scale = exponent.saturating_sub(frac.len() as i64).saturating_add((significant.len() - trimmed.len()) as i64);
    (negative, trimmed.to_string(), scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_decimals_compare_equal_whatever_their_spelling() {
        for (a, b) in
            [("1.50", "1.5"), ("1e2", "100"), ("100", "1.0e2"), ("-0", "0"), ("0.0", "0e0"), ("25E-2", "0.25")]
        {
            assert!(same_number(a, b), "{a} and {b}");
        }
        assert!(!same_number("5e-324", "4.9e-324"));
        assert!(!same_number("123456789012345678901234567890", "1.2345678901234568e29"));
        assert!(!same_number("1.000000000000000000000000001", "1.0"));
        assert!(!same_number("1e-99999999999999999999999", "0.0"), "a huge exponent is clamped, not a panic");
    }

    #[test]
    fn tokens_skip_strings_and_keys() {
        let text = r#"{"a-1": [1, -2.5e3], "s": "x\"9", "b": {"c": 0}}"#;
        let found: Vec<&str> = tokens(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["1", "-2.5e3", "0"]);
    }
}
