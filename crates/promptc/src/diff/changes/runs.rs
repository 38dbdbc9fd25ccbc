//! A file's line changes cut into runs that each belong to one change, and a file rebuilt with
//! only some of them taken ([`apply`]).
//!
//! A region of the diff (lines removed, lines added, side by side) is cut where the items owning
//! its lines change (a parameter added after another one: the other's closing line gained a
//! comma, then the new parameter's lines). What carries no change of its own goes with its
//! neighbour: a line whose only edit is its trailing comma, lines of brackets and commas only
//! (the `},` a new parameter needs after the one before it), the tool's own lines (`Parameters:
//! none` becoming `Parameters:`) beside a change of the same tool, and lines no item owns. Taking
//! one run then leaves a file that reads as the old one with that change made.

use std::hash::Hash;
use std::ops::Range;

use similar::{DiffOp, TextDiff};

/// Lines of a file's old and new text that one change replaces (indexes of lines).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Run {
    /// The old text's lines it removes.
    pub(crate) old: Range<usize>,
    /// The new text's lines it adds.
    pub(crate) new: Range<usize>,
}

/// The regions of the diff of `old` and `new` lines, in order; lines replaced one for one are a
/// region each (a tool's description and its parameters' sit on adjacent lines in some formats).
pub(crate) fn regions(old: &[&str], new: &[&str]) -> Vec<Run> {
    let d = TextDiff::from_slices(old, new);
    let mut out = Vec::new();
    for op in d.ops() {
        let (a, b) = (op.old_range(), op.new_range());
        match *op {
            DiffOp::Equal { .. } => {}
            DiffOp::Replace { old_len, new_len, .. } if old_len == new_len => {
                out.extend(a.zip(b).map(|(i, j)| Run { old: i..i + 1, new: j..j + 1 }));
            }
            _ => out.push(Run { old: a, new: b }),
        }
    }
    out
}

/// What a cut needs to know of a line's owner.
pub(crate) trait Owned: Clone + Eq + Hash {
    /// Whether a run of this owner only supports another run of `other`'s (a tool's own lines
    /// beside a change to one of its parts).
    fn supports(&self, other: &Self) -> bool;
}

/// A region cut into runs by the owners of its lines (`old` and `new` of the whole file): each
/// run with its owner, `None` when no item owns its lines.
pub(crate) fn cut<O: Owned>(
    region: &Run,
    old: (&[&str], &[Option<O>]),
    new: (&[&str], &[Option<O>]),
) -> Vec<(Run, Option<O>)> {
    let (ol, nl) = (&old.1[region.old.clone()], &new.1[region.new.clone()]);
    let mut distinct: Vec<&O> = Vec::new();
    for o in ol.iter().chain(nl).flatten() {
        if !distinct.contains(&o) {
            distinct.push(o);
        }
    }
    let whole = |o: Option<O>| vec![(region.clone(), o)];
    match distinct.len() {
        0 => return whole(None),
        1 => return whole(Some(distinct[0].clone())),
        _ => {}
    }
    let (Some(og), Some(ng)) = (groups(ol, region.old.start), groups(nl, region.new.start)) else {
        return whole(None);
    };
    let Some(mut pieces) = pair(&og, &ng, region) else { return whole(None) };
    // Pieces that carry no change of their own join a neighbour, the next one first.
    loop {
        let glue = (0..pieces.len()).find(|&k| {
            let (run, o) = &pieces[k];
            let comma_only = run.old.len() == run.new.len()
                && run.old.clone().zip(run.new.clone()).all(|(i, j)| same_but_comma(old.0[i], new.0[j]));
            let brackets_only =
                run.old.clone().all(|i| punctuation(old.0[i])) && run.new.clone().all(|j| punctuation(new.0[j]));
            comma_only || brackets_only || pieces.iter().any(|(_, p)| p != o && o.supports(p))
        });
        let Some(k) = glue.filter(|_| pieces.len() > 1) else { break };
        let (run, _) = pieces.remove(k);
        let into = if k < pieces.len() { k } else { k - 1 };
        let (target, _) = &mut pieces[into];
        target.old = run.old.start.min(target.old.start)..run.old.end.max(target.old.end);
        target.new = run.new.start.min(target.new.start)..run.new.end.max(target.new.end);
    }
    pieces.into_iter().map(|(r, o)| (r, Some(o))).collect()
}

/// Whether a line is only closing or opening brackets and commas (`},`): a line that carries
/// no text of its own, only the structure around the lines beside it.
fn punctuation(line: &str) -> bool {
    line.chars().all(|c| c.is_whitespace() || "{}[],".contains(c))
}

fn same_but_comma(a: &str, b: &str) -> bool {
    let bare = |s: &str| s.trim_end_matches(['\n', '\r']).trim_end_matches(',').to_string();
    bare(a) == bare(b)
}

