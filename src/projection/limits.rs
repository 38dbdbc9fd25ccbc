//! Provider limits and schema subsets in one place: what each provider's API accepts, for the
//! projections that rewrite and the lint rules that warn.

use crate::model::provider::Provider;

/// Most tools one request may carry, for the providers that set a limit.
pub fn max_tools(provider: Provider) -> Option<usize> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Gemini => Some(128),
        Provider::Anthropic => None,
    }
}

/// Longest tool description (characters), for the providers that set a limit.
pub fn max_description_chars(provider: Provider) -> Option<usize> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => Some(1024),
        Provider::Anthropic | Provider::Gemini => None,
    }
}

/// Whether a provider is OpenAI (strict mode applies to its function schemas).
pub fn is_openai(provider: Provider) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
}

/// String formats OpenAI strict mode accepts; others are dropped.
pub const STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// String formats Gemini's schema subset accepts; others move into the description.
pub const GEMINI_FORMATS: &[&str] = &["date-time"];
