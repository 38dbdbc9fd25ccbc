//! Jinja2's `Markup` on `+`, for chat templates that use `|safe`.
//!
//! In Jinja2 `"…"|safe` is a `Markup` string, and `Markup + text` HTML-escapes the text
//! (`'` → `&#39;`, `"` → `&#34;`, `&`, `<`, `>`), even with autoescape off — as in transformers'
//! environment. minijinja keeps a safe flag on strings but its `+` drops it and escapes nothing.
//! So in a template that uses `safe`, every `a + b` is rewritten to `__markup_add(a, b)`, which
//! does what Python's `+` does for the values it meets at run time: Markup and text joined with
//! the text escaped, strings joined, numbers added, lists concatenated, anything else an error.
//! The rewrite inserts text only around operands (and turns the `+` into `,`), so a template
//! keeps its lines; columns after a rewritten `+` move by the inserted text.

use minijinja::machinery::ast::{self, BinOpKind, CallArg, Expr, Stmt};
use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

use crate::python;

/// The name of the function `+` becomes.
pub const MARKUP_ADD: &str = "__markup_add";

/// `source` with every `+` rewritten, when it uses `safe`; `None` when nothing needs to change
/// (or the source does not parse: minijinja reports that itself). The byte ranges of additions
/// it could not rewrite (their operands' extents do not leave a `+` between them) come back
/// too, to be said.
pub fn rewrite(source: &str, ws: minijinja::machinery::WhitespaceConfig) -> (Option<String>, Vec<(usize, usize)>) {
    if !source.contains("safe") {
        return (None, Vec::new());
    }
    let Ok(tree) = minijinja::machinery::parse(source, "<chat>", Default::default(), ws) else {
        return (None, Vec::new());
    };
    let mut adds = Vec::new();
    stmt(&tree, &mut adds);
    if adds.is_empty() {
        return (None, Vec::new());
    }
    // Edits: (position, order, text). At one position, openers of outer additions come first,
    // closers of inner ones first.
    let mut edits: Vec<(usize, i64, String)> = Vec::new();
    let mut pluses = Vec::new();
    let mut skipped = Vec::new();
    for (depth, l, r) in adds {
        let (ls, le) = widen(source, l);
        let (rs, re) = widen(source, r);
        let Some(plus) = source.get(le..rs).and_then(|gap| gap.find('+')).map(|i| le + i) else {
            skipped.push((l.0, r.1.max(l.0)));
            continue;
        };
        edits.push((ls, depth as i64, format!("{MARKUP_ADD}(")));
        edits.push((re, -(depth as i64), ")".into()));
        pluses.push(plus);
    }
    edits.sort_by_key(|(at, order, _)| (*at, *order));
    let mut out = String::with_capacity(source.len() + edits.len() * 16);
    let mut at = 0;
    let mut e = edits.iter().peekable();
    for (i, c) in source.char_indices() {
        while let Some((pos, _, text)) = e.peek() {
            if *pos > i {
                break;
            }
            out.push_str(text);
            e.next();
        }
        out.push(if pluses.contains(&i) { ',' } else { c });
        at = i + c.len_utf8();
    }
    for (_, _, text) in e {
        out.push_str(text);
    }
    debug_assert_eq!(at, source.len());
    (Some(out), skipped)
}

/// An operand's byte range widened over the parentheses that enclose exactly it.
fn widen(source: &str, (mut s, mut e): (usize, usize)) -> (usize, usize) {
    loop {
        let (Some(head), Some(tail)) = (source.get(..s), source.get(e..)) else { return (s, e) };
        let before = head.trim_end_matches([' ', '\t', '\n', '\r']);
        let after = tail.trim_start_matches([' ', '\t', '\n', '\r']);
        if before.ends_with('(') && after.starts_with(')') {
            s = before.len() - 1;
            e = source.len() - after.len() + 1;
        } else {
            return (s, e);
        }
    }
}

