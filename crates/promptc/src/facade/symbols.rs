//! The project's declarations as data, for editors: what each name is, where it is declared,
//! what it says, and where its text lives — from the spans the model carries, never by
//! searching the files again. `promptc lsp` answers hover, go to definition and completion
//! from this list.

use crate::model::section::SectionSource;
use crate::model::Project;

/// What kind of thing a [`Symbol`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SymbolKind {
    /// A tool of the catalog (declared by `name:` in a tool file).
    Tool,
    /// A section (a key under `sections:`).
    Section,
    /// A switch (a key under `switches:`).
    Switch,
    /// A template variable (a key under `variables:`).
    Variable,
    /// A profile (a key under `profiles:`).
    Profile,
    /// A case of the matrix (a key under `cases:`).
    Case,
    /// A slot tools contribute to (a key under `slots:`).
    Slot,
}

impl SymbolKind {
    /// The kind as the project's files and messages name it (`tool`, `section`, …).
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Tool => "tool",
            SymbolKind::Section => "section",
            SymbolKind::Switch => "switch",
            SymbolKind::Variable => "variable",
            SymbolKind::Profile => "profile",
            SymbolKind::Case => "case",
            SymbolKind::Slot => "slot",
        }
    }
}

/// One declaration of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Symbol {
    /// What it is.
    pub kind: SymbolKind,
    /// Its name (a tool's name, a section's id, …).
    pub name: String,
    /// The file declaring it, relative to the project folder (`/`-separated).
    pub file: String,
    /// The declaration's first byte in that file (a tool's `name:` value, a key's name).
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// What its description says (empty when it has none).
    pub description: String,
    /// The project file holding its text, when that is another file: a section's template.
    pub text_file: Option<String>,
    /// A fact about it beside its description: a switch's or variable's default, a section's
    /// source (`template sections/role.md.j2`, `generated tool_docs`), a tool's toolset.
    pub detail: String,
    /// The cases that give a switch or variable a value of their own, in case order.
    pub set_by: Vec<String>,
}

/// Every declaration of the project with a place in its files, in a stable order: tools in
/// catalog order, then sections, switches, variables, profiles, cases and slots in declaration
/// order. Declarations promptc adds itself (the `subagent_run` switch) have no place and are
/// left out.
pub fn symbols(project: &Project) -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut push = |kind, name: &str, span: &crate::diagnostic::Span, description: &str, detail: String| {
        if span.end > span.start {
            out.push(Symbol {
                kind,
                name: name.to_string(),
                file: span.file.clone(),
                start: span.start,
                end: span.end,
                description: description.to_string(),
                text_file: None,
                detail,
                set_by: Vec::new(),
            });
        }
    };
    for t in project.catalog.tools() {
        push(SymbolKind::Tool, &t.name, &t.name_span, &t.description, format!("toolset {}", t.toolset));
    }
    for (id, s) in &project.sections {
        let detail = match &s.source {
            SectionSource::Template(_) => format!("template {}", s.origin),
            SectionSource::Generated(_) => format!("generated {}", s.origin.trim_start_matches("generated:")),
            SectionSource::Slot(slot) => format!("the contributions to slot {slot}"),
        };
        push(SymbolKind::Section, id, &s.span, &s.description, detail);
    }
    for (name, s) in &project.switches {
        let default = s.choice.as_ref().map_or_else(|| s.default.to_string(), |c| format!("{:?}", c.default));
        push(SymbolKind::Switch, name, &s.span, &s.description, format!("default {default}"));
    }
    for (name, v) in &project.variables {
        let dynamic = if v.dynamic { ", dynamic (changes between sessions)" } else { "" };
        push(SymbolKind::Variable, name, &v.span, &v.description, format!("default {}{dynamic}", v.default));
    }
    for (name, p) in &project.profiles {
        push(SymbolKind::Profile, name, &p.span, &p.description, format!("{} sections", p.sections.len()));
    }
    for (name, c) in &project.cases {
        push(SymbolKind::Case, name, &c.span, &c.description, String::new());
    }
    for (name, s) in &project.slots {
        push(SymbolKind::Slot, name, &s.span, &s.description, String::new());
    }
    for sym in &mut out {
        sym.text_file = text_file(project, sym);
        sym.set_by = set_by(project, sym);
    }
    out
}

/// The file holding a section's text (an inline text's template name is
/// `promptc.yaml#sections.ID`, not a file).
fn text_file(project: &Project, sym: &Symbol) -> Option<String> {
    match (sym.kind, project.sections.get(&sym.name).map(|s| &s.source)) {
        (SymbolKind::Section, Some(SectionSource::Template(name))) if project.files.contains_key(name) => {
            Some(name.clone())
        }
        _ => None,
    }
}

/// The cases giving a switch or variable a value.
fn set_by(project: &Project, sym: &Symbol) -> Vec<String> {
    let sets = |c: &crate::model::profile::Case| match sym.kind {
        SymbolKind::Switch => c.switches.contains_key(&sym.name) || c.choices.contains_key(&sym.name),
        SymbolKind::Variable => c.variables.contains_key(&sym.name),
        _ => false,
    };
    project.cases.iter().filter(|(_, c)| sets(c)).map(|(n, _)| n.clone()).collect()
}

impl Project {
    /// Every file read while loading (the manifest, tool files, templates and the files they
    /// include), by project-relative path, in path order.
    pub fn file_paths(&self) -> Vec<&str> {
        self.files.keys().map(String::as_str).collect()
    }

    /// The text of a file read while loading, by project-relative path (as read: an overlay's
    /// text where it held one).
    pub fn file_text(&self, rel: &str) -> Option<&str> {
        self.files.get(rel).map(|f| f.text.as_str())
    }

    /// The manifest's path relative to the project folder (`promptc.yaml`).
    pub fn manifest_path(&self) -> &str {
        &self.manifest
    }
}
