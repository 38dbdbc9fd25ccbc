//! `chat_templates:`: open-weight models' chat templates, read from the project and checked
//! (the file, its named template, the date, the profiles and model patterns named).

use indexmap::IndexMap;

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::model::chat::{ChatDate, ChatTemplate, ChatTemplateDecl};
use crate::model::selection::SegmentPattern;

use super::checker::{is_ident, Checker};
use super::loader::Loader;

impl Loader<'_> {
    /// Every chat template the project declares.
    pub(super) fn chat_templates(&mut self) -> IndexMap<String, ChatTemplateDecl> {
        let raw = self.raw;
        let mut out = IndexMap::new();
        for (name, t) in &raw.chat_templates {
            let mut ck = Checker::new(self.manifest, &mut self.diags);
            if !is_ident(&name.value, &['-', '_']) {
                ck.error(
                    &name.referenced,
                    format!("invalid chat template name `{}`", name.value),
                    "use letters, digits, `_` and `-`: the name is part of file names (`standard.chat-NAME.txt`)",
                );
                continue;
            }
            let file = match self.fs.read(&t.file.value, Some(&|| ck.label(&t.file.referenced))) {
                Ok(f) => f,
                Err(e) => {
                    ck.diags.absorb::<()>(Err(e));
                    continue;
                }
            };
            let at = ck.label(&t.file.referenced);
            let mut template = match ChatTemplate::parse(&file.display, &file.text, Some(&at)) {
                Ok(tpl) => tpl,
                Err(e) => {
                    ck.diags.absorb::<()>(Err(e));
                    continue;
                }
            };
            if let Some(n) = &t.name {
                match template.clone().named(&n.value) {
                    Ok(named) => template = named,
                    Err(e) => {
                        for mut d in e.into_diagnostics() {
                            d.label = Some(ck.label(&n.referenced));
                            ck.diags.push(d);
                        }
                        continue;
                    }
                }
            }
            // What minijinja does not do as Jinja2 does, said once at load, where the template is.
            for chosen in template.candidates() {
                for w in crate::model::chat::differences::find(&chosen.display, &chosen.text) {
                    ck.diags.push(w);
                }
            }
            let date = match &t.date {
                None => None,
                Some(d) => match ChatDate::parse(&d.value) {
                    Some(date) => Some(date),
                    None => {
                        ck.error(
                            &d.referenced,
                            format!("invalid date `{}`", d.value),
                            "write the date as YYYY-MM-DD, e.g. 2024-07-26",
                        );
                        continue;
                    }
                },
            };
            if date.is_none() && file.text.contains("strftime_now") {
                ck.diags.push(
                    Diagnostic::warning(format!("chat template `{}` reads today's date and none is set", name.value))
                        .with_label(ck.label(&name.referenced))
                        .with_help("add `date: YYYY-MM-DD`: without it the snapshot of its cells changes every day"),
                );
            }
            let tokenizer = match &t.tokenizer {
                None => None,
                Some(path) => match self.fs.normalize(&path.value) {
                    Ok(rel) => Some((rel, ck.span(&path.referenced))),
                    Err(why) => {
                        ck.error(
                            &path.referenced,
                            format!("invalid path `{}`: {why}", path.value),
                            "project files live inside the folder that holds promptc.yaml",
                        );
                        continue;
                    }
                },
            };
            let mut profiles = Vec::new();
            for p in &t.profiles {
                if self.profile_names.contains(&p.value.as_str()) {
                    profiles.push(p.value.clone());
                } else {
                    let help = known_names_help("profile", &p.value, &self.profile_names);
                    ck.error(
                        &p.referenced,
                        format!("chat template `{}` names unknown profile `{}`", name.value, p.value),
                        help,
                    );
                }
            }
            let mut models = Vec::new();
            for m in &t.models {
                match SegmentPattern::parse(&m.value) {
                    Ok(p) => models.push(p),
                    Err(why) => {
                        ck.error(&m.referenced, why, "a pattern matches one segment of a model id, e.g. `qwen2.5-*`")
                    }
                }
            }
            let span = ck.entry_span(&name.referenced, &name.value);
            self.files.insert(file.rel.clone(), file);
            out.insert(
                name.value.clone(),
                ChatTemplateDecl {
                    name: name.value.clone(),
                    template,
                    variables: t.variables.clone(),
                    date,
                    tokenizer,
                    profiles,
                    models,
                    span,
                },
            );
        }
        out
    }
}