/// The byte range an expression covers (a filter's and a test's own spans start at their
/// name; an operation's at its left operand).
fn extent(e: &Expr) -> (usize, usize) {
    let of = |s: minijinja::machinery::Span| (s.start_offset as usize, s.end_offset as usize);
    match e {
        Expr::BinOp(b) => (extent(&b.left).0, extent(&b.right).1),
        Expr::Filter(f) => {
            let own = of(f.span());
            (f.expr.as_ref().map_or(own.0, |x| extent(x).0.min(own.0)), own.1)
        }
        Expr::Test(t) => (extent(&t.expr).0, of(t.span()).1),
        Expr::GetAttr(a) => (extent(&a.expr).0, of(a.span()).1),
        Expr::GetItem(g) => (extent(&g.expr).0, of(g.span()).1),
        Expr::Slice(x) => (extent(&x.expr).0, of(x.span()).1),
        Expr::Call(c) => (extent(&c.expr).0, of(c.span()).1),
        Expr::Compare(c) => (extent(&c.expr).0, of(c.span()).1),
        Expr::IfExpr(i) => {
            let (a, b) = (extent(&i.true_expr), i.false_expr.as_ref().map_or(of(i.span()), extent));
            (a.0.min(of(i.span()).0), b.1.max(of(i.span()).1))
        }
        Expr::Var(x) => of(x.span()),
        Expr::Const(x) => of(x.span()),
        Expr::UnaryOp(x) => of(x.span()),
        Expr::List(x) => of(x.span()),
        Expr::Map(x) => of(x.span()),
    }
}

type Adds = Vec<(usize, (usize, usize), (usize, usize))>;

fn stmts(body: &[Stmt], out: &mut Adds) {
    body.iter().for_each(|s| stmt(s, out));
}

fn stmt(s: &Stmt, out: &mut Adds) {
    let e = |x: &Expr, out: &mut Adds| expr(x, 0, out);
    match s {
        Stmt::Template(t) => stmts(&t.children, out),
        Stmt::EmitExpr(x) => e(&x.expr, out),
        Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => {}
        Stmt::ForLoop(f) => {
            e(&f.iter, out);
            if let Some(x) = &f.filter_expr {
                e(x, out);
            }
            stmts(&f.body, out);
            stmts(&f.else_body, out);
        }
        Stmt::IfCond(c) => {
            e(&c.expr, out);
            stmts(&c.true_body, out);
            stmts(&c.false_body, out);
        }
        Stmt::WithBlock(w) => {
            w.assignments.iter().for_each(|(_, v)| e(v, out));
            stmts(&w.body, out);
        }
        Stmt::Set(x) => e(&x.expr, out),
        Stmt::SetBlock(x) => {
            if let Some(f) = &x.filter {
                e(f, out);
            }
            stmts(&x.body, out);
        }
        Stmt::AutoEscape(a) => stmts(&a.body, out),
        Stmt::FilterBlock(f) => {
            e(&f.filter, out);
            stmts(&f.body, out);
        }
        Stmt::Block(b) => stmts(&b.body, out),
        Stmt::Import(_) | Stmt::FromImport(_) | Stmt::Extends(_) | Stmt::Include(_) => {}
        Stmt::Macro(m) => {
            m.defaults.iter().for_each(|x| e(x, out));
            stmts(&m.body, out);
        }
        Stmt::CallBlock(c) => {
            call(&c.call, out);
            stmts(&c.macro_decl.body, out);
        }
        Stmt::Do(d) => call(&d.call, out),
    }
}

fn call(c: &ast::Call, out: &mut Adds) {
    expr(&c.expr, 0, out);
    args(&c.args, out);
}

fn args(a: &[CallArg], out: &mut Adds) {
    for x in a {
        match x {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => expr(x, 0, out),
        }
    }
}

/// Collect every `+` in `e` with its nesting depth among additions.
fn expr(e: &Expr, depth: usize, out: &mut Adds) {
    match e {
        Expr::BinOp(b) if matches!(b.op, BinOpKind::Add) => {
            out.push((depth, extent(&b.left), extent(&b.right)));
            expr(&b.left, depth + 1, out);
            expr(&b.right, depth + 1, out);
        }
        Expr::BinOp(b) => {
            expr(&b.left, 0, out);
            expr(&b.right, 0, out);
        }
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(s) => {
            expr(&s.expr, 0, out);
            for x in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                expr(x, 0, out);
            }
        }
        Expr::UnaryOp(u) => expr(&u.expr, 0, out),
        Expr::Compare(c) => {
            expr(&c.expr, 0, out);
            c.ops.iter().for_each(|o| expr(&o.expr, 0, out));
        }
        Expr::IfExpr(i) => {
            expr(&i.test_expr, 0, out);
            expr(&i.true_expr, 0, out);
            if let Some(f) = &i.false_expr {
                expr(f, 0, out);
            }
        }
        Expr::Filter(f) => {
            if let Some(x) = &f.expr {
                expr(x, 0, out);
            }
            args(&f.args, out);
        }
        Expr::Test(t) => {
            expr(&t.expr, 0, out);
            args(&t.args, out);
        }
        Expr::GetAttr(a) => expr(&a.expr, 0, out),
        Expr::GetItem(g) => {
            expr(&g.expr, 0, out);
            expr(&g.subscript_expr, 0, out);
        }
        Expr::Call(c) => {
            expr(&c.expr, 0, out);
            args(&c.args, out);
        }
        Expr::List(l) => l.items.iter().for_each(|x| expr(x, 0, out)),
        Expr::Map(m) => {
            m.keys.iter().for_each(|x| expr(x, 0, out));
            m.values.iter().for_each(|x| expr(x, 0, out));
        }
    }
}

