//! The validated project model and its loading: read the manifest and every file it names,
//! check every rule and cross-reference once, and produce typed data the rest of promptc
//! can trust.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_saphyr::{Location, Spanned};

use crate::budget::{parse_amount, Budget};
use crate::catalog::{Catalog, Tool, ToolOverride, ToolSelection};
use crate::condition::Condition;
use crate::diagnostic::{known_names_help, Diagnostic, Label, Position};
use crate::error::{Diagnostics, Error, Result};
use crate::manifest::{RawBudget, RawManifest, RawProfile, RawSection, RawTokens, RawTool, S};
use crate::providers::Provider;
use crate::schema::SchemaBuilder;
use crate::selection::{SegmentPattern, SelectionPolicy};
use crate::source::{ProjectFs, SourceFile};
use crate::template::{TemplateOrigin, Templates};
use crate::tokens::{Encoding, Factors, Family, Tokenizer};
use crate::transport::Transport;

mod sections;
mod settings;
mod tools;

use sections::*;
use settings::*;
use tools::*;

/// The manifest's file name.
pub const MANIFEST: &str = "promptc.yaml";

/// The only project format version this promptc reads.
pub const FORMAT_VERSION: u32 = 1;

/// Names a profile may never have: they are transports or providers, not contracts.
pub const RESERVED_PROFILE_NAMES: &[&str] =
    &["native", "xml", "json", "openai", "openai-responses", "anthropic", "gemini"];

/// Names the template context defines itself; variables may not reuse them.
pub const BUILTIN_NAMES: &[&str] =
    &["switches", "profile", "transport", "tools", "tool_names", "toolsets", "sections", "body"];

/// The switch promptc sets while rendering a sub-agent's prompt; every project has it.
pub const SUBAGENT_SWITCH: &str = "subagent_run";

/// Whether `tag` is a valid untrusted-content tag (`USER_RULES`).
fn valid_tag(tag: &str) -> bool {
    let mut c = tag.chars();
    matches!(c.next(), Some(f) if f.is_ascii_uppercase())
        && c.all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_')
        && !tag.ends_with("_END")
}

/// A runtime capability switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switch {
    /// What turning it on means.
    pub description: String,
    /// Its value when not set.
    pub default: bool,
}

/// A template variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// What it holds.
    pub description: String,
    /// Its value when not given.
    pub default: serde_json::Value,
    /// Whether it changes between sessions (sections reading it are dynamic).
    pub dynamic: bool,
    /// Delimiter tag when its value comes from outside (`USER_RULES`): the value is wrapped
    /// in nonce-tagged delimiters and forged tags inside it are neutralised.
    pub untrusted: Option<String>,
}

/// Built-in section generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// The XML documentation of the active tools (empty for native and json).
    ToolDocs,
    /// The usage guidance of the active tools, in tool order.
    ToolGuidance,
    /// The JSON action schema (json transport only).
    ActionSchema,
}

impl Generator {
    /// Every generator with its name in `generate:`.
    pub const ALL: [(&'static str, Generator); 3] = [
        ("tool_docs", Generator::ToolDocs),
        ("tool_guidance", Generator::ToolGuidance),
        ("action_schema", Generator::ActionSchema),
    ];
}

/// Whether tools may write into a slot, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// Ordinary system text: tools may contribute.
    System,
    /// Carries the user's intent (their task, the last words before the model answers).
    UserIntent,
    /// System-kept history (e.g. the initial environment snapshot).
    History,
}

impl SlotKind {
    /// Parse a `kind:` value.
    pub fn parse(s: &str) -> Option<SlotKind> {
        match s {
            "system" => Some(SlotKind::System),
            "user_intent" => Some(SlotKind::UserIntent),
            "history" => Some(SlotKind::History),
            _ => None,
        }
    }

    /// Why tools may not contribute, for non-injectable kinds.
    pub fn forbidden_because(self) -> Option<&'static str> {
        match self {
            SlotKind::System => None,
            SlotKind::UserIntent => Some("it carries the user's intent: a tool writing there would change what the user asked for, and a tool bug would surface as a misunderstood request that no one can trace"),
            SlotKind::History => Some("it is system-kept history: a tool rewriting it would change the record of what happened after the fact, breaking replay and audit"),
        }
    }
}

