//! A `templated: true` tool's texts compiled as templates, each located in its tool file: the
//! description, its parts, the `parameters:` descriptions (nested ones too) and the wordings
//! overrides and variants give them.

use std::collections::BTreeMap;

use crate::format::tool::{RawParam, RawParamOverride, RawTool};
use crate::format::S;
use crate::model::catalog::TextTemplates;
use promptc_template::Templates;

use super::checker::Checker;
use super::templates::add_inline;

/// One text to compile: its words, where it is written (an anchor and its key), and a name
/// for messages.
struct Text<'r> {
    text: &'r str,
    anchor: &'r serde_saphyr::Location,
    key: &'static str,
    anchor_is_value: bool,
    what: String,
}

/// Compile each text of `rt` (when it is templated) under a name of its own; `None` when one
/// fails to compile (reported at its place).
pub(super) fn text_templates(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    templates: &mut Templates,
    trim: bool,
) -> Option<TextTemplates> {
    if !rt.templated {
        return Some(TextTemplates::default());
    }
    let tool = &rt.name.value;
    let mut texts = vec![Text {
        text: rt.description.as_ref().map_or("", |d| d.value.as_str()),
        anchor: &rt.description.as_ref().unwrap_or(&rt.name).referenced,
        key: "description",
        anchor_is_value: true,
        what: "description".into(),
    }];
    for (i, part) in rt.description_parts.iter().flat_map(|p| &p.value).enumerate() {
        texts.push(Text {
            text: &part.text.value,
            anchor: &part.text.referenced,
            key: "text",
            anchor_is_value: true,
            what: format!("description_parts[{i}]"),
        });
    }
    params(&rt.parameters, "parameters", &mut texts);
    for (profile, o) in &rt.overrides {
        let at = format!("overrides.{}", profile.value);
        if let Some(d) = &o.description {
            texts.push(Text {
                text: d,
                anchor: &profile.referenced,
                key: "description",
                anchor_is_value: false,
                what: format!("{at}.description"),
            });
        }
        wordings(&o.parameters, &at, &mut texts);
    }
    for (i, v) in rt.variants.iter().enumerate() {
        let at = format!("variants[{i}]");
        if let Some(d) = &v.value.description {
            texts.push(Text {
                text: d,
                anchor: &v.referenced,
                key: "description",
                anchor_is_value: false,
                what: format!("{at}.description"),
            });
        }
        wordings(&v.value.parameters, &at, &mut texts);
    }
    let mut names = BTreeMap::new();
    let mut ok = true;
    for t in texts {
        // `FILE#…`: messages about what the template reads are located in its tool file.
        let name = format!("{}#tools.{tool}.{}", ck.file.rel, t.what);
        if add_inline(ck, templates, &name, t.text, t.anchor, t.key, t.anchor_is_value) {
            // Keyed by the text as the model holds it (trimmed as the loader trims it), the
            // first of equal texts naming the template.
            let key = if trim { t.text.trim_end() } else { t.text };
            names.entry(key.to_string()).or_insert(name);
        } else {
            ok = false;
        }
    }
    ok.then_some(TextTemplates { names, trim })
}

/// The descriptions of `params` and of their nested properties and items, each anchored at its
/// property's key.
fn params<'r>(params: &'r indexmap::IndexMap<S, RawParam>, at: &str, out: &mut Vec<Text<'r>>) {
    for (name, p) in params {
        let at = format!("{at}.{}", name.value);
        param(p, &name.referenced, &at, out);
    }
}

fn param<'r>(p: &'r RawParam, anchor: &'r serde_saphyr::Location, at: &str, out: &mut Vec<Text<'r>>) {
    if let Some(d) = &p.description {
        out.push(Text {
            text: d,
            anchor,
            key: "description",
            anchor_is_value: false,
            what: format!("{at}.description"),
        });
    }
    if let Some(items) = &p.items {
        // An item schema has no key of its own: its `description:` is found after the property's.
        param(items, anchor, &format!("{at}.items"), out);
    }
    if let Some(props) = &p.properties {
        params(props, &format!("{at}.properties"), out);
    }
}

/// The parameter descriptions an override or variant gives.
fn wordings<'r>(raw: &'r indexmap::IndexMap<S, RawParamOverride>, at: &str, out: &mut Vec<Text<'r>>) {
    for (name, w) in raw {
        out.push(Text {
            text: &w.description,
            anchor: &name.referenced,
            key: "description",
            anchor_is_value: false,
            what: format!("{at}.parameters.{}.description", name.value),
        });
    }
}
