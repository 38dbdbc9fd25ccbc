//! Profile selection: which profile a request gets when none is named. Thresholds and rules
//! are project data; this module only applies them.

/// A pattern matched against one `/`-separated segment of a model id: literal text with `*`
/// standing for any run of characters (none included) anywhere — `o1`, `o1-*`, `*gpt-4*`,
/// `ft:gpt-4o*`. Matching ignores ASCII case (the pattern is stored lower-cased) unless the
/// pattern was parsed to match case exactly ([`SegmentPattern::exact_case`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentPattern {
    /// The literal pieces between the `*`s (the first and last may be empty).
    pieces: Vec<String>,
    /// Whether ASCII case is ignored.
    ignore_case: bool,
}

impl SegmentPattern {
    /// The same pattern, matching case exactly (`selection.case_sensitive: true`).
    pub fn exact_case(s: &str) -> Result<Self, String> {
        // The same checks as `parse`.
        SegmentPattern::parse(s)?;
        Ok(SegmentPattern { pieces: s.split('*').map(str::to_string).collect(), ignore_case: false })
    }

    /// Parse a pattern. It may not be empty, all `*`, or contain `/` (it matches one segment).
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.is_empty() || s.contains('/') || s.chars().all(|c| c == '*') {
            return Err(format!(
                "invalid model segment pattern `{s}`: use a segment such as `o1`, a prefix such as `o1-*`, or \
                 text to find anywhere such as `*gpt-4*` (`*` is any run of characters, `/` separates segments)"
            ));
        }
        Ok(SegmentPattern {
            pieces: s.to_ascii_lowercase().split('*').map(str::to_string).collect(),
            ignore_case: true,
        })
    }

    /// Whether one segment matches (ignoring ASCII case unless the pattern is exact).
    pub fn matches(&self, segment: &str) -> bool {
        let segment = if self.ignore_case { segment.to_ascii_lowercase() } else { segment.to_string() };
        let (first, rest) = match self.pieces.split_first() {
            Some(x) => x,
            None => return false,
        };
        let Some(mut tail) = segment.strip_prefix(first.as_str()) else { return false };
        let Some((last, middle)) = rest.split_last() else { return tail.is_empty() };
        // Leftmost match of each middle piece leaves the most room for the rest.
        for piece in middle {
            match tail.find(piece.as_str()) {
                Some(i) => tail = &tail[i + piece.len()..],
                None => return false,
            }
        }
        tail.ends_with(last.as_str())
    }
}

impl std::fmt::Display for SegmentPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.pieces.join("*"))
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

impl SelectionPolicy {
    /// Apply the policy: explicit wins, then model segments, then the context window. The
    /// reason names the rule that decided (`selection.model_segments`,
    /// `selection.below_context_window`, the default) and what it saw.
    pub fn select(&self, input: &SelectionInput) -> Selection {
        if let Some(p) = &input.explicit {
            return Selection { profile: p.clone(), reason: "named in the request".into() };
        }
        // Rules that can only pick the default decide nothing: say so, not which rule fired.
        if self.profile == self.default_profile {
            return Selection {
                profile: self.default_profile.clone(),
                reason: format!(
                    "default: no selection rule picks another profile (`selection.profile` is not set, or is the \
                     default `{}`)",
                    self.default_profile
                ),
            };
        }
        if let Some(model) = &input.model {
            for seg in model.split('/') {
                if let Some(pat) = self.model_segments.iter().find(|p| p.matches(seg)) {
                    return Selection {
                        profile: self.profile.clone(),
                        reason: format!("selection.model_segments: model `{model}`: segment `{seg}` matches `{pat}`"),
                    };
                }
            }
        }
        let given = input.context_window.as_deref().and_then(|s| parse_window(s).ok());
        let window = given.unwrap_or(self.assumed_context_window);
        let how = if given.is_some() { "given" } else { "assumed" };
        if window < self.below_context_window {
            return Selection {
                profile: self.profile.clone(),
                reason: format!(
                    "selection.below_context_window: context window {window} ({how}) is below {}",
                    self.below_context_window
                ),
            };
        }
        let model = match &input.model {
            Some(m) => format!("model `{m}` matches no selection.model_segments pattern; "),
            None => String::new(),
        };
        Selection {
            profile: self.default_profile.clone(),
            reason: format!(
                "default: {model}context window {window} ({how}) is not below {}",
                self.below_context_window
            ),
        }
    }
}

#[cfg(test)]
#[path = "selection_tests.rs"]
mod tests;