/// A named position of the prompt that tools may contribute text to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// What it holds.
    pub description: String,
    /// Whether (and why not) tools may contribute.
    pub kind: SlotKind,
}

/// A sub-agent: a prompt of its own, same profile and transport, tools by allowlist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its sections, or `None` for the profile's.
    pub sections: Option<Vec<String>>,
    /// Tool ids it may use.
    pub tools: Vec<String>,
}

/// A slash command: instruction text per profile, never a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Template of the default text.
    pub template: String,
    /// Templates of profile-specific variants, by profile.
    pub variants: IndexMap<String, String>,
}

impl Command {
    /// The template for `profile`.
    pub fn template_for(&self, profile: &str) -> &str {
        self.variants.get(profile).map_or(&self.template, String::as_str)
    }
}

/// Where a section's text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionSource {
    /// A compiled template, by name.
    Template(String),
    /// Generated by promptc.
    Generated(Generator),
    /// The contributions of the active tools to a slot.
    Slot(String),
}

/// A named block of prompt text.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Its id.
    pub id: String,
    /// Where its text comes from.
    pub source: SectionSource,
    /// It is included only when this holds.
    pub when: Condition,
    /// What it is for.
    pub description: String,
    /// Where it is declared, as shown in reports (`sections/role.md.j2`, `generated:tool_docs`).
    pub origin: String,
    /// Variables it reads that are dynamic: non-empty means the section is dynamic.
    pub dynamic_inputs: Vec<String>,
    /// Delimiter tag when the section carries text from outside.
    pub untrusted: Option<String>,
}

/// A prompt contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Section ids in prompt order.
    pub sections: Vec<String>,
    /// The tools it registers.
    pub tools: ToolSelection,
    /// Its limits.
    pub budget: Budget,
}

/// A named switch/variable set in the snapshot matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// What it represents.
    pub description: String,
    /// Switch values over the defaults.
    pub switches: BTreeMap<String, bool>,
    /// Variable values over the defaults.
    pub variables: IndexMap<String, serde_json::Value>,
}

/// Lint settings from `check:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LintSettings {
    /// Rule levels set by the project, in order.
    pub levels: Vec<(String, crate::lint::Level)>,
    /// (smaller, larger) profile pairs for the subset rule.
    pub subsets: Vec<(String, String)>,
}

/// How reports count tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenSettings {
    /// The tokenizer used when neither `--tokenizer` nor `--model` names one.
    pub tokenizer: Tokenizer,
    /// Estimate factors per model family.
    pub factors: Factors,
    /// Project-relative path of the on-disk token cache, if enabled.
    pub cache: Option<String>,
}

/// Project-wide defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defaults {
    /// Profile used when selection picks none.
    pub profile: String,
    /// Transport used when none is given.
    pub transport: Transport,
    /// Provider used when none is given.
    pub provider: Provider,
}

