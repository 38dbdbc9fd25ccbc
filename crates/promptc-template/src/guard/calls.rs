//! The calls of one macro inside its own body, for the recursion check of `growth`.

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};

/// Every call of macro `name` in `s`.
pub(super) fn calls_in_stmt<'s, 'a>(s: &'s Stmt<'a>, name: &str, out: &mut Vec<&'s ast::Call<'a>>) {
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
        | Stmt::Macro(_)
        | Stmt::Continue(_)
        | Stmt::Break(_) => {}
    }
}

/// Every call of macro `name` in expression `e`.
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
