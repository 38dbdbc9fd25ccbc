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
    /// Parse `o1` (exact) or `o1-*` (prefix). A `*` anywhere else is rejected.
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
        Ok(if prefix { SegmentPattern::Prefix(body.into()) } else { SegmentPattern::Exact(body.into()) })
    }

    /// Whether one segment matches.
    pub fn matches(&self, segment: &str) -> bool {
        match self {
            SegmentPattern::Exact(s) => segment == s,
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

/// A context window as given by a user: a positive integer, or the assumed default.
pub fn effective_window(raw: Option<&str>, assumed: u64) -> u64 {
    raw.and_then(|s| s.trim().replace('_', "").parse::<i128>().ok())
        .filter(|n| *n > 0)
        .map_or(assumed, |n| n.min(u64::MAX as i128) as u64)
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
    fn window_boundaries() {
        assert_eq!(pick(None, Some("63999")), "lite");
        assert_eq!(pick(None, Some("64000")), "standard");
        assert_eq!(pick(None, Some("0")), "standard");
        assert_eq!(pick(None, Some("-5")), "standard");
        assert_eq!(pick(None, Some("lots")), "standard");
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