/// A loaded, validated project.
#[derive(Debug, Clone)]
pub struct Project {
    /// Project name.
    pub name: String,
    /// Bumping it invalidates every frozen prompt.
    pub contract_version: u64,
    /// Defaults.
    pub defaults: Defaults,
    /// Transports in the matrix.
    pub transports: Vec<Transport>,
    /// Providers in the matrix.
    pub providers: Vec<Provider>,
    /// Profile selection policy.
    pub selection: SelectionPolicy,
    /// OpenAI strict mode for function schemas.
    pub strict_tools: bool,
    /// Token counting settings.
    pub tokens: TokenSettings,
    /// Where the snapshot matrix lives, relative to the project folder (default `snapshots`).
    pub snapshots: String,
    /// Named cases that extend the snapshot matrix, in declaration order.
    pub cases: IndexMap<String, Case>,
    /// Slots tools may contribute to, by name.
    pub slots: IndexMap<String, Slot>,
    /// Sub-agents by name.
    pub subagents: IndexMap<String, Subagent>,
    /// Slash commands by name.
    pub commands: IndexMap<String, Command>,
    /// `promptc check` settings.
    pub lint: LintSettings,
    /// Switches by name, in declaration order.
    pub switches: IndexMap<String, Switch>,
    /// Variables by name, in declaration order.
    pub variables: IndexMap<String, Variable>,
    /// The layout template name, if any.
    pub layout: Option<String>,
    /// Sections by id.
    pub sections: IndexMap<String, Section>,
    /// The tool catalog.
    pub catalog: Catalog,
    /// Profiles by name.
    pub profiles: IndexMap<String, Profile>,
    /// Every file read while loading, by project-relative path.
    pub files: BTreeMap<String, SourceFile>,
    /// The compiled templates.
    pub templates: Templates,
    /// The project folder as given by the user.
    pub root: PathBuf,
    /// The manifest's project-relative path.
    pub manifest: String,
    /// Problems worth fixing that do not stop a command.
    pub warnings: Vec<Diagnostic>,
    fs: ProjectFs,
}

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
            .into());
    }
    for c in [PathBuf::from(MANIFEST), Path::new("profiles").join(MANIFEST)] {
        if c.is_file() {
            return Ok(c);
        }
    }
    Err(Diagnostic::error(format!("no {MANIFEST} in the current folder or in ./profiles"))
        .with_help("run promptc from a project folder, or pass --project PATH or create one with `promptc init`")
        .into())
}

fn is_ident(s: &str, extra: &[char]) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || extra.contains(&ch))
}

/// Loading context: the file being validated and the diagnostics collected so far.
struct Checker<'a> {
    file: &'a SourceFile,
    diags: &'a mut Diagnostics,
}

impl Checker<'_> {
    fn label(&self, loc: &Location) -> Label {
        crate::yaml::label(&self.file.display, &self.file.text, loc)
    }

    fn error(&mut self, loc: &Location, msg: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::error(msg).with_label(self.label(loc)).with_help(help);
        self.diags.push(d);
    }

    /// Parse a `when:` expression and check its switch names.
    fn when(&mut self, w: &S, switches: &IndexMap<String, Switch>) -> Option<Condition> {
        match Condition::parse(&w.value) {
            Err(e) => {
                // Columns count from the opening quote of a quoted scalar.
                let quoted = self
                    .file
                    .text
                    .split('\n')
                    .nth((w.referenced.line() as usize).saturating_sub(1))
                    .and_then(|l| l.chars().nth((w.referenced.column() as usize).saturating_sub(1)))
                    .is_some_and(|c| c == '"' || c == '\'');
                let col = w.referenced.column() as usize
                    + usize::from(quoted)
                    + w.value[..e.offset.min(w.value.len())].chars().count();
                let pos = Position::new(w.referenced.line() as usize, col, 1);
                self.diags.push(
                    Diagnostic::error(format!("invalid switch expression `{}`: {}", w.value, e.message))
                        .with_label(Label::at(&self.file.display, &self.file.text, pos))
                        .with_help(
                            "write switch names combined with `!`, `&&`, `||` and parentheses, e.g. `browser && !yolo`",
                        ),
                );
                None
            }
            Ok(c) => {
                let known: Vec<&str> = switches.keys().map(String::as_str).collect();
                let mut ok = true;
                for name in c.switch_names() {
                    if !switches.contains_key(name) {
                        ok = false;
                        self.error(
                            &w.referenced,
                            format!("unknown switch `{name}` in `when: {}`", w.value),
                            known_names_help("switch", name, &known),
                        );
                    }
                }
                ok.then_some(c)
            }
        }
    }

    /// Check an untrusted-content tag.
    fn tag(&mut self, t: &S) -> Option<String> {
        if valid_tag(&t.value) {
            Some(t.value.clone())
        } else {
            self.error(
                &t.referenced,
                format!("invalid untrusted-content tag `{}`", t.value),
                if t.value.ends_with("_END") {
                    "a tag may not end in _END: `<|TAG_END_nonce|>` is the closing delimiter, so such a tag could be confused with another's end"
                } else {
                    "tags are upper-case identifiers such as USER_RULES: they become `<|USER_RULES_nonce|>` delimiters"
                },
            );
            None
        }
    }

    /// Check that every name in `list` is one of `known`; return the valid ones.
    fn refs(&mut self, list: &[S], known: &[&str], kind: &str, context: &str) -> Vec<String> {
        let known_set: std::collections::HashSet<&str> = known.iter().copied().collect();
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<String> = Vec::new();
        for item in list {
            if !known_set.contains(item.value.as_str()) {
                self.error(
                    &item.referenced,
                    format!("unknown {kind} `{}` in {context}", item.value),
                    known_names_help(kind, &item.value, known),
                );
            } else if !seen.insert(item.value.as_str()) {
                self.error(
                    &item.referenced,
                    format!("{kind} `{}` is listed twice in {context}", item.value),
                    "list each entry once",
                );
            } else {
                out.push(item.value.clone());
            }
        }
        out
    }
}

