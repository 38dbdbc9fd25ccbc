// Long because: the one home of Jinja2's semantics; its filters are short and share Python's printing.
//! Jinja2 3.1's semantics where minijinja's differ, for projects with `templates: {compat:
//! jinja2}`: values printed in Python's forms (`True`, `None`, `['a', 1]`), Jinja2's `tojson`
//! (`htmlsafe_json_dumps`: keys sorted, `<`, `>`, `&`, `'` escaped), and the builtin filters
//! minijinja lacks or spells differently (`center`, `truncate` with positional arguments,
//! `wordwrap` as Python's `textwrap`, `wordcount`, `filesizeformat`, `striptags`,
//! `forceescape`, `sum(attribute=, start=)`, `string`). Each filter that can grow text checks
//! its result's size first, like those in `filters`.

use minijinja::value::{Enumerator, Kwargs, Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

use super::python::{self, Dumps};

/// Arguments given by position or by name, in the order a Python signature lists `names`.
struct Args {
    values: Vec<Option<Value>>,
}

impl Args {
    fn new(filter: &str, args: Vec<Value>, names: &[&str]) -> Result<Args, Error> {
        let mut positional = args;
        let kwargs = match positional.last() {
            Some(last) if last.is_kwargs() => Some(Kwargs::try_from(positional.pop().unwrap_or_default())?),
            _ => None,
        };
        if positional.len() > names.len() {
            return Err(Error::new(
                ErrorKind::TooManyArguments,
                format!("`{filter}` takes at most {} arguments", names.len()),
            ));
        }
        let mut values: Vec<Option<Value>> = positional.into_iter().map(Some).collect();
        values.resize(names.len(), None);
        if let Some(kw) = kwargs {
            for (i, name) in names.iter().enumerate() {
                if let Some(v) = kw.get::<Option<Value>>(name)? {
                    if values[i].is_some() {
                        return Err(Error::new(
                            ErrorKind::InvalidOperation,
                            format!("`{filter}` got `{name}` twice, by position and by name"),
                        ));
                    }
                    values[i] = Some(v);
                }
            }
            kw.assert_all_used()?;
        }
        Ok(Args { values })
    }

    /// The argument at `i`, when given and not None.
    fn get(&self, i: usize) -> Option<&Value> {
        self.values.get(i).and_then(Option::as_ref).filter(|v| !v.is_none())
    }

    fn int(&self, i: usize, default: i64) -> Result<i64, Error> {
        match self.get(i) {
            None => Ok(default),
            Some(v) => v.as_i64().ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "expected an integer")),
        }
    }

    fn flag(&self, i: usize, default: bool) -> bool {
        self.get(i).map_or(default, Value::is_true)
    }

    fn text(&self, i: usize, default: &str) -> String {
        self.get(i).map_or_else(|| default.to_string(), str_of)
    }
}

/// `str(value)` as Python writes it (for arguments: small by nature, and every result that
/// can grow is checked).
fn str_of(v: &Value) -> String {
    let mut s = String::new();
    python::str_of(v, &mut s);
    s
}

/// `str(value)`, refused past `cap` bytes: a value made of shared parts (`[a, a, a, a]` nested)
/// can print as far more text than it holds.
fn str_capped(what: &str, v: &Value, cap: usize) -> Result<String, Error> {
    let mut s = String::new();
    if !python::str_of_capped(v, &mut s, cap) {
        return Err(super::filters::too_large(what, None));
    }
    Ok(s)
}

/// Jinja2's semantics that chat templates share with `compat: jinja2` projects (transformers
/// renders with Jinja2): none is not iterable (a loop over it fails, as `'NoneType' object is
/// not iterable`; `none is iterable` and `none is sequence` are false), `{% include %}` scoped
/// as Jinja2 scopes it (a `set` in the included file stays there; `without context` hides the
/// including template's values), and every value written as Python's `str` writes it wherever
/// text is made of it (`~`, string filters, `join`), not only when printed: `['a', None]`,
/// never minijinja's `["a", none]`. The engine's side is in the patched minijinja
/// (vendor/PATCHES.md, items 26–28); text past `cap` bytes is refused.
pub fn register_semantics(env: &mut Environment<'static>, cap: usize) {
    env.set_none_iterable(false);
    env.set_include_scoping(true);
    env.set_display_callback(move |value, f| display(value, f, cap));
    // Jinja2's `sequence`: anything with a length and items (strings, dicts and undefined too).
    env.add_test("sequence", |v: &Value| {
        matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Undefined)
    });
    // Jinja2's `iterable`: `iter(v)` works (undefined iterates as empty; None does not).
    env.add_test("iterable", |v: &Value| {
        v.is_undefined()
            || (!matches!(v.kind(), ValueKind::None | ValueKind::Number | ValueKind::Bool) && v.try_iter().is_ok())
    });
}

/// A value's text as Python's `str` gives it, for the values whose text minijinja writes
/// otherwise (floats, lists, dicts, tuples, ranges, views); `None` leaves the rest to minijinja
/// (strings, integers, `True`, `None` are already Python's). A macro is a mapping of its
/// attributes that writes itself as `<macro NAME>`: left as it is.
fn display(value: &Value, f: &mut std::fmt::Formatter<'_>, cap: usize) -> Option<std::fmt::Result> {
    match value.kind() {
        ValueKind::Number | ValueKind::Seq | ValueKind::Iterable => {}
        ValueKind::Map if !value.as_object().is_some_and(|o| matches!(o.enumerate(), Enumerator::Str(_))) => {}
        _ => return None,
    }
    let mut s = String::new();
    if !python::str_of_capped(value, &mut s, cap) {
        return Some(Err(std::fmt::Error));
    }
    Some(f.write_str(&s))
}

