//! Building the typed parameter schema from a tool file's `parameters:`: every keyword checked
//! against its type, defaults checked against the schema, errors located in the file.

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Label};
use crate::format::tool::RawParam;
use crate::format::values::RawType;
use crate::format::S;
use crate::model::condition::Condition;
use crate::model::params::{valid_param_name, value_matches, Kind, ObjectShape, Property, Schema};
use crate::source::SourceFile;

/// Converts raw parameters of one file into typed properties, collecting every problem.
pub struct SchemaBuilder<'a> {
    /// The file the parameters come from.
    pub file: &'a SourceFile,
    /// Problems found so far.
    pub problems: Vec<Diagnostic>,
}

impl<'a> SchemaBuilder<'a> {
    /// A builder for parameters declared in `file`.
    pub fn new(file: &'a SourceFile) -> Self {
        SchemaBuilder { file, problems: Vec::new() }
    }

    fn label(&self, loc: &serde_saphyr::Location) -> Label {
        crate::source::yaml::label(&self.file.display, &self.file.text, loc)
    }

    fn fail(&mut self, loc: &serde_saphyr::Location, msg: String, help: &str) {
        let d = Diagnostic::error(msg).with_label(self.label(loc)).with_help(help.to_string());
        self.problems.push(d);
    }

    /// Build properties from a raw `parameters:`/`properties:` map; `when` is resolved by the
    /// caller through `parse_when` so that switch names can be checked.
    pub fn properties(
        &mut self,
        raw: &indexmap::IndexMap<S, RawParam>,
        allow_when: bool,
        parse_when: &mut dyn FnMut(&S) -> Option<Condition>,
    ) -> Vec<Property> {
        let mut out = Vec::new();
        for (name, param) in raw {
            if !valid_param_name(&name.value) {
                self.fail(
                    &name.referenced,
                    format!("invalid parameter name `{}`", name.value),
                    "parameter names start with a letter or `_`, then letters, digits or `_`, at most 64 characters \
                        (the rule every provider accepts)",
                );
            }
            let when = match &param.when {
                Some(w) if !allow_when => {
                    self.fail(
                        &w.referenced,
                        "`when` is only allowed on top-level tool parameters".into(),
                        "move the condition to the top-level parameter that contains this property",
                    );
                    Condition::Always
                }
                Some(w) => parse_when(w).unwrap_or(Condition::Always),
                None => Condition::Always,
            };
            if let Some(p) = param.profiles.as_ref().filter(|_| !allow_when) {
                self.fail(
                    &p.referenced,
                    "`profiles` is only allowed on top-level tool parameters".into(),
                    "move the list to the top-level parameter that contains this property",
                );
            }
            let schema = self.schema(param, parse_when);
            out.push(Property {
                name: name.value.clone(),
                required: param.required,
                schema,
                when,
                profiles: Vec::new(),
                span: super::checker::node_span(self.file, &name.referenced),
            });
        }
        out
    }

    fn schema(&mut self, p: &RawParam, parse_when: &mut dyn FnMut(&S) -> Option<Condition>) -> Schema {
        self.misplaced_keywords(p);
        let kind = self.kind(p, parse_when);
        self.check_bounds(p);
        let schema = Schema {
            description: p.description.clone(),
            nullable: p.nullable,
            default: p.default.as_ref().map(|d| d.value.clone()),
            kind,
            json: None,
        };
        if let Some(d) = &p.default {
            if !value_matches(&schema, &d.value) {
                self.fail(
                    &d.referenced,
                    format!(
                        "the default {} does not match the parameter's type `{}`",
                        d.value,
                        schema.kind.type_name()
                    ),
                    "give a default of the declared type (and one of the enum values, if any)",
                );
            }
        }
        schema
    }

