//! Loading a project: read the manifest and every file it names, check every rule and
//! cross-reference once, and produce the typed [`Project`] the rest of promptc can trust.
//! Split by concept: `sections`, `tools` (and `params`), `settings`; `checker` holds the
//! checks they share, `undeclared` the static template checks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_saphyr::{Location, Spanned};

use crate::code::{Level, RuleCode};
use crate::diagnostic::{known_names_help, Diagnostic, Label, Span};
use crate::error::{Diagnostics, ErrorKind, Result};
use crate::model::budget::{parse_amount, Budget};
use crate::model::catalog::{Catalog, Tool, ToolOverride, ToolSelection};
use crate::model::condition::Condition;
use crate::model::provider::Provider;
use crate::model::section::{Generator, Section, SectionSource, Slot, SlotKind};
use crate::model::selection::{SegmentPattern, SelectionPolicy};
use crate::model::switch_is_name;
use crate::model::template::{TemplateOrigin, Templates};
use crate::model::tokenizer::{Encoding, Factors, Family, Tokenizer};
use crate::model::transport::Transport;
use crate::model::{
    Case, Choice, Command, Defaults, Limits, LintSettings, Profile, Project, Subagent, Switch, TemplateSettings,
    TokenSettings, Variable, BUILTIN_NAMES, RESERVED_PROFILE_NAMES, SUBAGENT_SWITCH,
};
use crate::source::{ProjectFs, SourceFile};
use raw::{RawBudget, RawLimits, RawManifest, RawProfile, RawSection, RawTemplates, RawTokens, RawTool, S};

mod checker;
pub mod editor_schema;
mod params;
pub(crate) mod raw;
mod sections;
mod settings;
mod tools;
mod undeclared;

use checker::{is_ident, Checker};
use params::SchemaBuilder;
use sections::*;
use settings::*;
use tools::*;
use undeclared::{check_undeclared, check_undeclared_in_files, templates_origin_file};

/// The manifest's file name.
pub const MANIFEST: &str = "promptc.yaml";

/// The only project format version this promptc reads.
pub const FORMAT_VERSION: u32 = 1;

/// Find the manifest: an explicit file or folder, else `./promptc.yaml`, else
/// `./profiles/promptc.yaml`.
pub fn discover(arg: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = arg {
        let candidate = if p.is_dir() { p.join(MANIFEST) } else { p.to_path_buf() };
        if candidate.is_file() {
            return Ok(candidate);
        }
        return Err(Diagnostic::error(format!("no project manifest at `{}`", candidate.display()))
            .with_help(format!("--project takes a folder containing {MANIFEST}, or the manifest itself"))
            .into_error(crate::error::ErrorKind::Usage));
    }
    for c in [PathBuf::from(MANIFEST), Path::new("profiles").join(MANIFEST)] {
        if c.is_file() {
            return Ok(c);
        }
    }
    Err(Diagnostic::error(format!("no {MANIFEST} in the current folder or in ./profiles"))
        .with_help("run promptc from a project folder, or pass --project PATH or create one with `promptc init`")
        .into_error(crate::error::ErrorKind::Usage))
}

impl Project {
    /// Load and validate the project whose manifest is `manifest`.
    pub fn load(manifest: &Path) -> Result<Project> {
        let root = manifest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        let fs = ProjectFs::new(&root, &root)?;
        let manifest_name =
            manifest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| MANIFEST.into());
        let mfile = fs.read(&manifest_name, None)?;
        let raw: RawManifest = crate::source::yaml::parse(&mfile)?;
        let mut diags = Diagnostics::new(ErrorKind::Project);
        let mut files = BTreeMap::new();
        let mut ck = Checker { file: &mfile, diags: &mut diags };
        let limits = build_limits(&mut ck, &raw.limits);
        let template_settings = build_template_settings(&mut ck, &raw.templates);
        let mut templates = Templates::new(fs.clone(), limits, template_settings);

