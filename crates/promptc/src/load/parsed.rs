//! Tool files parsed by earlier loads, kept for the next: a long-lived caller (`promptc lsp`)
//! loads the project again after every keystroke, and parsing a thousand tools' YAML is most
//! of a load. A file's parse is reused only while its text is byte for byte what was parsed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::format::tool::RawTool;

/// The parsed tool files of the last load, by project-relative path, each with the text it
/// was parsed from. Keep one across loads of one project and pass it to
/// [`load_overlaid`](crate::load_overlaid); files the last load did not read are dropped.
#[derive(Debug, Default)]
pub struct LoadMemo {
    tools: Mutex<HashMap<String, Parsed>>,
}

/// One tool file's parse and the text it was parsed from.
#[derive(Debug)]
struct Parsed {
    text: String,
    tools: Arc<Vec<RawTool>>,
}

impl LoadMemo {
    /// An empty memo.
    pub fn new() -> LoadMemo {
        LoadMemo::default()
    }

    /// The tools parsed from `text` at `rel`, if that is the text parsed last time.
    pub(super) fn tools(&self, rel: &str, text: &str) -> Option<Arc<Vec<RawTool>>> {
        let tools = self.tools.lock().ok()?;
        tools.get(rel).filter(|p| p.text == text).map(|p| Arc::clone(&p.tools))
    }

    /// Remember the tools parsed from `text` at `rel`.
    pub(super) fn keep(&self, rel: &str, text: &str, parsed: Arc<Vec<RawTool>>) {
        if let Ok(mut tools) = self.tools.lock() {
            tools.insert(rel.to_string(), Parsed { text: text.to_string(), tools: parsed });
        }
    }

    /// Forget every file but `read` (the files of the load that just ended).
    pub(super) fn retain(&self, read: &[&str]) {
        if let Ok(mut tools) = self.tools.lock() {
            tools.retain(|rel, _| read.contains(&rel.as_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::LoadMemo;
    use crate::model::Project;
    use crate::source::Overlay;

    #[test]
    fn a_memo_serves_unchanged_tool_files_and_never_a_stale_parse() {
        let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("profiles/promptc.yaml");
        let memo = LoadMemo::new();
        let first = Project::load_overlaid(&manifest, Arc::default(), Some(&memo)).unwrap();
        let kept = memo.tools.lock().unwrap().len();
        assert_eq!(kept, 10, "the example's ten tool files are remembered");
        let parsed = memo.tools("tools/files.yaml", &first.files["tools/files.yaml"].text).unwrap();
        // An edited tool file is parsed again; the others are the same parse, not a new one.
        let mut overlay = Overlay::new();
        let edited =
            first.files["tools/files.yaml"].text.replacen("Read the contents of a file", "Read what a file holds", 1);
        overlay.insert("tools/files.yaml", edited.clone());
        let second = Project::load_overlaid(&manifest, Arc::new(overlay), Some(&memo)).unwrap();
        let description = &second.catalog.get("read_file").unwrap().description;
        assert!(description.starts_with("Read what a file holds"), "the edit is seen: {description}");
        assert!(!Arc::ptr_eq(&parsed, &memo.tools("tools/files.yaml", &edited).unwrap()), "parsed again");
        let shell = &first.files["tools/shell.yaml"].text;
        let before = memo.tools("tools/shell.yaml", shell).unwrap();
        Project::load_overlaid(&manifest, Arc::default(), Some(&memo)).unwrap();
        assert!(
            Arc::ptr_eq(&before, &memo.tools("tools/shell.yaml", shell).unwrap()),
            "an unchanged file's parse kept"
        );
    }
}
