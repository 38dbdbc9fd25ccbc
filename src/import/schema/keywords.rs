//! One schema node's type and its type-specific keywords (string formats and lengths,
//! numeric bounds, array items, enums), each checked against what a catalog can hold.

use serde_json::{Map, Number, Value};

use super::{describe, parse_type, Converter, Dialect, Param, Ty};

impl Converter<'_> {
    /// The type and whether the type list admits `null`.
    pub(super) fn ty(&mut self, m: &Map<String, Value>, path: &str) -> Option<(Ty, bool)> {
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

    /// Keyword `key` (one the type allows) of a parameter, at `at`.
    pub(super) fn keyword(&mut self, p: &mut Param, key: &str, v: &Value, at: &str) {
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

    /// The values of `enum`, each of the parameter's type; `null` only when it is nullable.
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
