//! Loading a project: read the manifest and every file it names, check every rule and
//! cross-reference once, and produce the typed [`Project`] the rest of promptc can trust.
//!
//! `Project::load` is the list of steps. They share one [`Loader`](loader::Loader) (the file
//! system, the manifest, the diagnostics, the templates and files read so far), and each
//! section of the manifest has its file: `settings` (version, limits, defaults, matrix,
//! selection, tokens, snapshots), `roles` (the default profile, the selected profile, the subset
//! pairs: declared, never named), `switches` (and variables), `sections` (and slots), `templates`
//! (template files, inline text, layout, tool docs), `catalog` (reading tool files), `tools`,
//! `tool_parts`, `tool_wording` and `params` (one tool), `catalog_checks`, `profiles`, `cases`,
//! `subagents`, `commands`, `checks` (lint levels), `analysis` (what templates read).
//! `checker` holds the checks they share, `undeclared` the static template checks.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::format::manifest::RawManifest;
use crate::model::Project;
use crate::source::{Overlay, ProjectFs, SourceFile};

/// The stack loading needs at most (the YAML parser's and template parser's depth limits keep
/// it far below): loading runs on a fresh segment of this size when less remains.
const LOAD_STACK: usize = 8 << 20;

mod analysis;
mod cases;
mod catalog;
mod catalog_checks;
mod chat_templates;
mod checker;
mod checks;
mod commands;
mod loader;
mod params;
mod parsed;
mod profiles;
mod roles;
mod sections;
mod settings;
mod subagents;
mod switches;
mod templates;
mod tool_parts;
mod tool_templates;
mod tool_wording;
mod tools;
mod undeclared;

use loader::Loader;
pub use parsed::LoadMemo;

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
            .with_help(format!("a project is named by its folder, which holds {MANIFEST}, or by the manifest itself"))
            .into_error(ErrorKind::Usage));
    }
    for c in [PathBuf::from(MANIFEST), Path::new("profiles").join(MANIFEST)] {
        if c.is_file() {
            return Ok(c);
        }
    }
    Err(Diagnostic::error(format!("no {MANIFEST} in the current folder or in ./profiles"))
        .with_help("start from a project folder, name the project, or create one with `promptc init`")
        .into_error(ErrorKind::Usage))
}

impl Project {
    /// Load and validate the project whose manifest is `manifest`.
    pub fn load(manifest: &Path) -> Result<Project> {
        // Parsing recurses (nested YAML, template syntax trees), within the bounds the parsers
        // keep; a host's thread may have far less stack than that (a 256 KiB thread loading a
        // deep project was a crash), so load on a stack of known size whatever the caller's.
        Project::load_overlaid(manifest, std::sync::Arc::default(), None)
    }

    /// [`Project::load`], reading the files `overlay` holds a text for from it rather than
    /// from the disk (an editor's unsaved buffers, the manifest's included), and taking the
    /// tool files `memo` parsed before from it.
    pub fn load_overlaid(
        manifest: &Path,
        overlay: std::sync::Arc<Overlay>,
        memo: Option<&LoadMemo>,
    ) -> Result<Project> {
        stacker::maybe_grow(LOAD_STACK, LOAD_STACK, || Project::load_here(manifest, overlay, memo))
    }

    /// [`Project::load`] on the caller's stack.
    fn load_here(manifest: &Path, overlay: std::sync::Arc<Overlay>, memo: Option<&LoadMemo>) -> Result<Project> {
        let (root, fs, mfile, raw) = read_manifest(manifest, overlay)?;
        let mut ld = Loader::new(&raw, &mfile, fs);
        ld.memo = memo;
        ld.check_version();
        let switches = ld.switches();
        let variables = ld.variables();
        ld.check_profile_names();
        let slots = ld.slots();
        let mut sections = ld.sections(&switches, &slots);
        let layout = ld.layout();
        let declared = ld.catalog(&switches, &slots);
        let profiles = ld.profiles(&declared);
        ld.check_catalog_references(&declared.catalog, &profiles, &sections);
        let default_profile = ld.default_profile();
        let selection = ld.selection(&default_profile);
        let tokens = ld.tokens();
        let cases = ld.cases(&switches, &variables);
        let (snapshots, snapshots_span, write_root) = ld.snapshots();
        let subagents = ld.subagents(&declared, &sections);
        let lint = ld.lint();
        let commands = ld.commands(&declared.tools);
        let chat_templates = ld.chat_templates();
        let tool_docs = ld.tool_docs();
        let matrix = ld.matrix(default_profile);
        let own = analysis::Templates { sections: &mut sections, layout: &layout, tool_docs: &tool_docs };
        let reads = ld.analyze(own, &switches, &variables, &declared.catalog, declared.complete, &commands);
        let done = ld.finish()?;
        Ok(Project {
            name: raw.name,
            contract_version: raw.contract_version,
            defaults: matrix.defaults,
            transports: matrix.transports,
            transports_span: matrix.transports_span,
            providers: matrix.providers,
            selection,
            strict_tools: raw.strict_tools,
            gemini_schema: raw.gemini_schema,
            tool_docs,
            tokens,
            snapshots,
            write_root,
            snapshots_span,
            dynamic_templates: reads.dynamic_templates,
            layout_dynamic: reads.layout_dynamic,
            template_reads: reads.template_reads,
            cases,
            slots,
            subagents,
            commands,
            chat_templates,
            lint,
            switches,
            variables,
            layout,
            sections,
            catalog: declared.catalog,
            profiles,
            files: done.files,
            templates: done.templates,
            assembly: settings::build_assembly(&raw.assembly),
            root,
            manifest: done.manifest,
            warnings: done.warnings,
            fs: done.fs,
        })
    }
}

/// The project folder, its file system, and the manifest file in it, as a file and parsed.
fn read_manifest(
    manifest: &Path,
    overlay: std::sync::Arc<Overlay>,
) -> Result<(PathBuf, ProjectFs, SourceFile, RawManifest)> {
    let root = manifest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let fs = ProjectFs::new(&root, &root)?.with_overlay(overlay);
    let manifest_name =
        manifest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| MANIFEST.into());
    let mfile = fs.read(&manifest_name, None)?;
    let raw: RawManifest = crate::source::yaml::parse(&mfile)?;
    Ok((root, fs, mfile, raw))
}

#[cfg(test)]
mod tests;
