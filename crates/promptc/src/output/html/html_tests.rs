//! Unit tests of `output::html`.

use super::*;

#[test]
fn the_island_inflates_to_the_value_and_has_no_markup_characters() {
    use base64::Engine as _;
    let v: serde_json::Value =
        serde_json::json!({ "t": "</script><script>alert(1)</script><!-- & \u{2028}", "n": [1.5, 2] });
    let s = island(&v);
    assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)), "{s}");
    let bytes = base64::engine::general_purpose::STANDARD.decode(&s).unwrap();
    let json = miniz_oxide::inflate::decompress_to_vec(&bytes).unwrap();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&json).unwrap(), v);
    assert_eq!(island(&v), s, "deterministic");
}

#[test]
fn escape_covers_markup_and_quotes() {
    assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

#[test]
fn a_static_page_allows_no_script() {
    let html = document(&Page { kind: "diff", title: "t", body: "", island: None, script: None });
    assert!(html.contains("script-src 'none'"));
    assert!(!html.contains("<script"));
}
