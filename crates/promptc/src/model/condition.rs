//! Switch expressions (`when: "browser && !yolo"`): parsed once at load, evaluated per render.

use std::collections::BTreeMap;

/// A boolean expression over switch names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Always true (no `when:` given).
    Always,
    /// The value of one switch.
    Switch(String),
    /// A string-valued switch has (or, with `equal: false`, has not) this value:
    /// `style == "terse"`, `style != "terse"`.
    Is {
        /// The switch.
        name: String,
        /// The value compared with.
        value: String,
        /// `==` (true) or `!=` (false).
        equal: bool,
    },
    /// Negation.
    Not(Box<Condition>),
    /// Every operand holds.
    All(Vec<Condition>),
    /// At least one operand holds.
    Any(Vec<Condition>),
}

/// A parse failure: byte offset into the expression and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the offending token.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

/// How deeply `!` and parentheses may nest: far beyond any real condition, and low enough that
/// parsing, evaluating and dropping an expression never exhausts the stack.
pub const MAX_DEPTH: usize = 64;

impl Condition {
    /// Parse an expression such as `(browser || mcp) && !yolo`.
    pub fn parse(src: &str) -> Result<Condition, ParseError> {
        let tokens = lex(src)?;
        let mut p = Parser { tokens, pos: 0, len: src.len(), depth: 0 };
        let c = p.or()?;
        match p.peek() {
            None => Ok(c),
            Some((off, tok)) => Err(ParseError {
                offset: off,
                message: format!("unexpected `{}` after a complete expression", tok.text()),
            }),
        }
    }

    /// Evaluate against resolved switch values (no string-valued switch set); unknown names are
    /// false (validated at load).
    #[cfg(test)]
    pub fn eval(&self, switches: &BTreeMap<String, bool>) -> bool {
        self.eval_with(switches, &BTreeMap::new())
    }

    /// Evaluate against resolved switch values and string-valued switches' values.
    pub fn eval_with(&self, switches: &BTreeMap<String, bool>, choices: &BTreeMap<String, String>) -> bool {
        match self {
            Condition::Always => true,
            Condition::Switch(s) => switches.get(s).copied().unwrap_or(false),
            Condition::Is { name, value, equal } => (choices.get(name) == Some(value)) == *equal,
            Condition::Not(c) => !c.eval_with(switches, choices),
            Condition::All(cs) => cs.iter().all(|c| c.eval_with(switches, choices)),
            Condition::Any(cs) => cs.iter().any(|c| c.eval_with(switches, choices)),
        }
    }

    /// Every switch name the expression mentions, in order of appearance.
    pub fn switch_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    /// Every comparison `name == "value"` (or `!=`) in the expression, as (name, value).
    pub fn comparisons(&self) -> Vec<(&str, &str)> {
        match self {
            Condition::Always | Condition::Switch(_) => Vec::new(),
            Condition::Is { name, value, .. } => vec![(name, value)],
            Condition::Not(c) => c.comparisons(),
            Condition::All(cs) | Condition::Any(cs) => cs.iter().flat_map(|c| c.comparisons()).collect(),
        }
    }

