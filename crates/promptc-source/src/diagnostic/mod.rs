//! Located, rustc-style diagnostics: the one way promptc reports a problem in a project.

use std::fmt::{self, Write as _};

use crate::code::RuleCode;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Severity {
    /// Informational; never changes the exit code.
    Note,
    /// Worth fixing; does not fail the command by itself.
    Warning,
    /// The command cannot succeed.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A position in a source file: 1-based line and column (in characters), and a length in
/// characters to underline (at least 1 when rendered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Characters to underline.
    pub len: usize,
}

impl Position {
    /// A position with a length.
    pub fn new(line: usize, column: usize, len: usize) -> Self {
        Position { line, column, len }
    }

    /// The position of a byte range inside `text`.
    pub fn from_byte_range(text: &str, start: usize, end: usize) -> Self {
        let start = floor_char_boundary(text, start.min(text.len()));
        let end = floor_char_boundary(text, end.clamp(start, text.len()));
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = text[line_start..start].chars().count() + 1;
        let span = &text[start..end];
        let len = span.split('\n').next().unwrap_or("").chars().count();
        Position { line, column, len }
    }
}

/// Longest source line shown in a snippet; longer lines are cut around the column.
const MAX_SNIPPET_CHARS: usize = 100;

/// Cut a long line to a window around `column`, marking cuts with `…`; returns the shown
/// text and the column within it.
fn clip_line(line: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= MAX_SNIPPET_CHARS {
        return (line.to_string(), column);
    }
    let start = column.saturating_sub(1).saturating_sub(MAX_SNIPPET_CHARS / 3).min(chars.len());
    let end = (start + MAX_SNIPPET_CHARS).min(chars.len());
    let mut out = String::new();
    let mut col = column - start;
    if start > 0 {
        out.push('…');
        col += 1;
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    (out, col)
}

/// `text` shortened to about `max` characters by cutting its middle (`abc…xyz`), for messages
/// that quote what a user wrote: a hostile project may write a megabyte where a name belongs.
pub fn excerpt(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max * 2 / 3).collect();
    let tail: String = text.chars().skip(n - max / 3).collect();
    format!("{head}…{tail}")
}

/// The longest message line a diagnostic prints; longer ones are cut in the middle.
const MAX_MESSAGE_CHARS: usize = 400;

/// The largest char boundary of `text` at or before `i`.
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where something is declared: a byte range of a project file, by project-relative path.
/// The model carries spans so that diagnostics found after loading point at the declaration
/// without searching the file's text again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Span {
    /// The file, relative to the project folder.
    pub file: String,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// Where a diagnostic points: a file (as shown to the user), an optional position, and the
/// file's text so the snippet can be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Label {
    /// The file path as displayed (relative to the working directory when possible).
    pub file: String,
    /// The position inside the file, when known.
    pub position: Option<Position>,
    /// The line of source text at `position`, for the snippet.
    pub source_line: Option<String>,
}

impl Label {
    /// A label pointing at a whole file.
    pub fn file(file: impl Into<String>) -> Self {
        Label { file: file.into(), position: None, source_line: None }
    }

    /// A label pointing at `position` inside `text`, the content of `file`.
    pub fn at(file: impl Into<String>, text: &str, position: Position) -> Self {
        let source_line =
            text.split('\n').nth(position.line.saturating_sub(1)).map(|l| l.trim_end_matches('\r').to_string());
        Label { file: file.into(), position: Some(position), source_line }
    }
}

