//! Python's `%` string formatting (`printf`-style), as Jinja2's `format` filter and `%` between a
//! string and its arguments apply it (in `compat: jinja2` and in chat templates)
//! (`"%s has %d items" | format(name, n)`): `%s` and `%r` write Python's `str` and `repr`,
//! widths count characters, `%d` truncates a float, floats are written as CPython writes them
//! (`%e` with a two-digit exponent, `%g` without trailing zeros), `%(name)s` reads a keyword.

use minijinja::value::{Value, ValueKind};

use super::python;

/// One conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

/// Why `format` failed.
#[derive(Debug, PartialEq)]
pub enum Fail {
    /// Where Python raises, with Python's message.
    Python(String),
    /// The result would pass the cap: what would (a width or precision, or the result) and its
    /// size in bytes.
    TooLarge(&'static str, usize),
}

impl From<String> for Fail {
    fn from(why: String) -> Fail {
        Fail::Python(why)
    }
}

impl From<&str> for Fail {
    fn from(why: &str) -> Fail {
        Fail::Python(why.to_string())
    }
}

/// `format % args` (positional) or `format % kwargs` (by name), as Python writes it; `Err` with
/// Python's message where Python raises. Widths, precisions and results above `cap` bytes are
/// refused.
pub fn format(format: &str, args: &[Value], kwargs: Option<&Value>, cap: usize) -> Result<String, Fail> {
    let chars: Vec<char> = format.chars().collect();
    let mut out = String::new();
    let mut next = 0usize;
    let take = |next: &mut usize| -> Result<Value, String> {
        let v = args.get(*next).cloned().ok_or("not enough arguments for format string")?;
        *next += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut key: Option<String> = None;
        if chars.get(i) == Some(&'(') {
            let close = chars[i..].iter().position(|&c| c == ')').ok_or("incomplete format key")?;
            key = Some(chars[i + 1..i + close].iter().collect());
            i += close + 1;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => spec.left = true,
                '0' => spec.zero = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                _ => break,
            }
            i += 1;
        }
        let number = |i: &mut usize, next: &mut usize| -> Result<Option<usize>, String> {
            if chars.get(*i) == Some(&'*') {
                *i += 1;
                let v = take(next)?;
                return v.as_i64().map(|n| Some(n.unsigned_abs() as usize)).ok_or_else(|| "* wants int".to_string());
            }
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            if *i == start {
                return Ok(None);
            }
            chars[start..*i].iter().collect::<String>().parse::<usize>().map(Some).map_err(|_| "width too big".into())
        };
        spec.width = number(&mut i, &mut next)?.unwrap_or(0);
        if chars.get(i) == Some(&'.') {
            i += 1;
            spec.precision = Some(number(&mut i, &mut next)?.unwrap_or(0));
        }
        if let Some(n) = Some(spec.width).into_iter().chain(spec.precision).find(|&n| n > cap) {
            return Err(Fail::TooLarge("a width or precision", n));
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let conv = *chars.get(i).ok_or("incomplete format")?;
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match &key {
            Some(k) => kwargs
                .and_then(|m| m.get_item(&Value::from(k.as_str())).ok())
                .filter(|v| !v.is_undefined())
                .ok_or_else(|| format!("'{k}'"))?,
            None => take(&mut next)?,
        };
        let text = convert(conv, &arg, &spec)?;
        pad(
            &mut out,
            &text,
            &spec,
            matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G'),
        );
        if out.len() > cap {
            return Err(Fail::TooLarge("the result of `format`", out.len()));
        }
    }
    // With a mapping on the right (`kwargs`), Python converts what the format asks for and
    // never complains of arguments left over.
    if kwargs.is_none() && key_free(format) && next < args.len() {
        return Err(Fail::from("not all arguments converted during string formatting"));
    }
    Ok(out)
}

/// `text % rhs` as Python computes it, refused past `cap` bytes (`what` names the operation in
/// messages): a sequence on the right gives the arguments in order (a tuple in Python; a list
/// literal reads the same here, so `'%s' % [1, 2]` takes two arguments where Python prints the
/// list), a mapping gives them by name (`'%(a)s' % {'a': 1}`) and is itself the one argument of
/// a `%s`, anything else is the one argument.
pub fn percent(text: &str, rhs: &Value, cap: usize, what: &str) -> Result<Value, minijinja::Error> {
    let (positional, kwargs): (Vec<Value>, Option<&Value>) = match rhs.kind() {
        ValueKind::Seq => (rhs.try_iter().map(Iterator::collect).unwrap_or_default(), None),
        ValueKind::Map => (vec![rhs.clone()], Some(rhs)),
        _ => (vec![rhs.clone()], None),
    };
    format(text, &positional, kwargs, cap).map(Value::from).map_err(|fail| match fail {
        Fail::Python(why) => minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("{what}: {why}")),
        Fail::TooLarge(size_of, n) => super::filters::too_large(size_of, Some(n as u128)),
    })
}