/// Register Jinja2's printing and filters in `env`, with results capped at `cap` bytes.
pub fn register(env: &mut Environment<'static>, cap: usize) {
    register_semantics(env, cap);
    env.set_formatter(move |out, _state, value| {
        if let Some(g) = value.downcast_object_ref::<python::Generator>() {
            let why = "it prints as `<generator object … at 0x…>`, an address that changes every run";
            return Err(generator_error(g, "printing", why));
        }
        let s = str_capped("printing this value", value, cap)?;
        out.write_str(&s).map_err(Error::from)
    });
    env.set_unknown_method_callback(move |state: &State, value: &Value, method: &str, args: &[Value]| {
        // `d.keys()`, `d.values()`, `d.items()` are views in Python (the items tuples), printed
        // `dict_keys([…])`.
        if args.is_empty() && value.kind() == ValueKind::Map {
            let view = |name: &'static str, items: Vec<Value>| Ok(Value::from_object(python::View(name, items)));
            match method {
                "keys" => return view("dict_keys", value.try_iter()?.collect()),
                "values" => {
                    return view(
                        "dict_values",
                        value.try_iter()?.map(|k| value.get_item(&k).unwrap_or_default()).collect(),
                    )
                }
                "items" => {
                    return view("dict_items", retuple(minijinja::filters::items(value)?)?.try_iter()?.collect())
                }
                _ => {}
            }
        }
        // `s.format(…)` with plain fields (`{}`, `{0}`, `{name}`, `!s`, `!r`, no format spec):
        // values in Python's forms; with a spec, pycompat's formatting.
        if let (Some(s), "format") = (value.as_str(), method) {
            if let Some(text) = simple_format(s, args) {
                let text = text.map_err(|why| Error::new(ErrorKind::InvalidOperation, format!("str.format: {why}")))?;
                super::filters::check("str.format", text.len() as u128, cap)?;
                return Ok(Value::from(text));
            }
        }
        if let (Some(s), true) = (value.as_str(), args.is_empty()) {
            match method {
                "title" => return Ok(Value::from(py_title(s))),
                "capitalize" => return Ok(Value::from(py_capitalize(s))),
                "islower" => return Ok(Value::from(cased(s, char::is_lowercase, char::is_uppercase))),
                "isupper" => return Ok(Value::from(cased(s, char::is_uppercase, char::is_lowercase))),
                // Python's are false on an empty string (pycompat's, `all` over no characters,
                // were true).
                "isalpha" | "isalnum" | "isdigit" | "isnumeric" if s.is_empty() => return Ok(Value::from(false)),
                "isspace" => return Ok(Value::from(!s.is_empty() && s.chars().all(py_space))),
                _ => {}
            }
        }
        super::filters::call_method(state, value, method, args, cap)
    });
    env.add_function("cycler", |items: Rest<Value>| -> Result<Value, Error> {
        if items.0.is_empty() {
            return Err(Error::new(ErrorKind::InvalidOperation, "cycler needs at least one value"));
        }
        Ok(Value::from_object(Cycler { items: items.0, pos: std::sync::atomic::AtomicUsize::new(0) }))
    });
    // Python's `range`: printed `range(0, 3)`; at most 100,000 numbers, as Jinja2's sandbox and
    // minijinja allow.
    env.add_function("range", |a: i64, b: Option<i64>, step: Option<i64>| -> Result<Value, Error> {
        let (start, stop) = match b {
            Some(b) => (a, b),
            None => (0, a),
        };
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(Error::new(ErrorKind::InvalidOperation, "range() arg 3 must not be zero"));
        }
        let r = python::Range { start, stop, step };
        if r.len() > 100_000 {
            return Err(Error::new(ErrorKind::InvalidOperation, "range has too many elements"));
        }
        Ok(Value::from_object(r))
    });
    env.add_function("joiner", minijinja_contrib::globals::joiner);
    // Functions, cyclers and the like are plain objects; a macro is a map that renders as
    // `<macro NAME>`.
    env.add_test("callable", |v: &Value| {
        v.kind() == ValueKind::Plain
            || (v.kind() == ValueKind::Map && v.as_object().is_some() && v.to_string().starts_with("<macro "))
    });
    // Python's `isinstance(v, numbers.Number)`: booleans are numbers.
    env.add_test("number", |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool));
    // Jinja2's are `str(value).islower()` / `.isupper()`: some cased character, none of the
    // other case (minijinja's: every character in the case, so `'' is lower` and not `'k=1'`).
    env.add_test("lower", |v: &Value| cased(&str_of(v), char::is_lowercase, char::is_uppercase));
    env.add_test("upper", |v: &Value| cased(&str_of(v), char::is_uppercase, char::is_lowercase));
    env.add_filter("string", move |v: &Value| str_capped("the result of `string`", v, cap));
    // Jinja2's `format`: `value % args` (or `% kwargs`), Python's printf-style formatting.
    env.add_filter("format", move |v: &Value, args: Rest<Value>| -> Result<Value, Error> {
        let mut positional = args.0;
        let kwargs = match positional.last() {
            Some(last) if last.is_kwargs() => positional.pop(),
            _ => None,
        };
        if kwargs.is_some() && !positional.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "can't handle positional and keyword arguments at the same time",
            ));
        }
        // Jinja2: `soft_str(value) % (kwargs or args)`.
        let text = str_of(v);
        match kwargs {
            Some(map) => super::printf::percent(&text, &map, cap, "format"),
            None => super::printf::percent(&text, &Value::from(positional), cap, "format"),
        }
    });
    // `'%s: %d' % (name, n)`: Python's printf-style formatting, as the `format` filter.
    env.set_string_modulo_callback(move |_state, text, rhs| super::printf::percent(text, rhs, cap, "`%` formatting"));
    env.add_filter("title", |v: &Value| jinja2_title(&str_of(v)));
    env.add_filter("capitalize", |v: &Value| py_capitalize(&str_of(v)));
    env.add_filter("indent", move |v: &Value, args: Rest<Value>| {
        let a = Args::new("indent", args.0, &["width", "first", "blank"])?;
        let s = str_of(v);
        let unit = match a.get(0) {
            Some(w) if w.kind() == ValueKind::String => w.as_str().unwrap_or_default().to_string(),
            Some(w) => " ".repeat(usize::try_from(w.as_i64().unwrap_or(4)).unwrap_or(0).min(cap + 1)),
            None => "    ".to_string(),
        };
        let lines = s.matches('\n').count() as u128 + 2;
        super::filters::check("indent", s.len() as u128 + lines * unit.len() as u128, cap)?;
        Ok::<_, Error>(indent(&s, &unit, a.flag(1, false), a.flag(2, false)))
    });
    env.add_filter("tojson", move |v: &Value, args: Rest<Value>| tojson(v, args, cap));
    // Jinja2's `sort`, `dictsort` and `unique` compare strings lower-cased with Python's full case
    // mapping unless `case_sensitive`, and sort stably (equal items keep their order).
    let max_items = (cap / 16).max(1);
    env.add_filter("sort", move |v: &Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = Args::new("sort", args.0, &["reverse", "case_sensitive", "attribute"])?;
        let items: Vec<Value> = v.try_iter()?.collect();
        super::filters::check_items("sort", items.len(), max_items)?;
        let keys = items.iter().map(|i| sort_key(i, a.get(2), a.flag(1, false))).collect::<Result<Vec<_>, _>>()?;
        Ok(Value::from(stable_order(&keys, a.flag(0, false)).into_iter().map(|i| items[i].clone()).collect::<Vec<_>>()))
    });
    env.add_filter("dictsort", move |v: &Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = Args::new("dictsort", args.0, &["case_sensitive", "by", "reverse"])?;
        if v.kind() != ValueKind::Map {
            return Err(Error::new(ErrorKind::InvalidOperation, "dictsort needs a mapping"));
        }
        let pairs: Vec<(Value, Value)> =
            v.try_iter()?.map(|k| (k.clone(), v.get_item(&k).unwrap_or_default())).collect();
        super::filters::check_items("dictsort", pairs.len(), max_items)?;
        let pos = match a.text(1, "key").as_str() {
            "key" => 0,
            "value" => 1,
            _ => {
                return Err(Error::new(ErrorKind::InvalidOperation, "You can only sort by either \"key\" or \"value\""))
            }
        };
        let keys: Vec<Vec<Value>> =
            pairs.iter().map(|p| vec![fold_case(if pos == 0 { &p.0 } else { &p.1 }, a.flag(0, false))]).collect();
        Ok(Value::from(
            stable_order(&keys, a.flag(2, false))
                .into_iter()
                .map(|i| python::tuple(vec![pairs[i].0.clone(), pairs[i].1.clone()]))
                .collect::<Vec<_>>(),
        ))
    });
    env.add_filter("unique", move |v: &Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = Args::new("unique", args.0, &["case_sensitive", "attribute"])?;
        let mut seen: Vec<Vec<Value>> = Vec::new();
        let mut out = Vec::new();
        for item in v.try_iter()? {
            let key = sort_key(&item, a.get(1), a.flag(0, false))?;
            if !seen.contains(&key) {
                super::filters::check_items("unique", seen.len() + 1, max_items)?;
                seen.push(key);
                out.push(item);
            }
        }
        Ok(Value::from_object(python::Generator("unique", out)))
    });
    env.add_filter("items", |v: &Value| python::generator("items", retuple(minijinja::filters::items(v)?)?));
    // Jinja2's `map`, `select`, `reject`, `selectattr`, `rejectattr`, `batch`, `slice` and
    // `reverse` (of anything but a string) return generators too.
    env.add_filter("map", |state: &State, v: Value, args: Rest<Value>| {
        python::generator("map", Value::from(minijinja::filters::map(state, v, args)?))
    });
    env.add_filter("select", |state: &State, v: Value, test: Option<String>, args: Rest<Value>| {
        python::generator("select", Value::from(minijinja::filters::select(state, v, test.map(Into::into), args)?))
    });
    env.add_filter("reject", |state: &State, v: Value, test: Option<String>, args: Rest<Value>| {
        python::generator("reject", Value::from(minijinja::filters::reject(state, v, test.map(Into::into), args)?))
    });
    env.add_filter("selectattr", |state: &State, v: Value, attr: String, test: Option<String>, args: Rest<Value>| {
        let out = minijinja::filters::selectattr(state, v, attr.into(), test.map(Into::into), args)?;
        python::generator("selectattr", Value::from(out))
    });
    env.add_filter("rejectattr", |state: &State, v: Value, attr: String, test: Option<String>, args: Rest<Value>| {
        let out = minijinja::filters::rejectattr(state, v, attr.into(), test.map(Into::into), args)?;
        python::generator("rejectattr", Value::from(out))
    });
    env.add_filter("batch", move |state: &State, v: Value, count: usize, fill: Option<Value>| {
        python::generator("batch", super::filters::batch(state, v, count, fill, max_items)?)
    });
    env.add_filter("slice", move |state: &State, v: Value, count: usize, fill: Option<Value>| {
        python::generator("slice", super::filters::slice(state, v, count, fill, max_items)?)
    });
    env.add_filter("last", |v: Value| match v.downcast_object_ref::<python::Generator>() {
        Some(g) => Err(generator_error(g, "`last` of", "'generator' object is not reversible")),
        None => minijinja::filters::last(v.clone()),
    });
    env.add_filter("reverse", |v: &Value| match v.kind() {
        ValueKind::String => minijinja::filters::reverse(v),
        _ => python::generator("reverse", minijinja::filters::reverse(v)?),
    });
    // Jinja2's groups are named tuples `(grouper, list)`: printed as tuples, read by name too.
    env.add_filter("groupby", |v: Value, args: Rest<Value>| -> Result<Value, Error> {
        let (attribute, kwargs) = match args.0.as_slice() {
            [] => (None, Kwargs::from_iter(std::iter::empty::<(&str, Value)>())),
            [k] if k.is_kwargs() => (None, Kwargs::try_from(k.clone())?),
            [a] => (Some(a.clone()), Kwargs::from_iter(std::iter::empty::<(&str, Value)>())),
            [a, k] if k.is_kwargs() => (Some(a.clone()), Kwargs::try_from(k.clone())?),
            _ => return Err(Error::new(ErrorKind::TooManyArguments, "`groupby` takes an attribute and keywords")),
        };
        let groups = minijinja::filters::groupby(v, attribute.as_ref().and_then(Value::as_str), kwargs)?;
        let mut out = Vec::new();
        for g in groups.try_iter()? {
            let (grouper, list) = (g.get_attr("grouper")?, g.get_attr("list")?);
            out.push(Value::from_object(python::Tuple(vec![grouper, list], &["grouper", "list"])));
        }
        Ok(Value::from(out))
    });
    env.add_filter("escape", move |v: &Value| escape_filter(v, cap));
    env.add_filter("e", move |v: &Value| escape_filter(v, cap));
    env.add_filter("forceescape", move |v: &Value| -> Result<Value, Error> {
        let out = python::markup_escape(&str_capped("the result of `forceescape`", v, cap)?);
        super::filters::check("forceescape", out.len() as u128, cap)?;
        Ok(Value::from_safe_string(out))
    });
    env.add_filter("attr", |v: &Value, name: &str| -> Result<Value, Error> {
        // Python's `getattr`: a dict's keys are not attributes.
        if v.kind() == ValueKind::Map {
            return Ok(Value::UNDEFINED);
        }
        v.get_attr(name)
    });
    env.add_filter("pprint", move |v: &Value| -> Result<String, Error> {
        let mut out = String::new();
        // Past 80 columns it is refused below: stop building it there.
        pformat(v, &mut out, 4096);
        if out.chars().count() > 80 {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "pprint of a value {} characters long: Python's pprint breaks it over lines at 80 columns, \
                     which promptc does not reproduce",
                    out.chars().count()
                ),
            ));
        }
        Ok(out)
    });
    env.add_filter("int", |v: &Value, args: Rest<Value>| {
        let a = Args::new("int", args.0, &["default", "base"])?;
        let default = a.get(0).cloned().unwrap_or(Value::from(0));
        Ok::<_, Error>(to_int(v, a.int(1, 10)? as u32).map_or(default, Value::from))
    });
    env.add_filter("float", |v: &Value, args: Rest<Value>| {
        let a = Args::new("float", args.0, &["default"])?;
        let default = a.get(0).cloned().unwrap_or(Value::from(0.0));
        Ok::<_, Error>(to_float(v).map_or(default, Value::from))
    });
    env.add_filter("round", |v: &Value, args: Rest<Value>| {
        let a = Args::new("round", args.0, &["precision", "method"])?;
        round(v, a.int(0, 0)?, &a.text(1, "common"))
    });
    env.add_filter("join", move |v: &Value, args: Rest<Value>| {
        let a = Args::new("join", args.0, &["d", "attribute"])?;
        let sep = a.text(0, "");
        let mut out = String::new();
        for (i, item) in v.try_iter()?.enumerate() {
            let item = match a.get(1) {
                Some(attr) => attribute(&item, attr)?,
                None => item,
            };
            if i > 0 {
                out.push_str(&sep);
            }
            python::str_of_capped(&item, &mut out, cap);
            super::filters::check("join", out.len() as u128, cap)?;
        }
        Ok::<_, Error>(out)
    });
    env.add_filter("replace", move |v: &Value, args: Rest<Value>| {
        let a = Args::new("replace", args.0, &["old", "new", "count"])?;
        let (s, old, new) = (str_of(v), a.text(0, ""), a.text(1, ""));
        let count = a.int(2, -1)?;
        let hits = if old.is_empty() { s.chars().count() as u128 + 1 } else { s.matches(old.as_str()).count() as u128 };
        let hits = if count < 0 { hits } else { hits.min(count as u128) };
        super::filters::check("replace", s.len() as u128 + hits * new.len() as u128, cap)?;
        Ok::<_, Error>(py_replace(&s, &old, &new, if count < 0 { usize::MAX } else { count as usize }))
    });
    env.add_filter("max", |v: &Value, args: Rest<Value>| {
        let a = Args::new("max", args.0, &["case_sensitive", "attribute"])?;
        extreme(v, a.flag(0, false), a.get(1), std::cmp::Ordering::Greater)
    });
    env.add_filter("min", |v: &Value, args: Rest<Value>| {
        let a = Args::new("min", args.0, &["case_sensitive", "attribute"])?;
        extreme(v, a.flag(0, false), a.get(1), std::cmp::Ordering::Less)
    });
    env.add_filter("urlencode", move |v: &Value| -> Result<String, Error> {
        if v.kind() == ValueKind::String || v.try_iter().is_err() {
            let out = url_quote(&str_capped("the result of `urlencode`", v, cap)?, false);
            super::filters::check("urlencode", out.len() as u128, cap)?;
            return Ok(out);
        }
        let mut parts = Vec::new();
        if v.kind() == ValueKind::Map {
            for k in v.try_iter()? {
                let val = v.get_item(&k)?;
                parts.push(format!("{}={}", url_quote(&str_of(&k), true), url_quote(&str_of(&val), true)));
                super::filters::check("urlencode", parts.iter().map(|p| p.len() as u128 + 1).sum(), cap)?;
            }
        } else {
            for pair in v.try_iter()? {
                let (k, val) = (pair.get_item(&Value::from(0))?, pair.get_item(&Value::from(1))?);
                parts.push(format!("{}={}", url_quote(&str_of(&k), true), url_quote(&str_of(&val), true)));
                super::filters::check("urlencode", parts.iter().map(|p| p.len() as u128 + 1).sum(), cap)?;
            }
        }
        Ok(parts.join("&"))
    });
    env.add_filter("xmlattr", move |v: &Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = Args::new("xmlattr", args.0, &["autospace"])?;
        let mut items = Vec::new();
        for k in v.try_iter()? {
            let val = v.get_item(&k)?;
            if val.is_none() || val.is_undefined() {
                continue;
            }
            let key = str_of(&k);
            if key.chars().any(|c| c.is_ascii_whitespace() || matches!(c, '/' | '>' | '=')) {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("invalid character in attribute name: {key:?}"),
                ));
            }
            let text = str_capped("the result of `xmlattr`", &val, cap)?;
            items.push(format!("{}=\"{}\"", python::markup_escape(&key), python::markup_escape(&text)));
            super::filters::check("xmlattr", items.iter().map(|i| i.len() as u128 + 1).sum(), cap)?;
        }
        let mut out = items.join(" ");
        if a.flag(0, true) && !out.is_empty() {
            out.insert(0, ' ');
        }
        Ok(Value::from_safe_string(out))
    });
    env.add_filter("center", move |value: &Value, args: Rest<Value>| {
        let a = Args::new("center", args.0, &["width"])?;
        let s = str_of(value);
        let width = a.int(0, 80)?.max(0) as usize;
        super::filters::check("center", width as u128 + s.len() as u128, cap)?;
        Ok::<_, Error>(center(&s, width))
    });
    env.add_filter("truncate", |value: &Value, args: Rest<Value>| {
        let a = Args::new("truncate", args.0, &["length", "killwords", "end", "leeway"])?;
        let (length, end, leeway) = (a.int(0, 255)?, a.text(2, "..."), a.int(3, 5)?);
        let Some(s) = value.as_str() else {
            // Jinja2 truncates only text: a list or dict short enough comes back as it is, any
            // other value fails, as Jinja2's `len()` or `rsplit` does.
            truncate("", length, false, &end, leeway)?;
            return match value.len() {
                // Jinja2's undefined has a length of 0.
                _ if value.is_undefined() => Ok(value.clone()),
                Some(n) if value.kind() != ValueKind::Plain && n as i64 <= length.saturating_add(leeway) => {
                    Ok(value.clone())
                }
                Some(_) => Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("truncate of a {} longer than {length}: Jinja2 truncates text only", value.kind()),
                )),
                None => Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "truncate of a value of type {} (it has no length): Jinja2 truncates text only",
                        value.kind()
                    ),
                )),
            };
        };
        truncate(s, length, a.flag(1, false), &end, leeway).map(Value::from)
    });
    env.add_filter("wordwrap", move |value: &Value, args: Rest<Value>| {
        let a = Args::new("wordwrap", args.0, &["width", "break_long_words", "wrapstring", "break_on_hyphens"])?;
        let s = str_of(value);
        let width = a.int(0, 79)?;
        let wrapstring = a.text(2, "\n");
        // Each character can start a line: the result is at most the text plus one wrapstring
        // per character.
        super::filters::check("wordwrap", s.len() as u128 * (1 + wrapstring.len() as u128), cap)?;
        if width <= 0 {
            return Err(Error::new(ErrorKind::InvalidOperation, format!("invalid width {width} (must be > 0)")));
        }
        Ok::<_, Error>(wordwrap(&s, width as usize, a.flag(1, true), &wrapstring, a.flag(3, true)))
    });
    env.add_filter("wordcount", |value: &Value| {
        let s = str_of(value);
        let mut n = 0usize;
        let mut inside = false;
        for c in s.chars() {
            let word = c.is_alphanumeric() || c == '_';
            if word && !inside {
                n += 1;
            }
            inside = word;
        }
        n
    });
    env.add_filter("filesizeformat", |value: &Value, args: Rest<Value>| {
        let a = Args::new("filesizeformat", args.0, &["binary"])?;
        let bytes = f64::try_from(value.clone())
            .or_else(|_| str_of(value).trim().parse::<f64>().map_err(|_| ()))
            .map_err(|_| Error::new(ErrorKind::InvalidOperation, "filesizeformat needs a number"))?;
        Ok::<_, Error>(filesizeformat(bytes, a.flag(0, false)))
    });
    env.add_filter("striptags", |value: &Value| {
        let stripped = minijinja_contrib::filters::striptags(str_of(value));
        stripped.split_whitespace().collect::<Vec<_>>().join(" ")
    });
    env.add_filter("sum", |value: &Value, args: Rest<Value>| {
        let a = Args::new("sum", args.0, &["attribute", "start"])?;
        let mut total = a.get(1).cloned().unwrap_or(Value::from(0));
        for item in value.try_iter()? {
            let item = match a.get(0) {
                Some(attr) => attribute(&item, attr)?,
                None => item,
            };
            total = add(&total, &item)?;
        }
        Ok::<_, Error>(total)
    });
}

