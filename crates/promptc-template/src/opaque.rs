//! Untrusted values are opaque to templates. Such a value reaches a template already wrapped
//! (`<|TAG_nonce|>` … `<|TAG_END_nonce|>`), so anything that transforms it could leave part of
//! it outside an intact wrapper: `q[:25]` drops the closing tag, `upper` changes the nonce's
//! case, `replace` can rewrite the closing tag, iterating walks its characters. A static pass
//! over the syntax tree refuses every such use, at load, with a located error; what remains —
//! emitting the value, concatenating it, testing or comparing it, `default`, `length` — keeps
//! the wrapper whole. Names assigned from an untrusted value (`set`, `with`, a set block, a
//! `for` target, a namespace attribute) are untrusted too, and so is a macro whose output holds
//! untrusted text (imported ones too); a call block may not hand such text to a macro as
//! `caller()`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};
use minijinja::machinery::WhitespaceConfig;
use minijinja::syntax::SyntaxConfig;

use crate::guard::Refusal;
use crate::reach::MAX_VISITS;
use crate::source::SourceFile;

/// Filters that return the value unchanged or only measure it.
const KEEPS_WRAPPER: &[&str] = &["default", "d", "length", "count", "string"];

/// The refusal of a use of untrusted `name` at `span`.
fn refusal(span: minijinja::machinery::Span, message: String, name: &str) -> Refusal {
    Refusal {
        start: span.start_offset as usize,
        end: span.end_offset as usize,
        message,
        help: format!(
            "untrusted text is sent as it is, inside its delimiter wrapper: emit it whole with {{{{ {name} }}}}, test \
             it with {{% if {name} %}}, or concatenate it; prepare the text before it reaches promptc"
        ),
    }
}

/// Files an include names, for a walk that follows them (see [`check_through`]).
struct Follow<'r> {
    ws: WhitespaceConfig,
    read: &'r dyn Fn(&str) -> Option<SourceFile>,
    visits: Cell<usize>,
    stack: RefCell<Vec<String>>,
}

/// The walk: the names whose values are untrusted so far.
struct Taint<'r> {
    names: BTreeSet<String>,
    follow: Option<&'r Follow<'r>>,
    /// The included file a refusal was found in (`None`: the walked text itself).
    failed_in: Option<SourceFile>,
}