/// Whether `format` takes its values by position (no `%(name)`).
fn key_free(format: &str) -> bool {
    !format.contains("%(")
}

/// Write `text` padded to the spec's width (zeros after the sign for numbers with `0`).
fn pad(out: &mut String, text: &str, spec: &Spec, numeric: bool) {
    let len = text.chars().count();
    if len >= spec.width {
        out.push_str(text);
        return;
    }
    let fill = spec.width - len;
    if spec.left {
        out.push_str(text);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && numeric && !text.contains(['i', 'n']) {
        let sign_len = text.chars().take_while(|c| matches!(c, '+' | '-' | ' ')).count()
            + if text.trim_start_matches(['+', '-', ' ']).starts_with("0x")
                || text.trim_start_matches(['+', '-', ' ']).starts_with("0X")
                || text.trim_start_matches(['+', '-', ' ']).starts_with("0o")
            {
                2
            } else {
                0
            };
        let (head, tail) = text.split_at(text.char_indices().nth(sign_len).map_or(text.len(), |(b, _)| b));
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(tail);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(text);
    }
}

/// A number's sign as the flags ask for it.
fn sign(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// An argument as an integer for `%d`, `%x`, `%o` (a float truncated for `%d` only).
fn integer(conv: char, v: &Value) -> Result<i128, String> {
    match v.kind() {
        ValueKind::Bool => Ok(i128::from(v.is_true())),
        ValueKind::Number if v.is_integer() => v.as_i64().map(i128::from).ok_or_else(|| "integer too large".into()),
        ValueKind::Number if matches!(conv, 'd' | 'i' | 'u') => {
            let f = f64::try_from(v.clone()).map_err(|e| e.to_string())?;
            if f.is_finite() {
                Ok(f.trunc() as i128)
            } else {
                Err("cannot convert float infinity or NaN to integer".into())
            }
        }
        ValueKind::Number => Err(format!("%{conv} format: an integer is required, not float")),
        _ => Err(format!("%{conv} format: a real number is required, not {}", py_type(v))),
    }
}

/// Python's name of a value's type, for messages.
fn py_type(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::String => "str",
        ValueKind::None => "NoneType",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        _ => "object",
    }
}

/// One conversion's text, before padding.
fn convert(conv: char, v: &Value, spec: &Spec) -> Result<String, String> {
    Ok(match conv {
        's' | 'r' | 'a' => {
            let mut s = String::new();
            if conv == 's' {
                python::str_of(v, &mut s);
            } else {
                python::repr(v, &mut s);
            }
            match spec.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            }
        }
        'd' | 'i' | 'u' => {
            let n = integer(conv, v)?;
            let digits = n.unsigned_abs().to_string();
            let digits = match spec.precision {
                Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
                _ => digits,
            };
            format!("{}{digits}", sign(n < 0, spec))
        }
        'x' | 'X' | 'o' => {
            let n = integer(conv, v)?;
            let body = match conv {
                'x' => format!("{:x}", n.unsigned_abs()),
                'X' => format!("{:X}", n.unsigned_abs()),
                _ => format!("{:o}", n.unsigned_abs()),
            };
            let body = match spec.precision {
                Some(p) if body.len() < p => format!("{}{body}", "0".repeat(p - body.len())),
                _ => body,
            };
            let prefix = if spec.alt {
                match conv {
                    'x' => "0x",
                    'X' => "0X",
                    _ => "0o",
                }
            } else {
                ""
            };
            format!("{}{prefix}{body}", sign(n < 0, spec))
        }
        'c' => match (v.as_str(), v.as_i64()) {
            (Some(s), _) if s.chars().count() == 1 => s.to_string(),
            (None, Some(n)) => char::from_u32(u32::try_from(n).map_err(|_| "%c arg not in range")?)
                .ok_or("%c arg not in range")?
                .to_string(),
            _ => return Err("%c requires an int or a unicode character".into()),
        },
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
            let f = match v.kind() {
                ValueKind::Number | ValueKind::Bool => f64::try_from(v.clone()).map_err(|e| e.to_string())?,
                _ => return Err(format!("must be real number, not {}", py_type(v))),
            };
            let body = float(conv, f.abs(), spec.precision.unwrap_or(6), spec.alt);
            format!("{}{body}", sign(f.is_sign_negative() && !f.is_nan(), spec))
        }
        other => return Err(format!("unsupported format character '{other}'")),
    })
}

