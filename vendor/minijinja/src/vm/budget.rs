//! PATCH(promptc): the value size limit (`Environment::set_value_size_limit`).
//!
//! Every value the VM builds is measured before it is allocated where its size
//! follows from its operands (concatenation, repetition, literals), and right after
//! otherwise (filter, function and method results); captured output is bounded as it
//! is written (see `Output`).  Building a value also consumes fuel per byte.

use std::fmt::{self, Write};

use crate::error::{Error, ErrorKind};
use crate::value::{ObjectRepr, Value, ValueRepr};
use crate::vm::state::State;

/// Bytes of a value built per unit of fuel consumed.
pub const BYTES_PER_FUEL: usize = 16;

/// What one item of a list or map costs besides its own size.
pub const ITEM_COST: usize = std::mem::size_of::<Value>();

/// The error for a value of `size` bytes (`None`: more than could be counted) built
/// against `limit`.
pub(crate) fn too_large(size: Option<usize>, limit: usize) -> Error {
    let size = match size {
        Some(n) => format!("{n} bytes"),
        None => "more bytes".to_string(),
    };
    Error::new(
        ErrorKind::ValueTooLarge,
        format!("the value would be {size}, more than the limit of {limit} bytes"),
    )
}

/// Checks `size` against the environment's limit, adds it to what the render has built
/// (checked against the build limit), and consumes its fuel.
pub(crate) fn charge(state: &State, size: Option<usize>) -> Result<(), Error> {
    let Some(limit) = state.env().value_size_limit() else {
        return Ok(());
    };
    match size {
        Some(n) if n <= limit => {
            if let Some(build_limit) = state.env().build_limit() {
                let built = state
                    .built
                    .fetch_add(n, std::sync::atomic::Ordering::Relaxed)
                    .saturating_add(n);
                if built > build_limit {
                    return Err(Error::new(
                        ErrorKind::BuildLimit,
                        format!(
                            "the values this render built add up to {built} bytes, more than the limit of {build_limit} bytes"
                        ),
                    ));
                }
            }
            #[cfg(feature = "fuel")]
            if let Some(ref tracker) = state.fuel_tracker {
                return tracker.consume((n / BYTES_PER_FUEL) as u64);
            }
            Ok(())
        }
        _ => Err(too_large(size, limit)),
    }
}

/// Consumes the fuel for walking `bytes` bytes of a value that already exists (no limit
/// check: the value passed it when it was built, or came from the context).
pub(crate) fn charge_walk(state: &State, bytes: usize) -> Result<(), Error> {
    if state.env().value_size_limit().is_none() {
        return Ok(());
    }
    #[cfg(feature = "fuel")]
    if let Some(ref tracker) = state.fuel_tracker {
        return tracker.consume((bytes / BYTES_PER_FUEL) as u64);
    }
    let _ = bytes;
    Ok(())
}

/// The bytes of work slicing `v` with `step` costs before its result is copied: a string
/// or bytes value is walked whole (to count its characters, or check it is ASCII), cheaply
/// (`BYTES_PER_FUEL` per unit) when the result is then copied in one piece (an ASCII string
/// or bytes, step 1), else one character or byte at a time, which costs a unit of fuel per
/// byte (`BYTES_PER_FUEL` times as much). A list sliced forwards costs nothing here (its
/// result is charged as built); another sequence, or a list sliced backwards, its length.
pub(crate) fn slice_walk(v: &Value, step: &Value) -> usize {
    let forward = step.is_none() || step.as_i64().is_some_and(|s| s > 0);
    // PATCH(promptc): a sequence of known length is sliced into a list (`ops::slice`): a
    // list is indexed (its result is charged as built), another sequence walked once, up to
    // its whole length.
    if let ValueRepr::Object(ref o) = v.0 {
        return match (o.repr(), o.enumerator_len()) {
            (ObjectRepr::Seq, Some(_)) if forward => 0,
            (ObjectRepr::Seq | ObjectRepr::Iterable, Some(n)) => n.saturating_mul(ITEM_COST),
            _ => 0,
        };
    }
    let size = own_size(v);
    let copied = step.is_none() || step.as_i64() == Some(1);
    let whole = match v.0 {
        ValueRepr::Bytes(_) => copied,
        _ => copied && v.as_str().is_some_and(str::is_ascii),
    };
    if whole {
        size
    } else {
        size.saturating_mul(BYTES_PER_FUEL)
    }
}