impl Project {
    /// Load and validate the project whose manifest is `manifest`.
    pub fn load(manifest: &Path) -> Result<Project> {
        let root = manifest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        let fs = ProjectFs::new(&root, &root)?;
        let manifest_name =
            manifest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| MANIFEST.into());
        let mfile = fs.read(&manifest_name, None)?;
        let raw: RawManifest = crate::yaml::parse(&mfile)?;
        let mut diags = Diagnostics::default();
        let mut files = BTreeMap::new();
        let mut templates = Templates::new(fs.clone());

        let mut ck = Checker { file: &mfile, diags: &mut diags };
        if raw.promptc.value != FORMAT_VERSION {
            ck.error(&raw.promptc.referenced, format!("unsupported project format version {}", raw.promptc.value), format!("this promptc reads format version {FORMAT_VERSION}; upgrade promptc or set `promptc: {FORMAT_VERSION}`"));
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
            switches.insert(name.value.clone(), Switch { description: s.description.clone(), default: s.default });
        }
        switches.entry(SUBAGENT_SWITCH.to_string()).or_insert(Switch {
            description: "Set by promptc while it renders a sub-agent's prompt.".into(),
            default: false,
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
                    format!("`{}` cannot be a profile name: it is a transport or provider, not a prompt contract", name.value),
                    "a profile is a complete prompt contract (e.g. `standard`, `lite`); transports and providers are chosen independently with --transport and --provider",
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
            slots.insert(name.value.clone(), Slot { description: sl.description.clone(), kind });
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
            let raw_tools: Vec<RawTool> = match crate::yaml::parse(f) {
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
                let env = ToolEnv { switches: &switches, profiles: &profile_names, slots: &slots };
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
            profiles.insert(name.value.clone(), build_profile(&mut ck, &name.value, p, &section_ids, catalog_refs));
        }

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
        let snapshots = raw.snapshots.as_ref().map_or_else(|| "snapshots".to_string(), |s| s.value.clone());
        let subagents =
            build_subagents(&mut ck, &raw, &section_ids, catalog_complete.then_some(tool_names.as_slice()), &catalog);
        let lint = build_lint(&mut ck, &raw, &profile_names);
        let commands = build_commands(&mut ck, &raw, &fs, &mut templates, &mut files, &profile_names, &declared_tools);
        let transports = raw.transports.clone().unwrap_or_else(|| Transport::DEFAULT.to_vec());
        let providers = raw.providers.clone().unwrap_or_else(|| Provider::ALL.to_vec());
        let defaults = Defaults {
            profile: default_profile,
            transport: raw.defaults.transport.unwrap_or(transports.first().copied().unwrap_or(Transport::Native)),
            provider: raw.defaults.provider.unwrap_or(providers.first().copied().unwrap_or(Provider::OpenAiChat)),
        };

        // Templates may only read what the context defines; dynamic inputs make a section dynamic.
        let mut known: BTreeSet<String> = variables.keys().cloned().collect();
        known.extend(BUILTIN_NAMES.iter().take(6).map(|s| s.to_string()));
        let globals = templates.global_names();
        let dynamic_vars: BTreeSet<&String> = variables.iter().filter(|(_, v)| v.dynamic).map(|(k, _)| k).collect();
        for section in sections.values_mut() {
            if let SectionSource::Template(name) = &section.source {
                let used: BTreeSet<String> = templates.undeclared(name).difference(&globals).cloned().collect();
                check_undeclared(&mut diags, &templates_origin_file(&files, &mfile, name), name, &used, &known);
                section.dynamic_inputs = used.iter().filter(|u| dynamic_vars.contains(u)).cloned().collect();
            }
        }
        let extra_templates = catalog
            .tools()
            .iter()
            .flat_map(|t| t.contributions.iter())
            .filter_map(|c| match &c.body {
                crate::catalog::ContributionBody::Template(n) => Some(n.clone()),
                crate::catalog::ContributionBody::Literal(_) => None,
            })
            .chain(
                commands.values().flat_map(|c| std::iter::once(c.template.clone()).chain(c.variants.values().cloned())),
            );
        for name in extra_templates.collect::<BTreeSet<_>>() {
            let used: BTreeSet<String> = templates.undeclared(&name).difference(&globals).cloned().collect();
            check_undeclared(&mut diags, &templates_origin_file(&files, &mfile, &name), &name, &used, &known);
        }
        if let Some(name) = &layout {
            let used: BTreeSet<String> = templates.undeclared(name).difference(&globals).cloned().collect();
            let mut with_layout = known.clone();
            with_layout.extend(["sections".to_string(), "body".to_string()]);
            check_undeclared(&mut diags, &templates_origin_file(&files, &mfile, name), name, &used, &with_layout);
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
            providers,
            selection,
            strict_tools: raw.strict_tools,
            tokens,
            snapshots,
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

    /// The profile called `name`, or an error listing the known ones.
    pub fn profile(&self, name: &str) -> Result<&Profile> {
        self.profiles.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
            Error::from(
                Diagnostic::error(format!("unknown profile `{name}`"))
                    .with_help(known_names_help("profile", name, &known)),
            )
        })
    }

    /// The project's file reader (for context files and includes).
    pub fn fs(&self) -> &ProjectFs {
        &self.fs
    }
}

/// The file a template's text lives in: inline templates are named `FILE#where`.
fn templates_origin_file(files: &BTreeMap<String, SourceFile>, manifest: &SourceFile, name: &str) -> SourceFile {
    let file = name.split('#').next().unwrap_or(name);
    files.get(file).cloned().unwrap_or_else(|| manifest.clone())
}

/// Report every top-level name a template reads that the context will not define.
fn check_undeclared(
    diags: &mut Diagnostics,
    file: &SourceFile,
    name: &str,
    used: &BTreeSet<String>,
    known: &BTreeSet<String>,
) {
    for var in used.difference(known) {
        let label = find_identifier(&file.text, var)
            .map(|(s, e)| file.label_bytes(s, e))
            .unwrap_or_else(|| Label::file(&file.display));
        let known_list: Vec<&str> = known.iter().map(String::as_str).collect();
        let mut d = Diagnostic::error(format!("template `{name}` uses undefined variable `{var}`"))
            .with_label(label)
            .with_help(format!(
                "declare it under `variables:` in {MANIFEST}, or use a built-in; {}",
                known_names_help("name", var, &known_list)
            ));
        if var == "sections" || var == "body" {
            d = d.with_note("`sections` and `body` exist only in the layout template");
        }
        diags.push(d);
    }
}

/// Byte range of the first whole-word occurrence of `ident` inside a `{{ }}`/`{% %}` tag.
fn find_identifier(text: &str, ident: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(ident) {
        let start = from + i;
        let end = start + ident.len();
        let before_ok = start == 0
            || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_' || bytes[start - 1] == b'.');
        let after_ok = end >= bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
        let in_tag = text[..start].rfind("{{").max(text[..start].rfind("{%"))
            > text[..start].rfind("}}").max(text[..start].rfind("%}"));
        if before_ok && after_ok && in_tag {
            return Some((start, end));
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests;
