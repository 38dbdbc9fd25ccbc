use super::*;

#[test]
fn center_puts_the_odd_space_where_python_does() {
    assert_eq!(center("ab", 5), "  ab ");
    assert_eq!(center("abc", 6), " abc  ");
    assert_eq!(center("abc", 2), "abc");
}

#[test]
fn truncate_keeps_whole_words_within_the_leeway() {
    assert_eq!(truncate("hello world foo", 9, false, "...", 0).unwrap(), "hello...");
    assert_eq!(truncate("hello world foo", 9, true, "...", 0).unwrap(), "hello ...");
    assert_eq!(truncate("hello world", 9, false, "...", 5).unwrap(), "hello world");
    assert!(truncate("x", 1, false, "...", 0).is_err());
}

#[test]
fn wordwrap_wraps_each_line_as_textwrap_does() {
    assert_eq!(wordwrap("aaa bbb ccc", 7, true, "\n", true), "aaa bbb\nccc");
    assert_eq!(wordwrap("abcdefghij", 4, true, "\n", true), "abcd\nefgh\nij");
    assert_eq!(wordwrap("abcdefghij", 4, false, "\n", true), "abcdefghij");
    assert_eq!(wordwrap("one-two-three", 8, true, "|", true), "one-two-|three");
    assert_eq!(wordwrap("a\n\nb c", 3, true, "\n", true), "a\n\nb c");
}

#[test]
fn filesizes_read_as_jinja2_writes_them() {
    assert_eq!(filesizeformat(1.0, false), "1 Byte");
    assert_eq!(filesizeformat(999.0, false), "999 Bytes");
    assert_eq!(filesizeformat(1500.0, false), "1.5 kB");
    assert_eq!(filesizeformat(2048.0, true), "2.0 KiB");
}

#[test]
fn splitlines_is_pythons() {
    assert_eq!(splitlines("a\r\nb\rc\n"), vec!["a", "b", "c"]);
    assert_eq!(splitlines(""), Vec::<&str>::new());
}