/// One problem, with everything a user needs to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The lint rule that found it (`P001`); none for load and usage errors.
    pub code: Option<RuleCode>,
    /// One line saying what is wrong.
    pub message: String,
    /// Where it is.
    pub label: Option<Label>,
    /// What the underline means, shown beside the carets.
    pub label_text: Option<String>,
    /// Extra context lines (`= note: …`).
    pub notes: Vec<String>,
    /// How to fix it (`= help: …`).
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error diagnostic.
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            message: message.into(),
            label: None,
            label_text: None,
            notes: Vec::new(),
            help: None,
        }
    }

    /// A warning diagnostic.
    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(message) }
    }

    /// An informational diagnostic: said, never failing anything.
    pub fn note(message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(message) }
    }

    /// Attach a location.
    pub fn with_label(mut self, label: Label) -> Self {
        self.label = Some(label);
        self
    }

    /// Attach the text shown beside the underline.
    pub fn with_label_text(mut self, text: impl Into<String>) -> Self {
        self.label_text = Some(text.into());
        self
    }

    /// Attach a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Attach a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Render the diagnostic the way rustc does, optionally with ANSI colour.
    pub fn render(&self, color: bool) -> String {
        let paint = |code: &str, s: &str| {
            if color {
                format!("\x1b[{code}m{s}\x1b[0m")
            } else {
                s.to_string()
            }
        };
        let sev_color = match self.severity {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Note => "1;36",
        };
        let mut out = String::new();
        let head = match &self.code {
            Some(code) => format!("{}[{code}]", self.severity),
            None => self.severity.to_string(),
        };
        let message = excerpt(&self.message, MAX_MESSAGE_CHARS);
        let _ = writeln!(out, "{}{}", paint(sev_color, &head), paint("1", &format!(": {message}")));
        let gutter_width = self.label.as_ref().and_then(|l| l.position).map_or(1, |p| p.line.to_string().len());
        let pad = " ".repeat(gutter_width);
        let bar = paint("1;34", "|");
        if let Some(label) = &self.label {
            let loc = match label.position {
                Some(p) => format!("{}:{}:{}", label.file, p.line, p.column),
                None => label.file.clone(),
            };
            let _ = writeln!(out, "{pad}{} {loc}", paint("1;34", "-->"));
            if let (Some(p), Some(line)) = (label.position, &label.source_line) {
                let (line, column) = clip_line(line, p.column);
                let shown: String = line.replace('\t', "    ");
                let prefix: String = line.chars().take(column.saturating_sub(1)).collect();
                let indent = prefix.replace('\t', "    ").chars().count();
                // The underline stops at the end of the (clipped) line shown above it.
                let visible = shown.chars().count().saturating_sub(indent).max(1);
                // A tab is shown as four spaces: underline all four.
                let width: usize = line
                    .chars()
                    .skip(column.saturating_sub(1))
                    .take(p.len)
                    .map(|c| if c == '\t' { 4 } else { 1 })
                    .sum();
                let carets = "^".repeat(width.clamp(1, visible));
                let _ = writeln!(out, "{pad} {bar}");
                let _ = writeln!(out, "{} {bar} {shown}", paint("1;34", &format!("{:>gutter_width$}", p.line)));
                let text = self.label_text.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
                let _ =
                    writeln!(out, "{pad} {bar} {}{}", " ".repeat(indent), paint(sev_color, &format!("{carets}{text}")));
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "{pad} {} note: {note}", paint("1;34", "="));
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "{pad} {} help: {help}", paint("1;34", "="));
        }
        out
    }

    /// The diagnostic as a GitHub Actions workflow command (`::error file=…,line=…::message`),
    /// for `--format github`.
    pub fn github_line(&self) -> String {
        let d = self;
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut props = Vec::new();
        if let Some(l) = &d.label {
            props.push(format!("file={}", workflow_property(&l.file)));
            if let Some(p) = l.position {
                props.push(format!("line={}", p.line));
                props.push(format!("col={}", p.column));
            }
        }
        if let Some(code) = &d.code {
            props.push(format!("title={}", workflow_property(code.as_str())));
        }
        let mut msg = d.message.clone();
        if let Some(h) = &d.help {
            msg.push_str(&format!("\nhelp: {h}"));
        }
        if props.is_empty() {
            format!("::{kind}::{}", workflow_data(&msg))
        } else {
            format!("::{kind} {}::{}", props.join(","), workflow_data(&msg))
        }
    }

    /// A JSON view of the diagnostic for `--format json`.
    pub fn to_json(&self) -> serde_json::Value {
        let (file, line, column) = match &self.label {
            Some(l) => (Some(l.file.clone()), l.position.map(|p| p.line), l.position.map(|p| p.column)),
            None => (None, None, None),
        };
        serde_json::json!({
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": file,
            "line": line,
            "column": column,
            "notes": self.notes,
            "help": self.help,
        })
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

/// Whether `c` may end a line for some reader of promptc's output, or is invisible control:
/// C0 and C1 controls (CR, LF, VT, FF, NEL, the file/group/record separators), DEL, the Unicode
/// line and paragraph separators, and the bidirectional overrides and isolates (which can make
/// text read otherwise than it is). GitHub's runner, editors and `str::lines` in other languages
/// disagree on which of these break a line, so none reaches a line-oriented output raw.
pub fn is_line_break_or_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A GitHub Actions workflow command's message: `%`, CR and LF percent-encoded (the runner
/// decodes them back), every other line break or control character shown as `\u{…}`, so a
/// value can never end the command's line and start a forged one.
pub fn workflow_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_line_break_or_control(c) => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// A workflow command's property value (`file=`, `title=`): [`workflow_data`], and also `:`
/// and `,`, which end a property.
pub fn workflow_property(text: &str) -> String {
    workflow_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The closest candidate to `name` among `candidates`, for "did you mean" hints.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    // An abbreviation (`o200k` for `o200k_base`) is the likeliest intent.
    if name.len() >= 3 {
        if let Some(c) =
            candidates.iter().filter(|c| c.starts_with(name) && c.len() > name.len()).min_by_key(|c| c.len())
        {
            return Some(c);
        }
    }
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= c.len().max(name.len()).div_ceil(3))
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance between two names, in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A help line listing the legal names, with a suggestion when one is close.
pub fn known_names_help(kind: &str, name: &str, known: &[&str]) -> String {
    let list = if known.is_empty() {
        format!("no {kind} is declared")
    } else {
        format!("known {kind}{}: {}", if kind.ends_with("ch") { "es" } else { "s" }, known.join(", "))
    };
    match did_you_mean(name, known.iter().copied()) {
        Some(s) => format!("did you mean `{s}`? {list}"),
        None => list,
    }
}

#[cfg(test)]
mod tests;