/// PATCH(promptc): refuses to store `value` in the namespace `ns` when `value` is `ns` or
/// holds it, through lists, maps and other namespaces at any depth: a namespace that holds
/// itself has no end, and printing, comparing or hashing it recursed until the stack
/// overflowed (`{% set ns.a = ns %}{{ ns }}`; found by the `template` fuzz target). Jinja2
/// accepts the cycle (Python's `repr` stops at it); here it is an error at the assignment.
/// Each list or map is walked once (a value that shares its parts costs their number, not
/// the number of paths through them), and the walk consumes fuel as building it did.
pub(crate) fn refuse_cycle(state: &State, value: &Value, ns: &Value) -> Result<(), Error> {
    let Some(target) = ns.as_object() else {
        return Ok(());
    };
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![value.clone()];
    let mut walked = 0usize;
    while let Some(v) = todo.pop() {
        let ValueRepr::Object(ref o) = v.0 else {
            continue;
        };
        if o.is_same_object(target) {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "a namespace cannot hold itself (the value assigned is, or contains, the namespace)",
            ));
        }
        if !seen.insert(o.addr()) {
            continue;
        }
        match o.repr() {
            ObjectRepr::Seq => todo.extend(o.try_iter().into_iter().flatten()),
            ObjectRepr::Map => {
                for (key, value) in o.try_iter_pairs().into_iter().flatten() {
                    todo.push(key);
                    todo.push(value);
                }
            }
            _ => {}
        }
        walked += 1;
        if walked % 4096 == 0 {
            charge_walk(state, 4096 * ITEM_COST)?;
        }
    }
    charge_walk(state, (walked % 4096) * ITEM_COST)
}

/// The bytes of a string or bytes value itself (0 for anything else).
pub(crate) fn own_size(v: &Value) -> usize {
    match v.0 {
        ValueRepr::Bytes(ref b) => b.len(),
        _ => v.as_str().map_or(0, str::len),
    }
}

/// The size of a string or bytes value, or of a list or map counting its items
/// (`ITEM_COST` each) but not what they hold.
pub(crate) fn shallow_size(v: &Value) -> usize {
    match v.0 {
        ValueRepr::Object(ref o) if matches!(o.repr(), ObjectRepr::Seq | ObjectRepr::Map) => {
            o.enumerator_len().unwrap_or(0).saturating_mul(ITEM_COST)
        }
        _ => own_size(v),
    }
}

/// The size of `v` with what its lists and maps hold, `None` once it passes `limit`
/// (so the walk costs at most `limit / ITEM_COST` steps).  Lazy iterables are not
/// walked (that could consume them): they count as one item.
pub(crate) fn deep_size(v: &Value, limit: usize) -> Option<usize> {
    let mut total = 0usize;
    let mut todo = vec![v.clone()];
    while let Some(v) = todo.pop() {
        total = total.checked_add(own_size(&v))?;
        if total > limit {
            return None;
        }
        if let ValueRepr::Object(ref o) = v.0 {
            match o.repr() {
                ObjectRepr::Seq => {
                    for item in o.try_iter().into_iter().flatten() {
                        total = total.checked_add(ITEM_COST)?;
                        if total > limit {
                            return None;
                        }
                        todo.push(item);
                    }
                }
                ObjectRepr::Map => {
                    for (key, value) in o.try_iter_pairs().into_iter().flatten() {
                        total = total.checked_add(2 * ITEM_COST)?;
                        if total > limit {
                            return None;
                        }
                        todo.push(key);
                        todo.push(value);
                    }
                }
                _ => {}
            }
        }
    }
    Some(total)
}

/// The sum of the deep sizes of `values`, `None` once it passes `limit`.
pub(crate) fn deep_size_of_all<'a>(
    values: impl IntoIterator<Item = &'a Value>,
    limit: usize,
) -> Option<usize> {
    let mut total = 0usize;
    for v in values {
        total = total.checked_add(ITEM_COST + deep_size(v, limit)?)?;
        if total > limit {
            return None;
        }
    }
    Some(total)
}

/// A string buffer that refuses to grow past `limit` bytes.
pub(crate) struct Bounded {
    pub(crate) buf: String,
    limit: usize,
    /// Whether a write was refused for passing the limit (not some other error).
    refused: bool,
}

impl Bounded {
    pub(crate) fn new(limit: usize) -> Bounded {
        Bounded {
            buf: String::new(),
            limit,
            refused: false,
        }
    }
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.buf.len().saturating_add(s.len()) > self.limit {
            self.refused = true;
            return Err(fmt::Error);
        }
        self.buf.push_str(s);
        Ok(())
    }
}

/// `State::write_bounded`: `f` writing into a `Bounded` string (unbounded without a
/// limit), refused with `ValueTooLarge` past the limit; fuel for what it wrote.
pub(crate) fn write_bounded(
    state: &State,
    f: impl FnOnce(&mut dyn Write) -> fmt::Result,
) -> Result<String, Error> {
    let limit = state.env().value_size_limit();
    let mut out = Bounded::new(limit.unwrap_or(usize::MAX));
    if f(&mut out).is_err() {
        return Err(match limit {
            Some(limit) if out.refused => too_large(None, limit),
            _ => Error::new(ErrorKind::WriteFailure, "formatting failed"),
        });
    }
    charge(state, Some(out.buf.len()))?;
    Ok(out.buf)
}

/// Checks `size` against the environment's limit (no fuel: for a running total).
pub(crate) fn check_limit(state: &State, size: usize) -> Result<(), Error> {
    match state.env().value_size_limit() {
        Some(limit) if size > limit => Err(too_large(Some(size), limit)),
        _ => Ok(()),
    }
}

