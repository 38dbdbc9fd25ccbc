//! The project files an import writes — a manifest and one catalog file per tool — and the
//! files an earlier import wrote into a folder, read back from its manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::error::Result;

use super::check::Tool;
use super::{yaml, ImportFormat, MARKER};

/// The toolset every imported tool belongs to (the profile registers it).
const TOOLSET: &str = "imported";

/// The catalog file of tool `name`: flat beside the manifest (the folder writer replaces
/// one level), so a name never collides with `promptc.yaml`.
pub(super) fn file_name(name: &str) -> String {
    format!("tool.{name}.yaml")
}

/// The project's files: `promptc.yaml` and one catalog file per tool.
pub(super) fn files(tools: &[Tool], format: ImportFormat, strict: bool) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    files.insert("promptc.yaml".to_string(), manifest(tools, format, strict));
    for t in tools {
        files.insert(file_name(&t.name), catalog_file(t));
    }
    files
}

/// The manifest: marked as the import's, one profile with every tool, rendering for the
/// provider the input came from.
fn manifest(tools: &[Tool], format: ImportFormat, strict: bool) -> String {
    let provider = format.provider();
    let mut m = String::new();
    let _ = writeln!(m, "{MARKER}");
    let _ = writeln!(
        m,
        "# Imported from {format} tool definitions. Running the import again into this folder replaces the files it\n\
         # wrote (this manifest and the tool.*.yaml files it lists); edit them freely, or remove this first line to\n\
         # keep the next import out."
    );
    let _ = writeln!(m, "promptc: 1");
    let _ = writeln!(m, "name: imported");
    let _ = writeln!(m, "contract_version: 1");
    let _ = writeln!(m, "# Descriptions are sent byte for byte, as the imported definitions had them.");
    let _ = writeln!(m, "descriptions: verbatim");
    let _ = writeln!(m, "strict_tools: {strict}");
    let _ = writeln!(m, "defaults:\n  profile: main\n  transport: native\n  provider: {provider}");
    let _ = writeln!(m, "transports: [native]\nproviders: [{provider}]");
    let _ = writeln!(m, "sections:\n  role:\n    text: \"Replace this section with the agent's system prompt.\\n\"");
    let _ = writeln!(m, "tools:");
    for t in tools {
        let _ = writeln!(m, "  - {}", file_name(&t.name));
    }
    let _ = writeln!(m, "profiles:\n  main:\n    description: Every imported tool.\n    sections: [role]");
    let _ = writeln!(m, "    toolsets: [{TOOLSET}]");
    m
}

/// One tool's catalog file.
fn catalog_file(t: &Tool) -> String {
    let mut y = String::new();
    let _ = writeln!(y, "- name: {}", yaml::quoted(&t.name));
    let _ = writeln!(y, "  toolset: {TOOLSET}");
    let _ = writeln!(y, "  description: {}", yaml::quoted(&t.description));
    yaml::object_keys(&mut y, &t.params, 2);
    if !t.params.properties.is_empty() {
        let _ = writeln!(y, "  parameters:");
        yaml::properties(&mut y, &t.params.properties, 4);
    }
    y
}

/// The files an earlier import wrote into `dir`, from its manifest's marker and tool list.
pub(super) fn owned(dir: &Path) -> Result<Option<BTreeSet<String>>> {
    let p = dir.join("promptc.yaml");
    let bytes = match crate::source::read_regular(&p, crate::source::MAX_OUTPUT_BYTES) {
        Ok(b) => b,
        Err(_) => return Ok(None),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    if lines.next() != Some(MARKER) {
        return Ok(None);
    }
    let mut out = BTreeSet::from(["promptc.yaml".to_string()]);
    let mut in_tools = false;
    for l in lines {
        if l == "tools:" {
            in_tools = true;
        } else if in_tools {
            match l.strip_prefix("  - ") {
                Some(f) if f.starts_with("tool.") && f.ends_with(".yaml") && !f.contains(['/', '\\']) => {
                    out.insert(f.to_string());
                }
                _ => in_tools = false,
            }
        }
    }
    Ok(Some(out))
}
