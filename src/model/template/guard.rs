//! Checks a template's source before minijinja compiles it, so a hostile project ends in a
//! located error instead of an abort or an out-of-memory kill:
//!
//! - NUL bytes are refused (they are never prompt text, and they hide what follows).
//! - No tag (`{{ … }}`, `{% … %}`) may hold more than [`MAX_TAG_TOKENS`] tokens: a chain of
//!   50,000 `~` or `|filter` links builds a syntax tree deep enough to overflow the stack
//!   while it is compiled or dropped, and no real template comes near the limit.
//! - No value may grow without bound: minijinja's fuel counts instructions, not bytes, and
//!   forty `{% set s = s ~ s %}` (or one macro calling itself with `s ~ s`) ask for a terabyte.
//!   A static pass over the syntax tree estimates how many times its inputs each assigned value
//!   can hold and refuses self-feeding growth; the rendered output itself is capped while
//!   rendering (see `Limits`), and the filters that can amplify text check their result size.

use std::collections::HashMap;

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};
use minijinja::machinery::WhitespaceConfig;
use minijinja::syntax::SyntaxConfig;

/// Most tokens one tag may hold: a generous sentence-long expression is under 100.
pub const MAX_TAG_TOKENS: usize = 1000;

/// Most times a value assigned with `set` may hold its inputs (`x ~ x` holds `x` twice).
pub const MAX_GROWTH: u64 = 4096;

/// Why a template was refused, located by byte range in its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Byte offset of the start of the offending text.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// Check `source`; `ws` is the environment's whitespace configuration.
pub fn check(source: &str, ws: WhitespaceConfig) -> Result<(), Refusal> {
    if let Some(at) = source.find('\0') {
        return Err(Refusal {
            start: at,
            end: at + 1,
            message: "the template contains a NUL byte".into(),
            help: "remove it: a NUL byte is never prompt text (the file may be binary or mis-encoded)".into(),
        });
    }
    check_tags(source, ws)?;
    // A syntax error is minijinja's to report, with its own message; nothing to guard then.
    let Ok(tree) = minijinja::machinery::parse(source, "<guard>", SyntaxConfig, ws) else {
        return Ok(());
    };
    let mut g = Growth { mult: HashMap::new(), depth: 0, macros: Vec::new() };
    g.stmt(&tree)
}