/// `a + b` as minijinja computes it, with Python's message for what cannot be added.
fn add(a: &Value, b: &Value) -> Result<Value, Error> {
    if b.is_undefined() {
        return Err(Error::new(ErrorKind::UndefinedError, "sum: an item is undefined"));
    }
    if !(a.is_number() && b.is_number()) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("sum: unsupported operand types for +: {} and {}", a.kind(), b.kind()),
        ));
    }
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) if a.is_integer() && b.is_integer() => x
            .checked_add(y)
            .map(Value::from)
            .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "sum: the total is too large")),
        _ => {
            let f = |v: &Value| f64::try_from(v.clone()).unwrap_or(f64::NAN);
            Ok(Value::from(f(a) + f(b)))
        }
    }
}

/// `item.a.b` for `attribute="a.b"` (a part made of digits is an index), as Jinja2's
/// `make_attrgetter` reads it; a missing one is undefined, which `sum` refuses to add.
fn attribute(item: &Value, attr: &Value) -> Result<Value, Error> {
    if let Some(i) = attr.as_i64() {
        return item.get_item(&Value::from(i));
    }
    let path = attr.as_str().unwrap_or_default();
    let mut v = item.clone();
    for part in path.split('.') {
        v = match part.parse::<i64>() {
            Ok(i) => v.get_item(&Value::from(i))?,
            Err(_) => v.get_attr(part)?,
        };
    }
    Ok(v)
}

