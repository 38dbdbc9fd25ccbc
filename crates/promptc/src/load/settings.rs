//! The manifest's settings: the format version, `limits:`, `templates:`, `defaults:`, the
//! matrix (`transports:`, `providers:`), `selection:`, `tokens:` and `snapshots:`.

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use crate::diagnostic::{known_names_help, Span};
use crate::format::manifest::{RawAssembly, RawLimits, RawSelection, RawTemplates, RawTokens};
use crate::format::S;
use crate::model::provider::Provider;
use crate::model::selection::{SegmentPattern, SelectionPolicy};
use crate::model::tokenizer::{Encoding, Factors, Family, Tokenizer};
use crate::model::transport::Transport;
use crate::model::{Assembly, Defaults, Limits, TemplateSettings, TokenSettings};
use crate::source::ProjectFs;

use super::checker::Checker;
use super::loader::Loader;
use super::FORMAT_VERSION;

/// The matrix a project ships, and what a request gets when it does not say.
pub(super) struct Matrix {
    pub(super) transports: Vec<Transport>,
    pub(super) transports_span: Option<Span>,
    pub(super) providers: Vec<Provider>,
    pub(super) defaults: Defaults,
}

impl Loader<'_> {
    /// `promptc:`: the one format version this promptc reads.
    pub(super) fn check_version(&mut self) {
        let version = &self.raw.promptc;
        if version.value != FORMAT_VERSION {
            self.ck().error(
                &version.referenced,
                format!("unsupported project format version {}", version.value),
                format!(
                    "this promptc reads format version {FORMAT_VERSION}; upgrade promptc \
                or set `promptc: {FORMAT_VERSION}`"
                ),
            );
        }
    }

    /// `selection:`: which profile a model gets.
    pub(super) fn selection(&mut self, default_profile: &str) -> SelectionPolicy {
        let profile = self.selection_profile(default_profile);
        let raw = self.raw;
        build_selection(&mut self.ck(), &raw.selection, profile, default_profile)
    }

    /// `tokens:`: how reports count.
    pub(super) fn tokens(&mut self) -> TokenSettings {
        let mut ck = Checker::new(self.manifest, &mut self.diags);
        build_tokens(&mut ck, &self.raw.tokens, &self.fs)
    }

    /// `snapshots:` (with where it is written), and the folder a project may write in.
    pub(super) fn snapshots(&mut self) -> (String, Option<Span>, PathBuf) {
        let write_root = crate::source::write_root(self.fs.root());
        let raw = self.raw;
        let snapshots = build_snapshots(&mut self.ck(), raw.snapshots.as_ref());
        let span = raw.snapshots.as_ref().map(|s| self.ck().span(&s.referenced));
        (snapshots, span, write_root)
    }

    /// `transports:`, `providers:` and the rest of `defaults:`.
    pub(super) fn matrix(&mut self, default_profile: String) -> Matrix {
        let raw = self.raw;
        let transports_span = raw.transports.as_ref().map(|t| self.ck().key_span(&t.referenced, "transports"));
        let transports = raw.transports.as_ref().map_or_else(|| Transport::DEFAULT.to_vec(), |t| t.value.clone());
        let providers = raw.providers.as_ref().map_or_else(|| Provider::MODEL_APIS.to_vec(), |p| p.clone());
        let defaults = Defaults {
            profile: default_profile,
            transport: raw.defaults.transport.unwrap_or(transports.first().copied().unwrap_or(Transport::Native)),
            provider: raw.defaults.provider.unwrap_or(providers.first().copied().unwrap_or(Provider::OpenAiChat)),
        };
        Matrix { transports, transports_span, providers, defaults }
    }
}

fn build_tokens(ck: &mut Checker<'_>, raw: &RawTokens, fs: &ProjectFs) -> TokenSettings {
    let mut factors = Factors::new();
    for (name, v) in &raw.estimates {
        if name.value == crate::model::tokenizer::GEMINI {
            ck.warn(
                &name.referenced,
                "`tokens.estimates.gemini` is no longer used: Gemini is counted exactly, with the Gemma 3 tokenizer",
                "remove the line",
            );
            continue;
        }
        let Some(family) = Family::parse(&name.value) else {
            let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            ck.error(
                &name.referenced,
                format!("unknown model family `{}` in tokens.estimates", name.value),
                known_names_help("family", &name.value, &known),
            );
            continue;
        };
        match v.value.as_f64().filter(|f| *f > 0.0 && f.is_finite()) {
            Some(f) => {
                factors.insert(family, f);
            }
            None => ck.error(
                &v.referenced,
                format!("estimate factor for `{}` must be a positive number, found {}", name.value, v.value),
                "e.g. `claude: 1.2` means 20% more tokens than o200k_base",
            ),
        }
    }
    let tokenizer = match &raw.tokenizer {
        Some(t) => match Tokenizer::from_name(&t.value, &factors) {
            Ok(tok) => tok,
            Err(e) => {
                let help = e.diagnostics().first().and_then(|d| d.help.clone()).unwrap_or_default();
                ck.error(&t.referenced, format!("unknown tokenizer `{}`", t.value), help);
                Tokenizer::Exact(Encoding::O200kBase)
            }
        },
        None => Tokenizer::Exact(Encoding::O200kBase),
    };
    let cache = raw.cache.as_ref().and_then(|c| match fs.normalize(&c.value) {
        Ok(p) => Some(p),
        Err(why) => {
            ck.error(
                &c.referenced,
                format!("invalid token cache path `{}`: {why}", c.value),
                "use a path inside the project folder, e.g. `.promptc-cache/tokens.json`",
            );
            None
        }
    });
    TokenSettings { tokenizer, factors, cache }
}

