//! Another session's values: the runtime values of a cell with everything that changes from one
//! session to the next changed — the nonce of the untrusted-content delimiters (random per live
//! session) and every `dynamic: true` variable. Compiling a cell again with them and comparing
//! the two requests byte for byte (`compile::session`) *measures* what provider caching can
//! reuse, instead of trusting an analysis of what templates read.
//!
//! Each value is changed at its first character where it is printed (a string gains a leading
//! character, a number its sign, a boolean its value, the nonce another first character), so
//! the two requests part where the value starts: where any other session's request could part.

use serde_json::Value;

use crate::model::Project;

use super::runtime::Runtime;

/// How much of another session a second compile changes. A template may fail on a value it
/// never sees in practice (an index read from a negated number, a branch a flipped boolean
/// opens), so a cell is measured with the most a template accepts, and says which it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variation {
    /// The nonce and every dynamic variable: strings, numbers and booleans, at any depth.
    Everything,
    /// The nonce and the strings of dynamic variables (numbers and booleans kept).
    Strings,
    /// The nonce only.
    Nonce,
}

impl Variation {
    /// From the most a second compile changes to the least.
    pub const ALL: [Variation; 3] = [Variation::Everything, Variation::Strings, Variation::Nonce];

    /// In words, for a note.
    pub fn describe(self) -> &'static str {
        match self {
            Variation::Everything => "another nonce and other values of every dynamic variable",
            Variation::Strings => "another nonce and other strings in the dynamic variables",
            Variation::Nonce => "another nonce",
        }
    }
}

/// `runtime` as another session would have it, changed as `variation` says.
pub fn other_session(project: &Project, runtime: &Runtime, variation: Variation) -> Runtime {
    let mut other = runtime.clone();
    other.nonce = other_nonce(&runtime.nonce);
    if variation != Variation::Nonce {
        for (name, value) in other.variables.iter_mut() {
            if project.variables.get(name).is_some_and(|v| v.dynamic) {
                vary(value, variation);
            }
        }
    }
    other
}

/// A valid nonce that differs from `nonce` in its first character.
fn other_nonce(nonce: &str) -> String {
    let derived = crate::model::untrusted::derived_nonce(&["another session", nonce]);
    let first = if nonce.starts_with('z') { 'y' } else { 'z' };
    format!("{first}{}", &derived[1..])
}

/// `value` changed at the first character of every leaf it prints.
fn vary(value: &mut Value, variation: Variation) {
    match value {
        Value::String(s) => {
            let mark = if s.starts_with('~') { '^' } else { '~' };
            s.insert(0, mark);
        }
        Value::Number(n) if variation == Variation::Everything => *value = negated(n),
        Value::Bool(b) if variation == Variation::Everything => *b = !*b,
        Value::Array(items) => items.iter_mut().for_each(|v| vary(v, variation)),
        Value::Object(map) => map.values_mut().for_each(|v| vary(v, variation)),
        Value::Null if variation == Variation::Everything => *value = Value::String("~".into()),
        Value::Number(_) | Value::Bool(_) | Value::Null => {}
    }
}

/// A number printed with another first character: its negation (`-5` for `5`, `5` for `-5`),
/// and `1` for zero.
fn negated(n: &serde_json::Number) -> Value {
    if let Some(i) = n.as_i64() {
        return Value::from(if i == 0 { 1 } else { i.checked_neg().unwrap_or(i64::MAX) });
    }
    if let Some(u) = n.as_u64() {
        // Larger than i64::MAX: its negation still fits an i128 but not JSON's integers here.
        return Value::from(-(u as f64));
    }
    match n.as_f64() {
        Some(0.0) => Value::from(1.0),
        Some(f) => serde_json::Number::from_f64(-f).map_or(Value::from(1), Value::Number),
        None => Value::from(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_leaf_differs_at_its_first_character() {
        let mut v = json!({"path": "/srv", "n": 7, "zero": 0, "on": true, "list": ["~x", 2.5], "none": null});
        vary(&mut v, Variation::Everything);
        assert_eq!(v, json!({"path": "~/srv", "n": -7, "zero": 1, "on": false, "list": ["^~x", -2.5], "none": "~"}));
        let mut v = json!({"path": "/srv", "n": 7, "on": true});
        vary(&mut v, Variation::Strings);
        assert_eq!(v, json!({"path": "~/srv", "n": 7, "on": true}), "only strings change");
    }

    #[test]
    fn another_nonce_is_valid_and_differs_from_the_first_character() {
        for n in ["ab12cd34", "zzzz", "Z9a0"] {
            let o = other_nonce(n);
            assert!(crate::model::untrusted::valid_nonce(&o), "{o}");
            assert_ne!(o.chars().next(), n.chars().next(), "{n} -> {o}");
            assert_eq!(o, other_nonce(n), "the same nonce gives the same other nonce");
        }
    }
}