    /// Keywords that only make sense for some types: reject the rest instead of dropping them.
    fn misplaced_keywords(&mut self, p: &RawParam) {
        let ty = p.ty.value;
        let ty_loc = p.ty.referenced;
        let type_name = ty.name();
        // `at` is the keyword's own location when the raw model keeps it, else the type's.
        let misplaced = |this: &mut Self, at: Option<serde_saphyr::Location>, key: &str, allowed: &[RawType]| {
            if let Some(at) = at.filter(|_| !allowed.contains(&ty)) {
                let at = if at.line() == 0 { ty_loc } else { at };
                let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
                this.fail(
                    &at,
                    format!("`{key}` does not apply to type `{type_name}`"),
                    &format!("`{key}` is allowed on: {}", names.join(", ")),
                );
            }
        };
        use RawType::{Array, Integer, Number, Object, String};
        misplaced(self, p.format.as_ref().map(|v| v.referenced), "format", &[String]);
        misplaced(self, p.pattern.as_ref().map(|v| v.referenced), "pattern", &[String]);
        misplaced(self, p.min_length.as_ref().map(|v| v.referenced), "min_length", &[String]);
        misplaced(self, p.max_length.as_ref().map(|v| v.referenced), "max_length", &[String]);
        misplaced(self, p.minimum.as_ref().map(|v| v.referenced), "minimum", &[Integer, Number]);
        misplaced(self, p.maximum.as_ref().map(|v| v.referenced), "maximum", &[Integer, Number]);
        misplaced(self, p.items.as_ref().map(|_| ty_loc), "items", &[Array]);
        misplaced(self, p.min_items.as_ref().map(|v| v.referenced), "min_items", &[Array]);
        misplaced(self, p.max_items.as_ref().map(|v| v.referenced), "max_items", &[Array]);
        misplaced(self, p.properties.as_ref().map(|_| ty_loc), "properties", &[Object]);
        misplaced(self, p.additional_properties.as_ref().map(|v| v.referenced), "additional_properties", &[Object]);
        misplaced(self, p.required_order.as_ref().map(|v| v.referenced), "required_order", &[Object]);
        misplaced(self, p.enum_values.as_ref().map(|v| v.referenced), "enum", &[String, Integer, Number]);
    }

    /// The type's own keywords, each checked.
    fn kind(&mut self, p: &RawParam, parse_when: &mut dyn FnMut(&S) -> Option<Condition>) -> Kind {
        let ty_loc = p.ty.referenced;
        use RawType::{Array, Boolean, Integer, Number, Object, String};
        // JSON has no NaN or infinity: `.nan` would reach every provider as `null`.
        let finite = |this: &mut Self, b: &Option<serde_saphyr::Spanned<f64>>, key: &str| match b {
            Some(b) if !b.value.is_finite() => {
                this.fail(
                    &b.referenced,
                    format!("`{key}` must be a finite number, found {}", b.value),
                    "JSON schemas cannot express NaN or infinity; give a number or leave the bound out",
                );
                None
            }
            other => other.as_ref().map(|b| b.value),
        };
        let (minimum, maximum) = (finite(self, &p.minimum, "minimum"), finite(self, &p.maximum, "maximum"));
        match p.ty.value {
            String => Kind::String {
                enum_values: self.enum_of(p, |v| v.as_str().map(str::to_string), "strings"),
                format: p.format.as_ref().map(|f| f.value.clone()),
                pattern: p.pattern.as_ref().map(|f| f.value.clone()),
                min_length: p.min_length.as_ref().map(|v| v.value),
                max_length: p.max_length.as_ref().map(|v| v.value),
            },
            Integer => self.integer_kind(p),
            Number => Kind::Number { enum_values: self.enum_of(p, |v| v.as_f64(), "numbers"), minimum, maximum },
            Boolean => Kind::Boolean,
            Array => match &p.items {
                Some(items) => Kind::Array {
                    items: Box::new(self.schema(items, parse_when)),
                    min_items: p.min_items.as_ref().map(|v| v.value),
                    max_items: p.max_items.as_ref().map(|v| v.value),
                },
                None => {
                    self.fail(
                        &ty_loc,
                        "an `array` parameter needs `items`".into(),
                        "add `items: {type: string}` (or the element schema)",
                    );
                    Kind::Array {
                        items: Box::new(Schema {
                            description: None,
                            nullable: false,
                            default: None,
                            kind: Kind::Boolean,
                            json: None,
                        }),
                        min_items: None,
                        max_items: None,
                    }
                }
            },
            Object => {
                let properties = match &p.properties {
                    Some(props) => self.properties(props, false, parse_when),
                    None => Vec::new(),
                };
                let shape = self.shape(p.additional_properties.as_ref(), p.required_order.as_ref(), &properties);
                Kind::Object { properties, shape }
            }
        }
    }

