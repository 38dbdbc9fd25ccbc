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
#[path = "selection_tests.rs"]
mod tests;
