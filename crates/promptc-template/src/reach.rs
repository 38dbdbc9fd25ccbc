// Long because one visitor walks every statement and expression kind in its scope.
//! What a template reads, through the files it pulls in. minijinja's own
//! `undeclared_variables` stops at `{% include %}`, `{% import %}`, `{% from %}` and
//! `{% extends %}`; this pass follows each of them whose name is a literal (recursively, with
//! cycle protection and a cap on how many files one template may pull in) and walks the
//! included file's syntax tree in the scope of the tag that includes it: names set before the
//! include, loop variables and macro parameters around it are defined there, as minijinja's
//! include sees the including context (its imports do too).
//!
//! A name computed at render time (`{% include name ~ ".j2" %}`) cannot be followed: what that
//! file reads is checked only when it is rendered. A file that cannot be read or that the guard
//! refuses is not followed either: rendering reports it, located.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};
use minijinja::machinery::WhitespaceConfig;
use minijinja::syntax::SyntaxConfig;

use crate::source::SourceFile;

/// Most files the analysis of one template follows (counting each time a file is reached):
/// far above real prompts, low enough that a file including the next one twice, twenty deep,
/// costs nothing.
pub const MAX_VISITS: usize = 256;

/// Deepest chain of includes followed.
const MAX_DEPTH: usize = 32;

/// Where a name is first read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Site {
    /// In the template's own text.
    Own,
    /// In a file it pulls in: the file's project-relative path and the byte range of the
    /// identifier there.
    File {
        /// The file, relative to the project folder.
        rel: String,
        /// Byte offset of the identifier.
        start: usize,
        /// Byte offset of its end.
        end: usize,
    },
}

/// A tool name a template tests for: `"read_file" in tool_names` (or `not in`),
/// `tools|selectattr("name", "equalto", "read_file")` (`rejectattr`, the tests `==`, `eq`,
/// `sameas`, and `in` with a list of names), or a comparison in a loop over them (`n ==
/// "read_file"` over `tool_names`, `t.name != "x"` over `tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRef {
    /// The name, as written.
    pub name: String,
    /// The file it is written in (project-relative), `None` for the template's own text.
    pub file: Option<String>,
    /// Byte offset of the string literal (its quote).
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
}

/// What a template reads, its own text and every file it pulls in with a literal name.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Every top-level name read where nothing in scope defines it, with where it is first
    /// read (the template's own text when it reads it there at all).
    pub names: BTreeMap<String, Site>,
    /// Switches read as `switches.NAME` or `switches["NAME"]`.
    pub switch_keys: BTreeSet<String>,
    /// Tool names it tests for, in the order written.
    pub tool_refs: Vec<ToolRef>,
    /// The files it pulls in, by project-relative path.
    pub files: BTreeMap<String, SourceFile>,
    /// Whether it pulls in any file at all (`include`, `import`, `from`, `extends`, with a
    /// literal name or a computed one), or could not be parsed: what it renders may then
    /// depend on files no list names, so the compile cache does not keep its cells.
    pub pulls: bool,
}

/// Analyse `source`; `read` returns a file an include names (already confined to the project
/// and passed by the guard), or `None` to leave it unfollowed.
pub fn analyze(source: &str, ws: WhitespaceConfig, read: &dyn Fn(&str) -> Option<SourceFile>) -> Reach {
    analyze_parsed(minijinja::machinery::parse(source, "<reach>", SyntaxConfig, ws).ok().as_ref(), ws, read)
}

/// Analyse a template already parsed with the same syntax and whitespace configuration as
/// [`analyze`] would (`None`: it could not be parsed).
pub fn analyze_parsed(
    tree: Option<&Stmt<'_>>,
    ws: WhitespaceConfig,
    read: &dyn Fn(&str) -> Option<SourceFile>,
) -> Reach {
    let mut w = Walk {
        ws,
        read,
        out: Reach::default(),
        scopes: vec![HashSet::new()],
        current: None,
        stack: Vec::new(),
        visits: 0,
        tool_loops: Vec::new(),
    };
    match tree {
        Some(tree) => w.stmt(tree),
        None => w.out.pulls = true,
    }
    w.out
}

