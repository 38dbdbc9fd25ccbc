//! Positions and document names: the protocol counts columns in the negotiated encoding's code
//! units (UTF-16 unless the client offers another), promptc in bytes and characters; documents
//! are `file:` URIs, promptc's files paths relative to the project folder.

use std::path::{Path, PathBuf};

use lsp_types::{Position, PositionEncodingKind, Range, Uri};

/// How the client counts a column (LSP 3.17 `positionEncoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// UTF-8 code units: bytes, promptc's own measure (preferred when the client offers it).
    Utf8,
    /// UTF-16 code units: the protocol's default, what every client understands.
    Utf16,
    /// Characters.
    Utf32,
}

impl Encoding {
    /// The encoding to use among those the client offers (in its order of preference, UTF-8
    /// first if offered: no conversion at all); UTF-16 when it offers none.
    pub(crate) fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or_default();
        if offered.contains(&PositionEncodingKind::UTF8) {
            return Encoding::Utf8;
        }
        match offered.first() {
            Some(k) if *k == PositionEncodingKind::UTF32 => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    /// The encoding's name in the protocol.
    pub(crate) fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    /// Code units of `c` in this encoding.
    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// The byte where each line of `text` starts.
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1))
}

/// The protocol position of byte `offset` in `text` (clamped to the text, and back to a
/// character boundary).
pub(crate) fn position(text: &str, offset: usize, enc: Encoding) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let (line, start) = line_starts(text).take_while(|s| *s <= offset).enumerate().last().unwrap_or((0, 0));
    let character = text[start..offset].chars().map(|c| enc.units(c)).sum();
    Position::new(line as u32, character)
}

/// The byte offset of protocol position `pos` in `text`: a column past the line's end is the
/// line's end, a line past the text's end is the text's end, a column inside a character is
/// that character's start.
pub(crate) fn offset(text: &str, pos: Position, enc: Encoding) -> usize {
    let Some(start) = line_starts(text).nth(pos.line as usize) else { return text.len() };
    let line = &text[start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        let next = units + enc.units(c);
        if next > pos.character {
            return start + i;
        }
        units = next;
    }
    start + line.trim_end_matches('\r').len().min(line.len())
}

/// The protocol range of bytes `start..end` of `text`.
pub(crate) fn range(text: &str, start: usize, end: usize, enc: Encoding) -> Range {
    Range::new(position(text, start, enc), position(text, end.max(start), enc))
}

/// The byte range of a diagnostic's place: 1-based line and character column, a length in
/// characters on that line (at least one character, where the line has one).
pub(crate) fn span_of(text: &str, line: usize, column: usize, len: usize) -> (usize, usize) {
    let Some(start) = line_starts(text).nth(line.saturating_sub(1)) else { return (text.len(), text.len()) };
    let rest = &text[start..];
    let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut chars = rest.char_indices().map(|(i, _)| start + i).chain([start + rest.len()]);
    let from = chars.nth(column.saturating_sub(1)).unwrap_or(start + rest.len());
    let to = chars.nth(len.max(1).saturating_sub(1)).unwrap_or(start + rest.len());
    (from, to.max(from))
}

/// The file a `file:` URI names (percent-escapes decoded); `None` for other schemes.
pub(crate) fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///a` has an empty authority; `file://localhost/a` names this machine too.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(path.len());
    let raw = path.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (raw[i], raw.get(i + 1).and_then(|b| hex(*b)), raw.get(i + 2).and_then(|b| hex(*b))) {
            (b'%', Some(h), Some(l)) => {
                bytes.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    let path = PathBuf::from(String::from_utf8(bytes).ok()?);
    path.is_absolute().then_some(path)
}

/// The `file:` URI of an absolute path, every byte outside RFC 3986's unreserved set and `/`
/// percent-escaped (as VS Code writes them).
pub(crate) fn path_uri(path: &Path) -> Uri {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    // Every byte outside the unreserved set is escaped above, so the text is a valid URI.
    out.parse().expect("an escaped file path is a URI") // ok: escaped byte by byte above
}
