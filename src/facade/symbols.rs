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
}

/// Every declaration of the project with a place in its files, in a stable order: tools in
/// catalog order, then sections, switches, variables, profiles, cases and slots in declaration
/// order. Declarations promptc adds itself (the `subagent_run` switch) have no place and are
/// left out.
pub fn symbols(project: &Project) -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut push = |kind, name: &str, span: &crate::diagnostic::Span, description: &str, text_file| {
        if span.end > span.start {
            out.push(Symbol {
                kind,
                name: name.to_string(),
                file: span.file.clone(),
                start: span.start,
                end: span.end,
                description: description.to_string(),
                text_file,
            });
        }
    };
    for t in project.catalog.tools() {
        push(SymbolKind::Tool, &t.name, &t.name_span, &t.description, None);
    }
    for (id, s) in &project.sections {
        // An inline text's template name is `promptc.yaml#sections.ID`, not a file.
        let file = match &s.source {
            SectionSource::Template(name) if project.files.contains_key(name) => Some(name.clone()),
            _ => None,
        };
        push(SymbolKind::Section, id, &s.span, &s.description, file);
    }
    for (name, s) in &project.switches {
        push(SymbolKind::Switch, name, &s.span, &s.description, None);
    }
    for (name, v) in &project.variables {
        push(SymbolKind::Variable, name, &v.span, &v.description, None);
    }
    for (name, p) in &project.profiles {
        push(SymbolKind::Profile, name, &p.span, &p.description, None);
    }
    for (name, c) in &project.cases {
        push(SymbolKind::Case, name, &c.span, &c.description, None);
    }
    for (name, s) in &project.slots {
        push(SymbolKind::Slot, name, &s.span, &s.description, None);
    }
    out
}

impl Project {
    /// Every file read while loading (the manifest, tool files, templates and the files they
    /// include), by project-relative path, in path order.
    pub fn file_paths(&self) -> Vec<&str> {
        self.files.keys().map(String::as_str).collect()
    }

    /// The manifest's path relative to the project folder (`promptc.yaml`).
    pub fn manifest_path(&self) -> &str {
        &self.manifest
    }
}