/// Jinja2's `tojson`: `json.dumps(value, sort_keys=True, indent=indent)` with `<`, `>`, `&`
/// and `'` written as `\u003c`, `\u003e`, `\u0026`, `\u0027`, so the text is safe in HTML.
/// What Jinja2 cannot do with generator `g` (the result of `map`, `select`, …), refused the
/// same way: `what` the template did, `why` Jinja2 fails or differs. The note says to make a
/// list of it (`generator` in messages is how the help finds it).
fn generator_error(g: &python::Generator, what: &str, why: &str) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("{what} the result of `{}`, a generator in Jinja2: {why}", g.0))
}

fn tojson(value: &Value, args: Rest<Value>, cap: usize) -> Result<Value, Error> {
    let a = Args::new("tojson", args.0, &["indent"])?;
    if let Some(g) = value.downcast_object_ref::<python::Generator>() {
        return Err(generator_error(g, "`tojson` of", "Object of type generator is not JSON serializable"));
    }
    let indent = match a.get(0) {
        None => None,
        Some(v) if v.kind() == ValueKind::String => Some(v.as_str().unwrap_or_default().to_string()),
        Some(v) => match v.as_i64() {
            Some(n) => Some(" ".repeat(n.clamp(0, 64) as usize)),
            None => return Err(Error::new(ErrorKind::InvalidOperation, "tojson: indent must be a number or a string")),
        },
    };
    let d = Dumps { sort_keys: true, ensure_ascii: true, indent, max_len: Some(cap), ..Dumps::default() };
    let text = d.dumps(value).map_err(|e| e.into_error("tojson"))?;
    super::filters::check("tojson", text.len() as u128, cap)?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\'' => out.push_str("\\u0027"),
            c => out.push(c),
        }
    }
    Ok(Value::from_safe_string(out))
}

