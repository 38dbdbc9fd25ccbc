//! Size-checked versions of the built-in filters that can turn a small input into a huge
//! output (`replace` with an empty pattern, `indent` by a billion columns, `join` with a huge
//! separator, `format` with a huge width, `batch` and `slice` with a huge count, chained
//! `pprint`s), or work on a huge input (`sort`, `lines`). Each computes the size of
//! its result first and fails with a clear message past the cap, then defers to minijinja's own
//! filter, so rendering is unchanged below the cap.

use minijinja::value::{Kwargs, Rest, StringInput, Value};
use minijinja::{Environment, Error, ErrorKind, State};

/// The error for a result that would pass the value limit: of kind `ValueTooLarge`, as the
/// engine's own, so one message and one help cover every way a template can build too much.
/// `what` names the result ("the result of `replace`"), `size` is its bytes where known.
pub(crate) fn too_large(what: &str, size: Option<u128>) -> Error {
    let detail = match size {
        Some(n) => format!("{what} would be {n} bytes"),
        None => format!("{what} would pass it"),
    };
    Error::new(ErrorKind::ValueTooLarge, detail)
}

/// `Ok` when a result of `size` bytes fits in `cap`; otherwise [`too_large`], naming `filter`.
pub(crate) fn check(filter: &str, size: u128, cap: usize) -> Result<(), Error> {
    if size > cap as u128 {
        return Err(too_large(&format!("the result of `{filter}`"), Some(size)));
    }
    Ok(())
}

/// The display length of a value as `join` and `format` write it.
fn text_len(v: &Value) -> u128 {
    match v.as_str() {
        Some(s) => s.len() as u128,
        None => v.to_string().len() as u128,
    }
}

/// Register the checked filters in `env`, with results capped at `cap` bytes.
pub fn register(env: &mut Environment<'static>, cap: usize) {
    env.add_filter("replace", move |state: &State, value: StringInput, from: StringInput, to: StringInput| {
        let (s, f, t) = (value.as_str(), from.as_str(), to.as_str());
        let hits = if f.is_empty() { s.chars().count() as u128 + 1 } else { s.matches(f).count() as u128 };
        check("replace", s.len() as u128 - hits * f.len() as u128 + hits * t.len() as u128, cap)?;
        minijinja::filters::replace(state, value, from, to)
    });
    env.add_filter(
        "indent",
        move |state: &State,
              value: StringInput,
              width: Option<usize>,
              first: Option<bool>,
              blank: Option<bool>,
              kwargs: Kwargs|
              -> Result<Value, Error> {
            let w = match width {
                Some(w) => w,
                None => kwargs.get::<Option<usize>>("width")?.unwrap_or(4),
            };
            let lines = value.as_str().matches('\n').count() as u128 + 1;
            check("indent", value.as_str().len() as u128 + lines * w as u128, cap)?;
            minijinja::filters::indent(state, value, width, first, blank, kwargs)
        },
    );
    env.add_filter("join", move |state: &State, value: &Value, joiner: Option<StringInput>| {
        let sep = joiner.as_ref().map_or(0, |j| j.as_str().len()) as u128;
        let mut size: u128 = 0;
        if let Ok(items) = value.try_iter() {
            for (i, item) in items.enumerate() {
                size += text_len(&item) + if i > 0 { sep } else { 0 };
                check("join", size, cap)?;
            }
        }
        minijinja::filters::join(state, value, joiner)
    });
    env.add_filter("format", move |state: &State, format: &Value, args: Rest<Value>| {
        let f = format.as_str().unwrap_or_default();
        let size = (f.len() as u128 + args.iter().map(text_len).sum::<u128>()).saturating_add(printf_widths(f));
        check("format", size, cap)?;
        minijinja::filters::format(state, format, args)
    });
    // The most items a list these filters build may have: a sixteenth of the byte cap (131,072
    // for the default 2 MiB), since each item costs at least that much memory.
    let max_items = (cap / 16).max(1);
    env.add_filter("batch", move |state: &State, value: Value, count: usize, fill: Option<Value>| {
        batch(state, value, count, fill, max_items)
    });
    env.add_filter("slice", move |state: &State, value: Value, count: usize, fill: Option<Value>| {
        slice(state, value, count, fill, max_items)
    });
    env.add_filter("sort", move |state: &State, value: Value, kwargs: Kwargs| {
        check_items("sort", value.len().unwrap_or(0), max_items)?;
        minijinja::filters::sort(state, value, kwargs)
    });
    env.add_filter("lines", move |state: &State, value: &Value| {
        // A line per newline: the input's size bounds the list.
        if let Some(s) = value.as_str() {
            check("lines", s.len() as u128, cap)?;
        }
        minijinja::filters::lines(state, value)
    });
    env.add_filter("pprint", move |state: &State, value: &Value| {
        // A string's repr at most doubles it (every character escaped) plus its quotes: chained
        // `pprint`s would double it again and again.
        if let Some(s) = value.as_str() {
            check("pprint", 2 * s.len() as u128 + 2, cap)?;
        }
        let out = minijinja::filters::pprint(state, value)?;
        check("pprint", out.len() as u128, cap)?;
        Ok::<_, Error>(out)
    });
}