fn build_selection(ck: &mut Checker<'_>, rs: &RawSelection, profile: String, default_profile: &str) -> SelectionPolicy {
    let mut model_segments = Vec::new();
    rules_without_profile(ck, rs);
    let exact = rs.case_sensitive.as_ref().is_some_and(|c| c.value);
    let parse = if exact { SegmentPattern::exact_case } else { SegmentPattern::parse };
    match &rs.model_segments {
        Some(list) => {
            for s in list {
                match parse(&s.value) {
                    Ok(p) => model_segments.push(p),
                    Err(msg) => ck.error(
                        &s.referenced,
                        msg,
                        "patterns match one `/`-separated segment of a model id, ignoring case: `o1` exactly, `o1-*` as \
                         a prefix, `*gpt-4*` anywhere in it",
                    ),
                }
            }
        }
        None => model_segments = ["o1", "o1-*"].into_iter().filter_map(|p| parse(p).ok()).collect(),
    }
    SelectionPolicy {
        default_profile: default_profile.to_string(),
        profile,
        model_segments,
        below_context_window: rs.below_context_window.as_ref().map_or(64_000, |v| v.value),
        assumed_context_window: rs.assumed_context_window.as_ref().map_or(128_000, |v| v.value),
    }
}

/// Selection rules without `selection.profile`: they would pick the default profile, which
/// every model gets anyway, so they decide nothing (and a reader would think they do).
fn rules_without_profile(ck: &mut Checker<'_>, rs: &RawSelection) {
    if rs.profile.is_some() {
        return;
    }
    let first = [
        rs.model_segments.as_ref().and_then(|l| l.first()).map(|s| ("model_segments", &s.referenced)),
        rs.below_context_window.as_ref().map(|v| ("below_context_window", &v.referenced)),
        rs.assumed_context_window.as_ref().map(|v| ("assumed_context_window", &v.referenced)),
        rs.case_sensitive.as_ref().map(|v| ("case_sensitive", &v.referenced)),
    ];
    if let Some((key, at)) = first.into_iter().flatten().min_by_key(|(_, at)| (at.line(), at.column())) {
        ck.error(
            at,
            format!(
                "`selection.{key}` has no `selection.profile` to pick: without it the rules pick the default \
                 profile, which every model gets anyway"
            ),
            "add `profile: NAME` under `selection:` (the profile the rules give small models), or remove the \
             rules",
        );
    }
}

/// `limits:`: caps on rendered sizes, each between 1 KiB and [`Limits::MAX_BYTES`], and on a
/// whole-matrix run's cells.
pub(super) fn build_limits(ck: &mut Checker<'_>, raw: &RawLimits) -> Limits {
    let mut limits = Limits::default();
    let mut take = |v: &Option<Spanned<u64>>, key: &str, out: &mut usize| {
        if let Some(v) = v {
            if (1024..=Limits::MAX_BYTES).contains(&v.value) {
                *out = v.value as usize;
            } else {
                ck.error(
                    &v.referenced,
                    format!("`limits.{key}` must be between 1024 and {} bytes, found {}", Limits::MAX_BYTES, v.value),
                    "the limits stop runaway templates; the defaults (2 MiB a section, 8 MiB a prompt) are far \
                     above real prompts",
                );
            }
        }
    };
    take(&raw.section_bytes, "section_bytes", &mut limits.section_bytes);
    take(&raw.prompt_bytes, "prompt_bytes", &mut limits.prompt_bytes);
    take(&raw.matrix_bytes, "matrix_bytes", &mut limits.matrix_bytes);
    if let Some(v) = &raw.matrix_cells {
        if (1..=Limits::MAX_CELLS).contains(&v.value) {
            limits.matrix_cells = v.value as usize;
        } else {
            ck.error(
                &v.referenced,
                format!("`limits.matrix_cells` must be between 1 and {}, found {}", Limits::MAX_CELLS, v.value),
                "the default (2,048 cells) is far above a real project's matrix",
            );
        }
    }
    limits
}