/// Jinja2's `cycler(*items)`: `next()`, `reset()` and `current`.
#[derive(Debug)]
struct Cycler {
    items: Vec<Value>,
    pos: std::sync::atomic::AtomicUsize,
}

impl minijinja::value::Object for Cycler {
    fn repr(self: &std::sync::Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Plain
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &Value) -> Option<Value> {
        let pos = self.pos.load(std::sync::atomic::Ordering::Relaxed);
        (key.as_str() == Some("current")).then(|| self.items[pos].clone())
    }

    fn call_method(
        self: &std::sync::Arc<Self>,
        _state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        use std::sync::atomic::Ordering::Relaxed;
        if !args.is_empty() {
            return Err(Error::new(ErrorKind::TooManyArguments, format!("cycler.{method}() takes no arguments")));
        }
        match method {
            "next" => {
                let pos = self.pos.load(Relaxed);
                self.pos.store((pos + 1) % self.items.len(), Relaxed);
                Ok(self.items[pos].clone())
            }
            "reset" => {
                self.pos.store(0, Relaxed);
                Ok(Value::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// A string lower-cased as Jinja2's `ignore_case` does (unless `case_sensitive`); anything
/// else as it is.
fn fold_case(v: &Value, case_sensitive: bool) -> Value {
    match v.as_str() {
        Some(s) if !case_sensitive => Value::from(s.to_lowercase()),
        _ => v.clone(),
    }
}

/// The key Jinja2 sorts `item` by: the item, or its attributes (`attribute="a.b,c"`), each
/// case-folded unless `case_sensitive`.
fn sort_key(item: &Value, attr: Option<&Value>, case_sensitive: bool) -> Result<Vec<Value>, Error> {
    let Some(attr) = attr else { return Ok(vec![fold_case(item, case_sensitive)]) };
    let parts: Vec<Value> = match attr.as_str() {
        Some(s) => s.split(',').map(|p| Value::from(p.trim())).collect(),
        None => vec![attr.clone()],
    };
    parts.iter().map(|p| attribute(item, p).map(|v| fold_case(&v, case_sensitive))).collect()
}

/// The order of `keys` Python's stable `sorted(…, reverse=…)` gives (equal keys keep their
/// order either way).
fn stable_order(keys: &[Vec<Value>], reverse: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by(|&x, &y| {
        let o = keys[x].cmp(&keys[y]);
        if reverse {
            o.reverse()
        } else {
            o
        }
    });
    idx
}

/// The pairs a filter returned, as Python's tuples.
fn retuple(pairs: Value) -> Result<Value, Error> {
    let items: Vec<Value> =
        pairs.try_iter()?.map(|p| python::tuple(p.try_iter().into_iter().flatten().collect())).collect();
    Ok(Value::from(items))
}

/// Jinja2's `escape`: text already marked safe stays as it is.
fn escape_filter(v: &Value, cap: usize) -> Result<Value, Error> {
    if v.is_safe() {
        return Ok(v.clone());
    }
    let out = python::markup_escape(&str_capped("the result of `escape`", v, cap)?);
    super::filters::check("escape", out.len() as u128, cap)?;
    Ok(Value::from_safe_string(out))
}

/// `pprint.pformat` for a value that fits on one line: `repr` with dict keys sorted (stopping
/// once `out` is over `cap` bytes).
fn pformat(v: &Value, out: &mut String, cap: usize) {
    if out.len() > cap {
        return;
    }
    if v.downcast_object_ref::<python::Tuple>().is_some() {
        python::repr_capped(v, out, cap);
        return;
    }
    match v.kind() {
        ValueKind::Map => {
            let mut keys: Vec<Value> = v.try_iter().into_iter().flatten().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python::repr(k, out);
                out.push_str(": ");
                pformat(&v.get_item(k).unwrap_or_default(), out, cap);
            }
            out.push('}');
        }
        ValueKind::Seq | ValueKind::Iterable => {
            out.push('[');
            for (i, item) in v.try_iter().into_iter().flatten().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pformat(&item, out, cap);
            }
            out.push(']');
        }
        _ => {
            python::repr_capped(v, out, cap);
        }
    }
}

/// Python's `int(value, base)`, then `int(float(value))`, as Jinja2's `int` tries them.
fn to_int(v: &Value, base: u32) -> Option<i64> {
    match v.kind() {
        ValueKind::Bool => Some(i64::from(v.is_true())),
        ValueKind::Number if v.is_integer() => v.as_i64(),
        ValueKind::Number => f64::try_from(v.clone()).ok().filter(|f| f.is_finite()).map(|f| f.trunc() as i64),
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default().trim().replace('_', "");
            let (neg, digits) = match s.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, s.strip_prefix('+').unwrap_or(&s)),
            };
            let digits = match base {
                16 => digits.trim_start_matches("0x").trim_start_matches("0X"),
                8 => digits.trim_start_matches("0o").trim_start_matches("0O"),
                2 => digits.trim_start_matches("0b").trim_start_matches("0B"),
                _ => digits,
            };
            if let Ok(n) = i64::from_str_radix(digits, base) {
                return Some(if neg { -n } else { n });
            }
            to_float(v).filter(|f| f.is_finite()).map(|f| f.trunc() as i64)
        }
        _ => None,
    }
}

