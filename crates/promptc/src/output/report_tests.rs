use super::*;

#[test]
fn middles_and_bars() {
    assert_eq!(middle("sections/deeply/nested/role.md.j2", 16), "section…le.md.j2");
    assert_eq!(middle("sections/deeply/nested/role.md.j2", 16).chars().count(), 16);
    assert_eq!(middle("short", 16), "short");
    assert_eq!(bar(1.0), "████████");
    assert_eq!(bar(0.0), "");
    assert_eq!(bar(0.5), "████");
    assert_eq!(bar(0.07), "▌");
}