/// Refuse a list of more than `max` items.
pub(crate) fn check_items(filter: &str, items: usize, max: usize) -> Result<(), Error> {
    if items > max {
        return Err(Error::new(
            ErrorKind::ValueTooLarge,
            format!(
                "`{filter}` would build a list of {items} items, {max} at most (each item counts at least 16 bytes)"
            ),
        ));
    }
    Ok(())
}

/// Python-style methods on strings, maps and lists (`d.items()`, `s.startswith("x")`,
/// `s.split()`, …: minijinja-contrib's `pycompat`), with the three that can amplify text —
/// `str.replace`, `str.join` and `str.format` — size-checked first like the filters above.
pub fn register_methods(env: &mut Environment<'static>, cap: usize) {
    env.set_unknown_method_callback(move |state: &State, value: &Value, method: &str, args: &[Value]| {
        call_method(state, value, method, args, cap)
    });
}

/// minijinja's `batch`, with at most `max_items` items made.
pub(super) fn batch(
    state: &State,
    value: Value,
    count: usize,
    fill: Option<Value>,
    max_items: usize,
) -> Result<Value, Error> {
    // A lazy sequence (`range(5)`, a `map`) does not know its length: collected first, so the
    // count below can be bounded by it.
    let value = match value.len() {
        None if !value.is_undefined() => Value::from(value.try_iter()?.collect::<Vec<_>>()),
        _ => value,
    };
    // Padding the last batch creates `count` copies of the fill value; without a fill, a count
    // past the length is one batch of everything (minijinja would reserve `count`).
    let count = match fill {
        Some(_) => {
            check_items("batch", count, max_items)?;
            count
        }
        None => count.min(value.len().unwrap_or(count).max(1)),
    };
    minijinja::filters::batch(state, value, count, fill)
}

/// minijinja's `slice`, with at most `max_items` slices made.
pub(super) fn slice(
    state: &State,
    value: Value,
    count: usize,
    fill: Option<Value>,
    max_items: usize,
) -> Result<Value, Error> {
    // `count` slices are built, however short the input.
    check_items("slice", count, max_items)?;
    minijinja::filters::slice(state, value, count, fill)
}

/// `value.method(*args)` as [`register_methods`] calls it: size-checked, then pycompat's.
pub(crate) fn call_method(
    state: &State,
    value: &Value,
    method: &str,
    args: &[Value],
    cap: usize,
) -> Result<Value, Error> {
    if let Some(s) = value.as_str() {
        if matches!(method, "find" | "rfind" | "index" | "rindex") {
            return super::python::str_find(s, method, args);
        }
        check_method(s, method, args, cap)?;
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

/// Refuse a string method call whose result would pass `cap` bytes.
fn check_method(s: &str, method: &str, args: &[Value], cap: usize) -> Result<(), Error> {
    let arg = |i: usize| args.get(i).map_or(0, text_len);
    let size = match method {
        "replace" => {
            let (from, to) = (args.first().and_then(Value::as_str).unwrap_or_default(), arg(1));
            let hits = if from.is_empty() { s.chars().count() as u128 + 1 } else { s.matches(from).count() as u128 };
            s.len() as u128 - hits * from.len() as u128 + hits * to
        }
        "join" => {
            let mut size: u128 = 0;
            if let Some(Ok(items)) = args.first().map(Value::try_iter) {
                for (i, item) in items.enumerate() {
                    size = size.saturating_add(text_len(&item)).saturating_add(if i > 0 { s.len() as u128 } else { 0 });
                    check("str.join", size, cap)?;
                }
            }
            size
        }
        // Each `{…}` field emits at most the longest argument, padded to at most the widths
        // its spec names.
        "format" => {
            let longest = args.iter().map(text_len).max().unwrap_or(0);
            let fields = s.matches('{').count() as u128;
            // Saturating: a spec's digit runs are the template's own (a run of 40 digits is 10^40).
            (s.len() as u128).saturating_add(fields.saturating_mul(longest)).saturating_add(digit_runs(s))
        }
        _ => return Ok(()),
    };
    check(&format!("str.{method}"), size, cap)
}

/// The sum of every run of digits in `f` (`{:>10}{:05}` gives 15): an upper bound on the
/// widths a `str.format` spec asks for.
fn digit_runs(f: &str) -> u128 {
    let (mut total, mut n) = (0u128, 0u128);
    for c in f.chars() {
        match c.to_digit(10) {
            Some(d) => n = n.saturating_mul(10).saturating_add(u128::from(d)),
            None => {
                total = total.saturating_add(n);
                n = 0;
            }
        }
    }
    total.saturating_add(n)
}

/// The sum of every width and precision a printf-style format string asks for (`%10.3f`
/// asks for 13): an upper bound on the padding `format` adds.
fn printf_widths(f: &str) -> u128 {
    let mut total: u128 = 0;
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        let mut n: u128 = 0;
        while let Some(&d) = chars.peek() {
            match d {
                '0'..='9' => {
                    n = n.saturating_mul(10).saturating_add(u128::from(d as u8 - b'0'));
                    chars.next();
                }
                '.' | '-' | '+' | ' ' | '#' => {
                    total = total.saturating_add(n);
                    n = 0;
                    chars.next();
                }
                _ => break,
            }
        }
        total = total.saturating_add(n);
    }
    total
}

#[cfg(test)]
#[path = "filters_tests.rs"]
mod tests;