        if raw.promptc.value != FORMAT_VERSION {
            ck.error(
                &raw.promptc.referenced,
                format!("unsupported project format version {}", raw.promptc.value),
                format!(
                    "this promptc reads format version {FORMAT_VERSION}; upgrade promptc \
                or set `promptc: {FORMAT_VERSION}`"
                ),
            );
        }

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
            span: Span { file: mfile.rel.clone(), start: 0, end: 0 },
            choice: None,
        });

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
            variables.insert(
                name.value.clone(),
                Variable {
                    description: v.description.clone(),
                    default: v.default.clone().unwrap_or(serde_json::Value::String(String::new())),
                    dynamic: v.dynamic,
                    untrusted,
                },
            );
        }

        // Profiles first by name: sections, tools and overrides refer to them.
        let profile_names: Vec<&str> = raw.profiles.keys().map(|k| k.value.as_str()).collect();
        for name in raw.profiles.keys() {
            if RESERVED_PROFILE_NAMES.contains(&name.value.as_str()) {
                ck.error(
                    &name.referenced,
                    format!(
                        "`{}` cannot be a profile name: it is a transport or provider, not a prompt \
                        contract",
                        name.value
                    ),
                    "a profile is a complete prompt contract (e.g. `standard`, `lite`); a request chooses \
                     its transport and provider independently of the profile",
                );
            } else if !is_ident(&name.value, &['-']) || name.value.chars().any(|c| c.is_ascii_uppercase()) {
                ck.error(
                    &name.referenced,
                    format!("invalid profile name `{}`", name.value),
                    "profile names are lower-case: a letter, then letters, digits, `_` or `-`",
                );
            }
        }
        if raw.profiles.is_empty() {
            ck.diags.push(
                Diagnostic::error("the project declares no profiles")
                    .with_label(Label::file(&mfile.display))
                    .with_help("add a `profiles:` entry such as `standard`"),
            );
        }

        // Slots, before the sections and tools that refer to them.
        let mut slots = IndexMap::new();
        for (name, sl) in &raw.slots {
            if !is_ident(&name.value, &[]) {
                ck.error(
                    &name.referenced,
                    format!("invalid slot name `{}`", name.value),
                    "slot names are identifiers: a letter or `_`, then letters, digits or `_`",
                );
            }
            let kind = match &sl.kind {
                None => SlotKind::System,
                Some(k) => SlotKind::parse(&k.value).unwrap_or_else(|| {
                    ck.error(
                        &k.referenced,
                        format!("unknown slot kind `{}`", k.value),
                        "slot kinds: system (tools may contribute), user_intent, history (tools may not)",
                    );
                    SlotKind::System
                }),
            };
            slots.insert(
                name.value.clone(),
                Slot { description: sl.description.clone(), kind, span: ck.span(&name.referenced) },
            );
        }

        // Sections.
        let mut sections = IndexMap::new();
        for (id, s) in &raw.sections {
            if !is_ident(&id.value, &['-']) {
                ck.error(
                    &id.referenced,
                    format!("invalid section id `{}`", id.value),
                    "section ids start with a letter and contain letters, digits, `_` or `-`",
                );
            }
            let when = match &s.when {
                Some(w) => ck.when(w, &switches).unwrap_or(Condition::Always),
                None => Condition::Always,
            };
            let untrusted = s.untrusted.as_ref().and_then(|t| ck.tag(t));
            if let Some((source, origin)) = section_source(&mut ck, &fs, &mut templates, &mut files, id, s, &slots) {
                sections.insert(
                    id.value.clone(),
                    Section {
                        id: id.value.clone(),
                        source,
                        when,
                        description: s.description.clone(),
                        origin,
                        dynamic_inputs: Vec::new(),
                        untrusted,
                        span: ck.span(&id.referenced),
                    },
                );
            }
        }

        // Layout.
        let layout = match &raw.layout {
            Some(path) => match fs.read(&path.value, Some(&|| ck.label(&path.referenced))) {
                Ok(f) => {
                    let name = f.rel.clone();
                    let r = templates.add(
                        &name,
                        &f.text,
                        TemplateOrigin { file: f.clone(), line_offset: 0, column_offset: 0 },
                    );
                    ck.diags.absorb(r);
                    files.insert(f.rel.clone(), f);
                    Some(name)
                }
                Err(e) => {
                    ck.diags.absorb::<()>(Err(e));
                    None
                }
            },
            None => None,
        };

        // Tool catalog files.
        // A catalog file that cannot be read or parsed hides its tools: reference checks
        // against the catalog would only add false "unknown tool" errors.
        let mut catalog_complete = true;
        let mut tool_files = Vec::new();
        for path in &raw.tools {
            let read = fs.read(&path.value, Some(&|| ck.label(&path.referenced)));
            match read {
                Ok(f) => tool_files.push(f),
                Err(e) => {
                    catalog_complete = false;
                    ck.diags.absorb::<()>(Err(e));
                }
            }
        }
        let mut tools: Vec<Tool> = Vec::new();
        // Where each tool name was first declared (`file:line:col`), to report duplicates.
        let mut tool_sites: BTreeMap<String, String> = BTreeMap::new();
        // Names of every declared tool and toolset, valid or not, for reference checks.
        let mut declared_tools: Vec<String> = Vec::new();
        let mut declared_toolsets: Vec<String> = Vec::new();
        for f in &tool_files {
            let raw_tools: Vec<RawTool> = match crate::source::yaml::parse(f) {
                Ok(t) => t,
                Err(e) => {
                    catalog_complete = false;
                    diags.absorb::<()>(Err(e));
                    continue;
                }
            };
            let mut ck = Checker { file: f, diags: &mut diags };
            for rt in &raw_tools {
                declared_tools.push(rt.name.value.clone());
                if !declared_toolsets.contains(&rt.toolset.value) {
                    declared_toolsets.push(rt.toolset.value.clone());
                }
                let env = ToolEnv {
                    switches: &switches,
                    profiles: &profile_names,
                    slots: &slots,
                    descriptions: raw.descriptions,
                };
                if let Some(t) = build_tool(&mut ck, rt, &env, &mut tool_sites, &mut templates) {
                    tools.push(t);
                }
            }
        }
        for f in tool_files {
            files.insert(f.rel.clone(), f);
        }
        let catalog = Catalog::new(tools);

        // Profiles.
        let mut ck = Checker { file: &mfile, diags: &mut diags };
        // Declared ids, valid or not: an invalid section or tool has its own error already.
        let section_ids: Vec<&str> = raw.sections.keys().map(|k| k.value.as_str()).collect();
        let toolset_names: Vec<&str> = declared_toolsets.iter().map(String::as_str).collect();
        let tool_names: Vec<&str> = declared_tools.iter().map(String::as_str).collect();
        let catalog_refs = catalog_complete.then_some((toolset_names.as_slice(), tool_names.as_slice()));
        let mut profiles = IndexMap::new();
        for (name, p) in &raw.profiles {
            let span = ck.span(&name.referenced);
            profiles
                .insert(name.value.clone(), build_profile(&mut ck, &name.value, span, p, &section_ids, catalog_refs));
        }

        tools::check_catalog_references(ck.diags, &catalog, &profiles, &sections, &files);

        // Defaults and selection policy.
        let default_profile = match &raw.defaults.profile {
            Some(p) => {
                ck.refs(std::slice::from_ref(p), &profile_names, "profile", "defaults.profile");
                p.value.clone()
            }
            None if profile_names.contains(&"standard") => "standard".into(),
            None => profile_names.first().map(|s| s.to_string()).unwrap_or_default(),
        };
        let selection = build_selection(&mut ck, &raw, &profile_names, &default_profile);

        let tokens = build_tokens(&mut ck, &raw.tokens, &fs);
        let cases = build_cases(&mut ck, &raw, &switches, &variables, &profile_names);
        let write_root = crate::source::write_root(fs.root());
        let snapshots = build_snapshots(&mut ck, raw.snapshots.as_ref(), fs.root(), &write_root);
        let subagents =
            build_subagents(&mut ck, &raw, &section_ids, catalog_complete.then_some(tool_names.as_slice()), &catalog);
        let lint = build_lint(&mut ck, &raw, &profile_names);
        let commands = build_commands(&mut ck, &raw, &fs, &mut templates, &mut files, &profile_names, &declared_tools);
        let tool_docs = build_tool_docs(&mut ck, raw.tool_docs.as_ref(), &fs, &mut templates, &mut files);
        let transports_span = raw.transports.as_ref().map(|t| ck.key_span(&t.referenced, "transports"));
        let transports = raw.transports.as_ref().map_or_else(|| Transport::DEFAULT.to_vec(), |t| t.value.clone());
        let providers = raw.providers.clone().unwrap_or_else(|| Provider::ALL.to_vec());
        let defaults = Defaults {
            profile: default_profile,
            transport: raw.defaults.transport.unwrap_or(transports.first().copied().unwrap_or(Transport::Native)),
            provider: raw.defaults.provider.unwrap_or(providers.first().copied().unwrap_or(Provider::OpenAiChat)),
        };

        // Templates may only read what the context defines; dynamic inputs make a section dynamic.
        // What a template reads includes what the files it includes or imports read.
        templates.analyze();
        let mut known: BTreeSet<String> = variables.keys().cloned().collect();
        known.extend(BUILTIN_NAMES.iter().take(6).map(|s| s.to_string()));
        let globals = templates.global_names();
        known.extend(
            switches.keys().filter(|k| switch_is_name(k, variables.contains_key(k.as_str()), &globals)).cloned(),
        );
        let dynamic_vars: BTreeSet<&String> = variables.iter().filter(|(_, v)| v.dynamic).map(|(k, _)| k).collect();
        // The variables each template reads (through includes too): what a cell's metadata hashes.
        let mut template_reads: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut record = |name: &str, used: &BTreeSet<String>| {
            let vars = used.iter().filter(|u| variables.contains_key(*u)).cloned().collect();
            template_reads.insert(name.to_string(), vars);
        };
        let mut reported = BTreeSet::new();
        let mut check_template = |diags: &mut Diagnostics, name: &str, known: &BTreeSet<String>| {
            let used: BTreeSet<String> = templates.undeclared(name).difference(&globals).cloned().collect();
            check_undeclared(diags, &templates_origin_file(&files, &mfile, name), name, &used, known);
            let mut all = used;
            if let Some(reach) = templates.reach(name) {
                check_undeclared_in_files(diags, name, reach, &globals, known, &mut reported);
                all.extend(reach.names.keys().filter(|n| !globals.contains(*n)).cloned());
            }
            all
        };
        for section in sections.values_mut() {
            if let SectionSource::Template(name) = &section.source {
                let used = check_template(&mut diags, name, &known);
                record(name, &used);
                section.dynamic_inputs = used.iter().filter(|u| dynamic_vars.contains(u)).cloned().collect();
            }
        }
        let extra_templates = catalog
            .tools()
            .iter()
            .flat_map(|t| t.contributions.iter())
            .filter_map(|c| match &c.body {
                crate::model::catalog::ContributionBody::Template(n) => Some(n.clone()),
                crate::model::catalog::ContributionBody::Literal(_) => None,
            })
            .chain(
                commands.values().flat_map(|c| std::iter::once(c.template.clone()).chain(c.variants.values().cloned())),
            );
        let mut dynamic_templates = BTreeSet::new();
        for name in extra_templates.collect::<BTreeSet<_>>() {
            let used = check_template(&mut diags, &name, &known);
            record(&name, &used);
            if used.iter().any(|u| dynamic_vars.contains(u)) {
                dynamic_templates.insert(name);
            }
        }
        // The tool docs format: its templates also see `tool` and `index` (docs) or `tool` and
        // `arguments` (calls); the generated sections it fills are dynamic if it reads a dynamic value.
        for (name, extra) in [(&tool_docs.tool, ["tool", "index"]), (&tool_docs.call, ["tool", "arguments"])] {
            let Some(name) = name else { continue };
            let mut with_tool = known.clone();
            with_tool.extend(extra.map(String::from));
            let used = check_template(&mut diags, name, &with_tool);
            record(name, &used);
            let reads: Vec<String> = used.iter().filter(|u| dynamic_vars.contains(u)).cloned().collect();
            for s in sections
                .values_mut()
                .filter(|s| matches!(s.source, SectionSource::Generated(Generator::ToolDocs | Generator::ToolExamples)))
            {
                s.dynamic_inputs.extend(reads.iter().cloned());
            }
        }
        if let Some(name) = &layout {
            let mut with_layout = known.clone();
            with_layout.extend(["sections".to_string(), "body".to_string()]);
            let used = check_template(&mut diags, name, &with_layout);
            record(name, &used);
        }

        // Untrusted values stay inside their wrappers: no template may transform them, nor any
        // file a template includes.
        let untrusted: BTreeSet<&str> =
            variables.iter().filter(|(_, v)| v.untrusted.is_some()).map(|(k, _)| k.as_str()).collect();
        if !untrusted.is_empty() {
            let mut names: BTreeSet<String> = sections
                .values()
                .filter_map(|s| match &s.source {
                    SectionSource::Template(n) => Some(n.clone()),
                    _ => None,
                })
                .collect();
            names.extend(layout.iter().cloned());
            names.extend(catalog.tools().iter().flat_map(|t| t.contributions.iter()).filter_map(|c| match &c.body {
                crate::model::catalog::ContributionBody::Template(n) => Some(n.clone()),
                crate::model::catalog::ContributionBody::Literal(_) => None,
            }));
            names.extend(
                commands.values().flat_map(|c| std::iter::once(c.template.clone()).chain(c.variants.values().cloned())),
            );
            let mut seen: Vec<(String, Option<Label>)> = Vec::new();
            for name in &names {
                if let Some(d) = templates.untrusted_misuse(name, &untrusted) {
                    // A file several templates include is reported once.
                    let key = (d.message.clone(), d.label.clone());
                    if !seen.contains(&key) {
                        seen.push(key);
                        diags.push(d);
                    }
                }
            }
        }

        let manifest_rel = mfile.rel.clone();
        files.insert(mfile.rel.clone(), mfile);
        let warnings = diags.warnings();
        diags.finish(())?;
        Ok(Project {
            name: raw.name,
            contract_version: raw.contract_version,
            defaults,
            transports,
            transports_span,
            providers,
            selection,
            strict_tools: raw.strict_tools,
            tool_docs,
            tokens,
            snapshots,
            write_root,
            dynamic_templates,
            template_reads,
            cases,
            slots,
            subagents,
            commands,
            lint,
            switches,
            variables,
            layout,
            sections,
            catalog,
            profiles,
            files,
            templates,
            root,
            manifest: manifest_rel,
            warnings,
            fs,
        })
    }
}

#[cfg(test)]
mod tests;
