// Long because the environment and every limit it sets (fuel, depth, sizes, includes) are
// configured in one place, so no render path can miss one.
//! promptc's template engine: the one home of template behaviour.
//!
//! The minijinja environment every template of a project renders in ([`Templates`]): strict about
//! undefined variables, bounded in work, depth and size (see `guard` and `filters`), and unable to
//! include files outside the project; what a template reads ([`reach`]); Jinja2's semantics and
//! Python's methods where minijinja differs ([`jinja2`], [`python`], [`printf`]); and chat
//! templates rendered as transformers renders them ([`chat`]). Errors cross as
//! `promptc_source`'s located [`Error`](promptc_source::error::Error).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use minijinja::{AutoEscape, Environment, ErrorKind, UndefinedBehavior};

// The foundation's modules under the paths the engine's files name them by.
pub(crate) use promptc_source::{diagnostic, error, source};

use crate::diagnostic::{known_names_help, Diagnostic, Label, Position};
use crate::error::Result;
use crate::source::{ProjectFs, SourceFile};

pub use settings::{Limits, TemplateSettings};
// Values a caller builds a render's context from, and the trait of its objects.
pub use minijinja::context;
pub use minijinja::value::{Enumerator, Object, ObjectRepr, Value};

pub mod chat;
pub mod context;
pub mod filters;
pub mod guard;
pub mod jinja2;
pub mod opaque;
pub mod permits;
pub mod printf;
pub mod python;
pub mod reach;
mod settings;
mod syntax;
pub mod work;
use reach::Reach;

/// How the environment treats whitespace around tags, from the project's `templates:` (the
/// guard, the opaque pass and the reach analysis parse with the same).
fn whitespace(t: TemplateSettings) -> minijinja::machinery::WhitespaceConfig {
    minijinja::machinery::WhitespaceConfig {
        keep_trailing_newline: t.keep_trailing_newline,
        lstrip_blocks: t.lstrip_blocks,
        trim_blocks: t.trim_blocks,
    }
}

/// The static guard ([`guard::check`]) on `source`, parsed with `settings`' whitespace rules: what
/// it refuses before any render (unbounded growth, huge tags).
pub fn guard_check(source: &str, settings: TemplateSettings) -> std::result::Result<(), guard::Refusal> {
    guard::check(source, whitespace(settings))
}

/// Instruction budget for one render: far above any real prompt, low enough that a runaway
/// loop ends in an error within a second.
const FUEL: u64 = 20_000_000;

/// The most bytes one value a project's template builds may hold: the largest output any of
/// its renders may have (a section's, or the layout's whole prompt).
pub(crate) fn value_limit(limits: Limits) -> usize {
    limits.section_bytes.max(limits.prompt_bytes)
}

/// The most bytes all the values one render of a project's template builds may add up to:
/// eight times [`value_limit`] (64 MiB by default). Everything a render holds at once it built,
/// so this bounds what it can hold (forty variables each just under the value limit would hold
/// forty times it), while a real template builds a small multiple of its output. A template
/// appending to a text in a loop copies it each time: 1,000 appends making a 100 kB text copy
/// 50 MB, and appending two pieces at a time (`ns.out ~ a ~ b`) copies twice that, past the
/// limit; printing the pieces as they come copies nothing.
pub(crate) fn build_limit(limits: Limits) -> usize {
    value_limit(limits).saturating_mul(BUILD_FACTOR)
}

/// [`build_limit`] over [`value_limit`].
pub(crate) const BUILD_FACTOR: usize = 8;

/// How the patched engine's own `ValueTooLarge` detail starts (a filter's names its result).
const ENGINE_TOO_LARGE: &str = "the value would be";

/// The message for a value past `limit`: `who` ("the template", "the chat template") builds
/// it; a filter's `detail` (what would be how large) is added, the engine's is not (it only
/// repeats the limit).
pub(crate) fn too_large_message(who: &str, limit: Option<usize>, detail: &str) -> String {
    let limit = limit.unwrap_or_default();
    if detail.starts_with(ENGINE_TOO_LARGE) || detail.is_empty() {
        format!("{who} builds a value larger than {limit} bytes")
    } else {
        format!("{who} builds a value larger than {limit} bytes: {detail}")
    }
}

