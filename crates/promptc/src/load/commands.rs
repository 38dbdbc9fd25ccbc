//! `commands:`: slash commands, their text and per-profile variants.

use indexmap::IndexMap;
use serde_saphyr::Location;

use crate::diagnostic::known_names_help;
use crate::format::entries::RawCommand;
use crate::format::S;
use crate::model::Command;

use super::checker::{is_ident, Checker};
use super::loader::Loader;
use super::templates::{add_file, add_inline};

impl Loader<'_> {
    /// Every command; a command may not share a tool's name.
    pub(super) fn commands(&mut self, tools: &[String]) -> IndexMap<String, Command> {
        let raw = self.raw;
        let mut out = IndexMap::new();
        for (name, c) in &raw.commands {
            if !command_name(&mut self.ck(), name, tools) {
                continue;
            }
            let Some(template) = self.command_text(&name.value, &c.template, &c.text, "", &name.referenced) else {
                continue;
            };
            let variants = self.command_variants(&name.value, c);
            out.insert(
                name.value.clone(),
                Command { name: name.value.clone(), description: c.description.clone(), template, variants },
            );
        }
        out
    }

    /// A command's per-profile texts, each for a declared profile.
    fn command_variants(&mut self, name: &str, c: &RawCommand) -> IndexMap<String, String> {
        let mut variants = IndexMap::new();
        for (profile, v) in &c.variants {
            if !self.profile_names.contains(&profile.value.as_str()) {
                let help = known_names_help("profile", &profile.value, &self.profile_names);
                self.ck().error(
                    &profile.referenced,
                    format!("variant of command `{name}` for unknown profile `{}`", profile.value),
                    help,
                );
                continue;
            }
            let what = format!(".{}", profile.value);
            if let Some(t) = self.command_text(name, &v.template, &v.text, &what, &profile.referenced) {
                variants.insert(profile.value.clone(), t);
            }
        }
        variants
    }

    /// A command's text: exactly one of a template file or inline text.
    fn command_text(
        &mut self,
        name: &str,
        template: &Option<S>,
        text: &Option<String>,
        what: &str,
        anchor: &Location,
    ) -> Option<String> {
        let mut ck = Checker::new(self.manifest, &mut self.diags);
        match (template, text) {
            (Some(path), None) => add_file(&mut ck, &self.fs, &mut self.templates, &mut self.files, path),
            (None, Some(t)) => {
                let tname = format!("{}#commands.{name}{what}", ck.file.rel);
                add_inline(&mut ck, &mut self.templates, &tname, t, anchor, "text", false).then_some(tname)
            }
            _ => {
                ck.error(
                    anchor,
                    format!("command `{name}` needs exactly one of `template` or `text`"),
                    "give the instruction text as `template: FILE` or inline `text: |`",
                );
                None
            }
        }
    }
}

/// A command's name: an identifier, and not a tool's.
fn command_name(ck: &mut Checker<'_>, name: &S, tools: &[String]) -> bool {
    if !is_ident(&name.value, &['-']) {
        ck.error(
            &name.referenced,
            format!("invalid command name `{}`", name.value),
            "command names start with a letter and contain letters, digits, `_` or `-`",
        );
        return false;
    }
    if tools.contains(&name.value) {
        ck.error(
            &name.referenced,
            format!("command `{}` has the same name as a tool", name.value),
            "slash commands are instructions injected on request, never callable tools; rename the command or the \
                tool",
        );
        return false;
    }
    true
}
