//! Words the project files take as values that the model has no enum for: a parameter's
//! `type:`. Transports, providers, description modes and roles are read straight into the
//! model's own enums, which describe themselves to the schema (one home for each name).

use schemars::JsonSchema;
use serde::Deserialize;

/// The `type:` of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawType {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A list (`items`).
    Array,
    /// An object (`properties`).
    Object,
}

impl RawType {
    /// The lower-case type name.
    pub fn name(self) -> &'static str {
        match self {
            RawType::String => "string",
            RawType::Integer => "integer",
            RawType::Number => "number",
            RawType::Boolean => "boolean",
            RawType::Array => "array",
            RawType::Object => "object",
        }
    }
}
