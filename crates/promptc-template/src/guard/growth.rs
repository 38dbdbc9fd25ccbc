//! The static growth estimate: how many times each value a template assigns can hold the
//! template's inputs. Self-feeding growth (`{% set s = s ~ s %}` repeated, a value rebuilt from
//! itself twice in a loop, a macro calling itself with a doubled argument) is refused before
//! minijinja runs it, since its fuel counts instructions, not bytes.

use std::collections::HashMap;

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};

use super::calls::calls_in_stmt;
use super::{Refusal, MAX_GROWTH};

/// Refuse the template `tree` when a value in it can grow without bound.
pub(super) fn check(tree: &Stmt<'_>) -> Result<(), Refusal> {
    let mut g = Growth { mult: HashMap::new(), depth: 0, macros: Vec::new() };
    g.stmt(tree)
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
/// The byte range of expression `e`.
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
    /// How many times `name`'s value holds the inputs (1 when it was never assigned: an input).
    fn lookup(&self, name: &str) -> u64 {
        self.mult.get(name).copied().unwrap_or(1)
    }

    /// [`weigh`] with the names assigned so far.
    fn weigh(&self, e: &Expr) -> u64 {
        weigh(e, &|n| self.lookup(n))
    }

    /// Each statement of a block, in order.
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

    /// Walk statement `s`, refusing the first self-feeding assignment.
    fn stmt(&mut self, s: &'a Stmt<'a>) -> Result<(), Refusal> {
        match s {
            Stmt::Template(t) => self.body(&t.children),
            Stmt::EmitExpr(_) | Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => Ok(()),
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

    /// Refuse a call of macro `name` in its own body whose arguments double its inputs.
    fn recursive_calls(&self, stmts: &[Stmt], name: &str) -> Result<(), Refusal> {
        let mut calls = Vec::new();
        for s in stmts {
            calls_in_stmt(s, name, &mut calls);
        }
        for call in calls {
            // Inputs only: a literal added on each call (`depth + 1`, `s ~ ";"`) grows the
            // argument by a constant per level, which the recursion limit bounds; an input
            // used twice (`s ~ s`) doubles it per level.
            let grows = call.args.iter().any(|a| match a {
                CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => {
                    weigh_with(x, &|_| 1, 0) >= 2
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