/// The size of a list of `items` values each holding `bytes` (a split, lines): the
/// same measure as `deep_size`.
pub(crate) fn list_size(items: usize, bytes: usize) -> usize {
    items.saturating_mul(ITEM_COST).saturating_add(bytes)
}

/// `left ~ right` (both printed), refused before the result passes `limit`.
pub(crate) fn string_concat(left: &Value, right: &Value, limit: usize) -> Result<Value, Error> {
    if let (Some(a), Some(b)) = (left.as_str(), right.as_str()) {
        let size = a.len().saturating_add(b.len());
        if size > limit {
            return Err(too_large(Some(size), limit));
        }
        return Ok(Value::from([a, b].concat()));
    }
    let mut out = Bounded::new(limit);
    match write!(out, "{left}{right}") {
        Ok(()) => Ok(Value::from(out.buf)),
        Err(_) => Err(too_large(None, limit)),
    }
}

/// The items of a sequence or iterable, collected while their deep size stays
/// within `limit` (`None` past it); `Err` for a value that does not iterate.
pub(crate) fn collect_items(
    v: &Value,
    limit: usize,
    total: &mut usize,
    into: &mut Vec<Value>,
) -> Result<bool, Error> {
    for item in v.try_iter()? {
        match deep_size(&item, limit) {
            Some(n) => {
                *total = total.saturating_add(ITEM_COST + n);
                if *total > limit {
                    return Ok(false);
                }
            }
            None => return Ok(false),
        }
        into.push(item);
    }
    Ok(true)
}

/// `lhs + rhs` for two sequences or iterables, materialized (upstream keeps it lazy,
/// which lets `l = l + l` describe 2^64 items in 64 steps), within `limit`.
pub(crate) fn seq_concat(lhs: &Value, rhs: &Value, limit: usize) -> Result<(Value, usize), Error> {
    let mut items = Vec::new();
    let mut total = 0;
    if !collect_items(lhs, limit, &mut total, &mut items)?
        || !collect_items(rhs, limit, &mut total, &mut items)?
    {
        return Err(too_large(None, limit));
    }
    Ok((Value::from(items), total))
}

/// `seq * n` materialized (upstream keeps it lazy), refused before the result passes
/// `limit`. Returns the result, its size and the size of `seq`, which was walked whatever
/// `n` is (`range(30000) * 0` in a loop walked 30,000 items per turn and built nothing, so
/// charging the result alone let it run for seconds within its fuel).
pub(crate) fn seq_repeat(
    seq: &Value,
    n: &Value,
    limit: usize,
) -> Result<(Value, usize, usize), Error> {
    let n = n.as_usize().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            "sequences and iterables can only be multiplied with integers",
        )
    })?;
    let mut items = Vec::new();
    let mut total = 0;
    if !collect_items(seq, limit, &mut total, &mut items)? {
        return Err(too_large(None, limit));
    }
    let size = total.checked_mul(n).filter(|s| *s <= limit);
    let Some(size) = size else {
        return Err(too_large(total.checked_mul(n), limit));
    };
    if items.is_empty() || n == 0 {
        return Ok((Value::from(Vec::<Value>::new()), 0, total));
    }
    let mut out = Vec::with_capacity(items.len() * n);
    for _ in 0..n {
        out.extend(items.iter().cloned());
    }
    Ok((Value::from(out), size, total))
}

/// Whether `+` and `*` treat `v` as a sequence.
fn is_seq(v: &Value) -> bool {
    matches!(v.0, ValueRepr::Object(ref o) if matches!(o.repr(), ObjectRepr::Seq | ObjectRepr::Iterable))
}

/// `lhs + rhs` within the value size limit (the VM calls this only with one set).
pub(crate) fn add(state: &State, lhs: &Value, rhs: &Value) -> Result<Value, Error> {
    let limit = state.env().value_size_limit().unwrap_or(usize::MAX);
    if is_seq(lhs) && is_seq(rhs) {
        let (rv, size) = seq_concat(lhs, rhs, limit)?;
        charge(state, Some(size))?;
        return Ok(rv);
    }
    if let (Some(a), Some(b)) = (lhs.as_str(), rhs.as_str()) {
        charge(state, a.len().checked_add(b.len()))?;
    }
    crate::value::ops::add(lhs, rhs)
}

/// `lhs * rhs` within the value size limit (the VM calls this only with one set).
pub(crate) fn mul(state: &State, lhs: &Value, rhs: &Value) -> Result<Value, Error> {
    let limit = state.env().value_size_limit().unwrap_or(usize::MAX);
    if let Some((s, n)) = lhs
        .as_str()
        .map(|s| (s, rhs))
        .or_else(|| rhs.as_str().map(|s| (s, lhs)))
    {
        if let Some(n) = n.as_usize() {
            charge(state, s.len().checked_mul(n))?;
        }
    } else if is_seq(lhs) || is_seq(rhs) {
        let (seq, n) = if is_seq(lhs) { (lhs, rhs) } else { (rhs, lhs) };
        let (rv, size, walked) = seq_repeat(seq, n, limit)?;
        charge_walk(state, walked)?;
        charge(state, Some(size))?;
        return Ok(rv);
    }
    crate::value::ops::mul(lhs, rhs)
}