/// The message for a render whose values add up to more than `limit` bytes.
pub(crate) fn built_too_much_message(who: &str, limit: Option<usize>) -> String {
    format!("{who} builds more than {} bytes of values in one render", limit.unwrap_or_default())
}

/// The help for a render past its build limit.
pub(crate) const BUILT_TOO_MUCH_HELP: &str =
    "every value a render builds counts, copies included: many large values kept at once, or a long text \
     appended to in a loop (each `~` copies it), add up; print pieces as they come instead of collecting them, \
     or raise `limits.prompt_bytes` in promptc.yaml (the render may build eight times it)";

/// Where a template's text lives, for error messages.
#[derive(Debug, Clone)]
pub struct TemplateOrigin {
    /// The file holding the template.
    pub file: SourceFile,
    /// Line of the file on which the template text starts (0 for a whole file).
    pub line_offset: usize,
    /// Columns before the template text on each line (a YAML block scalar's indentation).
    pub column_offset: usize,
}

/// A label at bytes `start..end` of a template's `source`, placed in the file `origin` names.
fn own_label(source: &str, origin: &TemplateOrigin, start: usize, end: usize) -> Label {
    let p = Position::from_byte_range(source, start, end);
    let pos = Position::new(p.line + origin.line_offset, p.column + origin.column_offset, p.len);
    Label::at(&origin.file.display, &origin.file.text, pos)
}

/// A project's templates, compiled once at load.
#[derive(Debug, Clone)]
pub struct Templates {
    env: Environment<'static>,
    origins: BTreeMap<String, TemplateOrigin>,
    sources: BTreeMap<String, String>,
    included: Arc<Mutex<BTreeMap<String, SourceFile>>>,
    limits: Limits,
    ws: minijinja::machinery::WhitespaceConfig,
    fs: ProjectFs,
    reach: BTreeMap<String, Reach>,
    /// The switches the project declares, so that reading another one can say so.
    switches: Vec<String>,
    /// Whether an undefined value is an error wherever it is used (`templates.undefined`).
    strict: bool,
    /// Jinja2's semantics (`compat: jinja2`): line breaks in a template's source read as `\n`.
    jinja2: bool,
    /// The template search path (`templates.path`).
    path: Vec<String>,
    /// Render permits, shared by every clone: what a run's renders hold at once is bounded.
    permits: Arc<permits::Permits>,
    /// What renders spent, per thread (see [`work`]), shared by every clone.
    work: Arc<work::Accounts>,
}

/// The file template name `name` names: with a search path (`templates.path`), the first of its
/// folders that holds it (a name with a `..` part is refused, as Jinja2's loader refuses it);
/// without one, the project-relative path. `Ok(None)` when no file is there. Every read is
/// confined to the project like any other (`ProjectFs`).
pub(crate) fn find(fs: &ProjectFs, path: &[String], name: &str) -> Result<Option<SourceFile>> {
    if path.is_empty() {
        return if fs.missing(name) { Ok(None) } else { fs.read(name, None).map(Some) };
    }
    if name.split(['/', '\\']).any(|part| part == "..") {
        return Err(Diagnostic::error(format!("`{name}` climbs out of the template search path"))
            .with_help("a name under `templates.path` is relative to one of its folders and may not contain `..`")
            .into_error(crate::error::ErrorKind::Project));
    }
    for folder in path {
        let rel = if folder.is_empty() { name.to_string() } else { format!("{folder}/{name}") };
        if !fs.missing(&rel) {
            return fs.read(&rel, None).map(Some);
        }
    }
    Ok(None)
}

/// A template source with its line breaks as Jinja2 reads them (`\r\n` and `\r` as `\n`); line
/// and column numbers are unchanged.
fn jinja2_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A sink for rendered text that refuses to grow past a cap, so a runaway loop stops as soon
/// as its output is too large rather than after it has filled memory.
pub(crate) struct Capped {
    text: Vec<u8>,
    cap: usize,
    exceeded: bool,
}

