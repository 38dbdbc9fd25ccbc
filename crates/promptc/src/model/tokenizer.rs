//! Tokenizer names: encodings counted exactly (OpenAI's, and Gemini's Gemma 3 model), model
//! families estimated, and which one a model id maps to. Counting itself lives in
//! `measure::tokens`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::Result;

/// An encoding counted exactly: OpenAI's four, and the Gemma 3 SentencePiece model Gemini
/// counts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    O200kBase,
    /// GPT-4, GPT-3.5-turbo, text-embedding-3.
    Cl100kBase,
    /// Codex and text-davinci-002/003.
    P50kBase,
    /// GPT-3 (davinci) and GPT-2.
    R50kBase,
    /// Gemini 2.0, 2.5 and 3: the Gemma 3 SentencePiece model (262,144 pieces) that
    /// google-genai's `LocalTokenizer` counts with.
    #[serde(rename = "gemma3")]
    Gemma3,
}

impl Encoding {
    /// Every encoding promptc counts exactly.
    pub const ALL: [Encoding; 5] =
        [Encoding::O200kBase, Encoding::Cl100kBase, Encoding::P50kBase, Encoding::R50kBase, Encoding::Gemma3];

    /// OpenAI's encodings, which tiktoken counts (the golden counts cover these).
    pub const TIKTOKEN: [Encoding; 4] =
        [Encoding::O200kBase, Encoding::Cl100kBase, Encoding::P50kBase, Encoding::R50kBase];

    /// The encoding's canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
            Encoding::Gemma3 => "gemma3",
        }
    }

    /// Parse a canonical name.
    pub fn parse(s: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.name() == s)
    }
}

/// A model family whose tokenizer is not public: counts are estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Family {
    /// Anthropic Claude models.
    Claude,
}

/// The name `--tokenizer`, `tokens.tokenizer` and model ids use for Gemini: its exact encoding
/// (it was an estimated family before the Gemma 3 model was built in).
pub const GEMINI: &str = "gemini";

impl Family {
    /// Every estimated family.
    pub const ALL: [Family; 1] = [Family::Claude];

    /// Its name on the command line and in the project.
    pub fn name(self) -> &'static str {
        match self {
            Family::Claude => "claude",
        }
    }

    /// Parse a name.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The factor applied to the o200k_base count when the project sets none. Rough,
    /// documented averages for English prose and code; projects should calibrate their own.
    pub fn default_factor(self) -> f64 {
        match self {
            Family::Claude => 1.2,
        }
    }
}

/// How a report counts tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Tokenizer {
    /// Exact counts with an OpenAI encoding.
    Exact(Encoding),
    /// An estimate: the o200k_base count times a per-family factor.
    Estimate {
        /// The model family.
        family: Family,
        /// The multiplier.
        factor: f64,
    },
}

/// Per-family estimate factors set by a project.
pub type Factors = BTreeMap<Family, f64>;

impl Tokenizer {
    /// Every name `--tokenizer` accepts.
    pub fn names() -> Vec<&'static str> {
        let encodings = Encoding::ALL.iter().map(|e| e.name());
        encodings.chain(Family::ALL.iter().map(|f| f.name())).chain([GEMINI]).collect()
    }

    /// Resolve a `--tokenizer` name.
    pub fn from_name(name: &str, factors: &Factors) -> Result<Tokenizer> {
        if let Some(e) = Encoding::parse(name) {
            return Ok(Tokenizer::Exact(e));
        }
        if name == GEMINI {
            return Ok(Tokenizer::Exact(Encoding::Gemma3));
        }
        if let Some(f) = Family::parse(name) {
            return Ok(Tokenizer::estimate(f, factors));
        }
        Err(Diagnostic::error(format!("unknown tokenizer `{name}`"))
            .with_help(known_names_help("tokenizer", name, &Tokenizer::names()))
            .into_error(crate::error::ErrorKind::Usage))
    }

    /// The estimate for `family` with the project's factor (or the default).
    pub fn estimate(family: Family, factors: &Factors) -> Tokenizer {
        Tokenizer::Estimate { family, factor: factors.get(&family).copied().unwrap_or(family.default_factor()) }
    }

    /// The tokenizer of a model id (`gpt-4o`, `openai/o1-mini`, `claude-sonnet-4`), if known.
    pub fn for_model(model: &str, factors: &Factors) -> Option<Tokenizer> {
        let last = model.rsplit('/').next().unwrap_or(model);
        if let Some(t) = tiktoken_rs::tokenizer::get_tokenizer(last) {
            use tiktoken_rs::tokenizer::Tokenizer as T;
            return match t {
                T::O200kBase | T::O200kHarmony => Some(Tokenizer::Exact(Encoding::O200kBase)),
                T::Cl100kBase => Some(Tokenizer::Exact(Encoding::Cl100kBase)),
                T::P50kBase | T::P50kEdit => Some(Tokenizer::Exact(Encoding::P50kBase)),
                T::R50kBase | T::Gpt2 => Some(Tokenizer::Exact(Encoding::R50kBase)),
            };
        }
        model.split('/').find_map(|seg| {
            if seg.starts_with(GEMINI) {
                return Some(Tokenizer::Exact(Encoding::Gemma3));
            }
            Family::ALL.into_iter().find(|f| seg.starts_with(f.name())).map(|f| Tokenizer::estimate(f, factors))
        })
    }

    /// Whether counts are exact.
    pub fn exact(&self) -> bool {
        matches!(self, Tokenizer::Exact(_))
    }

    /// The name shown in reports.
    pub fn name(&self) -> String {
        match self {
            Tokenizer::Exact(e) => e.name().to_string(),
            Tokenizer::Estimate { family, .. } => family.name().to_string(),
        }
    }

    /// How counts are obtained, for humans.
    pub fn method(&self) -> String {
        match self {
            Tokenizer::Exact(Encoding::Gemma3) => "exact (the Gemma 3 SentencePiece model, 262,144 pieces, as \
                                                   google-genai's LocalTokenizer counts Gemini)"
                .into(),
            Tokenizer::Exact(e) => format!("exact ({} via tiktoken-rs)", e.name()),
            Tokenizer::Estimate { family, factor } => {
                format!("estimate: o200k_base count × {factor} ({} tokenizer is not public)", family.name())
            }
        }
    }

    /// The encoding whose counts the tokenizer uses (estimates scale o200k_base).
    pub fn encoding(&self) -> Encoding {
        match self {
            Tokenizer::Exact(e) => *e,
            Tokenizer::Estimate { .. } => Encoding::O200kBase,
        }
    }
}

#[cfg(test)]
#[path = "tokenizer_tests.rs"]
mod tests;
