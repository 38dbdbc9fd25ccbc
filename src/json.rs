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
