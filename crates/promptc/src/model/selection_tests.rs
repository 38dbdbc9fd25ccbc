//! Unit tests of `model::selection`.

use super::*;

fn policy() -> SelectionPolicy {
    SelectionPolicy {
        default_profile: "standard".into(),
        profile: "lite".into(),
        model_segments: vec![SegmentPattern::parse("o1").unwrap(), SegmentPattern::parse("o1-*").unwrap()],
        below_context_window: 64_000,
        assumed_context_window: 128_000,
    }
}

fn pick(model: Option<&str>, window: Option<&str>) -> String {
    policy()
        .select(&SelectionInput {
            explicit: None,
            model: model.map(Into::into),
            context_window: window.map(Into::into),
        })
        .profile
}

#[test]
fn model_segments() {
    assert_eq!(pick(Some("openai/o1-mini"), None), "lite");
    assert_eq!(pick(Some("foo/o1"), None), "lite");
    assert_eq!(pick(Some("o1"), None), "lite");
    assert_eq!(pick(Some("o10"), None), "standard");
    assert_eq!(pick(Some("o1x"), None), "standard");
    assert_eq!(pick(Some("gpt-4o"), None), "standard");
    assert_eq!(pick(Some("my-o1-model"), None), "standard");
}

#[test]
fn wildcards_stand_anywhere_in_a_segment() {
    let p = |s: &str| SegmentPattern::parse(s).unwrap();
    for (pat, seg, want) in [
        ("*gpt-4*", "my-gpt-4-deployment", true),
        ("*gpt-4*", "gpt-4", true),
        ("*gpt-4*", "GPT-4o-mini", true),
        ("*gpt-4*", "gpt-3.5", false),
        ("ft:gpt-4o*", "ft:gpt-4o-mini-2024:acme::abc", true),
        ("ft:gpt-4o*", "gpt-4o", false),
        ("o*-mini", "o4-mini", true),
        ("o*-mini", "o4-mini-high", false),
        ("*-mini", "mini", false),
        ("a*b*c", "abc", true),
        ("a*b*c", "aXbYbZc", true),
        ("a*b*c", "acb", false),
        ("o1", "o1", true),
        ("o1", "o10", false),
    ] {
        assert_eq!(p(pat).matches(seg), want, "{pat} vs {seg}");
    }
    assert_eq!(p("*GPT-4*").to_string(), "*gpt-4*");
    for bad in ["", "*", "**", "a/b"] {
        assert!(SegmentPattern::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_reason_names_the_rule_that_decided() {
    let why = |model: Option<&str>, window: Option<&str>| {
        policy()
            .select(&SelectionInput {
                explicit: None,
                model: model.map(Into::into),
                context_window: window.map(Into::into),
            })
            .reason
    };
    assert_eq!(
        why(Some("openai/o1-mini"), Some("8k")),
        "selection.model_segments: model `openai/o1-mini`: segment `o1-mini` matches `o1-*`"
    );
    assert_eq!(why(None, Some("32k")), "selection.below_context_window: context window 32000 (given) is below 64000");
    assert_eq!(
        why(Some("gpt-4o"), None),
        "default: model `gpt-4o` matches no selection.model_segments pattern; context window 128000 (assumed) is not \
         below 64000"
    );
    assert_eq!(why(None, None), "default: context window 128000 (assumed) is not below 64000");
}

#[test]
fn windows_parse_as_users_write_them() {
    for (raw, want) in [
        ("32000", 32_000),
        (" 32_000 ", 32_000),
        ("32,000", 32_000),
        ("32000.0", 32_000),
        ("32000.9", 32_000),
        ("3.2e4", 32_000),
        ("32k", 32_000),
        ("32K", 32_000),
        ("1.5k", 1_500),
        ("1M", 1_000_000),
        ("2m", 2_000_000),
        ("1e30", u64::MAX),
    ] {
        assert_eq!(parse_window(raw), Ok(want), "{raw}");
    }
    for raw in ["", "0", "-5", "0.5", "NaN", "nan", "inf", "-inf", "lots", "32kk", "k", "1e-3"] {
        let e = parse_window(raw).unwrap_err();
        assert!(e.contains("expected a positive number of tokens"), "{raw}: {e}");
    }
}

#[test]
fn model_patterns_ignore_case() {
    assert_eq!(pick(Some("O1-Mini"), None), "lite");
    assert_eq!(pick(Some("OpenAI/O1"), None), "lite");
    assert_eq!(SegmentPattern::parse("O1-*").unwrap(), SegmentPattern::parse("o1-*").unwrap());
}

#[test]
fn window_boundaries() {
    assert_eq!(pick(None, Some("63999")), "lite");
    assert_eq!(pick(None, Some("64000")), "standard");
    assert_eq!(pick(None, Some("0")), "standard");
    assert_eq!(pick(None, Some("-5")), "standard");
    assert_eq!(pick(None, Some("lots")), "standard", "invalid windows are refused earlier, in Runtime");
    assert_eq!(pick(None, None), "standard");
    assert_eq!(pick(None, Some("99999999999999999999999999")), "standard");
}

#[test]
fn explicit_wins() {
    let s = policy().select(&SelectionInput {
        explicit: Some("standard".into()),
        model: Some("o1".into()),
        context_window: Some("10".into()),
    });
    assert_eq!(s.profile, "standard");
}

#[test]
fn invalid_patterns() {
    assert!(SegmentPattern::parse("*").is_err());
    assert!(SegmentPattern::parse("**").is_err());
    assert!(SegmentPattern::parse("a/b").is_err());
}

#[test]
fn exact_case_patterns_match_case_exactly() {
    let p = SegmentPattern::exact_case("GPT-4*").unwrap();
    assert!(p.matches("GPT-4o") && !p.matches("gpt-4o"));
    let lower = SegmentPattern::exact_case("gpt-4o").unwrap();
    assert!(lower.matches("gpt-4o") && !lower.matches("GPT-4o"));
    assert!(SegmentPattern::exact_case("a/b").is_err(), "the same checks as parse");
    assert_eq!(SegmentPattern::exact_case("O1-*").unwrap().to_string(), "O1-*");
}

#[test]
fn rules_that_can_only_pick_the_default_are_not_said_to_decide() {
    // No `selection.profile` (or the default named): a model matching `o1` still gets the
    // default, and the reason must not name the rule as if it had chosen.
    let p = SelectionPolicy { profile: "standard".into(), ..policy() };
    for (model, window) in [(Some("openai/o1-mini"), None), (None, Some("32k"))] {
        let s = p.select(&SelectionInput {
            explicit: None,
            model: model.map(Into::into),
            context_window: window.map(Into::into),
        });
        assert_eq!(s.profile, "standard");
        assert!(s.reason.starts_with("default: no selection rule picks another profile"), "{}", s.reason);
    }
}