/// Python's `float(value)`.
fn to_float(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        ValueKind::String => v.as_str().unwrap_or_default().trim().replace('_', "").parse::<f64>().ok(),
        _ => None,
    }
}

/// Jinja2's `round`: `common` is Python's `round` (half to even on the exact binary value; an
/// integer stays one), `ceil` and `floor` give a float.
fn round(v: &Value, precision: i64, method: &str) -> Result<Value, Error> {
    if !matches!(method, "common" | "ceil" | "floor") {
        return Err(Error::new(ErrorKind::InvalidOperation, "method must be common, ceil or floor"));
    }
    // A boolean is the integer it equals: Python's `round(True, 1)` is 1.
    let as_int;
    let v = if v.kind() == ValueKind::Bool {
        as_int = Value::from(i64::from(v.is_true()));
        &as_int
    } else {
        v
    };
    let x = to_float(v).ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "round needs a number"))?;
    let p = precision.clamp(-308, 308) as i32;
    let scale = 10f64.powi(p);
    match method {
        // Python's `math.ceil`/`math.floor` give an integer, so a zero has no sign (`+ 0.0`).
        "ceil" => Ok(Value::from(((x * scale).ceil() + 0.0) / scale)),
        "floor" => Ok(Value::from(((x * scale).floor() + 0.0) / scale)),
        _ if v.is_integer() && p >= 0 => Ok(v.clone()),
        _ if p >= 0 => Ok(Value::from(format!("{x:.*}", p as usize).parse::<f64>().unwrap_or(x))),
        _ => {
            let r = (x / 10f64.powi(-p)).round_ties_even() * 10f64.powi(-p);
            Ok(if v.is_integer() { Value::from(r as i64) } else { Value::from(r) })
        }
    }
}

