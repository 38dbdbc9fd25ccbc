//! `cases:`: named switch and variable values that extend the snapshot matrix.

use std::collections::BTreeMap;

use indexmap::IndexMap;

use crate::diagnostic::known_names_help;
use crate::format::entries::RawCase;
use crate::format::S;
use crate::model::{Case, Switch, SwitchValue, Variable, RESERVED_PROFILE_NAMES};

use super::checker::{is_ident, Checker};
use super::loader::Loader;

impl Loader<'_> {
    /// Every case, its values checked against the switches and variables.
    pub(super) fn cases(
        &mut self,
        switches: &IndexMap<String, Switch>,
        variables: &IndexMap<String, Variable>,
    ) -> IndexMap<String, Case> {
        let (raw, profiles) = (self.raw, self.profile_names.clone());
        let mut ck = self.ck();
        let mut out = IndexMap::new();
        for (name, c) in &raw.cases {
            check_case_name(&mut ck, name, &profiles);
            let case = Case {
                description: c.description.clone(),
                switches: BTreeMap::new(),
                choices: BTreeMap::new(),
                variables: IndexMap::new(),
                span: ck.span(&name.referenced),
            };
            out.insert(name.value.clone(), case_values(&mut ck, &name.value, c, case, switches, variables));
        }
        out
    }
}

fn check_case_name(ck: &mut Checker<'_>, name: &S, profiles: &[&str]) {
    if !is_ident(&name.value, &['-']) || name.value.chars().any(|ch| ch.is_ascii_uppercase()) {
        ck.error(
            &name.referenced,
            format!("invalid case name `{}`", name.value),
            "case names are lower-case: a letter, then letters, digits, `_` or `-`",
        );
    } else if profiles.contains(&name.value.as_str()) || RESERVED_PROFILE_NAMES.contains(&name.value.as_str()) {
        ck.error(
            &name.referenced,
            format!("case name `{}` is also a profile, transport or provider name", name.value),
            "snapshot file names put the case beside those names; pick a distinct name",
        );
    }
}

/// A case's switch and variable values, each a declared name with a value it may take.
fn case_values(
    ck: &mut Checker<'_>,
    name: &str,
    c: &RawCase,
    mut case: Case,
    switches: &IndexMap<String, Switch>,
    variables: &IndexMap<String, Variable>,
) -> Case {
    let switch_names: Vec<&str> = switches.keys().map(String::as_str).collect();
    let var_names: Vec<&str> = variables.keys().map(String::as_str).collect();
    for (k, v) in &c.switches {
        if let Some(s) = switches.get(&k.value) {
            match s.value_of(&v.value) {
                Ok(SwitchValue::On(b)) => _ = case.switches.insert(k.value.clone(), b),
                Ok(SwitchValue::Is(x)) => _ = case.choices.insert(k.value.clone(), x),
                Err(help) => ck.error(
                    &v.referenced,
                    format!("invalid value {} for switch `{}` in case `{}`", v.value, k.value, name),
                    &help,
                ),
            }
        } else {
            ck.error(
                &k.referenced,
                format!("unknown switch `{}` in case `{}`", k.value, name),
                known_names_help("switch", &k.value, &switch_names),
            );
        }
    }
    for (k, v) in &c.variables {
        if let Some(var) = variables.get(&k.value) {
            // A merging variable's case value is merged into its default here, once.
            match var.merge.apply(&var.default, v) {
                Ok(value) => _ = case.variables.insert(k.value.clone(), value),
                Err(why) => ck.error(
                    &k.referenced,
                    format!("invalid value for variable `{}` in case `{}`: {why}", k.value, name),
                    "give a map of the keys to change; the others keep their default",
                ),
            }
        } else {
            ck.error(
                &k.referenced,
                format!("unknown variable `{}` in case `{}`", k.value, name),
                known_names_help("variable", &k.value, &var_names),
            );
        }
    }
    case
}