impl Capped {
    /// An empty sink that holds at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Capped {
        Capped { text: Vec::new(), cap, exceeded: false }
    }

    /// Whether a write was refused for passing the cap.
    pub(crate) fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// The bytes written.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.text
    }
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.text.len() + buf.len() > self.cap {
            self.exceeded = true;
            return Err(std::io::Error::other("output limit"));
        }
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Templates {
    /// An environment whose `{% include %}` reads through `fs`, with output capped by `limits`
    /// and whitespace treated as `settings` say.
    /// `path` is the template search path (`templates.path`: project-relative folders, checked
    /// by the loader; empty: names are project-relative paths).
    pub fn new(fs: ProjectFs, limits: Limits, settings: TemplateSettings, path: Vec<String>) -> Self {
        let ws = whitespace(settings);
        let mut env = Environment::new();
        // minijinja's default follows `debug_assertions`; without it an error's location
        // differs between debug and release builds. Errors keep their source either way (the
        // cost is paid only when an error is made).
        env.set_debug(true);
        env.set_undefined_behavior(if settings.strict_undefined {
            UndefinedBehavior::Strict
        } else {
            UndefinedBehavior::Lenient
        });
        env.set_auto_escape_callback(|_| AutoEscape::None);
        env.set_trim_blocks(ws.trim_blocks);
        env.set_lstrip_blocks(ws.lstrip_blocks);
        env.set_keep_trailing_newline(ws.keep_trailing_newline);
        env.set_fuel(Some(FUEL));
        // Every value a template builds is bounded where the engine builds it (the patched
        // minijinja under vendor/), whatever the template's shape: the static guard only sees
        // the shapes it knows. A value may be as large as the largest text this environment
        // renders (a section, or the layout's whole prompt), no larger; building it costs fuel
        // per byte, so copying a large value in a loop ends on fuel too.
        env.set_value_size_limit(Some(value_limit(limits)));
        env.set_build_limit(Some(build_limit(limits)));
        env.set_recursion_limit(64);
        // The filters that check their result before building it check it against the same
        // limit, so a value is refused at one size, with one message, however it is built.
        filters::register(&mut env, value_limit(limits));
        filters::register_methods(&mut env, value_limit(limits));
        if settings.jinja2 {
            jinja2::register(&mut env, value_limit(limits));
        }
        let included: Arc<Mutex<BTreeMap<String, SourceFile>>> = Arc::default();
        let record = Arc::clone(&included);
        let loader_fs = fs.clone();
        let search = path.clone();
        env.set_loader(move |name| match find(&loader_fs, &search, name) {
            Ok(Some(file)) => {
                if let Err(r) = guard::check(&file.text, ws) {
                    let p = Position::from_byte_range(&file.text, r.start, r.end);
                    let at = format!("{}:{}:{}", file.display, p.line, p.column);
                    return Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        format!("cannot include `{name}`: {} (at {at}); {}", r.message, r.help),
                    ));
                }
                let text = if settings.jinja2 { jinja2_newlines(&file.text).into_owned() } else { file.text.clone() };
                if let Ok(mut map) = record.lock() {
                    // By the name the template gave: an error in it names it so.
                    map.insert(name.to_string(), file);
                }
                Ok(Some(text))
            }
            // A file that is simply not there is "not found", so that `{% include [a, b] %}`
            // tries the next name and `ignore missing` skips it, as in Jinja2.
            Ok(None) => Ok(None),
            // Otherwise not TemplateNotFound: minijinja replaces that with a generic message,
            // and the reason (outside the project, not UTF-8, a folder) is what the user needs.
            Err(e) => Err(minijinja::Error::new(ErrorKind::InvalidOperation, format!("cannot include `{name}`: {e}"))),
        });
        Templates {
            env,
            origins: BTreeMap::new(),
            sources: BTreeMap::new(),
            included,
            limits,
            ws,
            fs,
            reach: BTreeMap::new(),
            switches: Vec::new(),
            strict: settings.strict_undefined,
            jinja2: settings.jinja2,
            path,
            permits: Arc::new(permits::Permits::for_build_limit(build_limit(limits))),
            work: Arc::default(),
        }
    }

    /// Tell the templates which switches the project declares: a render that reads
    /// `switches.NAME` for another name then fails saying that switch is not declared.
    pub fn declare_switches<'n>(&mut self, names: impl IntoIterator<Item = &'n String>) {
        self.switches = names.into_iter().cloned().collect();
    }

    /// Whether an undefined value is an error (`templates.undefined: strict`, the default
    /// without `compat: jinja2`) rather than printing as nothing.
    pub fn strict_undefined(&self) -> bool {
        self.strict
    }

    /// Whether templates have Jinja2's semantics (`compat: jinja2`).
    pub fn jinja2(&self) -> bool {
        self.jinja2
    }

    /// The caps rendering enforces.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Compile a template; a syntax error, or a source the guard refuses, becomes a located
    /// diagnostic.
    pub fn add(&mut self, name: &str, source: &str, origin: TemplateOrigin) -> Result<()> {
        let source = &*if self.jinja2 { jinja2_newlines(source) } else { std::borrow::Cow::Borrowed(source) };
        let tree = match guard::check_parsed(source, self.ws) {
            Ok(tree) => tree,
            Err(r) => {
                let p = Position::from_byte_range(source, r.start, r.end);
                let pos = Position::new(p.line + origin.line_offset, p.column + origin.column_offset, p.len);
                return Err(Diagnostic::error(r.message)
                    .with_label(Label::at(&origin.file.display, &origin.file.text, pos))
                    .with_help(r.help)
                    .into_error(crate::error::ErrorKind::Project));
            }
        };
        // What the template reads, from the tree the guard parsed: parsing is most of the
        // analysis, and a large project has hundreds of templates. It depends only on this
        // source and the files its includes name, so taking it now equals taking it later.
        let (fs, ws, path) = (&self.fs, self.ws, &self.path);
        let read = |n: &str| find(fs, path, n).ok().flatten().filter(|f| guard::check(&f.text, ws).is_ok());
        let reach = reach::analyze_parsed(tree.as_ref(), ws, &read);
        self.reach.insert(name.to_string(), reach);
        self.origins.insert(name.to_string(), origin);
        self.sources.insert(name.to_string(), source.to_string());
        self.env.add_template_owned(name.to_string(), source.to_string()).map_err(|e| {
            let mut d = self.diagnostic(&e, "template syntax error");
            // minijinja reports where parsing stopped; say what the author wrote, where.
            if let Some(o) = self.origins.get(name) {
                if let Some(x) = syntax::explain(&e, source, self.ws, o.line_offset + 1) {
                    let p = Position::from_byte_range(source, x.at.start, x.at.end);
                    let pos = Position::new(p.line + o.line_offset, p.column + o.column_offset, p.len);
                    d.message = format!("template syntax error: {}", x.message);
                    d.label = Some(Label::at(&o.file.display, &o.file.text, pos));
                    d.help = Some(x.help);
                }
            }
            d.into_error(crate::error::ErrorKind::Project)
        })
    }

    /// Top-level variable names a template reads that it does not define itself.
    pub fn undeclared(&self, name: &str) -> BTreeSet<String> {
        self.env.get_template(name).map(|t| t.undeclared_variables(false).into_iter().collect()).unwrap_or_default()
    }

    /// Work out what every compiled template reads, through the files it includes or imports
    /// with literal names (see `reach`); [`Templates::reach`] answers from this.
    pub fn analyze(&mut self) {
        let (fs, ws, path) = (&self.fs, self.ws, &self.path);
        let read = |name: &str| find(fs, path, name).ok().flatten().filter(|f| guard::check(&f.text, ws).is_ok());
        // `add` analysed each template it compiled; what is left is any source without an
        // analysis, and none for a name no longer compiled.
        let mut done = std::mem::take(&mut self.reach);
        self.reach = self
            .sources
            .iter()
            .map(|(name, src)| {
                let r = done.remove(name).unwrap_or_else(|| reach::analyze(src, ws, &read));
                (name.clone(), r)
            })
            .collect();
    }

    /// What template `name` reads, through its includes (after [`Templates::analyze`]).
    pub fn reach(&self, name: &str) -> Option<&Reach> {
        self.reach.get(name)
    }

    /// Whether any template may pull in another file (an include, import or extends, literal
    /// or computed), or has not been analysed: then a cell's text may depend on files beyond
    /// the ones its templates come from.
    pub fn pull_files(&self) -> bool {
        self.reach.len() < self.sources.len() || self.reach.values().any(|r| r.pulls)
    }

    /// What every template reads (after [`Templates::analyze`]).
    pub fn reaches(&self) -> impl Iterator<Item = &Reach> {
        self.reach.values()
    }

    /// Names the environment defines for every template (`range`, `dict`, `namespace`, …).
    pub fn global_names(&self) -> BTreeSet<String> {
        self.env.globals().map(|(k, _)| k.to_string()).collect()
    }

    /// Render template `name` with `ctx` (convert the context once with
    /// `minijinja::Value::from_serialize` and reuse it: it is shared, not copied), stopping
    /// with an error once its output passes `cap` bytes.
    pub fn render(&self, name: &str, ctx: &minijinja::Value, cap: usize) -> Result<String> {
        self.render_or_undefined(name, ctx, cap).map_err(|f| f.error)
    }

    /// Wait for a render permit (see [`permits`]): every render of the project's templates,
    /// and of its chat template, holds one while it runs.
    pub fn permit(&self) -> permits::Permit<'_> {
        self.permits.take()
    }

    /// The accounts of what renders spend (see [`work`]): a cell opens its thread's account
    /// when it starts compiling, and reads what its renders spent when it ends.
    pub fn work(&self) -> &work::Accounts {
        &self.work
    }

    /// `Err` when the current thread's renders have spent their cell's fuel ([`work::CELL_FUEL`]):
    /// rendering `display` (a template's file) would spend more. `who` names what renders.
    pub fn check_work(&self, who: &str, display: &str) -> Result<()> {
        if self.work.spent() <= work::CELL_FUEL {
            return Ok(());
        }
        Err(Diagnostic::error(format!(
            "{who} of this cell ran too long in all: more than {} instructions",
            work::CELL_FUEL
        ))
        .with_label(Label::file(display))
        .with_help(
            "each render has an instruction budget, and so have all the renders of a cell together: look for a \
             template rendered many times (a tool's docs template, a command) that loops for long",
        )
        .into_error(crate::error::ErrorKind::Template))
    }

    /// [`render`](Self::render), and when it fails on an undefined value, the expression that
    /// read it (the template's text at the error's span), for a caller that can say what the
    /// value is (the layout's `sections.NAME`).
    pub fn render_or_undefined(
        &self,
        name: &str,
        ctx: &minijinja::Value,
        cap: usize,
    ) -> std::result::Result<String, RenderFailure> {
        let fail = |e: &minijinja::Error| RenderFailure {
            error: self.diagnostic(e, "template error").into_error(crate::error::ErrorKind::Template),
            undefined: undefined_expression(e),
        };
        let tmpl = self.env.get_template(name).map_err(|e| fail(&e))?;
        let display = self.origins.get(name).map_or(name, |o| o.file.display.as_str());
        self.check_work("the templates", display).map_err(|error| RenderFailure { error, undefined: None })?;
        let mut out = Capped { text: Vec::new(), cap, exceeded: false };
        let permit = self.permit();
        let rendered = tmpl.render_captured_to(ctx, &mut out);
        drop(permit);
        if let Some((spent, _)) = rendered.as_ref().ok().and_then(|c| c.state().fuel_levels()) {
            self.work.add(spent);
        }
        match rendered {
            Ok(_) => String::from_utf8(out.text).map_err(|_| RenderFailure {
                error: Diagnostic::error("a template rendered text that is not UTF-8")
                    .into_error(crate::error::ErrorKind::Internal),
                undefined: None,
            }),
            Err(e) if out.exceeded => {
                let mut d = self.diagnostic(&e, "template error");
                d.message = format!("the template renders more than {cap} bytes");
                if d.label.is_none() {
                    if let Some(o) = self.origins.get(name) {
                        d = d.with_label(Label::file(&o.file.display));
                    }
                }
                let error = d
                    .with_help(
                        "a loop or filter produces far more text than a prompt holds; raise `limits:` in \
                                promptc.yaml only if the text is meant to be this large",
                    )
                    .into_error(crate::error::ErrorKind::Template);
                Err(RenderFailure { error, undefined: None })
            }
            Err(e) => Err(fail(&e)),
        }
    }

    /// The source text of every template compiled at load (sections, layout, contributions,
    /// commands), for rules that scan what templates read.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.sources.values().map(String::as_str)
    }

    /// The first use of the `untrusted` variables in template `name`, or in a file it includes
    /// or imports with a literal name, that could take part of their text out of its wrapper
    /// (see `opaque`), as a located diagnostic.
    pub fn untrusted_misuse(&self, name: &str, untrusted: &BTreeSet<&str>) -> Option<Diagnostic> {
        let (source, origin) = (self.sources.get(name)?, self.origins.get(name)?);
        let (fs, ws, path) = (&self.fs, self.ws, &self.path);
        let read = |n: &str| find(fs, path, n).ok().flatten().filter(|f| guard::check(&f.text, ws).is_ok());
        opaque::check_through(source, ws, untrusted, &read).err().map(|e| {
            let (file, r) = *e;
            let label = match file {
                Some(f) => f.label_bytes(r.start, r.end),
                None => own_label(source, origin, r.start, r.end),
            };
            Diagnostic::error(r.message).with_label(label).with_help(r.help)
        })
    }

    /// With `compat: jinja2`, the first tag in template `name` (or a file it pulls in) that
    /// pulls in a file without the context (an `import` without `with context`) where that file
    /// reads a name `context` holds: Jinja2 renders it undefined there, minijinja would give it
    /// the value, so it is a located error. (An `include … without context` is rendered without
    /// it by the engine, as in Jinja2.)
    pub fn context_leak(&self, name: &str, context: &dyn Fn(&str) -> bool) -> Option<Diagnostic> {
        if !self.jinja2 {
            return None;
        }
        let (source, origin) = (self.sources.get(name)?, self.origins.get(name)?);
        let (fs, ws, path) = (&self.fs, self.ws, &self.path);
        let read = |n: &str| find(fs, path, n).ok().flatten().filter(|f| guard::check(&f.text, ws).is_ok());
        let own = context::leak(source, ws, context, &read).map(|l| (own_label(source, origin, l.start, l.end), l));
        let found = own.or_else(|| {
            self.reach.get(name)?.files.values().find_map(|f| {
                context::leak(&jinja2_newlines(&f.text), ws, context, &read).map(|l| (f.label_bytes(l.start, l.end), l))
            })
        });
        let (label, l) = found?;
        if l.name == "loop" {
            return Some(
                Diagnostic::error(format!(
                    "`{}` reads `loop`, which Jinja2 does not pass to an included file (it is undefined there); \
                     minijinja would give it the including loop's",
                    l.file
                ))
                .with_label(label)
                .with_help("set what the file needs before the include (`{% set index = loop.index %}`) and read that"),
            );
        }
        let help = "add `with context` to the import (Jinja2 then renders it as promptc does), or pass the value as a \
                    macro parameter";
        Some(
            Diagnostic::error(format!(
                "`{}` is pulled in without the context, and reads `{}` from it: Jinja2 renders `{}` undefined \
                 there, minijinja would give it its value",
                l.file, l.name, l.name
            ))
            .with_label(label)
            .with_help(help),
        )
    }

    /// A label at bytes `start..end` of template `name`'s own text, in the file that holds it
    /// (inline templates included: their lines and indentation are mapped back).
    pub fn label_in(&self, name: &str, start: usize, end: usize) -> Option<Label> {
        Some(own_label(self.sources.get(name)?, self.origins.get(name)?, start, end))
    }

    /// Every template's name and what it reads (after [`Templates::analyze`]).
    pub fn reach_by_name(&self) -> impl Iterator<Item = (&str, &Reach)> {
        self.reach.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The source text of template `name`.
    pub fn source(&self, name: &str) -> Option<&str> {
        self.sources.get(name).map(String::as_str)
    }

    /// Where template `name`'s text starts: its file (project-relative) and the byte offset of
    /// its first line there (0 for a whole file).
    pub fn start(&self, name: &str) -> Option<(&str, usize)> {
        let o = self.origins.get(name)?;
        let text = &o.file.text;
        let at = if o.line_offset == 0 {
            0
        } else {
            text.match_indices('\n').nth(o.line_offset - 1).map_or(text.len(), |(i, _)| i + 1)
        };
        Some((o.file.rel.as_str(), at))
    }

    /// Files pulled in through `{% include %}` / `{% import %}` so far.
    pub fn included_files(&self) -> Vec<SourceFile> {
        let by_rel: BTreeMap<String, SourceFile> =
            self.included.lock().map(|m| m.values().map(|f| (f.rel.clone(), f.clone())).collect()).unwrap_or_default();
        by_rel.into_values().collect()
    }

    /// Label `d` at where error `err` (the innermost cause) happened, or at byte range `at` of
    /// its template's source.
    fn locate(&self, d: Diagnostic, err: &minijinja::Error, at: Option<std::ops::Range<usize>>) -> Diagnostic {
        let name = err.name().unwrap_or_default().to_string();
        let included = self.included.lock().ok().and_then(|m| m.get(&name).cloned());
        let origin = self
            .origins
            .get(&name)
            .cloned()
            .or_else(|| included.map(|file| TemplateOrigin { file, line_offset: 0, column_offset: 0 }));
        match (origin, err.line()) {
            (Some(o), Some(line)) => {
                let template_src = err.template_source().unwrap_or(&o.file.text);
                let pos = match at.or_else(|| err.range()) {
                    Some(r) => Position::from_byte_range(template_src, r.start, r.end),
                    None => Position::new(line, 1, 1),
                };
                let pos = Position::new(pos.line + o.line_offset, pos.column + o.column_offset, pos.len);
                d.with_label(Label::at(&o.file.display, &o.file.text, pos))
            }
            (Some(o), None) => d.with_label(Label::file(&o.file.display)),
            (None, _) if !name.is_empty() => d.with_label(Label::file(&name)),
            _ => d,
        }
    }

    fn diagnostic(&self, e: &minijinja::Error, what: &str) -> Diagnostic {
        // The innermost cause is the one that names the failing template and line.
        let mut err = e;
        while let Some(src) = std::error::Error::source(err).and_then(|s| s.downcast_ref::<minijinja::Error>()) {
            err = src;
        }
        let detail = err.detail().map(str::to_string).unwrap_or_else(|| err.kind().to_string());
        let message = match err.kind() {
            ErrorKind::UndefinedError => format!("undefined variable in template: {detail}"),
            ErrorKind::SyntaxError => format!("{what}: {detail}"),
            ErrorKind::OutOfFuel => "template ran too long (possible endless loop)".to_string(),
            ErrorKind::ValueTooLarge => too_large_message("the template", self.env.value_size_limit(), &detail),
            ErrorKind::BuildLimit => built_too_much_message("the template", self.env.build_limit()),
            ErrorKind::TemplateNotFound => format!("cannot include template: {detail}"),
            ErrorKind::InvalidOperation if detail.starts_with("cannot include") => detail.clone(),
            _ => format!("{what}: {detail}"),
        };
        // `switches.NAME` for a switch the project does not declare: say so, at NAME.
        let switch = err
            .template_source()
            .zip(err.range())
            .filter(|_| err.kind() == ErrorKind::UndefinedError)
            .and_then(|(src, r)| undeclared_switch(src, r, &self.switches));
        if let Some((name, at)) = switch {
            let known: Vec<&str> = self.switches.iter().map(String::as_str).collect();
            return self
                .locate(Diagnostic::error(format!("switch `{name}` is not declared")), err, Some(at))
                .with_help(format!(
                    "declare it under `switches:` in promptc.yaml, with a `description:` and a `default:`; {}",
                    known_names_help("switch", &name, &known)
                ));
        }
        let d = self.locate(Diagnostic::error(message), err, None);
        if err.kind() == ErrorKind::ValueTooLarge && !detail.starts_with(ENGINE_TOO_LARGE) {
            return d.with_help(
                "the filter's arguments would make its result far larger than a prompt; check them, or raise \
                 `limits.prompt_bytes` in promptc.yaml if the text is meant to be this large",
            );
        }
        if detail.contains("a generator in Jinja2") || detail.contains("length of value of type iterator") {
            return d.with_help(
                "in Jinja2, `map`, `select`, `reject`, `selectattr`, `rejectattr`, `unique`, `batch`, `slice`, \
                 `items` and `reverse` give generators, which have no length and no printed form: make a list \
                 first (`| list`), or join it (`| join(', ')`)",
            );
        }
        if detail.contains("recursion limit") {
            return d.with_help(
                "a template includes itself (directly or through other includes), or a macro calls itself without end",
            );
        }
        if detail.contains("Python's pprint breaks it") {
            return d.with_help(
                "print it as it is (`{{ value }}`: Python's repr on one line) or with `tojson(indent=2)`; \
                 `pprint` of a value up to 80 columns wide is Jinja2's",
            );
        }
        if detail.starts_with("tried to use % operator on unsupported types string") {
            return d.with_help(
                "Python's `%` string formatting is Jinja2's, on with `templates: {compat: jinja2}`; otherwise use the \
                 `format` filter (`'Hello %s' | format(name)`) or `~` (`'Hello ' ~ name`)",
            );
        }
        if detail.ends_with("is unknown") {
            return d.with_help(
                "minijinja has no filter, test or function of that name; docs/project-format.md lists Jinja2's \
                 builtins and the few promptc does not provide (`urlize`, `random`, `lipsum`)",
            );
        }
        // A key or attribute a value does not have (`cfg.missing`): the variable itself may well
        // be declared, so say what is missing and how to read it safely.
        if let Some(expr) = undefined_expression(e).filter(|x| x.contains(['.', '['])) {
            let expr = crate::diagnostic::excerpt(expr.trim(), 60);
            return d.with_help(format!(
                "`{expr}` reads a key or attribute the value does not have: test it with `{expr} is defined`, give \
                 it a fallback with `{expr} | default(…)`, or set `templates.undefined: lenient` to print it as \
                 nothing, as Jinja2 does"
            ));
        }
        let include_failed = matches!(err.kind(), ErrorKind::TemplateNotFound) || detail.starts_with("cannot include");
        if include_failed {
            if !self.path.is_empty() {
                return d.with_help(format!(
                    "includes are names relative to the folders of `templates.path` ({}), tried in that order",
                    self.path
                        .iter()
                        .map(|f| if f.is_empty() { "." } else { f.as_str() })
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            return d.with_help("includes are paths relative to the project folder and must stay inside it");
        }
        d.with_help(match err.kind() {
            ErrorKind::UndefinedError => {
                "use a variable declared under `variables:` or a built-in (switches, \
                profile, transport, tools, tool_names, toolsets); see docs/project-format.md"
            }
            ErrorKind::SyntaxError => {
                "templates use minijinja (Jinja2) syntax: {{ expr }}, {% if %}…{% endif %}, {% \
                for %}…{% endfor %}"
            }
            ErrorKind::OutOfFuel => {
                "look for a loop that never ends, a very large range(), or a large value copied in a loop"
            }
            ErrorKind::ValueTooLarge => {
                "a value doubles or grows in a loop, a macro or an include (`~`, `+`, `*`, a `set` block); \
                 build the text once, or raise `limits:` in promptc.yaml if it is meant to be this large"
            }
            ErrorKind::BuildLimit => BUILT_TOO_MUCH_HELP,
            ErrorKind::TemplateNotFound => "includes are paths relative to the project folder and must stay inside it",
            _ => "fix the template expression",
        })
    }
}

/// The switch an undefined-value error at byte range `at` of `src` reads (`switches.NAME`,
/// `switches["NAME"]`) when `declared` does not hold it: its name and byte range.
fn undeclared_switch(
    src: &str,
    at: std::ops::Range<usize>,
    declared: &[String],
) -> Option<(String, std::ops::Range<usize>)> {
    let expr = src.get(at.clone())?;
    let rest = expr.strip_prefix("switches")?.trim_start();
    let (rest, quoted) = match rest.strip_prefix('.') {
        Some(r) => (r.trim_start(), false),
        None => (rest.strip_prefix('[')?.trim_start().strip_prefix(['"', '\''])?, true),
    };
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || (quoted && *c == '-')).collect();
    if name.is_empty() || declared.contains(&name) {
        return None;
    }
    let start = at.start + (expr.len() - rest.len());
    Some((name.clone(), start..start + name.len()))
}

/// A failed render: the error, and for an undefined value the expression that read it.
#[derive(Debug)]
pub struct RenderFailure {
    /// The located error, as [`Templates::render`] returns it.
    pub error: crate::error::Error,
    /// The failing expression's text (`sections.rules`) when the value was undefined.
    pub undefined: Option<String>,
}

/// The text of the expression an undefined-value error points at, from the innermost cause's
/// span in its template's source (never from the message).
fn undefined_expression(e: &minijinja::Error) -> Option<String> {
    let mut err = e;
    while let Some(src) = std::error::Error::source(err).and_then(|s| s.downcast_ref::<minijinja::Error>()) {
        err = src;
    }
    if err.kind() != ErrorKind::UndefinedError {
        return None;
    }
    let range = err.range()?;
    err.template_source()?.get(range).map(str::to_string)
}
