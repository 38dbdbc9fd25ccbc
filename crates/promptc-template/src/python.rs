// Long because Python's forms of every value kind (and `json.dumps`'s options) are one table.
//! Python's text forms of template values, as Jinja2 prints them: `str(value)` when a value is
//! printed (`True`, `None`, `['a', 1]`, `{'k': 1.0}`) and `json.dumps` (transformers' `tojson`
//! filter is exactly that). A chat template that prints a list or calls `tojson` on the tools
//! must give the bytes the Python server gives; so must a project template in Jinja2 mode.

use std::fmt::Write;

use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr, Value, ValueKind};

/// A Python tuple: a sequence to templates, printed `(a, b)` (`(a,)` with one item). Jinja2
/// gives tuples where minijinja gives lists (`dictsort`, `d.items()`), and prints them so. A
/// named tuple (`groupby`'s `(grouper, list)`) also reads its items by name.
#[derive(Debug)]
pub struct Tuple(pub Vec<Value>, pub &'static [&'static str]);

impl Object for Tuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        if let Some(name) = key.as_str() {
            return self.1.iter().position(|n| *n == name).and_then(|i| self.0.get(i).cloned());
        }
        let i = key.as_i64()?;
        let i = if i < 0 { i + self.0.len() as i64 } else { i };
        self.0.get(usize::try_from(i).ok()?).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.0.len())
    }
}

/// A view of a dict (`d.keys()`, `d.values()`, `d.items()`): a sequence to templates, printed
/// as Python prints it (`dict_keys(['a', 'b'])`).
#[derive(Debug)]
pub struct View(pub &'static str, pub Vec<Value>);

impl Object for View {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.1.get(usize::try_from(key.as_i64()?).ok()?).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.1.len())
    }
}

/// A Python generator: what Jinja2's `map`, `select`, `reject`, `selectattr`, `rejectattr`,
/// `unique`, `batch`, `slice`, `items` and `reverse` (of a list) return. It yields its items,
/// but has no length, no items by index, and is true in a test whatever it yields (`{% if
/// tools | selectattr('x') %}` always holds in Jinja2); printing one is refused (Jinja2 prints
/// its address). The name is the filter that made it, for messages.
#[derive(Debug)]
pub struct Generator(pub &'static str, pub Vec<Value>);

impl Object for Generator {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.1.clone())
    }

    /// None: a generator has no length (so it is always true, as in Python).
    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        None
    }

    /// Its items as a list (`~` and string filters write it so; Jinja2 writes its address).
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&Value::from(self.1.clone()), f)
    }

    /// Undefined: a generator has no items by index and no attributes (minijinja would walk
    /// an iterable to its `n`th item).
    fn get_value(self: &Arc<Self>, _key: &Value) -> Option<Value> {
        Some(Value::UNDEFINED)
    }
}

/// The items of `value` (a list a filter made) as a [`Generator`] made by `filter`.
pub fn generator(filter: &'static str, value: Value) -> Result<Value, minijinja::Error> {
    Ok(Value::from_object(Generator(filter, value.try_iter()?.collect())))
}

/// Python's `range(start, stop, step)`: a sequence of its numbers, printed `range(0, 3)`.
#[derive(Debug)]
pub struct Range {
    /// The first number.
    pub start: i64,
    /// Where it stops (not included).
    pub stop: i64,
    /// The step (not 0).
    pub step: i64,
}

impl Range {
    /// How many numbers it holds.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        let (span, step) = (i128::from(self.stop) - i128::from(self.start), i128::from(self.step));
        if step > 0 && span > 0 {
            ((span + step - 1) / step) as usize
        } else if step < 0 && span < 0 {
            ((-span + -step - 1) / -step) as usize
        } else {
            0
        }
    }
}

impl Object for Range {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = key.as_i64()?;
        let len = self.len() as i64;
        let i = if i < 0 { i + len } else { i };
        (0..len).contains(&i).then(|| Value::from(self.start + i * self.step))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.len())
    }
}

/// A tuple value of `items`.
pub fn tuple(items: Vec<Value>) -> Value {
    Value::from_object(Tuple(items, &[]))
}

