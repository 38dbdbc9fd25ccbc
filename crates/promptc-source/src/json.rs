//! The one way promptc writes JSON for people and files: two-space indent, declaration order
//! kept, a trailing newline.

use serde::Serialize;

/// Serialise `v` as pretty JSON with a trailing newline.
pub fn to_pretty_json<T: Serialize + ?Sized>(v: &T) -> String {
    // ok: promptc serialises only plain data (no maps with non-string keys, no failing Serialize impls)
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// The version of every JSON document promptc prints (`render`, `report`, `diff`, `check`,
/// `verify` with `--format json`, and errors in those formats); the shapes are described by
/// the JSON Schemas under `schema/`. A change that removes or retypes a field bumps it.
pub const OUTPUT_FORMAT: u64 = 1;

/// `v` (an object) as a printed JSON document: `"format"` first, then its own fields.
pub fn document(v: serde_json::Value) -> String {
    to_pretty_json(&document_value(v))
}

/// The value [`document`] prints (the HTML report embeds it, so its figures are the JSON's).
pub fn document_value(v: serde_json::Value) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert("format".into(), serde_json::Value::from(OUTPUT_FORMAT));
    match v {
        serde_json::Value::Object(m) => out.extend(m),
        other => {
            out.insert("value".into(), other);
        }
    }
    serde_json::Value::Object(out)
}