/// `templates:`: whitespace handling, from `compat: jinja2` (Python Jinja2's defaults) or the
/// default, with each flag set on its own overriding either.
pub(super) fn build_template_settings(ck: &mut Checker<'_>, raw: &RawTemplates) -> TemplateSettings {
    let mut t = TemplateSettings::default();
    if let Some(compat) = &raw.compat {
        match compat.value.as_str() {
            "jinja2" => t = TemplateSettings::JINJA2,
            other => ck.error(
                &compat.referenced,
                format!("unknown `templates.compat` value `{other}`"),
                "the only compatibility mode is `jinja2` (Python Jinja2's whitespace, undefined values and filters); omit the key for \
                 promptc's own (trim_blocks and lstrip_blocks on)",
            ),
        }
    }
    t.trim_blocks = raw.trim_blocks.unwrap_or(t.trim_blocks);
    t.lstrip_blocks = raw.lstrip_blocks.unwrap_or(t.lstrip_blocks);
    t.keep_trailing_newline = raw.keep_trailing_newline.unwrap_or(t.keep_trailing_newline);
    if let Some(u) = &raw.undefined {
        match u.value.as_str() {
            "strict" => t.strict_undefined = true,
            "lenient" => t.strict_undefined = false,
            other => ck.error(
                &u.referenced,
                format!("unknown `templates.undefined` value `{other}`"),
                "`strict`: an undefined value is an error wherever it is used (the default); `lenient`: it prints \
                 as nothing and is false, as in Jinja2 (the default with `compat: jinja2`)",
            ),
        }
    }
    t
}

/// `templates.path`: the template search path, each folder inside the project and there (`.`
/// is the project folder itself, kept as the empty string).
pub(super) fn build_template_path(ck: &mut Checker<'_>, fs: &ProjectFs, raw: &RawTemplates) -> Vec<String> {
    let Some(folders) = &raw.path else { return Vec::new() };
    if folders.value.is_empty() {
        ck.error(
            &folders.referenced,
            "`templates.path` lists no folder",
            "list the folders templates are looked up in (`path: [prompts]`), or leave the key out",
        );
    }
    let mut out = Vec::new();
    for f in &folders.value {
        let value = f.value.trim_end_matches('/');
        if value == "." || value.is_empty() {
            out.push(String::new());
            continue;
        }
        let norm = match fs.normalize(value) {
            Ok(n) => n,
            Err(why) => {
                ck.error(
                    &f.referenced,
                    format!("invalid template folder `{}`: {why}", f.value),
                    "a template folder is a folder of the project, written relative to the folder holding promptc.yaml",
                );
                continue;
            }
        };
        let full = fs.root().join(&norm);
        let inside = full.canonicalize().is_ok_and(|c| c.starts_with(fs.root()) && c.is_dir());
        if !inside {
            ck.error(
                &f.referenced,
                format!("template folder `{}` is not a folder inside the project", f.value),
                "create it, or fix the path; it is relative to the folder holding promptc.yaml and may not lead \
                 out of it (a symbolic link included)",
            );
            continue;
        }
        out.push(norm);
    }
    out
}

/// `assembly:`: the bytes promptc adds or removes between and around sections.
pub(super) fn build_assembly(raw: &RawAssembly) -> Assembly {
    let mut a = Assembly::default();
    a.final_newline = raw.final_newline.unwrap_or(a.final_newline);
    a.trim = raw.trim.unwrap_or(a.trim);
    if let Some(s) = &raw.separator {
        a.separator = s.clone();
    }
    // Each other join point takes `separator` unless `separators:` gives its own.
    let own = raw.separators.as_ref();
    let pick = |f: fn(&crate::format::manifest::RawSeparators) -> &Option<String>| {
        own.and_then(|s| f(s).clone()).unwrap_or_else(|| a.separator.clone())
    };
    a.message_separator = pick(|s| &s.messages);
    a.slot_separator = pick(|s| &s.slots);
    a.guidance_separator = pick(|s| &s.tool_guidance);
    a
}

/// `snapshots:`: a relative folder. Where it may lead (inside the write root) is checked when
/// the folder is used, so commands that do not use it work wherever the project is.
fn build_snapshots(ck: &mut Checker<'_>, raw: Option<&S>) -> String {
    let Some(s) = raw else { return "snapshots".to_string() };
    if Path::new(&s.value).is_absolute() || s.value.is_empty() {
        ck.error(
            &s.referenced,
            format!("the snapshot folder `{}` must be a relative path", crate::diagnostic::excerpt(&s.value, 80)),
            "write it relative to the project folder, e.g. `snapshots` or `../snapshots`; `promptc snapshot --dir` \
             takes any folder",
        );
    }
    s.value.clone()
}
