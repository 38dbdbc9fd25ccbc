//! The loader's one context: the manifest (raw and as a file), the project's file system, the
//! diagnostics collected so far, and the templates and files read so far. Every step of
//! `Project::load` is a method of [`Loader`], in the file of the manifest section it loads.

use std::collections::BTreeMap;

use crate::error::{Diagnostics, ErrorKind, Result};
use crate::format::manifest::RawManifest;
use crate::format::S;
use crate::source::{ProjectFs, SourceFile};
use promptc_template::Templates;

use super::checker::Checker;
use super::settings::{build_limits, build_template_path, build_template_settings};

/// What every loading step reads and adds to.
pub(super) struct Loader<'a> {
    /// The manifest as written.
    pub(super) raw: &'a RawManifest,
    /// The manifest file, for locations.
    pub(super) manifest: &'a SourceFile,
    /// The project's files.
    pub(super) fs: ProjectFs,
    /// Every problem found so far.
    pub(super) diags: Diagnostics,
    /// Every template compiled so far.
    pub(super) templates: Templates,
    /// Every file read so far (the manifest joins them at the end).
    pub(super) files: BTreeMap<String, SourceFile>,
    /// The declared profile names, valid or not: sections, tools and overrides refer to them.
    pub(super) profile_names: Vec<&'a str>,
    /// The declared section ids, valid or not: an invalid section has its own error already.
    pub(super) section_ids: Vec<&'a str>,
    /// Tool files parsed by earlier loads (a long-lived caller's).
    pub(super) memo: Option<&'a super::parsed::LoadMemo>,
}

/// What the loader hands over once every step has run without an error.
pub(super) struct Done {
    pub(super) fs: ProjectFs,
    pub(super) templates: Templates,
    pub(super) files: BTreeMap<String, SourceFile>,
    pub(super) manifest: String,
    pub(super) warnings: Vec<crate::diagnostic::Diagnostic>,
}

impl<'a> Loader<'a> {
    /// A loader for `raw`, read from `manifest`; `limits:` and `templates:` are checked first,
    /// since every template is compiled with them.
    pub(super) fn new(raw: &'a RawManifest, manifest: &'a SourceFile, fs: ProjectFs) -> Self {
        let mut diags = Diagnostics::new(ErrorKind::Project);
        let mut ck = Checker::new(manifest, &mut diags);
        let limits = build_limits(&mut ck, &raw.limits);
        let template_settings = build_template_settings(&mut ck, &raw.templates);
        let path = build_template_path(&mut ck, &fs, &raw.templates);
        let templates = Templates::new(fs.clone(), limits, template_settings, path);
        Loader {
            raw,
            manifest,
            fs,
            diags,
            templates,
            files: BTreeMap::new(),
            profile_names: raw.profiles.keys().map(|k| k.value.as_str()).collect(),
            section_ids: raw.sections.keys().map(|k| k.value.as_str()).collect(),
            memo: None,
        }
    }

    /// A checker of the manifest.
    pub(super) fn ck(&mut self) -> Checker<'_> {
        Checker::new(self.manifest, &mut self.diags)
    }

    /// Read and compile the template file named at `path` in the manifest.
    pub(super) fn add_file(&mut self, path: &S) -> Option<String> {
        let mut ck = Checker::new(self.manifest, &mut self.diags);
        super::templates::add_file(&mut ck, &self.fs, &mut self.templates, &mut self.files, path)
    }

    /// Every problem found, or what the project is made of.
    pub(super) fn finish(mut self) -> Result<Done> {
        let manifest = self.manifest.rel.clone();
        self.files.insert(manifest.clone(), self.manifest.clone());
        let warnings = self.diags.warnings();
        self.diags.finish(())?;
        Ok(Done { fs: self.fs, templates: self.templates, files: self.files, manifest, warnings })
    }
}
