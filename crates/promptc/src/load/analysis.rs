//! What templates read: every name a template reads must be defined by the context it is
//! rendered with; dynamic inputs make a section (or a tool or command text) dynamic; untrusted
//! values stay inside their wrappers. What a template reads includes what the files it
//! includes or imports read.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::diagnostic::{known_names_help, Diagnostic, Label};
use crate::model::catalog::{Catalog, ContributionBody};
use crate::model::section::{Generator, Section, SectionSource};
use crate::model::settings::ToolDocFormat;
use crate::model::{switch_is_name, Command, Switch, Variable, BUILTIN_NAMES, LAYOUT_NAMES, NONCE_NAME};

use super::loader::Loader;
use super::undeclared::{check_undeclared, check_undeclared_in_files, templates_origin_file};

/// The manifest's own templates: `analyze` reads them and marks sections dynamic.
pub(super) struct Templates<'s> {
    pub(super) sections: &'s mut IndexMap<String, Section>,
    pub(super) layout: &'s Option<String>,
    pub(super) tool_docs: &'s ToolDocFormat,
}

/// What the analysis found.
pub(super) struct Reads {
    /// Templates of tools and commands that read a dynamic variable.
    pub(super) dynamic_templates: BTreeSet<String>,
    /// The variables each template reads (through includes too): what a cell's metadata hashes.
    pub(super) template_reads: BTreeMap<String, BTreeSet<String>>,
    /// The dynamic inputs the layout reads: its own text changes between sessions.
    pub(super) layout_dynamic: Vec<String>,
}

/// The note that replaces the tool-reference checks when a tool file did not load: its tools are
/// unknown, so every reference to them would be a false "no tool file declares" error (and a false
/// CI annotation on a file nobody touched).
fn skipped_tool_ref_checks(names: usize) -> Diagnostic {
    let what = if names == 1 {
        "the tool name templates test for was".to_string()
    } else {
        format!("the {names} tool names templates test for were")
    };
    Diagnostic::note(format!("{what} not checked: a tool file did not load"))
        .with_help("fix the tool file's error; the check runs again once every tool file loads")
}

/// What every template may read, and what they read so far.
struct Scope<'v> {
    known: BTreeSet<String>,
    globals: BTreeSet<String>,
    dynamic_vars: BTreeSet<&'v String>,
    variables: &'v IndexMap<String, Variable>,
    reads: Reads,
    /// Names reported in an included file, so that each is reported once.
    reported: BTreeSet<(String, String)>,
}

impl Scope<'_> {
    /// The dynamic inputs among the names a template reads: dynamic variables, and the nonce
    /// (random every session; no variable may take its name).
    fn dynamic_of(&self, used: &BTreeSet<String>) -> Vec<String> {
        used.iter().filter(|u| self.dynamic_vars.contains(u) || u.as_str() == NONCE_NAME).cloned().collect()
    }
}

