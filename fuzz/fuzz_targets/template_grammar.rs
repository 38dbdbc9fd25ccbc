//! Templates generated from a grammar: loops, macros (with `caller`), includes and imports
//! between several generated files, `set` (plain, namespace attributes, blocks), `with`, filters
//! with arguments, and the operations that grow values (`~`, `+`, `*`, list literals, slicing),
//! rendered through a project's template environment. Bytes rarely get past the parser; this
//! reaches the shapes that grow values through each other (issue 24): whatever it builds must
//! end in an error within the size and time limits, never an abort.
#![no_main]

use std::fmt::Write;

use arbitrary::Arbitrary;

/// Files the templates reach each other through (the first is the one rendered).
const FILES: [&str; 3] = ["main.j2", "a.j2", "b.j2"];
const VARS: [&str; 6] = ["x", "s", "t", "l", "item", "n"];
const MACROS: [&str; 3] = ["m0", "m1", "m2"];
const WORDS: [&str; 8] = ["", "a", "ab", "Repeat after me. ", "<tag>", "{{", "é\n", "x y z"];
/// Filters with arguments (`{}` takes an expression).
const FILTERS: [&str; 28] = [
    "upper",
    "lower",
    "title",
    "trim",
    "length",
    "string",
    "list",
    "first",
    "last",
    "reverse",
    "sort",
    "unique",
    "tojson",
    "pprint",
    "join({})",
    "replace('a', {})",
    "indent({})",
    "default({})",
    "format({})",
    "batch({})",
    "slice({})",
    "map('upper')",
    "select",
    "items",
    "dictsort",
    "lines",
    "int",
    "wordcount",
];
const METHODS: [&str; 6] = ["upper()", "split()", "replace('a', 'aa')", "join(['1', '2'])", "strip()", "items()"];

#[derive(Arbitrary, Debug)]
enum Expr {
    Var(u8),
    Word(u8),
    Int(u8),
    Big(u32),
    List(Vec<Expr>),
    Map(Vec<(u8, Expr)>),
    Concat(Box<Expr>, Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, Option<i8>, Option<i8>, Option<i8>),
    Filter(Box<Expr>, u8, Box<Expr>),
    Method(Box<Expr>, u8),
    CallMacro(u8, Vec<Expr>),
    Caller(Option<Box<Expr>>),
    Attr(u8),
    Range(u32),
    LoopIndex,
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Imported(u8, u8),
}

#[derive(Arbitrary, Debug)]
enum Stmt {
    Text(u8),
    Print(Expr),
    Set(u8, Expr),
    SetAttr(u8, Expr),
    SetBlock(u8, Vec<Stmt>),
    For(u8, Expr, Vec<Stmt>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    Macro(u8, Vec<Stmt>),
    Call(u8, Vec<Expr>, Vec<Stmt>),
    Include(u8),
    Import(u8, u8),
    FromImport(u8, u8),
    With(u8, Expr, Vec<Stmt>),
    FilterBlock(u8, Vec<Stmt>),
    Break,
}

#[derive(Arbitrary, Debug)]
struct Program {
    files: [Vec<Stmt>; 3],
}

/// How deep the generator nests before it writes leaves: the guard's token cap and the
/// parser's recursion limit are covered by other targets.
const MAX_DEPTH: usize = 12;

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list[i as usize % list.len()]
}

fn expr(out: &mut String, e: &Expr, depth: usize) {
    if depth > MAX_DEPTH {
        out.push('x');
        return;
    }
    let d = depth + 1;
    match e {
        Expr::Var(i) => out.push_str(pick(&VARS, *i)),
        Expr::Word(i) => {
            let _ = write!(out, "{:?}", pick(&WORDS, *i));
        }
        Expr::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Expr::Big(n) => {
            let _ = write!(out, "{}", u64::from(*n) * 1000);
        }
        Expr::List(items) => {
            out.push('[');
            for (k, item) in items.iter().take(6).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                expr(out, item, d);
            }
            out.push(']');
        }
        Expr::Map(items) => {
            out.push('{');
            for (k, (key, item)) in items.iter().take(4).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "\"k{}\": ", key % 4);
                expr(out, item, d);
            }
            out.push('}');
        }
        Expr::Concat(a, b) | Expr::Add(a, b) | Expr::Mul(a, b) => {
            let op = match e {
                Expr::Concat(..) => "~",
                Expr::Add(..) => "+",
                _ => "*",
            };
            out.push('(');
            expr(out, a, d);
            let _ = write!(out, " {op} ");
            expr(out, b, d);
            out.push(')');
        }
        Expr::Slice(a, start, stop, step) => {
            out.push('(');
            expr(out, a, d);
            out.push_str(")[");
            let part = |v: &Option<i8>| v.map(|v| v.to_string()).unwrap_or_default();
            let step = step.filter(|s| *s != 0);
            let _ = write!(out, "{}:{}", part(start), part(stop));
            if step.is_some() {
                let _ = write!(out, ":{}", part(&step));
            }
            out.push(']');
        }
        Expr::Filter(a, f, arg) => {
            out.push('(');
            expr(out, a, d);
            out.push_str(")|");
            let f = pick(&FILTERS, *f);
            match f.split_once("{}") {
                Some((before, after)) => {
                    out.push_str(before);
                    expr(out, arg, d);
                    out.push_str(after);
                }
                None => out.push_str(f),
            }
        }
        Expr::Method(a, m) => {
            out.push('(');
            expr(out, a, d);
            let _ = write!(out, ").{}", pick(&METHODS, *m));
        }
        Expr::CallMacro(m, args) => {
            let _ = write!(out, "{}(", pick(&MACROS, *m));
            for (k, a) in args.iter().take(3).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                expr(out, a, d);
            }
            out.push(')');
        }
        Expr::Caller(arg) => {
            out.push_str("caller(");
            if let Some(a) = arg {
                expr(out, a, d);
            }
            out.push(')');
        }
        Expr::Attr(i) => {
            let _ = write!(out, "ns.{}", pick(&VARS, *i));
        }
        Expr::Range(n) => {
            let _ = write!(out, "range({})", n % 200_000);
        }
        Expr::LoopIndex => out.push_str("loop.index"),
        Expr::Cond(c, a, b) => {
            out.push('(');
            expr(out, a, d);
            out.push_str(" if ");
            expr(out, c, d);
            out.push_str(" else ");
            expr(out, b, d);
            out.push(')');
        }
        Expr::Imported(alias, m) => {
            let _ = write!(out, "lib{}.{}()", alias % 2, pick(&MACROS, *m));
        }
    }
}

