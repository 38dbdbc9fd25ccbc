//! Profile selection: which profile a request gets when none is named. Thresholds and rules
//! are project data; this module only applies them.

/// A pattern matched against one `/`-separated segment of a model id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentPattern {
    /// The segment equals this text.
    Exact(String),
    /// The segment starts with this text (written `o1-*`).
    Prefix(String),
}

impl SegmentPattern {
    /// Parse `o1` (exact) or `o1-*` (prefix). A `*` anywhere else is rejected. Patterns match
    /// case-insensitively (`O1-Mini` is `o1-mini`): they are stored lower-cased.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (body, prefix) = match s.strip_suffix('*') {
            Some(b) => (b, true),
            None => (s, false),
        };
        if body.is_empty() || body.contains('*') || body.contains('/') {
            return Err(format!(
                "invalid model segment pattern `{s}`: use a segment such as `o1`, or a prefix such as `o1-*`"
            ));
        }
        let body = body.to_ascii_lowercase();
        Ok(if prefix { SegmentPattern::Prefix(body) } else { SegmentPattern::Exact(body) })
    }

    /// Whether one segment matches, ignoring ASCII case.
    pub fn matches(&self, segment: &str) -> bool {
        let segment = segment.to_ascii_lowercase();
        match self {
            SegmentPattern::Exact(s) => segment == *s,
            SegmentPattern::Prefix(p) => segment.starts_with(p.as_str()),
        }
    }
}

impl std::fmt::Display for SegmentPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SegmentPattern::Exact(s) => f.write_str(s),
            SegmentPattern::Prefix(p) => write!(f, "{p}*"),
        }
    }
}

/// The project's selection policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionPolicy {
    /// Profile used when no rule fires.
    pub default_profile: String,
    /// Profile the rules pick.
    pub profile: String,
    /// Model-id segment patterns that pick `profile`.
    pub model_segments: Vec<SegmentPattern>,
    /// A context window below this picks `profile`.
    pub below_context_window: u64,
    /// The window assumed when none (or an invalid one) is given.
    pub assumed_context_window: u64,
}

/// What is known about the request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionInput {
    /// The profile the request names, which always wins.
    pub explicit: Option<String>,
    /// The model id, e.g. `openai/o1-mini`.
    pub model: Option<String>,
    /// The context window as given; anything not a positive integer counts as missing.
    pub context_window: Option<String>,
}

/// The chosen profile and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Selection {
    /// The profile name.
    pub profile: String,
    /// A one-line human explanation.
    pub reason: String,
}

/// Parse a context window as a user gives it, on the command line or in a context file: a
/// number of tokens, possibly with `_` or `,` separators, a fraction (rounded down), an
/// exponent (`3.2e4`) or a `k` / `M` suffix (thousands, millions: `32k` is 32,000). Anything
/// else — zero, a negative or non-finite number, a word — is an error saying what was expected,
/// never silently the assumed window.
pub fn parse_window(raw: &str) -> Result<u64, String> {
    let expected = "a positive number of tokens, such as 32000, 32_000, 32k or 1M";
    let text = raw.trim().replace(['_', ','], "");
    let (digits, scale) = match text.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1e3),
        None => match text.strip_suffix(['m', 'M']) {
            Some(d) => (d, 1e6),
            None => (text.as_str(), 1.0),
        },
    };
    let n: f64 = digits.trim().parse().map_err(|_| format!("`{raw}` is not a context window: expected {expected}"))?;
    let tokens = (n * scale).floor();
    if !tokens.is_finite() || tokens < 1.0 {
        return Err(format!("`{raw}` is not a context window: expected {expected}"));
    }
    Ok(if tokens >= u64::MAX as f64 { u64::MAX } else { tokens as u64 })
}

/// The window a request's (already validated) context window gives, or the assumed default.
pub fn effective_window(raw: Option<&str>, assumed: u64) -> u64 {
    raw.and_then(|s| parse_window(s).ok()).unwrap_or(assumed)
}

impl SelectionPolicy {
    /// Apply the policy: explicit wins, then model segments, then the context window.
    pub fn select(&self, input: &SelectionInput) -> Selection {
        if let Some(p) = &input.explicit {
            return Selection { profile: p.clone(), reason: "named in the request".into() };
        }
        if let Some(model) = &input.model {
            for seg in model.split('/') {
                if let Some(pat) = self.model_segments.iter().find(|p| p.matches(seg)) {
                    return Selection {
                        profile: self.profile.clone(),
                        reason: format!("model `{model}`: segment `{seg}` matches `{pat}`"),
                    };
                }
            }
        }
        let window = effective_window(input.context_window.as_deref(), self.assumed_context_window);
        if window < self.below_context_window {
            return Selection {
                profile: self.profile.clone(),
                reason: format!("context window {window} is below {}", self.below_context_window),
            };
        }
        Selection { profile: self.default_profile.clone(), reason: format!("default (context window {window})") }
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(SegmentPattern::parse("O1-*").unwrap(), SegmentPattern::Prefix("o1-".into()));
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
        assert!(SegmentPattern::parse("o*1").is_err());
        assert!(SegmentPattern::parse("a/b").is_err());
    }
}
