//! `switches:` and `variables:`: the runtime capabilities and template values.

use indexmap::IndexMap;

use crate::code::RuleCode;
use crate::diagnostic::{Diagnostic, Span};
use crate::format::entries::RawSwitch;
use crate::model::{Choice, Merge, Switch, Variable, BUILTIN_NAMES, SUBAGENT_SWITCH};

use super::checker::{is_ident, Checker};
use super::loader::Loader;

impl Loader<'_> {
    /// `switches:`, and the switch promptc sets while it renders a sub-agent's prompt.
    pub(super) fn switches(&mut self) -> IndexMap<String, Switch> {
        let raw = self.raw;
        let mut ck = self.ck();
        let mut switches = IndexMap::new();
        for (name, s) in &raw.switches {
            if !is_ident(&name.value, &['-']) {
                ck.error(
                    &name.referenced,
                    format!("invalid switch name `{}`", name.value),
                    "switch names start with a letter and contain letters, digits, `_` or `-`",
                );
            }
            let (default, choice) = switch_default(&mut ck, &name.value, s);
            switches.insert(
                name.value.clone(),
                Switch { description: s.description.clone(), default, span: ck.span(&name.referenced), choice },
            );
        }
        switches.entry(SUBAGENT_SWITCH.to_string()).or_insert(Switch {
            description: "Set by promptc while it renders a sub-agent's prompt.".into(),
            default: false,
            span: Span { file: self.manifest.rel.clone(), start: 0, end: 0 },
            choice: None,
        });
        switches
    }

    /// `variables:`.
    pub(super) fn variables(&mut self) -> IndexMap<String, Variable> {
        let raw = self.raw;
        // `default: null` is None in Jinja2 mode, the empty string otherwise (as it always was).
        let null_is_none = self.templates.jinja2();
        let mut ck = self.ck();
        let mut variables = IndexMap::new();
        for (name, v) in &raw.variables {
            if !is_ident(&name.value, &[]) {
                ck.error(
                    &name.referenced,
                    format!("invalid variable name `{}`", name.value),
                    "variable names are template identifiers: a letter or `_`, then letters, digits or `_`",
                );
            } else if BUILTIN_NAMES.contains(&name.value.as_str()) {
                ck.error(
                    &name.referenced,
                    format!("variable `{}` would hide the built-in template value of the same name", name.value),
                    format!("rename the variable; built-ins are: {}", BUILTIN_NAMES.join(", ")),
                );
            }
            let untrusted = v.untrusted.as_ref().and_then(|t| ck.tag(t));
            let default = match &v.default {
                Some(serde_json::Value::Null) if null_is_none => serde_json::Value::Null,
                Some(d) if !d.is_null() => d.clone(),
                _ => serde_json::Value::String(String::new()),
            };
            let merge = match v.merge.as_ref() {
                None => Merge::Replace,
                Some(m) => match m.value.as_str() {
                    "replace" => Merge::Replace,
                    "keys" | "deep" if !default.is_object() => {
                        ck.error(
                            &m.referenced,
                            format!("variable `{}` merges `{}` but its default is not a map", name.value, m.value),
                            "give it a map default, one key per value it may hold (`default: {working_dir: /workspace}`), \
                             or leave `merge:` out to replace the value whole",
                        );
                        Merge::Replace
                    }
                    "keys" => Merge::Keys,
                    "deep" => Merge::Deep,
                    other => {
                        ck.error(
                            &m.referenced,
                            format!("unknown merge rule `{other}` for variable `{}`", name.value),
                            format!("one of: {}", Merge::NAMES.join(", ")),
                        );
                        Merge::Replace
                    }
                },
            };
            variables.insert(
                name.value.clone(),
                Variable {
                    description: v.description.clone(),
                    default,
                    dynamic: v.dynamic,
                    untrusted,
                    merge,
                    span: ck.span(&name.referenced),
                },
            );
        }
        variables
    }
}

/// A switch's default: a boolean, or for a string-valued switch (`values:`) one of its values.
fn switch_default(ck: &mut Checker<'_>, name: &str, s: &RawSwitch) -> (bool, Option<Choice>) {
    let Some(values) = &s.values else {
        return match &s.default {
            None => (false, None),
            Some(d) => match d.value.as_bool() {
                Some(b) => (b, None),
                None => {
                    ck.error(
                        &d.referenced,
                        format!("the default of switch `{name}` is {}, not true or false", d.value),
                        "an on/off switch defaults to true or false; give `values:` for a switch that takes one of \
                         several strings",
                    );
                    (false, None)
                }
            },
        };
    };
    let list: Vec<String> = values.value.iter().map(|v| v.value.clone()).collect();
    if list.is_empty() {
        ck.error(
            &values.referenced,
            format!("switch `{name}` has an empty `values:` list"),
            "list the values it may take",
        );
        return (false, None);
    }
    for (i, v) in values.value.iter().enumerate() {
        if list[..i].contains(&v.value) {
            ck.error(&v.referenced, format!("switch `{name}` lists `{}` twice", v.value), "list each value once");
        }
        if let Some(c) = shell_unsafe_char(&v.value) {
            // Shown escaped: the value itself may hold what a terminal acts on.
            let mut d = Diagnostic::warning(format!(
                "value {:?} of switch `{name}` holds {c:?}, which a shell acts on or which cannot be typed",
                v.value
            ))
            .with_label(ck.label(&v.referenced))
            .with_help(
                "switch values are typed as `--set NAME=VALUE` and offered by shell completion: use letters, \
                 digits and `_-.,/:=@%+`",
            );
            d.code = Some(RuleCode::P012);
            ck.diags.push(d);
        }
    }
    let default = match &s.default {
        None => list[0].clone(),
        Some(d) => match d.value.as_str().filter(|v| list.iter().any(|x| x == v)) {
            Some(v) => v.to_string(),
            None => {
                ck.error(
                    &d.referenced,
                    format!("the default {} of switch `{name}` is not one of its values", d.value),
                    format!("use one of: {}", list.join(", ")),
                );
                list[0].clone()
            }
        },
    };
    (false, Some(Choice { values: list, default }))
}

/// P012: the first character of `value` a shell would act on, or that cannot be typed: a control
/// character, line or paragraph separator, bidirectional override, whitespace, or one of
/// `` $`\"'!#&;|<>(){}[]*?~ ``.
fn shell_unsafe_char(value: &str) -> Option<char> {
    value.chars().find(|&c| {
        crate::diagnostic::is_line_break_or_control(c)
            || c.is_whitespace()
            || matches!(
                c,
                '$' | '`'
                    | '\\'
                    | '"'
                    | '\''
                    | '!'
                    | '#'
                    | '&'
                    | ';'
                    | '|'
                    | '<'
                    | '>'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | '*'
                    | '?'
                    | '~'
            )
    })
}