impl Taint<'_> {
    /// The untrusted name `e` reads, if any (nested anywhere in it).
    fn reads<'e>(&self, e: &'e Expr<'_>) -> Option<String> {
        let arg = |a: &'e CallArg<'_>| match a {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => self.reads(x),
        };
        match e {
            Expr::Var(v) => self.names.contains(v.id).then(|| v.id.to_string()),
            Expr::Const(_) => None,
            Expr::Slice(s) => self.reads(&s.expr),
            Expr::UnaryOp(u) => self.reads(&u.expr),
            Expr::BinOp(b) => self.reads(&b.left).or_else(|| self.reads(&b.right)),
            Expr::Compare(c) => self.reads(&c.expr).or_else(|| c.ops.iter().find_map(|o| self.reads(&o.expr))),
            Expr::IfExpr(i) => self
                .reads(&i.true_expr)
                .or_else(|| i.false_expr.as_ref().and_then(|x| self.reads(x)))
                .or_else(|| self.reads(&i.test_expr)),
            Expr::Filter(f) => f.expr.as_ref().and_then(|x| self.reads(x)).or_else(|| f.args.iter().find_map(arg)),
            Expr::Test(t) => self.reads(&t.expr),
            Expr::GetAttr(a) => self.attribute(&a.expr, a.name).or_else(|| self.reads(&a.expr)),
            Expr::GetItem(g) => {
                let key = match &g.subscript_expr {
                    Expr::Const(c) => c.value.as_str().and_then(|k| self.attribute(&g.expr, k)),
                    _ => None,
                };
                key.or_else(|| self.reads(&g.expr)).or_else(|| self.reads(&g.subscript_expr))
            }
            Expr::Call(c) => self.reads(&c.expr).or_else(|| c.args.iter().find_map(arg)),
            Expr::List(l) => l.items.iter().find_map(|x| self.reads(x)),
            Expr::Map(m) => m.keys.iter().chain(m.values.iter()).find_map(|x| self.reads(x)),
        }
    }

    /// `name.attr` when that attribute holds untrusted text (`{% set ns.v = q %}`): the
    /// attributes of a namespace are a channel of their own.
    fn attribute(&self, e: &Expr<'_>, attr: &str) -> Option<String> {
        let Expr::Var(v) = e else { return None };
        let path = format!("{}.{attr}", v.id);
        self.names.contains(&path).then_some(path)
    }

    /// Whether `e`'s value is (or holds) untrusted text, as opposed to a number or a boolean
    /// derived from it.
    fn carries(&self, e: &Expr<'_>) -> bool {
        match e {
            Expr::Compare(_) | Expr::Test(_) | Expr::UnaryOp(_) => false,
            Expr::Filter(f) if ["length", "count"].contains(&f.name) => false,
            _ => self.reads(e).is_some(),
        }
    }

    /// Refuse any part of `e` that transforms untrusted text.
    fn expr(&self, e: &Expr<'_>) -> Result<(), Refusal> {
        match e {
            Expr::Var(_) | Expr::Const(_) => Ok(()),
            Expr::Filter(f) => self.filter(f),
            Expr::Slice(s) => match self.reads(&s.expr) {
                Some(name) => Err(refusal(
                    s.span(),
                    format!("slicing untrusted text from `{name}` cuts it out of its wrapper"),
                    &name,
                )),
                None => self.expr(&s.expr),
            },
            Expr::GetItem(g) => match self.reads(&g.expr) {
                Some(name) => Err(refusal(
                    g.span(),
                    format!("indexing untrusted text from `{name}` takes it out of its wrapper"),
                    &name,
                )),
                None => self.expr(&g.expr).and_then(|_| self.expr(&g.subscript_expr)),
            },
            Expr::GetAttr(a) => match self.reads(&a.expr) {
                Some(name) => Err(refusal(
                    a.span(),
                    format!("`.{}` on untrusted text from `{name}` would change it", a.name),
                    &name,
                )),
                None => self.expr(&a.expr),
            },
            Expr::Call(c) => self.call(c, c.span()),
            Expr::UnaryOp(u) => self.expr(&u.expr),
            Expr::BinOp(b) => self.expr(&b.left).and_then(|_| self.expr(&b.right)),
            Expr::Compare(c) => {
                self.expr(&c.expr)?;
                c.ops.iter().try_for_each(|o| self.expr(&o.expr))
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr)?;
                self.expr(&i.true_expr)?;
                i.false_expr.as_ref().map_or(Ok(()), |x| self.expr(x))
            }
            Expr::Test(t) => self.expr(&t.expr),
            Expr::List(l) => l.items.iter().try_for_each(|x| self.expr(x)),
            Expr::Map(m) => m.keys.iter().chain(m.values.iter()).try_for_each(|x| self.expr(x)),
        }
    }

    /// A filter may keep untrusted text ([`KEEPS_WRAPPER`]), never transform it or take it as
    /// an argument.
    fn filter(&self, f: &ast::Spanned<ast::Filter<'_>>) -> Result<(), Refusal> {
        let arg = |a: &CallArg<'_>| match a {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => self.expr(x),
        };
        if let Some(name) = f.expr.as_ref().filter(|x| self.carries(x)).and_then(|x| self.reads(x)) {
            if !KEEPS_WRAPPER.contains(&f.name) {
                return Err(refusal(
                    f.span(),
                    format!("filter `{}` would change untrusted text from `{name}` and break its wrapper", f.name),
                    &name,
                ));
            }
        }
        if let Some(name) = f.args.iter().find_map(|a| match a {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => {
                self.carries(x).then(|| self.reads(x)).flatten()
            }
        }) {
            return Err(refusal(
                f.span(),
                format!("untrusted text from `{name}` is an argument of filter `{}`", f.name),
                &name,
            ));
        }
        f.expr.as_ref().map_or(Ok(()), |x| self.expr(x))?;
        f.args.iter().try_for_each(arg)
    }

    /// A call (a macro, a function, a method): untrusted text may not be an argument.
    fn call(&self, c: &ast::Call<'_>, span: minijinja::machinery::Span) -> Result<(), Refusal> {
        self.expr(&c.expr)?;
        if let Some(name) = c.args.iter().find_map(|a| match a {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => {
                self.carries(x).then(|| self.reads(x)).flatten()
            }
        }) {
            return Err(refusal(
                span,
                format!("untrusted text from `{name}` is passed to a call, which may change it"),
                &name,
            ));
        }
        c.args.iter().try_for_each(|a| match a {
            CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => self.expr(x),
        })
    }

    /// Mark the names `target` assigns as untrusted: a name, each name of a list, or a
    /// namespace attribute (`ns.v`).
    fn taint_target(&mut self, target: &Expr<'_>) {
        match target {
            Expr::Var(v) => {
                self.names.insert(v.id.to_string());
            }
            Expr::List(l) => l.items.iter().for_each(|x| self.taint_target(x)),
            Expr::GetAttr(a) => {
                if let Expr::Var(v) = &a.expr {
                    self.names.insert(format!("{}.{}", v.id, a.name));
                }
            }
            _ => {}
        }
    }

    /// Whether `stmts` emit untrusted text.
    fn emits(&self, stmts: &[Stmt<'_>]) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::EmitExpr(e) => self.carries(&e.expr),
            Stmt::IfCond(c) => self.emits(&c.true_body) || self.emits(&c.false_body),
            Stmt::ForLoop(l) => self.emits(&l.body) || self.emits(&l.else_body),
            Stmt::WithBlock(w) => self.emits(&w.body),
            Stmt::FilterBlock(b) => self.emits(&b.body),
            Stmt::AutoEscape(a) => self.emits(&a.body),
            Stmt::Block(b) => self.emits(&b.body),
            _ => false,
        })
    }

    /// Each statement of a block, in order.
    fn body(&mut self, stmts: &[Stmt<'_>]) -> Result<(), Refusal> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// Refuse any use of untrusted text in `s` that could break its wrapper, tainting the
    /// names it assigns from untrusted values.
    fn stmt(&mut self, s: &Stmt<'_>) -> Result<(), Refusal> {
        match s {
            Stmt::Template(t) => self.body(&t.children),
            Stmt::EmitExpr(e) => self.expr(&e.expr),
            Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => Ok(()),
            Stmt::ForLoop(l) => self.for_loop(l),
            Stmt::IfCond(c) => {
                self.expr(&c.expr)?;
                self.body(&c.true_body)?;
                self.body(&c.false_body)
            }
            Stmt::WithBlock(w) => {
                for (target, value) in &w.assignments {
                    self.expr(value)?;
                    if self.carries(value) {
                        self.taint_target(target);
                    }
                }
                self.body(&w.body)
            }
            Stmt::Set(x) => {
                self.expr(&x.expr)?;
                if self.carries(&x.expr) {
                    self.taint_target(&x.target);
                }
                Ok(())
            }
            Stmt::SetBlock(x) => self.set_block(x),
            Stmt::FilterBlock(b) => self.filter_block(b),
            Stmt::AutoEscape(a) => self.body(&a.body),
            Stmt::Block(b) => self.body(&b.body),
            Stmt::Macro(m) => {
                self.body(&m.body)?;
                // What the macro returns holds untrusted text: calling it is a channel too.
                if self.emits(&m.body) {
                    self.names.insert(m.name.to_string());
                }
                Ok(())
            }
            Stmt::CallBlock(c) => {
                self.call(&c.call, c.call.span())?;
                self.body(&c.macro_decl.body)?;
                if self.emits(&c.macro_decl.body) {
                    return Err(refusal(
                        c.span(),
                        "a call block hands the untrusted text it holds to the macro as `caller()`, which may change \
                         it"
                        .into(),
                        "NAME",
                    ));
                }
                Ok(())
            }
            Stmt::Do(d) => self.call(&d.call, d.call.span()),
            Stmt::Include(i) => self.include(&i.name).map(drop),
            Stmt::Extends(e) => self.include(&e.name).map(drop),
            Stmt::Import(i) => {
                // `{% import 'm.j2' as m %}`: `m.f` holds untrusted text where macro `f` does.
                let tainted = self.include(&i.expr)?;
                if let Expr::Var(alias) = &i.name {
                    self.names.extend(tainted.iter().map(|n| format!("{}.{n}", alias.id)));
                }
                Ok(())
            }
            Stmt::FromImport(f) => {
                // `{% from 'm.j2' import f as g %}`: `g` holds untrusted text where `f` does.
                let tainted = self.include(&f.expr)?;
                for (name, alias) in &f.names {
                    if matches!(name, Expr::Var(v) if tainted.contains(v.id)) {
                        self.taint_target(alias.as_ref().unwrap_or(name));
                    }
                }
                Ok(())
            }
        }
    }

    /// A loop over untrusted text would walk its characters; its body is walked as usual.
    fn for_loop(&mut self, l: &ast::Spanned<ast::ForLoop<'_>>) -> Result<(), Refusal> {
        if let Some(name) = self.reads(&l.iter).filter(|_| self.carries(&l.iter)) {
            return Err(refusal(
                l.span(),
                format!("a loop over untrusted text from `{name}` walks it piece by piece, out of its wrapper"),
                &name,
            ));
        }
        self.expr(&l.iter)?;
        if let Some(f) = &l.filter_expr {
            self.expr(f)?;
        }
        self.body(&l.body)?;
        self.body(&l.else_body)
    }

    /// A set block capturing untrusted text taints its target, and may not filter it.
    fn set_block(&mut self, x: &ast::Spanned<ast::SetBlock<'_>>) -> Result<(), Refusal> {
        self.body(&x.body)?;
        if let Some(f) = &x.filter {
            if self.emits(&x.body) {
                return Err(refusal(
                    x.span(),
                    "a filtered set block would change the untrusted text it captures".into(),
                    "NAME",
                ));
            }
            self.expr(f)?;
        }
        if self.emits(&x.body) {
            self.taint_target(&x.target);
        }
        Ok(())
    }

    /// A filter block would transform the untrusted text its body emits.
    fn filter_block(&mut self, b: &ast::Spanned<ast::FilterBlock<'_>>) -> Result<(), Refusal> {
        if self.emits(&b.body) {
            return Err(refusal(b.span(), "a filter block would change the untrusted text inside it".into(), "NAME"));
        }
        self.body(&b.body)
    }

    /// Walk the file a literal include name (or the first readable of a literal list) names,
    /// with the names untrusted here, as minijinja renders it in the including context; the
    /// names it taints itself (its macros that return untrusted text), for imports.
    fn include(&mut self, name: &Expr<'_>) -> Result<BTreeSet<String>, Refusal> {
        let Some(follow) = self.follow else { return Ok(BTreeSet::new()) };
        let literal = |e: &Expr<'_>| match e {
            Expr::Const(c) => c.value.as_str().map(str::to_string),
            _ => None,
        };
        let names: Vec<String> = match name {
            Expr::List(l) => l.items.iter().filter_map(literal).collect(),
            other => literal(other).into_iter().collect(),
        };
        for n in names {
            if follow.visits.get() >= MAX_VISITS {
                return Ok(BTreeSet::new());
            }
            let Some(file) = (follow.read)(&n) else { continue };
            follow.visits.set(follow.visits.get() + 1);
            if follow.stack.borrow().contains(&file.rel) {
                return Ok(BTreeSet::new());
            }
            let Ok(tree) = minijinja::machinery::parse(&file.text, "<opaque>", SyntaxConfig, follow.ws) else {
                return Ok(BTreeSet::new());
            };
            follow.stack.borrow_mut().push(file.rel.clone());
            let mut inner = Taint { names: self.names.clone(), follow: self.follow, failed_in: None };
            let r = inner.stmt(&tree);
            follow.stack.borrow_mut().pop();
            if let Err(e) = r {
                self.failed_in = inner.failed_in.or(Some(file));
                return Err(e);
            }
            return Ok(inner.names.difference(&self.names).cloned().collect());
        }
        Ok(BTreeSet::new())
    }
}