/// `str(value)` in Python: strings as they are, everything else as [`repr`].
pub fn str_of(value: &Value, out: &mut String) {
    str_of_capped(value, out, usize::MAX);
}

/// [`str_of`], stopping once `out` holds more than `cap` bytes: `false` when it did (values
/// share their parts, so a small value can print as a huge text).
pub fn str_of_capped(value: &Value, out: &mut String, cap: usize) -> bool {
    match value.kind() {
        ValueKind::Undefined => true,
        ValueKind::String => {
            out.push_str(value.as_str().unwrap_or_default());
            out.len() <= cap
        }
        _ => repr_capped(value, out, cap),
    }
}

/// `repr(value)` in Python.
pub fn repr(value: &Value, out: &mut String) {
    repr_capped(value, out, usize::MAX);
}

/// [`repr`], stopping once `out` holds more than `cap` bytes: `false` when it did.
pub fn repr_capped(value: &Value, out: &mut String, cap: usize) -> bool {
    if let Some(t) = value.downcast_object_ref::<Tuple>() {
        out.push('(');
        for (i, item) in t.0.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if !repr_capped(item, out, cap) {
                return false;
            }
        }
        out.push_str(if t.0.len() == 1 { ",)" } else { ")" });
        return out.len() <= cap;
    }
    if let Some(r) = value.downcast_object_ref::<Range>() {
        let _ = match r.step {
            1 => write!(out, "range({}, {})", r.start, r.stop),
            step => write!(out, "range({}, {}, {step})", r.start, r.stop),
        };
        return out.len() <= cap;
    }
    if let Some(v) = value.downcast_object_ref::<View>() {
        out.push_str(v.0);
        out.push_str("([");
        for (i, item) in v.1.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if !repr_capped(item, out, cap) {
                return false;
            }
        }
        out.push_str("])");
        return out.len() <= cap;
    }
    match value.kind() {
        // Jinja2's `Undefined` has no text (`str`), but its `repr` names it: `[Undefined]`.
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => number(value, out),
        ValueKind::String => str_repr(value.as_str().unwrap_or_default(), out),
        ValueKind::Seq | ValueKind::Iterable => {
            out.push('[');
            for (i, item) in value.try_iter().into_iter().flatten().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if !repr_capped(&item, out, cap) {
                    return false;
                }
            }
            out.push(']');
        }
        ValueKind::Map => {
            out.push('{');
            for (i, key) in value.try_iter().into_iter().flatten().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr(&key, out);
                out.push_str(": ");
                if !repr_capped(&value.get_item(&key).unwrap_or_default(), out, cap) {
                    return false;
                }
            }
            out.push('}');
        }
        // Bytes, plain objects, macros: minijinja's own form (no Python equivalent to match).
        _ => {
            let _ = write!(out, "{value}");
        }
    }
    out.len() <= cap
}