impl Loader<'_> {
    /// Check what every template reads, and record it.
    pub(super) fn analyze(
        &mut self,
        mut t: Templates<'_>,
        switches: &IndexMap<String, Switch>,
        variables: &IndexMap<String, Variable>,
        catalog: &Catalog,
        catalog_complete: bool,
        commands: &IndexMap<String, Command>,
    ) -> Reads {
        self.templates.analyze();
        self.templates.declare_switches(switches.keys());
        let mut known: BTreeSet<String> = variables.keys().cloned().collect();
        known.extend(BUILTIN_NAMES.iter().filter(|n| !LAYOUT_NAMES.contains(n)).map(|s| s.to_string()));
        let globals = self.templates.global_names();
        known.extend(
            switches.keys().filter(|k| switch_is_name(k, variables.contains_key(k.as_str()), &globals)).cloned(),
        );
        self.optional_names(&mut known);
        let dynamic_vars = variables.iter().filter(|(_, v)| v.dynamic).map(|(k, _)| k).collect();
        let reads =
            Reads { dynamic_templates: BTreeSet::new(), template_reads: BTreeMap::new(), layout_dynamic: Vec::new() };
        let mut scope = Scope { known, globals, dynamic_vars, variables, reads, reported: BTreeSet::new() };
        for section in t.sections.values_mut() {
            if let SectionSource::Template(name) = &section.source {
                let used = self.check_template(&mut scope, name, &[]);
                section.dynamic_inputs = scope.dynamic_of(&used);
            }
        }
        for name in tool_and_command_templates(catalog, commands).collect::<BTreeSet<_>>() {
            let used = self.check_template(&mut scope, &name, &[]);
            if !scope.dynamic_of(&used).is_empty() {
                scope.reads.dynamic_templates.insert(name);
            }
        }
        // A templated tool's texts see the cell's values, not the tools: they are what the
        // tools are made of.
        let all_known = scope.known.clone();
        for n in ["tools", "tool_names", "toolsets"] {
            scope.known.remove(n);
        }
        for name in tool_text_templates(catalog).collect::<BTreeSet<_>>() {
            let used = self.check_template(&mut scope, &name, &[]);
            if !scope.dynamic_of(&used).is_empty() {
                scope.reads.dynamic_templates.insert(name);
            }
        }
        scope.known = all_known;
        self.check_tool_docs(&mut scope, &mut t);
        if let Some(name) = t.layout {
            let used = self.check_template(&mut scope, name, &["sections", "body"]);
            scope.reads.layout_dynamic = scope.dynamic_of(&used);
        }
        self.check_untrusted(variables, &t, catalog, commands);
        if catalog_complete {
            self.check_tool_refs(catalog);
        } else {
            let skipped: BTreeSet<&str> =
                self.templates.reach_by_name().flat_map(|(_, r)| r.tool_refs.iter().map(|t| t.name.as_str())).collect();
            if !skipped.is_empty() {
                self.diags.push(skipped_tool_ref_checks(skipped.len()));
            }
        }
        scope.reads
    }

    /// Every tool name a template tests for (`"read_file" in tool_names`, `tools|selectattr(
    /// "name", "equalto", …)`) must be one the catalog declares, or a name a variant gives a
    /// tool: a misspelt one is false in every cell, and the text it guards silently vanishes.
    fn check_tool_refs(&mut self, catalog: &Catalog) {
        let mut known: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
        known.extend(catalog.tools().iter().flat_map(|t| &t.variants).filter_map(|v| v.name.as_deref()));
        let mut seen = BTreeSet::new();
        for (name, reach) in self.templates.reach_by_name() {
            for r in reach.tool_refs.iter().filter(|r| !known.contains(&r.name.as_str())) {
                let (file, label) = match &r.file {
                    Some(rel) => (rel.clone(), reach.files.get(rel).map(|f| f.label_bytes(r.start, r.end))),
                    None => (name.to_string(), self.templates.label_in(name, r.start, r.end)),
                };
                if !seen.insert((file, r.start)) {
                    continue;
                }
                let mut d = Diagnostic::error(format!(
                    "template `{name}` tests for tool `{}`, which no tool file declares",
                    r.name
                ))
                .with_note("it matches no tool in any cell, so the text it guards is never sent")
                .with_help(known_names_help("tool", &r.name, &known));
                if let Some(label) = label {
                    d = d.with_label(label);
                }
                self.diags.push(d);
            }
        }
    }

    /// `templates.optional`: names a template may test with `is defined` though nothing sets them,
    /// added to `known`; each a name no variable, switch or built-in already has.
    fn optional_names(&mut self, known: &mut BTreeSet<String>) {
        let Some(names) = &self.raw.templates.optional else { return };
        let mut seen = BTreeSet::new();
        for n in &names.value {
            let valid = n.value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && n.value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let problem = if !valid {
                Some(("is not a template name", "a name is letters, digits and `_`, not starting with a digit"))
            } else if known.contains(&n.value) {
                Some((
                    "is defined already",
                    "a variable, switch or built-in is always defined: remove it from the list",
                ))
            } else if !seen.insert(n.value.clone()) {
                Some(("is listed twice", "list each name once"))
            } else {
                None
            };
            if let Some((what, help)) = problem {
                let message = format!("`templates.optional` names `{}`, which {what}", n.value);
                self.ck().error(&n.referenced, message, help);
            }
        }
        known.extend(seen);
    }

    /// Check what template `name` reads against what its context defines (the project's names
    /// and `extra`); record the variables it reads, and return every name it reads.
    fn check_template(&mut self, scope: &mut Scope<'_>, name: &str, extra: &[&str]) -> BTreeSet<String> {
        let mut known = scope.known.clone();
        known.extend(extra.iter().map(|s| s.to_string()));
        let used: BTreeSet<String> = self.templates.undeclared(name).difference(&scope.globals).cloned().collect();
        let file = templates_origin_file(&self.files, self.manifest, name);
        if let Some(d) = self.templates.context_leak(name, &|n: &str| known.contains(n)) {
            // A file several templates pull in is reported once per tag.
            if scope.reported.insert((d.message.clone(), format!("{:?}", d.label))) {
                self.diags.push(d);
            }
        }
        let strict = self.templates.strict_undefined();
        check_undeclared(&mut self.diags, &file, name, &used, &known, strict);
        let mut all = used;
        if let Some(reach) = self.templates.reach(name) {
            let (globals, reported) = (&scope.globals, &mut scope.reported);
            check_undeclared_in_files(&mut self.diags, name, reach, globals, &known, reported, strict);
            all.extend(reach.names.keys().filter(|n| !scope.globals.contains(*n)).cloned());
        }
        let vars = all.iter().filter(|u| scope.variables.contains_key(*u)).cloned().collect();
        scope.reads.template_reads.insert(name.to_string(), vars);
        all
    }

    /// The tool docs format: its templates also see `tool` and `index` (docs) or `tool` and
    /// `arguments` (calls); the generated sections it fills are dynamic if it reads a dynamic value.
    fn check_tool_docs(&mut self, scope: &mut Scope<'_>, t: &mut Templates<'_>) {
        for (name, extra) in [(&t.tool_docs.tool, ["tool", "index"]), (&t.tool_docs.call, ["tool", "arguments"])] {
            let Some(name) = name else { continue };
            let used = self.check_template(scope, name, &extra);
            let reads = scope.dynamic_of(&used);
            for s in t
                .sections
                .values_mut()
                .filter(|s| matches!(s.source, SectionSource::Generated(Generator::ToolDocs | Generator::ToolExamples)))
            {
                s.dynamic_inputs.extend(reads.iter().cloned());
            }
        }
    }

    /// Untrusted values stay inside their wrappers: no template may transform them, nor any
    /// file a template includes.
    fn check_untrusted(
        &mut self,
        variables: &IndexMap<String, Variable>,
        t: &Templates<'_>,
        catalog: &Catalog,
        commands: &IndexMap<String, Command>,
    ) {
        let untrusted: BTreeSet<&str> =
            variables.iter().filter(|(_, v)| v.untrusted.is_some()).map(|(k, _)| k.as_str()).collect();
        if untrusted.is_empty() {
            return;
        }
        let mut names: BTreeSet<String> = t
            .sections
            .values()
            .filter_map(|s| match &s.source {
                SectionSource::Template(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        names.extend(t.layout.iter().cloned());
        // The tool docs format's templates see the cell's context too.
        names.extend([&t.tool_docs.tool, &t.tool_docs.call].into_iter().flatten().cloned());
        names.extend(tool_and_command_templates(catalog, commands));
        names.extend(tool_text_templates(catalog));
        let mut seen: Vec<(String, Option<Label>)> = Vec::new();
        for name in &names {
            if let Some(d) = self.templates.untrusted_misuse(name, &untrusted) {
                // A file several templates include is reported once.
                let key = (d.message.clone(), d.label.clone());
                if !seen.contains(&key) {
                    seen.push(key);
                    self.diags.push(d);
                }
            }
        }
    }
}

/// The templates of templated tools' texts.
fn tool_text_templates(catalog: &Catalog) -> impl Iterator<Item = String> + '_ {
    catalog.tools().iter().flat_map(|t| t.text_templates.names.values().cloned())
}

/// The templates of tool contributions and commands (with their variants).
fn tool_and_command_templates<'c>(
    catalog: &'c Catalog,
    commands: &'c IndexMap<String, Command>,
) -> impl Iterator<Item = String> + 'c {
    catalog
        .tools()
        .iter()
        .flat_map(|t| t.contributions.iter())
        .filter_map(|c| match &c.body {
            ContributionBody::Template(n) => Some(n.clone()),
            ContributionBody::Literal(_) => None,
        })
        .chain(commands.values().flat_map(|c| std::iter::once(c.template.clone()).chain(c.variants.values().cloned())))
}