fn check_tags(source: &str, ws: WhitespaceConfig) -> Result<(), Refusal> {
    use minijinja::machinery::Token;
    let mut open: Option<(usize, usize)> = None; // (start offset, tokens so far)
    for item in minijinja::machinery::tokenize(source, false, SyntaxConfig, ws) {
        let Ok((token, span)) = item else { return Ok(()) };
        match token {
            Token::VariableStart | Token::BlockStart => open = Some((span.start_offset as usize, 0)),
            Token::VariableEnd | Token::BlockEnd => open = None,
            _ => {
                if let Some((start, n)) = open.as_mut() {
                    *n += 1;
                    if *n > MAX_TAG_TOKENS {
                        return Err(Refusal {
                            start: *start,
                            end: span.end_offset as usize,
                            message: format!("this tag holds more than {MAX_TAG_TOKENS} tokens"),
                            help: "split the expression over several `{% set %}` statements or macros".into(),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The innermost block tag left open at the end of `source` (`{% if %}` without `{% endif %}`):
/// its byte range and keyword. minijinja reports such a template where its input ends; the
/// opening tag is what the author needs to see.
pub fn unclosed_block(source: &str, ws: WhitespaceConfig) -> Option<(usize, usize, String)> {
    use minijinja::machinery::Token;
    const OPENERS: &[&str] = &["if", "for", "macro", "call", "filter", "with", "block", "autoescape", "set"];
    let mut open: Vec<(usize, usize, String)> = Vec::new();
    // The tag being read: its start, its keyword, whether it assigns (`{% set x = … %}` opens nothing).
    let mut tag: Option<(usize, Option<String>, bool)> = None;
    for item in minijinja::machinery::tokenize(source, false, SyntaxConfig, ws) {
        let Ok((token, span)) = item else { return None };
        match (token, tag.as_mut()) {
            (Token::BlockStart, _) => tag = Some((span.start_offset as usize, None, false)),
            (Token::Ident(kw), Some((_, word @ None, _))) => *word = Some(kw.to_string()),
            (Token::Assign, Some((_, _, assigns))) => *assigns = true,
            (Token::BlockEnd, Some(_)) => {
                let Some((start, Some(kw), assigns)) = tag.take() else { continue };
                let end = span.end_offset as usize;
                if let Some(base) = kw.strip_prefix("end") {
                    if let Some(i) = open.iter().rposition(|(_, _, k)| k == base) {
                        open.truncate(i);
                    }
                } else if OPENERS.contains(&kw.as_str()) && !(kw == "set" && assigns) {
                    open.push((start, end, kw));
                }
            }
            _ => {}
        }
    }
    open.pop()
}

/// The static growth estimate: for each name assigned so far, how many times its value can
/// hold the template's inputs (a context value or a literal counts once).
struct Growth<'a> {
    mult: HashMap<String, u64>,
    /// Loops and macro bodies around the current statement: code there may run many times.
    depth: usize,
    /// The macros being defined around the current statement.
    macros: Vec<&'a str>,
}

/// `a`, `ns.count`: the name an assignment target or a lookup stands for.
fn key(e: &Expr) -> Option<String> {
    match e {
        Expr::Var(v) => Some(v.id.to_string()),
        Expr::GetAttr(a) => key(&a.expr).map(|k| format!("{k}.{}", a.name)),
        _ => None,
    }
}

fn span_of(e: &Expr) -> ast_span::Span {
    ast_span::of_expr(e)
}

/// Spans of nodes, as byte offsets.
mod ast_span {
    use super::{Expr, Stmt};

    /// A byte range.
    pub(super) struct Span {
        pub(super) start: usize,
        pub(super) end: usize,
    }

    fn from(s: minijinja::machinery::Span) -> Span {
        Span { start: s.start_offset as usize, end: s.end_offset as usize }
    }

    pub(super) fn of_expr(e: &Expr) -> Span {
        from(match e {
            Expr::Var(x) => x.span(),
            Expr::Const(x) => x.span(),
            Expr::Slice(x) => x.span(),
            Expr::UnaryOp(x) => x.span(),
            Expr::BinOp(x) => x.span(),
            Expr::Compare(x) => x.span(),
            Expr::IfExpr(x) => x.span(),
            Expr::Filter(x) => x.span(),
            Expr::Test(x) => x.span(),
            Expr::GetAttr(x) => x.span(),
            Expr::GetItem(x) => x.span(),
            Expr::Call(x) => x.span(),
            Expr::List(x) => x.span(),
            Expr::Map(x) => x.span(),
        })
    }

    pub(super) fn of_set(s: &Stmt) -> Option<Span> {
        match s {
            Stmt::Set(x) => Some(from(x.span())),
            Stmt::SetBlock(x) => Some(from(x.span())),
            _ => None,
        }
    }
}

/// How many times `e`'s value can hold its inputs, looking names up with `f`.
fn weigh(e: &Expr, f: &dyn Fn(&str) -> u64) -> u64 {
    weigh_with(e, f, 1)
}

/// [`weigh`], with each literal counting `literal` times: 1 for the size estimate, 0 when
/// counting how often a value refers to itself (`ns.s ~ x ~ ";"` refers to `ns.s` once).
fn weigh_with(e: &Expr, f: &dyn Fn(&str) -> u64, literal: u64) -> u64 {
    let weigh = |e: &Expr, f: &dyn Fn(&str) -> u64| weigh_with(e, f, literal);
    let args = |args: &[CallArg]| {
        args.iter()
            .map(|a| match a {
                CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => weigh(x, f),
            })
            .fold(0u64, u64::saturating_add)
    };
    match e {
        Expr::Var(v) => f(v.id),
        // A literal holds itself once: `{% set s = "x" %}` doubled forty times is as bad as a
        // doubled variable.
        Expr::Const(_) => literal,
        Expr::GetAttr(a) => match key(e) {
            Some(k) => f(&k),
            None => weigh(&a.expr, f),
        },
        Expr::GetItem(g) => weigh(&g.expr, f),
        Expr::Slice(s) => weigh(&s.expr, f),
        Expr::BinOp(b) => {
            use ast::BinOpKind as K;
            let (l, r) = (weigh(&b.left, f), weigh(&b.right, f));
            match b.op {
                K::Concat | K::Add => l.saturating_add(r),
                // `s * 3` holds `s` three times (minijinja caps the repeated length itself).
                K::Mul => match (&b.left, &b.right) {
                    (_, Expr::Const(c)) => l.saturating_mul(c.value.as_usize().unwrap_or(1).max(1) as u64),
                    (Expr::Const(c), _) => r.saturating_mul(c.value.as_usize().unwrap_or(1).max(1) as u64),
                    _ => l.saturating_add(r),
                },
                // Numbers and booleans: their size does not grow with their inputs.
                _ => 0,
            }
        }
        Expr::UnaryOp(_) | Expr::Compare(_) | Expr::Test(_) => 0,
        Expr::IfExpr(i) => weigh(&i.true_expr, f).max(i.false_expr.as_ref().map_or(0, |x| weigh(x, f))),
        Expr::Filter(x) => x.expr.as_ref().map_or(0, |e| weigh(e, f)).saturating_add(args(&x.args)),
        Expr::Call(c) => weigh(&c.expr, f).saturating_add(args(&c.args)),
        Expr::List(l) => l.items.iter().map(|x| weigh(x, f)).fold(0, u64::saturating_add),
        Expr::Map(m) => m.values.iter().map(|x| weigh(x, f)).fold(0, u64::saturating_add),
    }
}

impl<'a> Growth<'a> {
    fn lookup(&self, name: &str) -> u64 {
        self.mult.get(name).copied().unwrap_or(1)
    }

    fn weigh(&self, e: &Expr) -> u64 {
        weigh(e, &|n| self.lookup(n))
    }

    fn body(&mut self, stmts: &'a [Stmt<'a>]) -> Result<(), Refusal> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// Record that `target` now holds a value `m` times its inputs, built by `stmt`.
    fn assign(&mut self, target: &Expr, m: u64, self_refs: u64, stmt: &Stmt) -> Result<(), Refusal> {
        let at = ast_span::of_set(stmt).unwrap_or_else(|| span_of(target));
        let name = key(target).unwrap_or_else(|| "the value".into());
        if self.depth > 0 && self_refs >= 2 {
            return Err(Refusal {
                start: at.start,
                end: at.end,
                message: format!("`{name}` is built from itself more than once inside a loop or macro"),
                help: "it would double on every pass; emit the text directly in the loop, or append to it once \
                       per pass"
                    .into(),
            });
        }
        if m > MAX_GROWTH {
            return Err(Refusal {
                start: at.start,
                end: at.end,
                message: format!("`{name}` can grow to more than {MAX_GROWTH} times the text it is built from"),
                help: "values doubled again and again (`{% set s = s ~ s %}`) exhaust memory; build the text once"
                    .into(),
            });
        }
        let slot = self.mult.entry(name).or_insert(0);
        *slot = (*slot).max(m);
        Ok(())
    }

    fn stmt(&mut self, s: &'a Stmt<'a>) -> Result<(), Refusal> {
        match s {
            Stmt::Template(t) => self.body(&t.children),
            Stmt::EmitExpr(_) | Stmt::EmitRaw(_) => Ok(()),
            Stmt::ForLoop(l) => {
                let m = self.weigh(&l.iter);
                let mut targets = Vec::new();
                collect_targets(&l.target, &mut targets);
                for t in targets {
                    if let Some(k) = key(t) {
                        self.mult.insert(k, m.max(1));
                    }
                }
                self.depth += 1;
                let r = self.body(&l.body);
                self.depth -= 1;
                r?;
                self.body(&l.else_body)
            }
            Stmt::IfCond(c) => {
                self.body(&c.true_body)?;
                self.body(&c.false_body)
            }
            Stmt::WithBlock(w) => {
                for (target, value) in &w.assignments {
                    let m = self.weigh(value);
                    self.assign(target, m, 0, s)?;
                }
                self.body(&w.body)
            }
            Stmt::Set(x) => {
                let m = self.weigh(&x.expr);
                let self_refs = key(&x.target).map_or(0, |k| weigh_with(&x.expr, &|n| u64::from(n == k), 0));
                let mut targets = Vec::new();
                collect_targets(&x.target, &mut targets);
                for t in targets {
                    self.assign(t, m, self_refs, s)?;
                }
                Ok(())
            }
            Stmt::SetBlock(x) => {
                self.body(&x.body)?;
                let (m, self_refs) = match key(&x.target) {
                    Some(k) => (emitted(&x.body, &|n| self.lookup(n), 1), emitted(&x.body, &|n| u64::from(n == k), 0)),
                    None => (emitted(&x.body, &|n| self.lookup(n), 1), 0),
                };
                self.assign(&x.target, m, self_refs, s)
            }
            Stmt::AutoEscape(a) => self.body(&a.body),
            Stmt::FilterBlock(b) => self.body(&b.body),
            Stmt::Block(b) => self.body(&b.body),
            Stmt::Import(_) | Stmt::FromImport(_) | Stmt::Extends(_) | Stmt::Include(_) => Ok(()),
            Stmt::Macro(m) => self.macro_body(m),
            Stmt::CallBlock(c) => self.macro_body(&c.macro_decl),
            Stmt::Do(_) => Ok(()),
        }
    }

    /// A macro's body may run many times, and may call itself: each recursive call whose
    /// arguments hold a parameter twice doubles it, up to the recursion limit.
    fn macro_body(&mut self, m: &'a ast::Macro<'a>) -> Result<(), Refusal> {
        self.macros.push(m.name);
        self.depth += 1;
        let r = self.body(&m.body).and_then(|_| self.recursive_calls(&m.body, m.name));
        self.depth -= 1;
        self.macros.pop();
        r
    }

    fn recursive_calls(&self, stmts: &[Stmt], name: &str) -> Result<(), Refusal> {
        let mut calls = Vec::new();
        for s in stmts {
            calls_in_stmt(s, name, &mut calls);
        }
        for call in calls {
            let grows = call.args.iter().any(|a| match a {
                CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => {
                    weigh(x, &|_| 1) >= 2
                }
            });
            if grows {
                let at = span_of(&call.expr);
                return Err(Refusal {
                    start: at.start,
                    end: at.end,
                    message: format!("macro `{name}` calls itself with an argument built from its inputs twice"),
                    help: "each call would double the argument; pass the text unchanged or build it once outside \
                           the macro"
                        .into(),
                });
            }
        }
        Ok(())
    }
}

/// The assignment targets of `e` (`a`, `a, b`, `ns.x`).
fn collect_targets<'e, 'a>(e: &'e Expr<'a>, out: &mut Vec<&'e Expr<'a>>) {
    match e {
        Expr::List(l) => l.items.iter().for_each(|x| collect_targets(x, out)),
        other => out.push(other),
    }
}

/// How many times the text a block of statements emits can hold its inputs.
fn emitted(stmts: &[Stmt], f: &dyn Fn(&str) -> u64, literal: u64) -> u64 {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::EmitExpr(e) => weigh_with(&e.expr, f, literal),
            Stmt::IfCond(c) => emitted(&c.true_body, f, literal).max(emitted(&c.false_body, f, literal)),
            // A loop repeats its body: count it as holding each input as often as the body does.
            Stmt::ForLoop(l) => emitted(&l.body, f, literal),
            Stmt::WithBlock(w) => emitted(&w.body, f, literal),
            Stmt::FilterBlock(b) => emitted(&b.body, f, literal),
            Stmt::AutoEscape(a) => emitted(&a.body, f, literal),
            _ => 0,
        })
        .fold(0, u64::saturating_add)
}

/// Every call of macro `name` in `s`.
fn calls_in_stmt<'s, 'a>(s: &'s Stmt<'a>, name: &str, out: &mut Vec<&'s ast::Call<'a>>) {
    let body = |b: &'s [Stmt<'a>], out: &mut Vec<&'s ast::Call<'a>>| b.iter().for_each(|x| calls_in_stmt(x, name, out));
    match s {
        Stmt::Template(t) => body(&t.children, out),
        Stmt::EmitExpr(e) => calls_in_expr(&e.expr, name, out),
        Stmt::ForLoop(l) => {
            calls_in_expr(&l.iter, name, out);
            body(&l.body, out);
            body(&l.else_body, out);
        }
        Stmt::IfCond(c) => {
            calls_in_expr(&c.expr, name, out);
            body(&c.true_body, out);
            body(&c.false_body, out);
        }
        Stmt::WithBlock(w) => {
            w.assignments.iter().for_each(|(_, v)| calls_in_expr(v, name, out));
            body(&w.body, out);
        }
        Stmt::Set(x) => calls_in_expr(&x.expr, name, out),
        Stmt::SetBlock(x) => body(&x.body, out),
        Stmt::AutoEscape(a) => body(&a.body, out),
        Stmt::FilterBlock(b) => body(&b.body, out),
        Stmt::Block(b) => body(&b.body, out),
        Stmt::CallBlock(c) => {
            if matches!(&c.call.expr, Expr::Var(v) if v.id == name) {
                out.push(&c.call);
            }
            body(&c.macro_decl.body, out);
        }
        Stmt::Do(d) => {
            if matches!(&d.call.expr, Expr::Var(v) if v.id == name) {
                out.push(&d.call);
            }
        }
        Stmt::EmitRaw(_)
        | Stmt::Import(_)
        | Stmt::FromImport(_)
        | Stmt::Extends(_)
        | Stmt::Include(_)
        | Stmt::Macro(_) => {}
    }
}

fn calls_in_expr<'s, 'a>(e: &'s Expr<'a>, name: &str, out: &mut Vec<&'s ast::Call<'a>>) {
    let arg = |a: &'s CallArg<'a>, out: &mut Vec<&'s ast::Call<'a>>| match a {
        CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => {
            calls_in_expr(x, name, out)
        }
    };
    match e {
        Expr::Call(c) => {
            if matches!(&c.expr, Expr::Var(v) if v.id == name) {
                out.push(c);
            }
            calls_in_expr(&c.expr, name, out);
            c.args.iter().for_each(|a| arg(a, out));
        }
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(s) => calls_in_expr(&s.expr, name, out),
        Expr::UnaryOp(u) => calls_in_expr(&u.expr, name, out),
        Expr::BinOp(b) => {
            calls_in_expr(&b.left, name, out);
            calls_in_expr(&b.right, name, out);
        }
        Expr::Compare(c) => {
            calls_in_expr(&c.expr, name, out);
            c.ops.iter().for_each(|o| calls_in_expr(&o.expr, name, out));
        }
        Expr::IfExpr(i) => {
            calls_in_expr(&i.test_expr, name, out);
            calls_in_expr(&i.true_expr, name, out);
            if let Some(x) = &i.false_expr {
                calls_in_expr(x, name, out);
            }
        }
        Expr::Filter(f) => {
            if let Some(x) = &f.expr {
                calls_in_expr(x, name, out);
            }
            f.args.iter().for_each(|a| arg(a, out));
        }
        Expr::Test(t) => {
            calls_in_expr(&t.expr, name, out);
            t.args.iter().for_each(|a| arg(a, out));
        }
        Expr::GetAttr(a) => calls_in_expr(&a.expr, name, out),
        Expr::GetItem(g) => {
            calls_in_expr(&g.expr, name, out);
            calls_in_expr(&g.subscript_expr, name, out);
        }
        Expr::List(l) => l.items.iter().for_each(|x| calls_in_expr(x, name, out)),
        Expr::Map(m) => {
            m.keys.iter().chain(m.values.iter()).for_each(|x| calls_in_expr(x, name, out));
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_innermost_unclosed_block_is_found_at_its_tag() {
        let ws = WhitespaceConfig::default();
        let find = |src: &str| unclosed_block(src, ws).map(|(s, e, k)| (src[s..e].to_string(), k));
        assert_eq!(find("a {% if x %} b"), Some(("{% if x %}".into(), "if".into())));
        assert_eq!(find("{% if x %}{% for y in z %}{{ y }}{% endfor %}"), Some(("{% if x %}".into(), "if".into())));
        assert_eq!(
            find("{% if x %}{% for y in z %}{{ y }}{% endif %}"),
            None,
            "a mismatched end is minijinja's to report"
        );
        assert_eq!(find("{% set a = 1 %}{% set b %}text"), Some(("{% set b %}".into(), "set".into())));
        assert_eq!(find("{% if x %}{% else %}{% endif %}"), None);
        assert_eq!(find("{% macro m() %}{% if a %}{% endif %}"), Some(("{% macro m() %}".into(), "macro".into())));
    }

    use super::*;

    fn ws() -> WhitespaceConfig {
        WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true }
    }

    fn refused(src: &str) -> Refusal {
        check(src, ws()).expect_err(src)
    }

    #[test]
    fn ordinary_templates_pass() {
        for src in [
            "{% set full = header ~ body ~ footer %}{{ full }}",
            "{% for t in tools %}{% set line = '- ' ~ t.name %}{{ line }}\n{% endfor %}",
            "{% set ns = namespace(text='') %}{% for t in tools %}{% set ns.text = ns.text ~ t.name %}{% endfor %}",
            // Literals appended with the value are not the value itself.
            "{% set ns = namespace(s='') %}{% for t in tools %}{% set ns.s = ns.s ~ t.name ~ ';' %}{% endfor %}",
            "{% set ns = namespace(s='') %}{% for t in tools %}{% set ns.s %}{{ ns.s }}{{ ', ' }}{% endset %}{% endfor %}",
            "{% macro item(t) %}- {{ t }}{% endmacro %}{{ item('a') }}",
            "{% macro walk(n) %}{% if n > 0 %}{{ walk(n - 1) }}{% endif %}{% endmacro %}{{ walk(3) }}",
            "{% set a = x ~ x %}{% set b = a ~ a %}{{ b }}",
            "{{ '=' * 40 }}",
            "{% if x %}{{ y }}{% endif %} {{ a|upper|trim }}",
        ] {
            assert_eq!(check(src, ws()), Ok(()), "{src}");
        }
    }

    #[test]
    fn nul_bytes_are_located() {
        let r = refused("ab\0c");
        assert_eq!((r.start, r.end), (2, 3));
    }

    #[test]
    fn overlong_tags_are_refused_before_parsing() {
        let chain = format!("x {{{{ {} }}}}", vec!["a"; 50_000].join(" ~ "));
        let r = refused(&chain);
        assert_eq!(r.start, 2);
        assert!(r.message.contains("more than 1000 tokens"));
        let filters = format!("{{{{ a{} }}}}", "|upper".repeat(600));
        assert!(refused(&filters).message.contains("tokens"));
        // Just under the limit compiles.
        let fine = format!("{{{{ {} }}}}", vec!["a"; 400].join(" ~ "));
        assert_eq!(check(&fine, ws()), Ok(()));
    }

    #[test]
    fn doubling_is_refused() {
        let straight: String = (0..40).map(|_| "{% set s = s ~ s %}").collect();
        let r = refused(&straight);
        assert!(r.message.contains("4096 times"), "{}", r.message);
        // The refusal points at the 13th `set`, the first past 4096×.
        assert_eq!(&straight[r.start..r.end], "set s = s ~ s");
        assert_eq!(r.start, 12 * "{% set s = s ~ s %}".len() + 3);
        let in_loop = "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}";
        assert!(refused(in_loop).message.contains("`ns.s` is built from itself more than once"));
        let block = "{% for i in range(40) %}{% set s %}{{ s }}{{ s }}{% endset %}{% endfor %}";
        assert!(refused(block).message.contains("`s` is built from itself"));
        let repeat = "{% set a = x * 100 %}{% set b = a * 100 %}";
        assert!(refused(repeat).message.contains("4096 times"));
        let recursion = "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% endif %}{% endmacro %}{{ d('x', 60) }}";
        assert!(refused(recursion).message.contains("macro `d` calls itself"));
    }
}