/// `|f|` in conversion `conv` with `precision`, as CPython writes it.
fn float(conv: char, f: f64, precision: usize, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    if f.is_nan() {
        return if upper { "NAN" } else { "nan" }.into();
    }
    if f.is_infinite() {
        return if upper { "INF" } else { "inf" }.into();
    }
    let text = match conv.to_ascii_lowercase() {
        'f' => {
            let s = format!("{f:.precision$}");
            if alt && precision == 0 {
                format!("{s}.")
            } else {
                s
            }
        }
        'e' => exponent(f, precision, alt),
        _ => {
            let p = precision.max(1);
            let e = format!("{f:.*e}", p - 1);
            let exp: i32 = e.split_once('e').and_then(|(_, x)| x.parse().ok()).unwrap_or(0);
            let s = if (-4..p as i32).contains(&exp) {
                format!("{f:.*}", (p as i32 - 1 - exp).max(0) as usize)
            } else {
                exponent(f, p - 1, alt)
            };
            match (alt, s.contains(['.', 'e'])) {
                (true, true) => s,
                (true, false) => format!("{s}."),
                (false, _) => strip_zeros(&s),
            }
        }
    };
    if upper {
        text.to_uppercase()
    } else {
        text
    }
}

/// `d.ddde+XX`: at least two exponent digits, as C writes it.
fn exponent(f: f64, precision: usize, alt: bool) -> String {
    let s = format!("{f:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && precision == 0 { "." } else { "" };
    format!("{mantissa}{dot}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `%g` without its trailing zeros (and a bare `.`), the exponent kept.
fn strip_zeros(s: &str) -> String {
    let (num, exp) = match s.find('e') {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.') } else { num };
    format!("{num}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        format(fmt, args, None, 1 << 20).unwrap()
    }

    #[test]
    fn writes_what_python_writes() {
        assert_eq!(
            f("%s|%r|%5s|%-4s|", &[Value::from(vec![1]), Value::from("a"), Value::from("é"), Value::from(true)]),
            "[1]|'a'|    é|True|"
        );
        assert_eq!(
            f(
                "%d %05d %+d %x %#o %c",
                &[
                    Value::from(2.9),
                    Value::from(-42),
                    Value::from(3),
                    Value::from(255),
                    Value::from(8),
                    Value::from(65)
                ]
            ),
            "2 -0042 +3 ff 0o10 A"
        );
        assert_eq!(
            f(
                "%.2f %e %g %g %g %10.3E %%",
                &[
                    Value::from(2.675),
                    Value::from(12345.678),
                    Value::from(0.0001),
                    Value::from(1e16),
                    Value::from(100.0),
                    Value::from(-0.5)
                ]
            ),
            "2.67 1.234568e+04 0.0001 1e+16 100 -5.000E-01 %"
        );
        assert!(format("%d", &[Value::from("x")], None, 100).is_err());
        assert!(format("%s %s", &[Value::from(1)], None, 100).is_err());
        assert!(format("%s", &[Value::from(1), Value::from(2)], None, 100).is_err());
        assert!(format("%999s", &[Value::from(1)], None, 100).is_err());
    }
}