/// An integer as written; a float as Python's `repr(float)`.
fn number(value: &Value, out: &mut String) {
    match f64::try_from(value.clone()) {
        Ok(f) if !value.is_integer() => float_repr(f, out),
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back, in fixed notation for exponents
/// from -4 to 15 (with `.0` for whole numbers), scientific outside (`1e-05`, `1.5e+16`).
pub fn float_repr(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("nan");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f < 0.0 { "-inf" } else { "inf" });
        return;
    }
    // Rust's `{:e}` is the shortest round-trip digits: `d[.ddd]e[-]x`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if f.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        } else if point as usize >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

/// Python's `repr(str)`: single quotes unless the text holds a `'` and no `"`; backslash,
/// the quote, `\n`, `\r`, `\t` escaped; characters Python does not print shown as `\xNN`,
/// `\uNNNN` or `\UNNNNNNNN`.
pub fn str_repr(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let n = c as u32;
                let _ = match n {
                    0..=0xff => write!(out, "\\x{n:02x}"),
                    0x100..=0xffff => write!(out, "\\u{n:04x}"),
                    _ => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one character, for the characters text in prompts holds:
/// controls (Cc), format characters (Cf), separators other than the space (Zs, Zl, Zp) and
/// private use (Co) are not printable. Unassigned code points (Cn) are taken as printable:
/// telling them apart needs the Unicode database of the Python that renders, which differs
/// between versions.
fn printable(c: char) -> bool {
    !matches!(c as u32,
        0x00..=0x1f | 0x7f..=0xa0 | 0xad
        | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x1680 | 0x180e
        | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000 | 0xe000..=0xf8ff | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
}

/// How `json.dumps` is asked to write: transformers' `tojson(x, ensure_ascii=False,
/// indent=None, separators=None, sort_keys=False)`.
#[derive(Debug, Clone, Default)]
pub struct Dumps {
    /// Escape every non-ASCII character as `\uNNNN`.
    pub ensure_ascii: bool,
    /// `None`: one line; otherwise the text of one level of indentation (`indent=4` is four
    /// spaces, a string is itself).
    pub indent: Option<String>,
    /// The item and key separators (`(", ", ": ")` on one line, `(",", ": ")` indented).
    pub separators: Option<(String, String)>,
    /// Write object keys in sorted order.
    pub sort_keys: bool,
    /// Refuse a text longer than this many bytes (`None`: no limit).
    pub max_len: Option<usize>,
}

/// Why a value cannot be written as JSON (Python raises `TypeError`), or that its text would
/// pass [`Dumps::max_len`] (`TooLarge`).
#[derive(Debug)]
pub enum NotJson {
    /// Python's reason.
    Invalid(String),
    /// The text would be longer than the limit.
    TooLarge,
}

impl NotJson {
    /// The template error for it, from the filter `filter` (`tojson`).
    pub fn into_error(self, filter: &str) -> minijinja::Error {
        match self {
            NotJson::Invalid(why) => {
                minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("{filter}: {why}"))
            }
            NotJson::TooLarge => super::filters::too_large(&format!("the result of `{filter}`"), None),
        }
    }
}

impl Dumps {
    /// `json.dumps(value, …)`.
    pub fn dumps(&self, value: &Value) -> Result<String, NotJson> {
        let mut out = String::new();
        let (item, key) = match &self.separators {
            Some((i, k)) => (i.clone(), k.clone()),
            None if self.indent.is_some() => (",".to_string(), ": ".to_string()),
            None => (", ".to_string(), ": ".to_string()),
        };
        self.write(value, 0, &item, &key, &mut out)?;
        Ok(out)
    }

    fn newline(&self, level: usize, out: &mut String) {
        if let Some(unit) = &self.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(unit);
            }
        }
    }

    fn write(&self, value: &Value, level: usize, item: &str, key: &str, out: &mut String) -> Result<(), NotJson> {
        if self.max_len.is_some_and(|m| out.len() > m) {
            return Err(NotJson::TooLarge);
        }
        match value.kind() {
            ValueKind::None => out.push_str("null"),
            ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
            ValueKind::Number => match f64::try_from(value.clone()) {
                Ok(f) if !value.is_integer() => {
                    if f.is_nan() {
                        out.push_str("NaN")
                    } else if f.is_infinite() {
                        out.push_str(if f < 0.0 { "-Infinity" } else { "Infinity" })
                    } else {
                        float_repr(f, out)
                    }
                }
                _ => {
                    let _ = write!(out, "{value}");
                }
            },
            ValueKind::String => self.string(value.as_str().unwrap_or_default(), out),
            ValueKind::Seq | ValueKind::Iterable => {
                let items: Vec<Value> = value.try_iter().map_err(|e| NotJson::Invalid(e.to_string()))?.collect();
                if items.is_empty() {
                    out.push_str("[]");
                    return Ok(());
                }
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item);
                    }
                    self.newline(level + 1, out);
                    self.write(v, level + 1, item, key, out)?;
                }
                self.newline(level, out);
                out.push(']');
            }
            ValueKind::Map => {
                let mut keys: Vec<Value> = value.try_iter().map_err(|e| NotJson::Invalid(e.to_string()))?.collect();
                if keys.is_empty() {
                    out.push_str("{}");
                    return Ok(());
                }
                let mut names = Vec::with_capacity(keys.len());
                for k in &keys {
                    names.push(self.key_text(k)?);
                }
                let mut order: Vec<usize> = (0..keys.len()).collect();
                if self.sort_keys {
                    order.sort_by(|a, b| names[*a].cmp(&names[*b]));
                }
                out.push('{');
                for (n, &i) in order.iter().enumerate() {
                    if n > 0 {
                        out.push_str(item);
                    }
                    self.newline(level + 1, out);
                    self.string(&names[i], out);
                    out.push_str(key);
                    let v = value.get_item(&keys[i]).unwrap_or_default();
                    self.write(&v, level + 1, item, key, out)?;
                }
                self.newline(level, out);
                out.push('}');
                keys.clear();
            }
            ValueKind::Undefined => return Err(NotJson::Invalid("an undefined value is not JSON serializable".into())),
            kind => return Err(NotJson::Invalid(format!("a value of kind {kind} is not JSON serializable"))),
        }
        Ok(())
    }

    /// A key as `json.dumps` writes it: strings as they are; numbers, booleans and None in
    /// their JSON spelling.
    fn key_text(&self, k: &Value) -> Result<String, NotJson> {
        Ok(match k.kind() {
            ValueKind::String => k.as_str().unwrap_or_default().to_string(),
            ValueKind::None => "null".into(),
            ValueKind::Bool => (if k.is_true() { "true" } else { "false" }).into(),
            ValueKind::Number => {
                let mut s = String::new();
                self.write(k, 0, "", "", &mut s)?;
                s
            }
            kind => return Err(NotJson::Invalid(format!("keys must be str, int, float, bool or None, not {kind}"))),
        })
    }

    /// A JSON string as Python writes it.
    fn string(&self, s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c if self.ensure_ascii && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

/// markupsafe's `escape`: `&`, `<`, `>`, `'` and `"` as entities.
pub fn markup_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
    out
}