    /// An integer's enum and bounds, each a whole number.
    fn integer_kind(&mut self, p: &RawParam) -> Kind {
        let bound = |this: &mut Self, b: &Option<serde_saphyr::Spanned<f64>>| {
            b.as_ref().filter(|b| b.value.is_finite()).and_then(|b| {
                if b.value.fract() == 0.0 && b.value.abs() < 9.0e15 {
                    Some(b.value as i64)
                } else {
                    this.fail(
                        &b.referenced,
                        format!("bound {} of an integer parameter is not a whole number", b.value),
                        "use a whole number",
                    );
                    None
                }
            })
        };
        Kind::Integer {
            enum_values: self.enum_of(p, |v| v.as_i64(), "whole numbers"),
            minimum: bound(self, &p.minimum),
            maximum: bound(self, &p.maximum),
        }
    }

    /// Lower bounds at most the upper ones.
    fn check_bounds(&mut self, p: &RawParam) {
        for (lo, hi, what) in [
            (
                p.min_length.as_ref().map(|v| v.value as f64),
                p.max_length.as_ref().map(|v| (v.value as f64, v.referenced)),
                "length",
            ),
            (p.minimum.as_ref().map(|v| v.value), p.maximum.as_ref().map(|v| (v.value, v.referenced)), "value"),
            (
                p.min_items.as_ref().map(|v| v.value as f64),
                p.max_items.as_ref().map(|v| (v.value as f64, v.referenced)),
                "item count",
            ),
        ] {
            if let (Some(lo), Some((hi, loc))) = (lo, hi) {
                if lo > hi {
                    self.fail(
                        &loc,
                        format!("the maximum {what} ({hi}) is below the minimum ({lo})"),
                        "swap or fix the bounds",
                    );
                }
            }
        }
    }

    /// An object's shape: `additional_properties` as declared, and a `required_order` that names
    /// every required property of `props` once and nothing else.
    pub fn shape(
        &mut self,
        additional: Option<&serde_saphyr::Spanned<bool>>,
        order: Option<&serde_saphyr::Spanned<Vec<S>>>,
        props: &[Property],
    ) -> ObjectShape {
        let mut required_order = Vec::new();
        if let Some(order) = order {
            let required: Vec<&str> = props.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
            for n in &order.value {
                if !required.contains(&n.value.as_str()) {
                    let what = if props.iter().any(|p| p.name == n.value) { "an optional" } else { "no" };
                    self.fail(
                        &n.referenced,
                        format!("`required_order` names `{}`, {what} property", n.value),
                        &format!(
                            "list exactly the required properties ({}) in the order the `required` list should have",
                            required.join(", ")
                        ),
                    );
                } else if required_order.contains(&n.value) {
                    self.fail(&n.referenced, format!("`required_order` names `{}` twice", n.value), "name it once");
                } else {
                    required_order.push(n.value.clone());
                }
            }
            let missing: Vec<&str> =
                required.iter().copied().filter(|r| !required_order.iter().any(|n| n == r)).collect();
            if !missing.is_empty() && required_order.len() == order.value.len() {
                self.fail(
                    &order.referenced,
                    format!("`required_order` leaves out the required {}", missing.join(", ")),
                    "list every required property, or leave `required_order` out to keep the properties' order",
                );
            }
        }
        ObjectShape {
            additional_properties: additional.map(|a| a.value),
            required_order,
            json: None,
            dialect: Default::default(),
            absent: false,
        }
    }

    fn enum_of<T>(&mut self, p: &RawParam, conv: impl Fn(&Value) -> Option<T>, what: &str) -> Vec<T> {
        let Some(e) = &p.enum_values else { return Vec::new() };
        if e.value.is_empty() {
            self.fail(&e.referenced, "`enum` is empty".into(), "list at least one allowed value, or remove `enum`");
            return Vec::new();
        }
        let mut out = Vec::new();
        for v in &e.value {
            match conv(v) {
                Some(x) => out.push(x),
                None => {
                    self.fail(
                        &e.referenced,
                        format!("enum value {v} is not one of the {what} the type `{}` needs", p.ty.value.name()),
                        "make every enum value match the parameter type",
                    );
                    return Vec::new();
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "params_tests.rs"]
mod tests;
