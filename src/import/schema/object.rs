//! An object schema's members: its properties, `required` and `additionalProperties`, read
//! back through OpenAI strict mode (where every property is required and optional ones are
//! nullable).

use serde_json::{Map, Value};

use crate::model::params::valid_param_name;

use super::{describe, Converter, Dialect, Object, Param, SCHEMA_KEYWORDS_HELP};

impl Converter<'_> {
    /// The members of the object schema `m` at `path`.
    pub(super) fn object(&mut self, m: &Map<String, Value>, path: &str) -> Object {
        let mut out = Object::default();
        let mut props = self.properties(m, path);
        let mut required = self.required(m, path, &props);
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

    /// The `properties` of `m`, in declaration order, each converted.
    fn properties(&mut self, m: &Map<String, Value>, path: &str) -> Vec<(String, Param)> {
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
        props
    }

    /// The names `required` lists, each once and each one of `props`.
    fn required(&mut self, m: &Map<String, Value>, path: &str, props: &[(String, Param)]) -> Vec<String> {
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
        required
    }
}