/// Python's `a + b` for the values a chat template meets, with Jinja2's Markup.
pub fn markup_add(a: Value, b: Value) -> Result<Value, Error> {
    let text = |v: &Value| v.kind() == ValueKind::String;
    let unsupported = || {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("unsupported operand types for +: {} and {}", a.kind(), b.kind()),
        )
    };
    if text(&a) && text(&b) {
        let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
        return Ok(match (a.is_safe(), b.is_safe()) {
            (false, false) => Value::from(format!("{x}{y}")),
            (true, true) => Value::from_safe_string(format!("{x}{y}")),
            (true, false) => Value::from_safe_string(format!("{x}{}", python::markup_escape(y))),
            (false, true) => Value::from_safe_string(format!("{}{y}", python::markup_escape(x))),
        });
    }
    match (a.kind(), b.kind()) {
        (ValueKind::Number, ValueKind::Number) => {
            if a.is_integer() && b.is_integer() {
                let (x, y) = (
                    i128::try_from(a.clone()).map_err(|_| unsupported())?,
                    i128::try_from(b.clone()).map_err(|_| unsupported())?,
                );
                x.checked_add(y)
                    .map(Value::from)
                    .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "integer overflow"))
            } else {
                let (x, y) = (
                    f64::try_from(a.clone()).map_err(|_| unsupported())?,
                    f64::try_from(b.clone()).map_err(|_| unsupported())?,
                );
                Ok(Value::from(x + y))
            }
        }
        (ValueKind::Seq | ValueKind::Iterable, ValueKind::Seq | ValueKind::Iterable) => {
            let items: Vec<Value> = a.try_iter()?.chain(b.try_iter()?).collect();
            Ok(Value::from(items))
        }
        _ => Err(unsupported()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> minijinja::machinery::WhitespaceConfig {
        minijinja::machinery::WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true }
    }

    #[test]
    fn every_addition_becomes_a_call_and_parentheses_stay_balanced() {
        let src = r#"{{ "a"|safe + b['x'] + "c"|safe + (d | tojson()) }}{% set n = (1) + 2 %}{{ f(x + y) }}"#;
        let out = rewrite(src, ws()).0.unwrap();
        assert_eq!(
            out,
            r#"{{ __markup_add(__markup_add(__markup_add("a"|safe , b['x']) , "c"|safe) , (d | tojson())) }}{% set n = __markup_add((1) , 2) %}{{ f(__markup_add(x , y)) }}"#
        );
        assert!(rewrite("{{ a + b }}", ws()).0.is_none(), "no `safe`, no rewrite");
    }

    #[test]
    fn markup_escapes_the_other_side_as_jinja2_does() {
        let mut env = minijinja::Environment::new();
        env.add_function(MARKUP_ADD, markup_add);
        let src =
            r#"{{ "Use '"|safe + name + "' <now>"|safe + 1|string }}|{{ 1 + 2.5 }}|{{ [1] + [2] }}|{{ "a" + "'" }}"#;
        let out = env.render_str(&rewrite(src, ws()).0.unwrap(), minijinja::context! { name => "it's <x>" }).unwrap();
        assert_eq!(out, "Use 'it&#39;s &lt;x&gt;' <now>1|3.5|[1, 2]|a'");
        assert!(env.render_str(&rewrite(r#"{{ "a"|safe + 1 }}"#, ws()).0.unwrap(), ()).is_err());
    }
}
