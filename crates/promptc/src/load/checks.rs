//! `check:`: lint levels and per-profile levels (the subset pairs are in `roles`).

use crate::code::{Level, RuleCode};
use crate::diagnostic::known_names_help;
use crate::format::manifest::RawCheck;
use crate::format::S;
use crate::model::LintSettings;

use super::checker::Checker;
use super::loader::Loader;

impl Loader<'_> {
    /// The lint settings.
    pub(super) fn lint(&mut self) -> LintSettings {
        let (raw, profiles) = (self.raw, self.profile_names.clone());
        let mut ck = self.ck();
        let mut out = LintSettings::default();
        for (code, level) in &raw.check.levels {
            out.levels.extend(rule_level(&mut ck, code, level));
        }
        profile_levels(&mut ck, &raw.check, &profiles, &mut out);
        out.subsets = self.subsets();
        out
    }
}

/// A rule code and its level, both known.
fn rule_level(ck: &mut Checker<'_>, code: &S, level: &S) -> Option<(RuleCode, Level)> {
    let Some(rule) = RuleCode::parse(&code.value) else {
        let codes: Vec<&str> = RuleCode::ALL.iter().map(|c| c.as_str()).collect();
        ck.error(
            &code.referenced,
            format!("unknown lint rule `{}`", code.value),
            known_names_help("rule", &code.value, &codes),
        );
        return None;
    };
    match Level::parse(&level.value) {
        Some(l) => Some((rule, l)),
        None => {
            ck.error(
                &level.referenced,
                format!("invalid level `{}` for rule {}", level.value, code.value),
                "levels are allow, warn or deny",
            );
            None
        }
    }
}

/// `check.profile_levels`: levels of the rules that judge one cell, for one profile's cells.
fn profile_levels(ck: &mut Checker<'_>, raw: &RawCheck, profiles: &[&str], out: &mut LintSettings) {
    for (profile, levels) in &raw.profile_levels {
        if ck.refs(std::slice::from_ref(profile), profiles, "profile", "check.profile_levels").is_empty() {
            continue;
        }
        for (code, level) in levels {
            let Some((rule, l)) = rule_level(ck, code, level) else { continue };
            if !rule.per_cell() {
                ck.error(
                    &code.referenced,
                    format!("{} cannot be set for one profile: it judges the project as a whole", code.value),
                    "set it under `check.levels` instead; per profile: P001, P002, P003, P004, P006, P008",
                );
                continue;
            }
            out.profile_levels.push((profile.value.clone(), rule, l));
        }
    }
}