struct Walk<'r> {
    ws: WhitespaceConfig,
    read: &'r dyn Fn(&str) -> Option<SourceFile>,
    out: Reach,
    /// Names defined in each enclosing scope.
    scopes: Vec<HashSet<String>>,
    /// The file being walked (`None`: the template's own text).
    current: Option<String>,
    /// Files being walked, outermost first (cycle protection).
    stack: Vec<String>,
    visits: usize,
    /// Loop variables over the context's `tool_names` (each a tool name) and over `tools`
    /// (each a tool, its name `.name`), innermost last.
    tool_loops: Vec<(String, LoopOver)>,
}

/// What a loop variable walks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopOver {
    /// `tool_names`: the variable is a tool name.
    Names,
    /// `tools`: the variable's `.name` is a tool name.
    Tools,
    /// Anything else: the variable shadows an outer loop's of the same name.
    Other,
}

impl Walk<'_> {
    fn defined(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn define(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string());
        }
    }

    fn push(&mut self) {
        self.scopes.push(HashSet::new());
    }

    fn pop(&mut self) {
        self.scopes.pop();
    }

    fn read_name(&mut self, name: &str, span: minijinja::machinery::Span) {
        if self.defined(name) {
            return;
        }
        let site = match &self.current {
            None => Site::Own,
            Some(rel) => {
                Site::File { rel: rel.clone(), start: span.start_offset as usize, end: span.end_offset as usize }
            }
        };
        match self.out.names.get(name) {
            Some(Site::Own) => {}
            Some(Site::File { .. }) if site != Site::Own => {}
            _ => {
                self.out.names.insert(name.to_string(), site);
            }
        }
    }

    fn assign(&mut self, target: &Expr<'_>) {
        match target {
            Expr::Var(v) => self.define(v.id),
            Expr::List(l) => l.items.iter().for_each(|x| self.assign(x)),
            // `ns.count = …` reads `ns`.
            other => self.expr(other),
        }
    }

    fn args(&mut self, args: &[CallArg<'_>]) {
        for a in args {
            match a {
                CallArg::Pos(x) | CallArg::Kwarg(_, x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) => self.expr(x),
            }
        }
    }

    fn is_switches(&self, e: &Expr<'_>) -> bool {
        self.is_context(e, "switches")
    }

    /// Whether `e` is the context's `name`, not a local of that name.
    fn is_context(&self, e: &Expr<'_>, name: &str) -> bool {
        matches!(e, Expr::Var(v) if v.id == name && !self.defined(name))
    }

    /// Whether `e` is a tool name: a loop variable over `tool_names`, or `.name` of one over
    /// `tools` (the innermost loop of that name decides).
    fn is_tool_name(&self, e: &Expr<'_>) -> bool {
        let over = |name: &str| self.tool_loops.iter().rev().find(|(v, _)| v == name).map(|(_, o)| *o);
        match e {
            Expr::Var(v) => over(v.id) == Some(LoopOver::Names),
            Expr::GetAttr(a) => {
                a.name == "name" && matches!(&a.expr, Expr::Var(v) if over(v.id) == Some(LoopOver::Tools))
            }
            _ => false,
        }
    }

    /// Record a string literal as a tool name the template tests for.
    fn tool_ref(&mut self, e: &Expr<'_>) {
        let Expr::Const(c) = e else { return };
        let Some(name) = c.value.as_str() else { return };
        let span = c.span();
        self.out.tool_refs.push(ToolRef {
            name: name.to_string(),
            file: self.current.clone(),
            start: span.start_offset as usize,
            end: span.end_offset as usize,
        });
    }

    /// `tools|selectattr("name", TEST, VALUE)` (or `rejectattr`): the names VALUE tests for.
    fn selected_tools(&mut self, f: &ast::Filter<'_>) {
        if !matches!(f.name, "selectattr" | "rejectattr")
            || !f.expr.as_ref().is_some_and(|x| self.is_context(x, "tools"))
        {
            return;
        }
        let pos: Vec<&Expr<'_>> =
            f.args.iter().filter_map(|a| if let CallArg::Pos(x) = a { Some(x) } else { None }).collect();
        let text = |e: &Expr<'_>| if let Expr::Const(c) = e { c.value.as_str().map(str::to_string) } else { None };
        let [attr, test, value] = pos[..] else { return };
        if text(attr).as_deref() != Some("name") {
            return;
        }
        match (text(test).as_deref(), value) {
            (Some("equalto" | "==" | "eq" | "sameas"), v) => self.tool_ref(v),
            (Some("in"), Expr::List(l)) => l.items.iter().for_each(|x| self.tool_ref(x)),
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr<'_>) {
        match e {
            Expr::Var(v) => self.read_name(v.id, v.span()),
            Expr::Const(_) => {}
            Expr::Slice(s) => {
                self.expr(&s.expr);
                for x in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(x);
                }
            }
            Expr::UnaryOp(u) => self.expr(&u.expr),
            Expr::BinOp(b) => {
                if matches!(b.op, ast::BinOpKind::In) && self.is_context(&b.right, "tool_names") {
                    self.tool_ref(&b.left);
                }
                // `n == "read_file"` in a loop over `tool_names`, `t.name != "x"` over `tools`.
                if matches!(b.op, ast::BinOpKind::Eq | ast::BinOpKind::Ne) {
                    if self.is_tool_name(&b.left) {
                        self.tool_ref(&b.right);
                    } else if self.is_tool_name(&b.right) {
                        self.tool_ref(&b.left);
                    }
                }
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Compare(c) => {
                self.expr(&c.expr);
                c.ops.iter().for_each(|o| self.expr(&o.expr));
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr);
                self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    self.expr(f);
                }
            }
            Expr::Filter(f) => {
                self.selected_tools(f);
                if let Some(x) = &f.expr {
                    self.expr(x);
                }
                self.args(&f.args);
            }
            Expr::Test(t) => {
                self.expr(&t.expr);
                self.args(&t.args);
            }
            Expr::GetAttr(a) => {
                if self.is_switches(&a.expr) {
                    self.out.switch_keys.insert(a.name.to_string());
                }
                self.expr(&a.expr);
            }
            Expr::GetItem(g) => {
                if let (true, Expr::Const(c)) = (self.is_switches(&g.expr), &g.subscript_expr) {
                    if let Some(k) = c.value.as_str() {
                        self.out.switch_keys.insert(k.to_string());
                    }
                }
                self.expr(&g.expr);
                self.expr(&g.subscript_expr);
            }
            Expr::Call(c) => {
                self.expr(&c.expr);
                self.args(&c.args);
            }
            Expr::List(l) => l.items.iter().for_each(|x| self.expr(x)),
            Expr::Map(m) => m.keys.iter().chain(m.values.iter()).for_each(|x| self.expr(x)),
        }
    }

    fn body(&mut self, stmts: &[Stmt<'_>]) {
        stmts.iter().for_each(|s| self.stmt(s));
    }

    fn scoped(&mut self, stmts: &[Stmt<'_>]) {
        self.push();
        self.body(stmts);
        self.pop();
    }

    fn macro_decl(&mut self, m: &ast::Macro<'_>) {
        self.push();
        for name in ["caller", "varargs", "kwargs"] {
            self.define(name);
        }
        m.args.iter().for_each(|a| self.assign(a));
        m.defaults.iter().for_each(|d| self.expr(d));
        self.body(&m.body);
        self.pop();
    }

    /// Walk statement `s` in the current scope, defining what it assigns.
    fn stmt(&mut self, s: &Stmt<'_>) {
        match s {
            Stmt::Template(t) => {
                self.define("self");
                self.body(&t.children);
            }
            Stmt::EmitExpr(e) => self.expr(&e.expr),
            Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => {}
            Stmt::ForLoop(f) => self.for_loop(f),
            Stmt::IfCond(i) => {
                self.expr(&i.expr);
                self.scoped(&i.true_body);
                self.scoped(&i.false_body);
            }
            Stmt::WithBlock(w) => self.with_block(w),
            Stmt::Set(set) => {
                self.expr(&set.expr);
                self.assign(&set.target);
            }
            Stmt::SetBlock(set) => {
                if let Some(f) = &set.filter {
                    self.expr(f);
                }
                self.scoped(&set.body);
                self.assign(&set.target);
            }
            Stmt::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.scoped(&a.body);
            }
            Stmt::FilterBlock(f) => {
                self.expr(&f.filter);
                self.scoped(&f.body);
            }
            Stmt::Block(b) => {
                self.push();
                self.define("super");
                self.body(&b.body);
                self.pop();
            }
            Stmt::Extends(e) => self.follow(&e.name),
            Stmt::Include(i) => self.follow(&i.name),
            Stmt::Import(i) => {
                self.follow(&i.expr);
                self.assign(&i.name);
            }
            Stmt::FromImport(f) => self.imported_names(f),
            Stmt::Macro(m) => {
                self.define(m.name);
                self.macro_decl(m);
            }
            Stmt::CallBlock(c) => {
                self.expr(&c.call.expr);
                self.args(&c.call.args);
                self.macro_decl(&c.macro_decl);
            }
            Stmt::Do(d) => {
                self.expr(&d.call.expr);
                self.args(&d.call.args);
            }
        }
    }

    /// A loop: its target and `loop` are defined in its body only.
    fn for_loop(&mut self, f: &ast::ForLoop<'_>) {
        self.expr(&f.iter);
        let over = if self.is_context(&f.iter, "tool_names") {
            Some(LoopOver::Names)
        } else if self.is_context(&f.iter, "tools") {
            Some(LoopOver::Tools)
        } else {
            None
        };
        self.push();
        self.define("loop");
        self.assign(&f.target);
        // A loop variable of that name shadows an outer loop's, whatever it walks.
        let pushed = match &f.target {
            Expr::Var(v) => {
                self.tool_loops.push((v.id.to_string(), over.unwrap_or(LoopOver::Other)));
                true
            }
            _ => false,
        };
        if let Some(x) = &f.filter_expr {
            self.expr(x);
        }
        self.body(&f.body);
        if pushed {
            self.tool_loops.pop();
        }
        self.pop();
        self.scoped(&f.else_body);
    }

    /// A `with` block: each assignment reads what came before it, all are defined inside.
    fn with_block(&mut self, w: &ast::WithBlock<'_>) {
        self.push();
        for (target, value) in &w.assignments {
            self.expr(value);
            self.assign(target);
        }
        self.body(&w.body);
        self.pop();
    }

    /// `{% from … import a, b as c %}`: the file is followed and the imported names defined.
    fn imported_names(&mut self, f: &ast::FromImport<'_>) {
        self.follow(&f.expr);
        for (name, alias) in &f.names {
            self.assign(alias.as_ref().unwrap_or(name));
        }
    }

    /// Walk the file a literal include name (or the first readable of a literal list) names, in
    /// the current scope; any other name expression is only read.
    fn follow(&mut self, name: &Expr<'_>) {
        self.out.pulls = true;
        let literal = |e: &Expr<'_>| match e {
            Expr::Const(c) => c.value.as_str().map(str::to_string),
            _ => None,
        };
        let names: Vec<String> = match name {
            Expr::List(l) => l.items.iter().filter_map(literal).collect(),
            other => match literal(other) {
                Some(n) => vec![n],
                None => {
                    self.expr(other);
                    return;
                }
            },
        };
        if self.stack.len() >= MAX_DEPTH {
            return;
        }
        for n in names {
            if self.visits >= MAX_VISITS {
                return;
            }
            let Some(file) = (self.read)(&n) else { continue };
            self.visits += 1;
            if self.stack.contains(&file.rel) {
                return;
            }
            let text = file.text.clone();
            let rel = file.rel.clone();
            self.out.files.entry(rel.clone()).or_insert(file);
            if let Ok(tree) = minijinja::machinery::parse(&text, "<reach>", SyntaxConfig, self.ws) {
                let outer = self.current.replace(rel.clone());
                self.stack.push(rel);
                // The included file's own assignments stay in it.
                self.push();
                self.stmt(&tree);
                self.pop();
                self.stack.pop();
                self.current = outer;
            }
            return;
        }
    }
}

#[cfg(test)]
#[path = "reach_tests.rs"]
mod tests;
