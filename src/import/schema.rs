//! JSON Schema (and Gemini's OpenAPI-style subset) → the catalog's parameter model.
//!
//! Only what a catalog file can say is accepted; every other keyword, a schema where a
//! boolean is expected, a tuple `items`, a `type` list other than `[T, "null"]`, is an error
//! naming the tool and the JSON path, never dropped.

use serde_json::{Map, Number, Value};

use crate::diagnostic::Diagnostic;
use crate::model::params::valid_param_name;

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

    fn object(&mut self, m: &Map<String, Value>, path: &str) -> Object {
        let mut out = Object::default();
        let mut props: Vec<(String, Param)> = Vec::new();
        match m.get("properties") {
            None => {}
            Some(Value::Object(ps)) => {
                for (name, schema) in ps {
                    let at = format!("{path}.properties.{name}");
                    if !valid_param_name(name) {
                        self.fail(
                            &at,
                            format!("invalid parameter name `{}`", crate::diagnostic::excerpt(name, 80)),
                            "parameter names start with a letter or `_`, then letters, digits or `_`, at most 64 \
                             characters (the rule every provider accepts); rename it in the input",
                        );
                        continue;
                    }
                    if let Some(p) = self.param(schema, &at) {
                        props.push((name.clone(), p));
                    }
                }
            }
            Some(other) => self.fail(
                &format!("{path}.properties"),
                format!("`properties` must be an object, found {}", describe(other)),
                "",
            ),
        }
        let mut required: Vec<String> = Vec::new();
        match m.get("required") {
            None => {}
            Some(Value::Array(list)) => {
                for (i, r) in list.iter().enumerate() {
                    let at = format!("{path}.required[{i}]");
                    match r.as_str() {
                        Some(name) if required.iter().any(|x| x == name) => {
                            self.fail(&at, format!("`{name}` is listed twice in `required`"), "list it once")
                        }
                        Some(name) if !props.iter().any(|(n, _)| n == name) && valid_param_name(name) => self.fail(
                            &at,
                            format!("`{name}` is required but is not one of the properties"),
                            "declare it under `properties` or remove it from `required`",
                        ),
                        Some(name) => required.push(name.to_string()),
                        None => self.fail(&at, format!("`required` lists {}, not a name", describe(r)), ""),
                    }
                }
            }
            Some(other) => self.fail(
                &format!("{path}.required"),
                format!("`required` must be a list of names, found {}", describe(other)),
                "",
            ),
        }
        match m.get("additionalProperties") {
            None => {}
            Some(Value::Bool(b)) if self.dialect == Dialect::Json => out.additional_properties = Some(*b),
            Some(Value::Bool(_)) => self.unsupported(path, "additionalProperties"),
            Some(_) => self.fail(
                &format!("{path}.additionalProperties"),
                "an `additionalProperties` schema cannot be expressed in a promptc catalog (only true or false)",
                SCHEMA_KEYWORDS_HELP,
            ),
        }
        // OpenAI strict mode lists every property as required and makes the optional ones
        // nullable: read a nullable property of such an object back as optional.
        let all_required = !props.is_empty() && props.iter().all(|(n, _)| required.contains(n));
        if self.strict && all_required {
            for (_, p) in &mut props {
                if p.nullable {
                    p.nullable = false;
                } else {
                    p.required = true;
                }
            }
            required.retain(|r| props.iter().any(|(n, p)| n == r && p.required));
        } else {
            for (n, p) in &mut props {
                p.required = required.contains(n);
            }
        }
        // Strict mode closes every object itself: a `false` there says nothing of its own.
        if self.strict && out.additional_properties == Some(false) {
            out.additional_properties = None;
        }
        let in_property_order: Vec<&String> =
            props.iter().filter(|(n, _)| required.contains(n)).map(|(n, _)| n).collect();
        if in_property_order.iter().zip(&required).any(|(a, b)| *a != b) {
            out.required_order = Some(required);
        }
        out.properties = props;
        out
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
        let mut p = Param {
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
        };
        let allowed: &[&str] = match ty {
            Ty::String => &["format", "pattern", "minLength", "maxLength", "enum"],
            Ty::Integer | Ty::Number => &["minimum", "maximum", "enum"],
            Ty::Boolean => &[],
            Ty::Array => &["items", "minItems", "maxItems"],
            Ty::Object => &["properties", "required", "additionalProperties"],
        };
        let type_specific = [
            "format",
            "pattern",
            "minLength",
            "maxLength",
            "enum",
            "minimum",
            "maximum",
            "items",
            "minItems",
            "maxItems",
        ];
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
                k if type_specific.contains(&k) || matches!(k, "properties" | "required" | "additionalProperties") => {
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

    /// The type and whether the type list admits `null`.
    fn ty(&mut self, m: &Map<String, Value>, path: &str) -> Option<(Ty, bool)> {
        let at = format!("{path}.type");
        let unknown = |this: &mut Self, t: &str| {
            this.fail(
                &at,
                format!("unknown type `{}`", crate::diagnostic::excerpt(t, 40)),
                "promptc catalogs have string, integer, number, boolean, array and object",
            );
            None
        };
        match m.get("type") {
            None => {
                for k in ["anyOf", "oneOf", "allOf", "$ref", "const", "not"] {
                    if m.contains_key(k) {
                        self.unsupported(path, k);
                        return None;
                    }
                }
                self.fail(path, "the schema has no `type`", "promptc catalog parameters always have a type");
                None
            }
            Some(Value::String(t)) => match parse_type(t, self.dialect) {
                Some(ty) => Some((ty, false)),
                None => unknown(self, t),
            },
            Some(Value::Array(list)) if self.dialect == Dialect::Json => {
                let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
                match names.as_slice() {
                    [t, "null"] | ["null", t] if names.len() == list.len() && *t != "null" => {
                        match parse_type(t, self.dialect) {
                            Some(ty) => Some((ty, true)),
                            None => unknown(self, t),
                        }
                    }
                    [t] if list.len() == 1 && *t != "null" => match parse_type(t, self.dialect) {
                        Some(ty) => Some((ty, false)),
                        None => unknown(self, t),
                    },
                    _ => {
                        self.fail(
                            &at,
                            format!(
                                "the type list {} cannot be expressed in a promptc catalog",
                                Value::Array(list.clone())
                            ),
                            "a catalog parameter has one type, optionally nullable: [\"string\", \"null\"]",
                        );
                        None
                    }
                }
            }
            Some(other) => {
                self.fail(
                    &at,
                    format!("`type` must be a type name, found {other}"),
                    "promptc catalogs have string, integer, number, boolean, array and object",
                );
                None
            }
        }
    }

    fn keyword(&mut self, p: &mut Param, key: &str, v: &Value, at: &str) {
        let count = |this: &mut Self| match v.as_u64() {
            Some(n) => Some(n),
            None => {
                this.fail(at, format!("`{key}` must be a whole number of at least 0, found {v}"), "");
                None
            }
        };
        match key {
            "format" | "pattern" => match v.as_str() {
                Some(s) if key == "format" => p.format = Some(s.to_string()),
                Some(s) => p.pattern = Some(s.to_string()),
                None => self.fail(at, format!("`{key}` must be a string, found {}", describe(v)), ""),
            },
            "minLength" => p.min_length = count(self),
            "maxLength" => p.max_length = count(self),
            "minItems" => p.min_items = count(self),
            "maxItems" => p.max_items = count(self),
            "minimum" | "maximum" => {
                let n = match v {
                    Value::Number(n) if p.ty == Ty::Integer => match whole(n) {
                        Some(w) => Some(w),
                        None => {
                            self.fail(at, format!("bound {n} of an integer is not a whole number"), "");
                            None
                        }
                    },
                    Value::Number(n) => Some(n.clone()),
                    _ => {
                        self.fail(at, format!("`{key}` must be a number, found {}", describe(v)), "");
                        None
                    }
                };
                if key == "minimum" {
                    p.minimum = n;
                } else {
                    p.maximum = n;
                }
            }
            "items" => match v {
                Value::Object(_) => p.items = self.param(v, at).map(Box::new),
                Value::Array(_) => self.fail(
                    at,
                    "tuple `items` (a list of schemas) cannot be expressed in a promptc catalog",
                    "a catalog array has one element schema: \"items\": {\"type\": …}",
                ),
                _ => self.fail(at, format!("`items` must be a schema object, found {}", describe(v)), ""),
            },
            "enum" => p.enum_values = self.enum_values(p, v, at),
            _ => {}
        }
    }

    fn enum_values(&mut self, p: &Param, v: &Value, at: &str) -> Option<Vec<Value>> {
        let Some(list) = v.as_array() else {
            self.fail(at, format!("`enum` must be a list, found {}", describe(v)), "");
            return None;
        };
        let mut out = Vec::new();
        let mut saw_null = false;
        for (i, x) in list.iter().enumerate() {
            let fits = match (p.ty, x) {
                (Ty::String, Value::String(_)) | (Ty::Number, Value::Number(_)) => Some(x.clone()),
                (Ty::Integer, Value::Number(n)) => whole(n).map(Value::Number),
                _ => None,
            };
            if x.is_null() {
                saw_null = true;
            } else if let Some(x) = fits {
                out.push(x);
            } else {
                self.fail(
                    &format!("{at}[{i}]"),
                    format!("enum value {x} is not of the type `{}`", p.ty.name()),
                    "a catalog enum lists values of the parameter's own type",
                );
                return None;
            }
        }
        if saw_null && !p.nullable {
            self.fail(
                at,
                "the enum lists null but the type does not accept null",
                "make the type nullable ([\"T\", \"null\"]) or drop null from the enum",
            );
        } else if p.nullable && !saw_null && !list.is_empty() && self.dialect == Dialect::Json {
            self.fail(
                at,
                "the type accepts null but the enum does not list it",
                "a nullable promptc enum always accepts null: add null to the enum, or make the type non-nullable",
            );
        }
        if out.is_empty() {
            self.fail(at, "the enum lists no value", "list at least one allowed value, or remove `enum`");
            return None;
        }
        Some(out)
    }
}

/// `n` as a whole number (`1.0` is `1`), if it is one an integer parameter can hold.
fn whole(n: &Number) -> Option<Number> {
    if n.is_i64() || n.is_u64() {
        return Some(n.clone());
    }
    n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| Number::from(f as i64))
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