/// Refuse any use of the `untrusted` names in `source` that could take part of their text
/// out of its wrapper, without following includes. A syntax error is left to the compiler to
/// report.
#[cfg(test)]
fn check(source: &str, ws: WhitespaceConfig, untrusted: &BTreeSet<&str>) -> Result<(), Refusal> {
    check_through(source, ws, untrusted, &|_| None).map_err(|e| e.1)
}

/// Refuse any use of the `untrusted` names in `source` that could take part of their text
/// out of its wrapper (a syntax error is left to the compiler to report), following
/// `{% include %}`, `{% import %}`, `{% from %}` and `{% extends %}`
/// with literal names (through `read`, which confines and guards them) into the files they
/// pull in, with the names untrusted at the tag (`{% with rules = user_rules %}{% include … %}`
/// makes `rules` untrusted there). A refusal in an included file comes with that file.
pub fn check_through(
    source: &str,
    ws: WhitespaceConfig,
    untrusted: &BTreeSet<&str>,
    read: &dyn Fn(&str) -> Option<SourceFile>,
) -> Result<(), Box<(Option<SourceFile>, Refusal)>> {
    let pulls_in = ["include", "import", "extends"].iter().any(|k| source.contains(k));
    if untrusted.is_empty() || !(pulls_in || untrusted.iter().any(|n| source.contains(n))) {
        return Ok(());
    }
    let Ok(tree) = minijinja::machinery::parse(source, "<opaque>", SyntaxConfig, ws) else { return Ok(()) };
    let follow = Follow { ws, read, visits: Cell::new(0), stack: RefCell::new(Vec::new()) };
    let mut t =
        Taint { names: untrusted.iter().map(|s| s.to_string()).collect(), follow: Some(&follow), failed_in: None };
    t.stmt(&tree).map_err(|r| Box::new((t.failed_in.take(), r)))
}

#[cfg(test)]
#[path = "opaque_tests.rs"]
mod tests;
