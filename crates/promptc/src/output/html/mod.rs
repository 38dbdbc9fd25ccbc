//! Self-contained HTML pages: the report (`report --format html`) and the diff (`diff --format
//! html`, built by `diff::html` on this shell). One file each, with inline CSS and JS and the
//! data as a compressed JSON island; a Content-Security-Policy of `default-src 'none'` means
//! the page can load nothing, so opening a page built from a hostile project never reaches the
//! network. Text from the project reaches the page only as escaped HTML or inside the island,
//! and the script inserts it with `textContent`, never as markup.

pub mod report;

use serde::Serialize;

/// The stylesheet every page shares (light and dark schemes, print).
const CSS: &str = include_str!("page.css");

/// HTML-escape `text` for element content and double-quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// How the island is encoded: raw DEFLATE, then base64 (the value of its `data-encoding`; the
/// first part names the `DecompressionStream` format that reads it).
pub const ISLAND_ENCODING: &str = "deflate-raw;base64";

/// `v` as compact JSON, deflated (raw DEFLATE at level 1: deterministic for the same input, and
/// three times faster than level 6 for 15% more bytes) and base64-encoded. The base64 alphabet
/// has no `<`, `&` or quote, so no text in the data can end the island or become markup.
pub fn island<T: Serialize + ?Sized>(v: &T) -> String {
    use base64::Engine as _;
    // ok: promptc's page data is plain data (string keys, no failing Serialize impls)
    let json = serde_json::to_vec(v).unwrap_or_else(|_| b"null".to_vec());
    let deflated = miniz_oxide::deflate::compress_to_vec(&json, 1);
    base64::engine::general_purpose::STANDARD.encode(deflated)
}

/// What a page is made of.
pub struct Page<'a> {
    /// `report` or `diff`: the `data-page` of `<body>`, which the stylesheet and tests key on.
    pub kind: &'static str,
    /// The document title (plain text).
    pub title: &'a str,
    /// The page's markup inside `<body>` (already escaped).
    pub body: &'a str,
    /// The page's data, encoded by [`island`], embedded as the `promptc-data` script (`None`:
    /// a page without data).
    pub island: Option<&'a str>,
    /// The page's script (`None`: a static page).
    pub script: Option<&'a str>,
}

/// The whole document. Deterministic: the same page for the same input, with no timestamp.
pub fn document(page: &Page) -> String {
    let script_src = if page.script.is_some() { "'unsafe-inline'" } else { "'none'" };
    let mut out = String::new();
    out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         script-src {script_src}; img-src data:\">\n"
    ));
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    out.push_str(&format!("<meta name=\"generator\" content=\"promptc {}\">\n", env!("CARGO_PKG_VERSION")));
    out.push_str(&format!("<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n", escape(page.title)));
    out.push_str(&format!("<body data-page=\"{}\">\n", page.kind));
    out.push_str(page.body);
    if let Some(data) = page.island {
        out.push_str(&format!(
            "<script type=\"application/octet-stream\" id=\"promptc-data\" data-encoding=\"{ISLAND_ENCODING}\">"
        ));
        out.push_str(data);
        out.push_str("</script>\n");
    }
    if let Some(js) = page.script {
        out.push_str("<script>\n");
        out.push_str(js);
        out.push_str("</script>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