/// Python's `str.replace(old, new, count)`.
fn py_replace(s: &str, old: &str, new: &str, count: usize) -> String {
    if old.is_empty() {
        let mut out = String::new();
        let mut n = 0;
        for c in s.chars() {
            if n < count {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < count {
            out.push_str(new);
        }
        return out;
    }
    s.replacen(old, new, count)
}

/// Jinja2's `max`/`min`: the item whose key (its `attribute`, lowercased unless
/// `case_sensitive`) is greatest (`want` Greater) or least; undefined for an empty sequence.
fn extreme(v: &Value, case_sensitive: bool, attr: Option<&Value>, want: std::cmp::Ordering) -> Result<Value, Error> {
    let key = |item: &Value| -> Result<Value, Error> {
        let k = match attr {
            Some(a) => attribute(item, a)?,
            None => item.clone(),
        };
        Ok(match k.as_str() {
            Some(s) if !case_sensitive => Value::from(s.to_lowercase()),
            _ => k,
        })
    };
    let mut best: Option<(Value, Value)> = None;
    for item in v.try_iter()? {
        let k = key(&item)?;
        if best.as_ref().is_none_or(|(bk, _)| k.cmp(bk) == want) {
            best = Some((k, item));
        }
    }
    Ok(best.map_or(Value::UNDEFINED, |(_, item)| item))
}

/// Jinja2's `url_quote`: UTF-8 bytes percent-encoded except letters, digits and `_.-~` (and
/// `/` outside a query string, where a space is `+`).
fn url_quote(s: &str, for_qs: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'~') || (!for_qs && b == b'/') {
            out.push(b as char);
        } else if for_qs && b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Jinja2's `indent`: every line after the first (and the first with `first`) prefixed with
/// `unit`, blank lines only with `blank`; a final newline stays.
fn indent(s: &str, unit: &str, first: bool, blank: bool) -> String {
    let text = format!("{s}\n");
    let lines = splitlines(&text);
    let mut rv = if blank {
        lines.join(&format!("\n{unit}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default().to_string();
        let rest: Vec<String> =
            it.map(|line| if line.is_empty() { String::new() } else { format!("{unit}{line}") }).collect();
        if !rest.is_empty() {
            rv.push('\n');
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if first {
        rv.insert_str(0, unit);
    }
    rv
}

/// Characters Unicode's final-sigma rule looks through (a subset of `Case_Ignorable`: the
/// apostrophes, `.` and `:`, and combining marks).
fn case_ignorable(c: char) -> bool {
    matches!(c, '\'' | '.' | ':' | '^' | '`' | '\u{b7}' | '\u{2019}' | '\u{2018}' | '\u{300}'..='\u{36f}')
}

/// The lowercase of `chars[i]` in its context, as Python's `str.lower()` writes it: a capital
/// sigma after a cased letter and not before one is the final `ς`.
fn lower_at(chars: &[char], i: usize, out: &mut String) {
    let c = chars[i];
    if c == 'Σ' {
        let cased = |c: &char| c.is_uppercase() || c.is_lowercase();
        let before = chars[..i].iter().rev().find(|c| !case_ignorable(**c)).is_some_and(cased);
        let after = chars[i + 1..].iter().find(|c| !case_ignorable(**c)).is_some_and(cased);
        if before && !after {
            out.push('ς');
            return;
        }
    }
    out.extend(c.to_lowercase());
}

/// `chars[from..]` lower-cased as Python lowers it inside the whole text (its context counts).
fn lower_from(chars: &[char], from: usize, out: &mut String) {
    for i in from..chars.len() {
        lower_at(chars, i, out);
    }
}

/// A character's titlecase as Python writes it: the uppercase of its first letter and the
/// lowercase of the rest (`ß` → `Ss`, `ﬁ` → `Fi`).
fn titlecase(c: char, out: &mut String) {
    let mut upper = c.to_uppercase();
    if let Some(f) = upper.next() {
        out.push(f);
    }
    for rest in upper {
        out.extend(rest.to_lowercase());
    }
}

/// Python's `str.title()`: a cased letter after an uncased character (a digit, an apostrophe)
/// starts a word.
fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_cased = false;
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() || c.is_lowercase() {
            if previous_cased {
                lower_at(&chars, i, &mut out);
            } else {
                titlecase(c, &mut out);
            }
            previous_cased = true;
        } else {
            out.push(c);
            previous_cased = false;
        }
    }
    out
}

/// Jinja2's `title` filter: words start after `-`, whitespace, `(`, `{`, `[` and `<` only; each
/// word's first character upper-cased, the rest lower-cased (as a string: a final sigma is `ς`).
fn jinja2_title(s: &str) -> String {
    let sep = |c: char| c == '-' || c.is_whitespace() || matches!(c, '(' | '{' | '[' | '<');
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let len = if sep(c) { rest.find(|c: char| !sep(c)) } else { rest.find(sep) }.unwrap_or(rest.len());
        let (item, tail) = rest.split_at(len);
        out.extend(c.to_uppercase());
        out.push_str(&item[c.len_utf8()..].to_lowercase());
        rest = tail;
    }
    out
}

/// Python's `str.capitalize()`: the first character in title case, the rest lower-cased.
fn py_capitalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    if let Some(&c) = chars.first() {
        titlecase(c, &mut out);
        lower_from(&chars, 1, &mut out);
    }
    out
}

/// Python's `str.islower()` (with `is` lowercase) or `isupper()`: at least one cased character,
/// and none of the other case.
fn cased(s: &str, is: fn(char) -> bool, other: fn(char) -> bool) -> bool {
    s.chars().any(is) && !s.chars().any(other)
}

/// Python's `str.isspace` for one character: Unicode's white space, and the four information
/// separators (U+001C–U+001F) Python counts as space too.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.format` for a format string whose fields are all plain (`{}`, `{0}`,
/// `{name}`, optionally `!s`/`!r`); `None` when a field has a format spec or an attribute or
/// index, left to pycompat.
fn simple_format(fmt: &str, args: &[Value]) -> Option<Result<String, String>> {
    let (positional, kwargs): (Vec<&Value>, Option<&Value>) = match args.last() {
        Some(k) if k.is_kwargs() => (args[..args.len() - 1].iter().collect(), Some(k)),
        _ => (args.iter().collect(), None),
    };
    let mut out = String::new();
    let mut auto = 0usize;
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let brace = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if after.as_bytes().first() == Some(&brace) {
            out.push(brace as char);
            rest = &after[1..];
            continue;
        }
        if brace == b'}' {
            return Some(Err("Single '}' encountered in format string".into()));
        }
        let close = after.find('}')?;
        let field = &after[..close];
        if field.contains([':', '.', '[', '{']) {
            return None;
        }
        let (name, conv) = match field.split_once('!') {
            Some((n, c)) if c == "s" || c == "r" => (n, c),
            Some(_) => return None,
            None => (field, "s"),
        };
        let value = if name.is_empty() {
            auto += 1;
            positional.get(auto - 1).copied().cloned()
        } else if let Ok(n) = name.parse::<usize>() {
            positional.get(n).copied().cloned()
        } else {
            kwargs.and_then(|k| k.get_item(&Value::from(name)).ok()).filter(|v| !v.is_undefined())
        };
        let Some(value) = value else {
            return Some(Err(format!("no value for the field `{{{field}}}`")));
        };
        if conv == "r" {
            python::repr(&value, &mut out);
        } else {
            python::str_of(&value, &mut out);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Some(Ok(out))
}

/// Python's `str.center(width)`: the odd space goes left when `width` is odd.
fn center(s: &str, width: usize) -> String {
    let len = s.chars().count();
    if width <= len {
        return s.to_string();
    }
    let pad = width - len;
    let left = pad / 2 + (pad & width & 1);
    format!("{}{s}{}", " ".repeat(left), " ".repeat(pad - left))
}

/// Jinja2's `truncate`.
fn truncate(s: &str, length: i64, killwords: bool, end: &str, leeway: i64) -> Result<String, Error> {
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("expected length >= {end_len}, got {length}")));
    }
    if leeway < 0 {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("expected leeway >= 0, got {leeway}")));
    }
    if (s.chars().count() as i64) <= length + leeway {
        return Ok(s.to_string());
    }
    let head: String = s.chars().take((length - end_len) as usize).collect();
    let kept = if killwords { head.as_str() } else { head.rsplit_once(' ').map_or(head.as_str(), |(a, _)| a) };
    Ok(format!("{kept}{end}"))
}

