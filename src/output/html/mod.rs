//! Self-contained HTML pages: the report (`report --format html`) and the diff (`diff --format
//! html`, built by `diff::html` on this shell). One file each, with inline CSS and JS and the
//! data as a JSON island; a Content-Security-Policy of `default-src 'none'` means the page can
//! load nothing, so opening a page built from a hostile project never reaches the network.
//! Text from the project reaches the page only as escaped HTML or inside the JSON island, and
//! the script inserts it with `textContent`, never as markup.

pub mod report;

use serde_json::Value;

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

/// `v` as compact JSON that is safe inside `<script type="application/json">`: `<`, `>` and
/// `&` appear only inside JSON strings, so escaping them as `\u003c`… keeps the value and
/// makes `</script>` or `<!--` in a prompt unable to end the island.
pub fn island_json(v: &Value) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|_| "null".into()); // ok: a Value always serialises
    let mut out = String::with_capacity(s.len() + s.len() / 64);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// What a page is made of.
pub struct Page<'a> {
    /// `report` or `diff`: the `data-page` of `<body>`, which the stylesheet and tests key on.
    pub kind: &'static str,
    /// The document title (plain text).
    pub title: &'a str,
    /// The page's markup inside `<body>` (already escaped).
    pub body: &'a str,
    /// The page's data, embedded as the `promptc-data` JSON island (`None`: no island).
    pub data: Option<&'a Value>,
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
    if let Some(data) = page.data {
        out.push_str("<script type=\"application/json\" id=\"promptc-data\">");
        out.push_str(&island_json(data));
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
mod tests {
    use super::*;

    #[test]
    fn island_cannot_be_closed_by_its_text() {
        let v = serde_json::json!({ "t": "</script><script>alert(1)</script><!-- & \u{2028}" });
        let s = island_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'), "{s}");
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn a_static_page_allows_no_script() {
        let html = document(&Page { kind: "diff", title: "t", body: "", data: None, script: None });
        assert!(html.contains("script-src 'none'"));
        assert!(!html.contains("<script"));
    }
}
