//! JSON Schema (and Gemini's OpenAPI-style subset) → the catalog's parameter model.
//!
//! Only what a catalog file can say is accepted; every other keyword, a schema where a
//! boolean is expected, a tuple `items`, a `type` list other than `[T, "null"]`, is an error
//! naming the tool and the JSON path, never dropped.

mod keywords;
mod object;

use serde_json::{Number, Value};

use crate::diagnostic::Diagnostic;

/// Which schema language the input speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// JSON Schema: lower-case types, `["T", "null"]` for nullable (OpenAI, Anthropic, MCP).
    Json,
    /// Gemini's OpenAPI subset: upper- or lower-case types, `nullable: true`, no
    /// `additionalProperties`.
    Gemini,
}

/// A parameter type of the catalog: the loader's own type, so the two never disagree.
pub use crate::format::values::RawType as Ty;

/// The catalog type a JSON Schema (or, case-insensitively, a Gemini) type name stands for.
fn parse_type(s: &str, dialect: Dialect) -> Option<Ty> {
    let s = match dialect {
        Dialect::Gemini => s.to_ascii_lowercase(),
        Dialect::Json => s.to_string(),
    };
    Ty::ALL.into_iter().find(|t| t.name() == s)
}

/// An object's properties and the object-level keys the catalog has for them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object {
    /// Properties in declaration order.
    pub properties: Vec<(String, Param)>,
    /// The order of `required` when it differs from the properties' order.
    pub required_order: Option<Vec<String>>,
    /// `additionalProperties`, when declared.
    pub additional_properties: Option<bool>,
}

/// One parameter (or nested property, or array element) in the catalog's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its type.
    pub ty: Ty,
    /// Text shown to the model.
    pub description: Option<String>,
    /// Listed in its object's `required`.
    pub required: bool,
    /// `null` accepted too.
    pub nullable: bool,
    /// Allowed values (without `null`).
    pub enum_values: Option<Vec<Value>>,
    /// Documented default.
    pub default: Option<Value>,
    /// String format.
    pub format: Option<String>,
    /// String pattern.
    pub pattern: Option<String>,
    /// String length bounds.
    pub min_length: Option<u64>,
    /// String length bounds.
    pub max_length: Option<u64>,
    /// Numeric bounds, as written.
    pub minimum: Option<Number>,
    /// Numeric bounds, as written.
    pub maximum: Option<Number>,
    /// Array element schema.
    pub items: Option<Box<Param>>,
    /// Array length bounds.
    pub min_items: Option<u64>,
    /// Array length bounds.
    pub max_items: Option<u64>,
    /// Object members (for `object` only).
    pub object: Option<Object>,
}

/// Converts the schemas of one tool, collecting every problem.
pub struct Converter<'a> {
    /// The tool's name, for messages.
    pub tool: &'a str,
    /// The input's schema language.
    pub dialect: Dialect,
    /// OpenAI strict mode: every property is listed as required, optional ones are nullable.
    pub strict: bool,
    /// Problems found so far, each with the JSON path it is at.
    pub problems: Vec<(String, Diagnostic)>,
}

/// What kind of JSON value `v` is, for messages.
fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

const SCHEMA_KEYWORDS_HELP: &str = "a promptc catalog expresses type, description, enum, default, format, pattern, \
     minLength, maxLength, minimum, maximum, items, minItems, maxItems, properties, required and a boolean \
     additionalProperties; rewrite this part of the schema with those, or leave the tool out of the import";

impl Param {
    /// A parameter of type `ty` with nothing else said about it yet.
    fn of(ty: Ty, nullable: bool) -> Param {
        Param {
            ty,
            description: None,
            required: false,
            nullable,
            enum_values: None,
            default: None,
            format: None,
            pattern: None,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            items: None,
            min_items: None,
            max_items: None,
            object: None,
        }
    }
}

/// The keywords a catalog allows on type `ty` (besides `type`, `description`, `default`).
fn allowed_keywords(ty: Ty) -> &'static [&'static str] {
    match ty {
        Ty::String => &["format", "pattern", "minLength", "maxLength", "enum"],
        Ty::Integer | Ty::Number => &["minimum", "maximum", "enum"],
        Ty::Boolean => &[],
        Ty::Array => &["items", "minItems", "maxItems"],
        Ty::Object => &["properties", "required", "additionalProperties"],
    }
}

/// Every keyword that constrains one type only: an error on the others, never ignored.
const TYPE_SPECIFIC: [&str; 10] =
    ["format", "pattern", "minLength", "maxLength", "enum", "minimum", "maximum", "items", "minItems", "maxItems"];

