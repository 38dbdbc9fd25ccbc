//! Lines no item owns, named by the section they change: the one section of their cell the
//! deltas say changed, or of several, the one whose byte change is theirs.

use std::collections::{BTreeMap, BTreeSet};

use super::{account_of, stem, Place};
use crate::diff::Delta;

/// The most bytes a section's change and its lines' may differ by and still be the same: the
/// blank line that parts it from the section before.
const SEPARATOR_BYTES: i64 = 2;

/// The one section lines no item owns are a change of: in every prompt they are in, the one
/// section of its cell the deltas say changed, or, of several, the one whose byte change is the
/// lines' own (give or take the separator before it). `None` when no one section is.
pub(super) fn one_section(places: &[Place], deltas: &[Delta]) -> Option<String> {
    // Each file's byte change by these lines (a place's text is its removed and added lines).
    let mut bytes: BTreeMap<&str, i64> = BTreeMap::new();
    for Place { file: f, text, .. } in places {
        let (removed, added) = text.split_once('\0').unwrap_or((text, ""));
        *bytes.entry(f.as_str()).or_default() += added.len() as i64 - removed.len() as i64;
    }
    let mut common: Option<BTreeSet<&str>> = None;
    for (f, change) in bytes {
        if !f.ends_with(".prompt.md") {
            return None;
        }
        let s = stem(f);
        let changed: Vec<&Delta> =
            deltas.iter().filter(|d| account_of(&d.cell, s) && d.item.starts_with("section ")).collect();
        fn names<'d>(ds: &[&'d Delta]) -> BTreeSet<&'d str> {
            ds.iter().filter_map(|d| d.item.strip_prefix("section ")).collect()
        }
        let all = names(&changed);
        let here = if all.len() > 1 {
            let close: Vec<&Delta> =
                changed.into_iter().filter(|d| (d.bytes_delta() - change).abs() <= SEPARATOR_BYTES).collect();
            names(&close)
        } else {
            all
        };
        common = Some(match common {
            None => here,
            Some(c) => c.intersection(&here).copied().collect(),
        });
    }
    match common?.into_iter().collect::<Vec<_>>().as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}
