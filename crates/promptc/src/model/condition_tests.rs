//! Unit tests of `model::condition`.

use super::*;

fn sw(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn precedence_and_negation() {
    let c = Condition::parse("browser || mcp && !yolo").unwrap();
    assert!(c.eval(&sw(&[("browser", true)])));
    assert!(c.eval(&sw(&[("mcp", true)])));
    assert!(!c.eval(&sw(&[("mcp", true), ("yolo", true)])));
    let c = Condition::parse("(browser || mcp) && !yolo").unwrap();
    assert!(!c.eval(&sw(&[("browser", true), ("yolo", true)])));
    assert_eq!(c.switch_names(), vec!["browser", "mcp", "yolo"]);
}

#[test]
fn errors_point_at_the_token() {
    assert_eq!(Condition::parse("a &").unwrap_err().offset, 2);
    assert_eq!(Condition::parse("a b").unwrap_err().offset, 2);
    assert_eq!(Condition::parse("(a").unwrap_err().offset, 0);
    assert_eq!(Condition::parse("").unwrap_err().offset, 0);
    assert_eq!(Condition::parse("a = b").unwrap_err().offset, 2);
    assert_eq!(Condition::parse("a == ").unwrap_err().offset, 5);
    assert_eq!(Condition::parse("a == \"b").unwrap_err().offset, 5);
    assert_eq!(Condition::parse("a == &&").unwrap_err().offset, 5);
}

#[test]
fn comparisons_of_string_valued_switches() {
    let c = Condition::parse("style == \"terse\" || (style != 'batch' && !yolo)").unwrap();
    assert_eq!(c.comparisons(), [("style", "terse"), ("style", "batch")]);
    assert_eq!(c.flags(), ["yolo"]);
    assert_eq!(c.switch_names(), ["style", "style", "yolo"]);
    let choices = |v: &str| [("style".to_string(), v.to_string())].into_iter().collect();
    let off = BTreeMap::new();
    assert!(c.eval_with(&off, &choices("terse")));
    assert!(c.eval_with(&off, &choices("verbose")));
    assert!(!c.eval_with(&off, &choices("batch")));
    assert!(!c.eval_with(&sw(&[("yolo", true)]), &choices("verbose")));
    // A bare word is a value too.
    assert_eq!(
        Condition::parse("style == terse").unwrap(),
        Condition::Is { name: "style".into(), value: "terse".into(), equal: true }
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let ok = format!("{}a{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(Condition::parse(&ok).is_ok());
    let deep = format!("{}a{}", "(".repeat(30_000), ")".repeat(30_000));
    let e = Condition::parse(&deep).unwrap_err();
    assert_eq!(e.offset, MAX_DEPTH);
    assert!(e.message.contains("more than 64 levels"), "{}", e.message);
    let nots = format!("{}a", "!".repeat(100_000));
    assert_eq!(Condition::parse(&nots).unwrap_err().offset, MAX_DEPTH);
    // Long flat chains are fine: they do not nest.
    let flat = vec!["a"; 10_000].join(" && ");
    assert!(Condition::parse(&flat).is_ok());
}

#[test]
fn names_with_dashes() {
    let c = Condition::parse("focus-chain").unwrap();
    assert_eq!(c, Condition::Switch("focus-chain".into()));
}