impl<'a> Converter<'a> {
    /// A converter for the schemas of `tool`.
    pub fn new(tool: &'a str, dialect: Dialect, strict: bool) -> Self {
        Converter { tool, dialect, strict, problems: Vec::new() }
    }

    /// Record a problem at `path`.
    pub fn fail(&mut self, path: &str, message: impl AsRef<str>, help: &str) {
        let d = Diagnostic::error(format!("tool `{}`: {} (at `{path}`)", self.tool, message.as_ref()));
        self.problems.push((path.to_string(), if help.is_empty() { d } else { d.with_help(help.to_string()) }));
    }

    /// Record a keyword no catalog can express.
    fn unsupported(&mut self, path: &str, key: &str) {
        let what = match key {
            "anyOf" | "oneOf" | "allOf" | "not" => "schema combinators",
            "$ref" | "$defs" | "definitions" => "schema references",
            "if" | "then" | "else" => "conditional schemas",
            _ => "this keyword",
        };
        self.fail(
            &format!("{path}.{key}"),
            format!("`{key}` cannot be expressed in a promptc catalog ({what} are not part of it)"),
            SCHEMA_KEYWORDS_HELP,
        );
    }

    /// The root parameters object of a tool (`None` or an empty object: no parameters).
    pub fn root(&mut self, v: Option<&Value>, path: &str) -> Object {
        let Some(v) = v else { return Object::default() };
        let Some(m) = v.as_object() else {
            self.fail(path, format!("the parameters must be a JSON Schema object, found {}", describe(v)), "");
            return Object::default();
        };
        match m.get("type") {
            Some(Value::String(t)) if parse_type(t, self.dialect) == Some(Ty::Object) => {}
            Some(t) => {
                self.fail(
                    &format!("{path}.type"),
                    format!("the parameters must have type `object`, found {t}"),
                    "a tool's parameters are an object of named parameters",
                );
                return Object::default();
            }
            None if m.is_empty() => return Object::default(),
            None => {
                self.fail(path, "the parameters have no `type` (expected `object`)", "add \"type\": \"object\"");
                return Object::default();
            }
        }
        for key in m.keys() {
            if !matches!(key.as_str(), "type" | "properties" | "required" | "additionalProperties") {
                if key == "description" || key == "nullable" || key == "default" {
                    self.fail(
                        &format!("{path}.{key}"),
                        format!("`{key}` on a tool's parameters object cannot be expressed in a promptc catalog"),
                        "describe the tool in its own description instead",
                    );
                } else {
                    self.unsupported(path, key);
                }
            }
        }
        self.object(m, path)
    }

    /// One schema node.
    pub fn param(&mut self, v: &Value, path: &str) -> Option<Param> {
        let Some(m) = v.as_object() else {
            self.fail(
                path,
                format!("a parameter schema must be an object, found {}", describe(v)),
                "write the schema as {\"type\": …}",
            );
            return None;
        };
        let (ty, mut nullable) = self.ty(m, path)?;
        if self.dialect == Dialect::Gemini {
            match m.get("nullable") {
                None => {}
                Some(Value::Bool(b)) => nullable |= *b,
                Some(o) => {
                    self.fail(&format!("{path}.nullable"), format!("`nullable` must be true or false, found {o}"), "")
                }
            }
        }
        let mut p = Param::of(ty, nullable);
        let allowed = allowed_keywords(ty);
        for (key, value) in m {
            let at = format!("{path}.{key}");
            match key.as_str() {
                "type" => {}
                "nullable" if self.dialect == Dialect::Gemini => {}
                "description" => match value.as_str() {
                    Some(d) => p.description = Some(d.to_string()),
                    None => self.fail(&at, format!("`description` must be a string, found {}", describe(value)), ""),
                },
                "default" => p.default = Some(value.clone()),
                k if allowed.contains(&k) => self.keyword(&mut p, k, value, &at),
                k if TYPE_SPECIFIC.contains(&k) || matches!(k, "properties" | "required" | "additionalProperties") => {
                    self.fail(
                        &at,
                        format!("`{k}` does not apply to type `{}`", ty.name()),
                        "promptc catalogs allow a keyword only on the types it constrains",
                    )
                }
                k => self.unsupported(path, k),
            }
        }
        match ty {
            Ty::Array if p.items.is_none() && !m.contains_key("items") => {
                self.fail(path, "an `array` needs `items` (the schema of its elements)", "add \"items\": {\"type\": …}")
            }
            Ty::Object => p.object = Some(self.object(m, path)),
            Ty::String | Ty::Integer | Ty::Number | Ty::Boolean | Ty::Array => {}
        }
        Some(p)
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
