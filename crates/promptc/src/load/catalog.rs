//! `tools:`: reading the tool catalog files and building every tool they declare.

use std::collections::BTreeMap;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::format::tool::RawTool;
use crate::model::catalog::Catalog;
use crate::model::section::Slot;
use crate::model::Switch;
use crate::source::SourceFile;

use super::checker::Checker;
use super::loader::Loader;
use super::tools::{build_tool, ToolEnv};

/// The catalog, and every name declared in it, valid or not, for reference checks.
pub(super) struct Declared {
    pub(super) catalog: Catalog,
    /// Every catalog file was read and parsed. A file that was not hides its tools: reference
    /// checks against the catalog would only add false "unknown tool" errors.
    pub(super) complete: bool,
    /// Every declared tool name.
    pub(super) tools: Vec<String>,
    /// Every declared toolset name.
    pub(super) toolsets: Vec<String>,
}

impl Loader<'_> {
    /// Every tool of every catalog file.
    pub(super) fn catalog(&mut self, switches: &IndexMap<String, Switch>, slots: &IndexMap<String, Slot>) -> Declared {
        let (files, complete) = self.read_tool_files();
        let profiles = self.profile_names.clone();
        let descriptions = self.raw.descriptions;
        let env = ToolEnv { switches, profiles: &profiles, slots, descriptions };
        let mut declared =
            Declared { catalog: Catalog::new(Vec::new()), complete, tools: Vec::new(), toolsets: Vec::new() };
        let mut tools = Vec::new();
        // Where each tool name was first declared (`file:line:col`), to report duplicates.
        let mut sites: BTreeMap<String, String> = BTreeMap::new();
        for f in &files {
            let Some(raw_tools) = self.parse_tools(f) else {
                declared.complete = false;
                continue;
            };
            let mut ck = Checker::new(f, &mut self.diags);
            for rt in raw_tools.iter() {
                declared.tools.push(rt.name.value.clone());
                if !declared.toolsets.contains(&rt.toolset.value) {
                    declared.toolsets.push(rt.toolset.value.clone());
                }
                tools.extend(build_tool(&mut ck, rt, &env, &mut sites, &mut self.templates));
            }
        }
        if let Some(memo) = self.memo {
            memo.retain(&files.iter().map(|f| f.rel.as_str()).collect::<Vec<_>>());
        }
        for f in files {
            self.files.insert(f.rel.clone(), f);
        }
        declared.catalog = Catalog::new(tools);
        declared
    }

    /// The tools of catalog file `f` (from the memo when it parsed this text before); `None`
    /// when it does not parse, with the error added.
    fn parse_tools(&mut self, f: &SourceFile) -> Option<Arc<Vec<RawTool>>> {
        if let Some(parsed) = self.memo.and_then(|m| m.tools(&f.rel, &f.text)) {
            return Some(parsed);
        }
        match crate::source::yaml::parse::<Vec<RawTool>>(f) {
            Ok(t) => {
                let parsed = Arc::new(t);
                if let Some(memo) = self.memo {
                    memo.keep(&f.rel, &f.text, Arc::clone(&parsed));
                }
                Some(parsed)
            }
            Err(e) => {
                self.diags.absorb::<()>(Err(e));
                None
            }
        }
    }

    /// The catalog files that can be read, and whether every one could.
    fn read_tool_files(&mut self) -> (Vec<SourceFile>, bool) {
        let raw = self.raw;
        let mut complete = true;
        let mut files = Vec::new();
        for path in &raw.tools {
            let ck = Checker::new(self.manifest, &mut self.diags);
            let read = self.fs.read(&path.value, Some(&|| ck.label(&path.referenced)));
            match read {
                Ok(f) => files.push(f),
                Err(e) => {
                    complete = false;
                    self.diags.absorb::<()>(Err(e));
                }
            }
        }
        (files, complete)
    }
}