/// Jinja2's `filesizeformat`: `1.0 kB`, `2 Bytes`, `1.5 KiB` with `binary`.
fn filesizeformat(bytes: f64, binary: bool) -> String {
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return "1 Byte".to_string();
    }
    if bytes < base {
        // Python's `f"{int(bytes)} Bytes"`.
        return format!("{} Bytes", bytes.trunc() as i64);
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit {
            return format!("{:.1} {prefix}", base * bytes / unit);
        }
    }
    format!("{:.1} {}", base * bytes / unit, prefixes[prefixes.len() - 1])
}

/// The whitespace Python's `textwrap` splits on.
fn is_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ')
}

/// A letter as Python's regular expressions read `[^\d\W]`: a word character that is not a digit.
fn is_letter(c: char) -> bool {
    (c.is_alphanumeric() && !c.is_numeric()) || c == '_'
}

/// Python's `str.splitlines()`.
fn splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let brk = matches!(
            c,
            '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        );
        if brk {
            lines.push(&s[start..i]);
            let mut next = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(j, '\n')) = it.peek() {
                    it.next();
                    next = j + 1;
                }
            }
            start = next;
        }
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// A word character as Python's regular expressions read `\w`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Python's `textwrap` chunks of one line: runs of whitespace, and words, split as
/// `TextWrapper.wordsep_re` splits them when `hyphens` (after a hyphen between letters, and
/// around an em-dash `--` between words), else `wordsep_simple_re` (on whitespace only).
fn chunks(line: &[char], hyphens: bool) -> Vec<Vec<char>> {
    let at = |n: usize, f: fn(char) -> bool| line.get(n).is_some_and(|&c| f(c));
    let wp = |c: char| is_word(c) || matches!(c, '!' | '"' | '\'' | '&' | '.' | ',' | '?');
    // `(?<=wp)-{2,}(?=\w)` starting at `k`: the end of the dashes.
    let em_dash = |k: usize| -> Option<usize> {
        if k == 0 || !wp(line[k - 1]) {
            return None;
        }
        let mut e = k;
        while e < line.len() && line[e] == '-' {
            e += 1;
        }
        (e - k >= 2 && at(e, is_word)).then_some(e)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if is_ws(line[i]) {
            let mut j = i;
            while j < line.len() && is_ws(line[j]) {
                j += 1;
            }
            out.push(line[i..j].to_vec());
            i = j;
            continue;
        }
        if !hyphens {
            let mut j = i;
            while j < line.len() && !is_ws(line[j]) {
                j += 1;
            }
            out.push(line[i..j].to_vec());
            i = j;
            continue;
        }
        if line[i] == '-' {
            if let Some(e) = em_dash(i) {
                out.push(line[i..e].to_vec());
                i = e;
                continue;
            }
        }
        // A word: the shortest run of non-space characters that ends before a space or the end,
        // before an em-dash, or at a hyphen between letters.
        let mut j = i + 1;
        let end = loop {
            if j >= line.len() || is_ws(line[j]) {
                break j;
            }
            if line[j] == '-' {
                let behind = (j >= 2 && at(j - 2, is_letter) && at(j - 1, is_letter))
                    || (j >= 3 && at(j - 3, is_letter) && line[j - 2] == '-' && at(j - 1, is_letter));
                let ahead = at(j + 1, is_letter)
                    && (at(j + 2, is_letter) || (line.get(j + 2) == Some(&'-') && at(j + 3, is_letter)));
                if behind && ahead {
                    break j + 1;
                }
                if em_dash(j).is_some() {
                    break j;
                }
            }
            j += 1;
        };
        out.push(line[i..end].to_vec());
        i = end;
    }
    out
}

/// Python's `textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False, …)`.
fn wrap_line(line: &[char], width: usize, break_long: bool, hyphens: bool) -> Vec<String> {
    let mut rev: Vec<Vec<char>> = chunks(line, hyphens);
    rev.reverse();
    let blank = |c: &[char]| c.iter().all(|&c| is_ws(c));
    let mut lines: Vec<String> = Vec::new();
    while !rev.is_empty() {
        let mut cur: Vec<Vec<char>> = Vec::new();
        let mut len = 0;
        if rev.last().is_some_and(|c| blank(c)) && !lines.is_empty() {
            rev.pop();
        }
        while let Some(c) = rev.last() {
            if len + c.len() <= width {
                len += c.len();
                cur.push(rev.pop().unwrap_or_default());
            } else {
                break;
            }
        }
        if rev.last().is_some_and(|c| c.len() > width) {
            let space = if width < 1 { 1 } else { width - len };
            if break_long {
                let chunk = rev.pop().unwrap_or_default();
                let mut end = space;
                if hyphens && chunk.len() > space {
                    if let Some(h) = chunk[..space].iter().rposition(|&c| c == '-') {
                        if h > 0 && chunk[..h].iter().any(|&c| c != '-') {
                            end = h + 1;
                        }
                    }
                }
                cur.push(chunk[..end].to_vec());
                rev.push(chunk[end..].to_vec());
            } else if cur.is_empty() {
                cur.push(rev.pop().unwrap_or_default());
            }
        }
        if cur.last().is_some_and(|c| blank(c)) {
            cur.pop();
        }
        if !cur.is_empty() {
            lines.push(cur.concat().into_iter().collect());
        }
    }
    lines
}

/// Jinja2's `wordwrap`: each line of `s` wrapped on its own, everything joined by `wrapstring`.
fn wordwrap(s: &str, width: usize, break_long: bool, wrapstring: &str, hyphens: bool) -> String {
    splitlines(s)
        .into_iter()
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            wrap_line(&chars, width, break_long, hyphens).join(wrapstring)
        })
        .collect::<Vec<_>>()
        .join(wrapstring)
}

#[cfg(test)]
#[path = "jinja2_tests.rs"]
mod tests;