/// A side's lines grouped by owner, lines no item owns going with the owned line before them (or
/// after, at the start); `None` when an owner's lines are not together, or no line is owned.
fn groups<O: Owned>(lines: &[Option<O>], start: usize) -> Option<Vec<(O, Range<usize>)>> {
    if lines.is_empty() {
        return Some(Vec::new());
    }
    let first = lines.iter().flatten().next()?.clone();
    let mut out: Vec<(O, Range<usize>)> = Vec::new();
    for (i, o) in lines.iter().enumerate() {
        let at = start + i;
        match (o, out.last_mut()) {
            (None, Some((_, r))) => r.end = at + 1,
            (None, None) => out.push((first.clone(), at..at + 1)),
            (Some(o), Some((last, r))) if last == o => r.end = at + 1,
            (Some(o), _) => {
                if out.iter().any(|(x, _)| x == o) {
                    return None;
                }
                out.push((o.clone(), at..at + 1));
            }
        }
    }
    Some(out)
}

/// The two sides' groups paired by owner, in order: an owner on one side only is a run that
/// removes or adds lines. `None` when their orders cross.
fn pair<O: Owned>(og: &[(O, Range<usize>)], ng: &[(O, Range<usize>)], region: &Run) -> Option<Vec<(Run, O)>> {
    let (mut i, mut j) = (0, 0);
    let (mut at_old, mut at_new) = (region.old.start, region.new.start);
    let mut out = Vec::new();
    while i < og.len() || j < ng.len() {
        let later_new = |o: &O| ng[j..].iter().any(|(x, _)| x == o);
        let later_old = |o: &O| og[i..].iter().any(|(x, _)| x == o);
        match (og.get(i), ng.get(j)) {
            (Some((a, ra)), Some((b, rb))) if a == b => {
                out.push((Run { old: ra.clone(), new: rb.clone() }, a.clone()));
                (at_old, at_new, i, j) = (ra.end, rb.end, i + 1, j + 1);
            }
            (Some((a, ra)), _) if !later_new(a) => {
                out.push((Run { old: ra.clone(), new: at_new..at_new }, a.clone()));
                (at_old, i) = (ra.end, i + 1);
            }
            (_, Some((b, rb))) if !later_old(b) => {
                out.push((Run { old: at_old..at_old, new: rb.clone() }, b.clone()));
                (at_new, j) = (rb.end, j + 1);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The old text with the runs in `taken` made (each replacing its old lines with its new ones):
/// a file of which some changes are accepted and the others kept.
pub(crate) fn apply(old: &str, new: &str, taken: &[Run]) -> String {
    let (o, n): (Vec<&str>, Vec<&str>) = (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    let mut taken: Vec<&Run> = taken.iter().collect();
    taken.sort_by_key(|r| (r.old.start, r.old.end));
    let mut out = String::with_capacity(new.len().max(old.len()));
    let mut at = 0;
    for r in taken {
        if r.old.start < at || r.old.end > o.len() || r.new.end > n.len() {
            continue;
        }
        o[at..r.old.start].iter().for_each(|l| out.push_str(l));
        n[r.new.clone()].iter().for_each(|l| out.push_str(l));
        at = r.old.end;
    }
    o[at..].iter().for_each(|l| out.push_str(l));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Owned for &'static str {
        fn supports(&self, other: &Self) -> bool {
            *self == "tool" && *other != "tool"
        }
    }

    fn lines(t: &str) -> Vec<&str> {
        t.split_inclusive('\n').collect()
    }

    #[test]
    fn apply_takes_the_chosen_runs_only() {
        let (old, new) = ("a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n");
        let runs = regions(&lines(old), &lines(new));
        assert_eq!(runs.len(), 2);
        assert_eq!(apply(old, new, &runs), new);
        assert_eq!(apply(old, new, &[]), old);
        assert_eq!(apply(old, new, &runs[1..]), "a\nb\nc\nd\nE\n");
        assert_eq!(apply("a\n", "a\nb\n", &regions(&lines("a\n"), &lines("a\nb\n"))), "a\nb\n");
    }

    /// A parameter added after another: the other's comma goes with the new parameter, so
    /// taking it alone leaves valid JSON.
    #[test]
    fn a_comma_goes_with_the_lines_that_need_it() {
        let old = "{\n  \"a\": 1\n}\n";
        let new = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let (ol, nl) = (lines(old), lines(new));
        let owners = |n: usize, b: bool| -> Vec<Option<&'static str>> {
            (0..n)
                .map(|i| {
                    if i == 0 || i == n - 1 {
                        None
                    } else if b && i == 2 {
                        Some("b")
                    } else {
                        Some("a")
                    }
                })
                .collect()
        };
        let (oo, no) = (owners(3, false), owners(4, true));
        let region = &regions(&ol, &nl)[0];
        let runs = cut(region, (&ol, &oo), (&nl, &no));
        assert_eq!(runs, [(Run { old: 1..2, new: 1..3 }, Some("b"))]);
        assert_eq!(apply(old, new, &[runs[0].0.clone()]), new);
    }

    #[test]
    fn owners_whose_lines_cross_leave_the_region_whole() {
        let (ol, nl) = (lines("x\ny\n"), lines("p\nq\nr\n"));
        let (oo, no) = (vec![Some("a"), Some("b")], vec![Some("b"), Some("a"), Some("b")]);
        let region = &regions(&ol, &nl)[0];
        assert_eq!(cut(region, (&ol, &oo), (&nl, &no)), [(region.clone(), None)]);
    }
}
