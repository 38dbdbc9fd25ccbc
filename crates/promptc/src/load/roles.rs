//! The roles profiles play: the default, the profile the selection policy picks for small
//! models, and the subset pairs `check` compares. Each is declared (`defaults.profile`,
//! `selection.profile`, `check.subsets`); no profile name means anything by itself.
//!
//! promptc once inferred the roles from the names `standard` and `lite`. A project written for
//! that — a profile so named and the role left undeclared — would now quietly get another
//! default, another selection or no subset check, so it gets a warning at the profile's name
//! saying what to declare.

use crate::diagnostic::Diagnostic;
use indexmap::IndexMap;

use crate::format::manifest::RawManifest;
use crate::format::S;

use super::checker::Checker;
use super::loader::Loader;

/// The name promptc once took for the default profile.
const OLD_DEFAULT: &str = "standard";
/// The name promptc once took for the profile small models get, and for the subset of
/// [`OLD_DEFAULT`].
const OLD_COMPACT: &str = "lite";

impl Loader<'_> {
    /// `defaults.profile`, else the first profile declared.
    pub(super) fn default_profile(&mut self) -> String {
        let (raw, names) = (self.raw, self.profile_names.clone());
        let mut ck = self.ck();
        if let Some(p) = &raw.defaults.profile {
            ck.refs(std::slice::from_ref(p), &names, "profile", "defaults.profile");
            return p.value.clone();
        }
        let first = names.first().map(|s| s.to_string()).unwrap_or_default();
        if first != OLD_DEFAULT {
            old_name(
                &mut ck,
                raw,
                OLD_DEFAULT,
                format!("the default profile is the first one declared, `{first}`, not `{OLD_DEFAULT}`"),
                format!("to keep `{OLD_DEFAULT}` the default, add `defaults: {{profile: {OLD_DEFAULT}}}`"),
            );
        }
        first
    }

    /// `selection.profile`: the profile the policy's rules pick; without it they pick the
    /// default, so every model gets the same profile.
    pub(super) fn selection_profile(&mut self, default_profile: &str) -> String {
        let (raw, names) = (self.raw, self.profile_names.clone());
        let mut ck = self.ck();
        if let Some(p) = &raw.selection.profile {
            ck.refs(std::slice::from_ref(p), &names, "profile", "selection.profile");
            return p.value.clone();
        }
        if default_profile != OLD_COMPACT {
            old_name(
                &mut ck,
                raw,
                OLD_COMPACT,
                format!(
                    "no `selection.profile` is declared, so small models get the default profile \
                     `{default_profile}`, not `{OLD_COMPACT}`"
                ),
                format!(
                    "to give small models `{OLD_COMPACT}`, add `selection: {{profile: {OLD_COMPACT}}}`; to keep \
                     `{default_profile}` for every model, write `selection: {{profile: {default_profile}}}`"
                ),
            );
        }
        default_profile.to_string()
    }

    /// `check.subsets`: the pairs of profiles where the first must stay a subset of the second.
    pub(super) fn subsets(&mut self) -> Vec<(String, String)> {
        let (raw, names) = (self.raw, self.profile_names.clone());
        let mut ck = self.ck();
        match &raw.check.subsets {
            Some(pairs) => declared_subsets(&mut ck, pairs, &names),
            None => {
                if names.contains(&OLD_DEFAULT) {
                    old_name(
                        &mut ck,
                        raw,
                        OLD_COMPACT,
                        format!(
                            "`{OLD_COMPACT}` is not checked as a subset of `{OLD_DEFAULT}`: no `check.subsets` \
                             is declared"
                        ),
                        format!(
                            "to keep P005 comparing them, add `check: {{subsets: {{{OLD_COMPACT}: {OLD_DEFAULT}}}}}`; \
                             `subsets: {{}}` says there are none"
                        ),
                    );
                }
                Vec::new()
            }
        }
    }
}

/// The declared pairs whose profiles both exist.
fn declared_subsets(ck: &mut Checker<'_>, pairs: &IndexMap<S, S>, names: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (small, big) in pairs {
        let ok_small = ck.refs(std::slice::from_ref(small), names, "profile", "check.subsets");
        let ok_big = ck.refs(std::slice::from_ref(big), names, "profile", "check.subsets");
        if !ok_small.is_empty() && !ok_big.is_empty() {
            out.push((small.value.clone(), big.value.clone()));
        }
    }
    out
}

/// A warning at the profile called `name`, if there is one: the project relies on a role that
/// name once had.
fn old_name(ck: &mut Checker<'_>, raw: &RawManifest, name: &str, msg: String, help: String) {
    let Some(key) = raw.profiles.keys().find(|k| k.value == name) else { return };
    let d = Diagnostic::warning(msg)
        .with_label(ck.label(&key.referenced))
        .with_note(format!("a profile's name gives it no role: `{name}` is a name like any other"))
        .with_help(help);
    ck.diags.push(d);
}