    /// Every switch read on its own (`browser`, not `style == …`).
    pub fn flags(&self) -> Vec<&str> {
        match self {
            Condition::Switch(s) => vec![s],
            Condition::Always | Condition::Is { .. } => Vec::new(),
            Condition::Not(c) => c.flags(),
            Condition::All(cs) | Condition::Any(cs) => cs.iter().flat_map(|c| c.flags()).collect(),
        }
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Condition::Always => {}
            Condition::Switch(s) => out.push(s),
            Condition::Is { name, .. } => out.push(name),
            Condition::Not(c) => c.collect(out),
            Condition::All(cs) | Condition::Any(cs) => cs.iter().for_each(|c| c.collect(out)),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    Eq,
    Ne,
    Not,
    And,
    Or,
    LParen,
    RParen,
}

impl Tok {
    fn text(&self) -> String {
        match self {
            Tok::Ident(s) => s.clone(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Eq => "==".into(),
            Tok::Ne => "!=".into(),
            Tok::Not => "!".into(),
            Tok::And => "&&".into(),
            Tok::Or => "||".into(),
            Tok::LParen => "(".into(),
            Tok::RParen => ")".into(),
        }
    }
}

fn lex(src: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
    let mut out = Vec::new();
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' => {}
            '!' if chars.next_if(|&(_, d)| d == '=').is_some() => out.push((i, Tok::Ne)),
            '!' => out.push((i, Tok::Not)),
            '=' => {
                if chars.next_if(|&(_, d)| d == '=').is_none() {
                    return Err(ParseError { offset: i, message: "expected `==`".into() });
                }
                out.push((i, Tok::Eq));
            }
            '"' | '\'' => {
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some((_, d)) if d == c => break,
                        Some((_, d)) => text.push(d),
                        None => return Err(ParseError { offset: i, message: format!("unclosed `{c}`") }),
                    }
                }
                out.push((i, Tok::Str(text)));
            }
            '(' => out.push((i, Tok::LParen)),
            ')' => out.push((i, Tok::RParen)),
            '&' | '|' => {
                if chars.next_if(|&(_, d)| d == c).is_none() {
                    return Err(ParseError { offset: i, message: format!("expected `{c}{c}`") });
                }
                out.push((i, if c == '&' { Tok::And } else { Tok::Or }));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == '-' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push((i, Tok::Ident(src[i..end].to_string())));
            }
            other => {
                return Err(ParseError {
                    offset: i,
                    message: format!(
                        "unexpected character `{other}`; use switch names, `!`, `&&`, `||`, parentheses and \
                         `name == \"value\"`"
                    ),
                })
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Tok)>,
    pos: usize,
    len: usize,
    /// `!` and `(` open around the current position.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<(usize, Tok)> {
        self.tokens.get(self.pos).cloned()
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.tokens.get(self.pos).map(|(_, k)| k) == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Condition, ParseError> {
        let mut items = vec![self.and()?];
        while self.eat(&Tok::Or) {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Condition::Any(items) })
    }

    fn and(&mut self) -> Result<Condition, ParseError> {
        let mut items = vec![self.unary()?];
        while self.eat(&Tok::And) {
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Condition::All(items) })
    }

    /// Enter one more level of `!` or `(` at `off`, refusing to go past [`MAX_DEPTH`].
    fn enter(&mut self, off: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError {
                offset: off,
                message: format!("the expression nests `!` and parentheses more than {MAX_DEPTH} levels deep"),
            });
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<Condition, ParseError> {
        match self.peek() {
            Some((off, Tok::Not)) => {
                self.pos += 1;
                self.enter(off)?;
                let c = Condition::Not(Box::new(self.unary()?));
                self.depth -= 1;
                Ok(c)
            }
            Some((off, Tok::LParen)) => {
                self.pos += 1;
                self.enter(off)?;
                let c = self.or()?;
                if !self.eat(&Tok::RParen) {
                    return Err(ParseError { offset: off, message: "unclosed `(`".into() });
                }
                self.depth -= 1;
                Ok(c)
            }
            Some((_, Tok::Ident(name))) => {
                self.pos += 1;
                let equal = match self.peek() {
                    Some((_, Tok::Eq)) => true,
                    Some((_, Tok::Ne)) => false,
                    _ => return Ok(Condition::Switch(name)),
                };
                self.pos += 1;
                match self.peek() {
                    Some((_, Tok::Str(value) | Tok::Ident(value))) => {
                        self.pos += 1;
                        Ok(Condition::Is { name, value, equal })
                    }
                    Some((off, tok)) => Err(ParseError {
                        offset: off,
                        message: format!("expected a value after `{name} ==`, found `{}`", tok.text()),
                    }),
                    None => Err(ParseError {
                        offset: self.len,
                        message: format!("expected a value after `{name} ==`, found the end of the expression"),
                    }),
                }
            }
            Some((off, tok)) => {
                Err(ParseError { offset: off, message: format!("expected a switch name, found `{}`", tok.text()) })
            }
            None => Err(ParseError {
                offset: self.len,
                message: "expected a switch name, found the end of the expression".into(),
            }),
        }
    }
}

#[cfg(test)]
#[path = "condition_tests.rs"]
mod tests;
