//! The canonical parameter schema: one typed description of a tool's inputs from which every
//! provider projection and the XML docs are derived.

use serde_json::{Map, Value};

use crate::diagnostic::Span;
use crate::model::condition::Condition;

/// A typed schema node.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// Text shown to the model.
    pub description: Option<String>,
    /// `null` is accepted as well.
    pub nullable: bool,
    /// Documented default value (already checked against the type).
    pub default: Option<Value>,
    /// The type and its type-specific constraints.
    pub kind: Kind,
    /// The node exactly as a tool's `input_schema` writes it (any JSON Schema keyword, in its
    /// order): what providers that take full JSON Schema receive. `None` for the typed
    /// `parameters:` form, whose JSON promptc writes itself.
    pub json: Option<Map<String, Value>>,
}

/// The type of a schema node with the keywords that apply to it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A string.
    String {
        /// Allowed values.
        enum_values: Vec<String>,
        /// A format name such as `date-time` or `uri`.
        format: Option<String>,
        /// A regular expression.
        pattern: Option<String>,
        /// Length bounds.
        min_length: Option<u64>,
        /// Length bounds.
        max_length: Option<u64>,
    },
    /// A whole number.
    Integer {
        /// Allowed values.
        enum_values: Vec<i64>,
        /// Inclusive bounds.
        minimum: Option<i64>,
        /// Inclusive bounds.
        maximum: Option<i64>,
    },
    /// Any number.
    Number {
        /// Allowed values.
        enum_values: Vec<f64>,
        /// Inclusive bounds.
        minimum: Option<f64>,
        /// Inclusive bounds.
        maximum: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// A list.
    Array {
        /// Each element's schema.
        items: Box<Schema>,
        /// Length bounds.
        min_items: Option<u64>,
        /// Length bounds.
        max_items: Option<u64>,
    },
    /// A schema promptc does not reason about as one type — a combination (`anyOf`, `oneOf`,
    /// `allOf`), a reference, `const`, several types or none — carried as written in its
    /// `input_schema` (`Schema::json`).
    Any,
    /// A nested object.
    Object {
        /// Its properties, in declaration order.
        properties: Vec<Property>,
        /// How its schema is closed and its `required` list ordered.
        shape: ObjectShape,
    },
}

/// What an object's JSON Schema says beyond its properties, only where the catalog says it:
/// promptc adds nothing a hand-written schema would not have (OpenAI strict mode aside, which
/// requires closed objects).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectShape {
    /// `additionalProperties`, when declared.
    pub additional_properties: Option<bool>,
    /// The order of the `required` list, when it differs from the properties' order (names
    /// exactly the required properties, checked at load).
    pub required_order: Vec<String>,
    /// The root parameters object exactly as a tool's `input_schema` writes it (its
    /// `properties` are the tool's parameters, each carrying its own `Schema::json`).
    pub json: Option<Map<String, Value>>,
    /// The language `json` is written in (Gemini's OpenAPI subset for `gemini_parameters:`).
    pub dialect: SchemaDialect,
    /// The tool's entry has no parameter schema at all (`no_parameters: true`): providers that
    /// take a function without one (Chat Completions, Gemini) get no parameters key, the others
    /// an empty object schema.
    pub absent: bool,
}

impl ObjectShape {
    /// The names of `props` a schema lists as required: those marked required (every one when
    /// `all`, as OpenAI strict mode needs), in `required_order` first, then in declaration order.
    /// Properties filtered out of a cell are simply absent.
    pub fn required<'a>(&'a self, props: &'a [Property], all: bool) -> Vec<&'a str> {
        let listed = |p: &&Property| all || p.required;
        let mut out: Vec<&str> = self
            .required_order
            .iter()
            .filter(|n| props.iter().filter(listed).any(|p| &p.name == *n))
            .map(String::as_str)
            .collect();
        for p in props.iter().filter(listed) {
            if !out.contains(&p.name.as_str()) {
                out.push(&p.name);
            }
        }
        out
    }
}

impl Kind {
    /// A string with no constraints.
    #[cfg(test)]
    pub fn string() -> Kind {
        Kind::String { enum_values: Vec::new(), format: None, pattern: None, min_length: None, max_length: None }
    }

    /// The JSON Schema type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::String { .. } => "string",
            Kind::Integer { .. } => "integer",
            Kind::Number { .. } => "number",
            Kind::Boolean => "boolean",
            Kind::Array { .. } => "array",
            Kind::Object { .. } => "object",
            Kind::Any => "any",
        }
    }
}

/// A named member of an object (or a top-level tool parameter).
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The parameter name.
    pub name: String,
    /// Whether the caller must supply it.
    pub required: bool,
    /// Its schema.
    pub schema: Schema,
    /// For top-level parameters: the switch expression that keeps it.
    pub when: Condition,
    /// For top-level parameters: the profiles that send it (empty: every profile).
    pub profiles: Vec<String>,
    /// Its name in the catalog file (empty for parameters not read from one).
    pub span: Span,
}

/// Every description in `params` at every depth — a property's, its array items' (nested
/// arrays too), its object's properties' — as (the top-level parameter, the property it
/// belongs to, the text), in declaration order.
pub fn descriptions(params: &[Property]) -> Vec<(&Property, &Property, &str)> {
    fn walk<'a>(ps: &'a [Property], top: Option<&'a Property>, out: &mut Vec<(&'a Property, &'a Property, &'a str)>) {
        for p in ps {
            let top = top.unwrap_or(p);
            let mut schema = &p.schema;
            loop {
                if let Some(d) = &schema.description {
                    out.push((top, p, d));
                }
                match &schema.kind {
                    Kind::Array { items, .. } => schema = items,
                    Kind::Object { properties, .. } => {
                        walk(properties, Some(top), out);
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(params, None, &mut out);
    out
}

impl Property {
    /// Whether a top-level parameter is sent in `profile`'s cells (where its tool is active and
    /// its `when` holds).
    pub fn sent_in(&self, profile: &str) -> bool {
        self.profiles.is_empty() || self.profiles.iter().any(|p| p == profile)
    }
}

/// Whether `name` is a valid parameter name for every provider.
pub fn valid_param_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

/// Whether a JSON value is an instance of `schema` (used to check documented defaults).
pub fn value_matches(schema: &Schema, v: &Value) -> bool {
    if v.is_null() {
        return schema.nullable;
    }
    match &schema.kind {
        Kind::String { enum_values, .. } => {
            v.as_str().is_some_and(|s| enum_values.is_empty() || enum_values.iter().any(|e| e == s))
        }
        Kind::Integer { enum_values, .. } => {
            v.as_i64().is_some_and(|i| enum_values.is_empty() || enum_values.contains(&i))
        }
        Kind::Number { enum_values, .. } => {
            v.as_f64().is_some_and(|n| enum_values.is_empty() || enum_values.contains(&n))
        }
        Kind::Boolean => v.is_boolean(),
        // What promptc does not type, it does not judge.
        Kind::Any => true,
        Kind::Array { items, .. } => v.as_array().is_some_and(|a| a.iter().all(|x| value_matches(items, x))),
        Kind::Object { properties, .. } => v.as_object().is_some_and(|o| {
            o.iter().all(|(k, x)| properties.iter().any(|p| &p.name == k && value_matches(&p.schema, x)))
                && properties.iter().filter(|p| p.required).all(|p| o.contains_key(&p.name))
        }),
    }
}

mod json;
pub use json::{input_schema, nullable_branch, trim_descriptions as trim_json_descriptions, SchemaDialect};