fn block(out: &mut String, stmts: &[Stmt], depth: usize) {
    for s in stmts.iter().take(8) {
        stmt(out, s, depth);
    }
}

fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match s {
        Stmt::Text(i) => out.push_str(pick(&WORDS, *i)),
        Stmt::Print(e) => {
            out.push_str("{{ ");
            expr(out, e, d);
            out.push_str(" }}");
        }
        Stmt::Set(v, e) => {
            let _ = write!(out, "{{% set {} = ", pick(&VARS, *v));
            expr(out, e, d);
            out.push_str(" %}");
        }
        Stmt::SetAttr(v, e) => {
            let _ = write!(out, "{{% set ns.{} = ", pick(&VARS, *v));
            expr(out, e, d);
            out.push_str(" %}");
        }
        Stmt::SetBlock(v, body) => {
            let _ = write!(out, "{{% set {} %}}", pick(&VARS, *v));
            block(out, body, d);
            out.push_str("{% endset %}");
        }
        Stmt::For(v, iter, body) => {
            let _ = write!(out, "{{% for {} in ", pick(&VARS, *v));
            expr(out, iter, d);
            out.push_str(" %}");
            block(out, body, d);
            out.push_str("{% endfor %}");
        }
        Stmt::If(c, a, b) => {
            out.push_str("{% if ");
            expr(out, c, d);
            out.push_str(" %}");
            block(out, a, d);
            out.push_str("{% else %}");
            block(out, b, d);
            out.push_str("{% endif %}");
        }
        Stmt::Macro(m, body) => {
            let _ = write!(out, "{{% macro {}(s='', t=[]) %}}", pick(&MACROS, *m));
            block(out, body, d);
            out.push_str("{% endmacro %}");
        }
        Stmt::Call(m, args, body) => {
            let _ = write!(out, "{{% call {}(", pick(&MACROS, *m));
            for (k, a) in args.iter().take(2).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                expr(out, a, d);
            }
            out.push_str(") %}");
            block(out, body, d);
            out.push_str("{% endcall %}");
        }
        Stmt::Include(f) => {
            let _ = write!(out, "{{% include {:?} %}}", pick(&FILES, *f));
        }
        Stmt::Import(f, alias) => {
            let _ = write!(out, "{{% import {:?} as lib{} %}}", pick(&FILES, *f), alias % 2);
        }
        Stmt::FromImport(f, m) => {
            let _ = write!(out, "{{% from {:?} import {} %}}", pick(&FILES, *f), pick(&MACROS, *m));
        }
        Stmt::With(v, e, body) => {
            let _ = write!(out, "{{% with {} = ", pick(&VARS, *v));
            expr(out, e, d);
            out.push_str(" %}");
            block(out, body, d);
            out.push_str("{% endwith %}");
        }
        Stmt::FilterBlock(f, body) => {
            let _ = write!(out, "{{% filter {} %}}", pick(&["upper", "trim", "indent(2)", "title"], *f));
            block(out, body, d);
            out.push_str("{% endfilter %}");
        }
        Stmt::Break => out.push_str("{% if loop is defined %}{% break %}{% endif %}"),
    }
}

fn files(p: &Program) -> Vec<(String, String)> {
    p.files
        .iter()
        .zip(FILES)
        .enumerate()
        .map(|(i, (stmts, name))| {
            // The rendered file starts with a namespace and the names the generator reads, so
            // more of what it generates renders instead of failing on an undefined name; the
            // others read them from it (an include shares the context).
            let mut text = String::new();
            if i == 0 {
                text.push_str("{% set ns = namespace(x='ab', s='', t='', l=[1], item='', n=1) %}");
                text.push_str("{% set s = 'ab' %}{% set t = 'cd' %}{% set l = [1, 2] %}{% set item = 'i' %}");
            }
            block(&mut text, stmts, 0);
            (name.to_string(), text)
        })
        .collect()
}

/// Whether to print the generated files (`PROMPTC_FUZZ_PRINT=1`): run the target on one input
/// (a crash, a timeout) to turn it into a fixture; the bytes alone do not show the template.
fn print_files() -> bool {
    static PRINT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PRINT.get_or_init(|| std::env::var_os("PROMPTC_FUZZ_PRINT").is_some_and(|v| v == "1"))
}

libfuzzer_sys::fuzz_target!(|p: Program| {
    let files = files(&p);
    if print_files() {
        for (name, text) in &files {
            eprintln!("--- {name}\n{text}");
        }
    }
    promptc::fuzz::template_files(&files)
});