/// Python's `str.find`, `rfind`, `index` and `rindex` (`method`) of `s` with `args` (`sub`,
/// optional `start` and `end`, as a slice takes them): positions count characters, never bytes
/// (pycompat's gave byte offsets, wrong past the first non-ASCII character, and took no
/// `start` or `end`). `index` and `rindex` fail where the others give -1.
pub fn str_find(s: &str, method: &str, args: &[Value]) -> Result<Value, minijinja::Error> {
    use minijinja::{Error, ErrorKind};
    let bad = |why: &str| Error::new(ErrorKind::InvalidOperation, format!("str.{method}: {why}"));
    let (sub, bounds) = match args {
        [sub, rest @ ..] if rest.len() <= 2 => {
            (sub.as_str().ok_or_else(|| bad("the substring must be a string"))?, rest)
        }
        _ => return Err(bad("takes a substring and an optional start and end")),
    };
    let bound = |i: usize| -> Result<Option<i64>, Error> {
        match bounds.get(i) {
            None => Ok(None),
            Some(v) if v.is_none() => Ok(None),
            Some(v) => i64::try_from(v.clone()).map(Some).map_err(|_| bad("start and end must be integers or none")),
        }
    };
    // Byte offset of every character boundary, so a character index maps to a byte offset.
    let offsets: Vec<usize> = s.char_indices().map(|(i, _)| i).chain(std::iter::once(s.len())).collect();
    let len = (offsets.len() - 1) as i64;
    let adjust = |b: Option<i64>, none: i64| match b {
        None => none,
        Some(b) if b < 0 => (b + len).max(0),
        Some(b) => b,
    };
    // As CPython: the start is not clamped (past the end, nothing is found, even ''), the end is.
    let (start, end) = (adjust(bound(0)?, 0), adjust(bound(1)?, len).min(len));
    let found = if start > len || end < start {
        None
    } else {
        let (from, to) = (offsets[start as usize], offsets[end as usize]);
        let hay = &s[from..to];
        let at = if method.starts_with('r') { hay.rfind(sub) } else { hay.find(sub) };
        at.map(|at| start + hay[..at].chars().count() as i64)
    };
    match (found, method) {
        (Some(i), _) => Ok(Value::from(i)),
        (None, "index" | "rindex") => Err(bad("substring not found")),
        (None, _) => Ok(Value::from(-1)),
    }
}
