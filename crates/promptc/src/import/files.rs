//! The project files an import writes — a manifest and one catalog file per tool — and the
//! files an earlier import wrote into a folder, read back from its manifest.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::error::Result;
use crate::model::provider::Provider;
use crate::source::folder::Manifest;

use super::check::Tool;
use super::{yaml, ImportFormat, MARKER};
use crate::model::params::SchemaDialect;

/// The toolset every imported tool belongs to (the profile registers it).
const TOOLSET: &str = "imported";

/// The catalog file of tool `name`: flat beside the manifest (the folder writer replaces
/// one level), so a name never collides with `promptc.yaml`.
pub(super) fn file_name(name: &str) -> String {
    format!("tool.{name}.yaml")
}

/// The manifest's file name.
const MANIFEST: &str = "promptc.yaml";

/// What follows a catalog file's name in the manifest's tool list: the hash the next import
/// checks before it replaces or removes the file.
const HASH_COMMENT: &str = " # sha256 ";

/// The project's files: `promptc.yaml` and one catalog file per tool.
/// The manifest's settings an import takes from its input.
pub(super) struct Settings {
    /// `strict_tools`.
    pub(super) strict: bool,
    /// `gemini_schema: json_schema`.
    pub(super) gemini_json: bool,
    /// `providers`, the input's own first.
    pub(super) providers: Vec<Provider>,
}

pub(super) fn files(tools: &[Tool], format: ImportFormat, settings: Settings) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = tools.iter().map(|t| (file_name(&t.name), catalog_file(t))).collect();
    files.insert(MANIFEST.to_string(), manifest(tools, &files, format, &settings));
    files
}

/// The manifest: marked as the import's, one profile with every tool (each catalog file
/// listed with its hash, from `catalogs`), rendering for the provider the input came from.
fn manifest(tools: &[Tool], catalogs: &BTreeMap<String, String>, format: ImportFormat, settings: &Settings) -> String {
    let strict = settings.strict;
    let provider = format.provider();
    let mut m = String::new();
    let _ = writeln!(m, "{MARKER}");
    let _ = writeln!(
        m,
        "# Imported from {format} tool definitions. Running the import again into this folder replaces the files it\n\
         # wrote (this manifest and the tool.*.yaml files it lists, while they still match the hashes listed);\n\
         # it refuses to replace a file you edited. Remove this first line to keep the next import out."
    );
    let _ = writeln!(m, "promptc: 1");
    let _ = writeln!(m, "name: imported");
    let _ = writeln!(m, "contract_version: 1");
    let _ = writeln!(m, "# Descriptions are sent byte for byte, as the imported definitions had them.");
    let _ = writeln!(m, "descriptions: verbatim");
    let _ = writeln!(m, "strict_tools: {strict}");
    if settings.gemini_json {
        let _ = writeln!(m, "# Gemini is sent `parametersJsonSchema`, as the imported declarations had it.");
        let _ = writeln!(m, "gemini_schema: json_schema");
    }
    let _ = writeln!(m, "defaults:\n  profile: main\n  transport: native\n  provider: {provider}");
    // Every provider unless told otherwise: the tools render for each, and `check` says what
    // each one would change.
    let providers: Vec<&str> = settings.providers.iter().map(|p| p.as_str()).collect();
    let _ = writeln!(m, "transports: [native]\nproviders: [{}]", providers.join(", "));
    let _ = writeln!(m, "sections:\n  role:\n    text: \"Replace this section with the agent's system prompt.\\n\"");
    let _ = writeln!(m, "tools:");
    for t in tools {
        let name = file_name(&t.name);
        let hash = crate::hash::sha256_hex(catalogs.get(&name).map_or(&b""[..], |c| c.as_bytes()));
        let _ = writeln!(m, "  - {name}{HASH_COMMENT}{hash}");
    }
    let _ = writeln!(m, "profiles:\n  main:\n    description: Every imported tool.\n    sections: [role]");
    let _ = writeln!(m, "    toolsets: [{TOOLSET}]");
    m
}

/// One tool's catalog file (its fields and key order are for the provider of its entry's form).
fn catalog_file(t: &Tool) -> String {
    let format = t.form;
    let mut y = String::new();
    let _ = writeln!(y, "- name: {}", yaml::quoted(&t.name));
    let _ = writeln!(y, "  toolset: {TOOLSET}");
    if let Some(d) = &t.description {
        let _ = writeln!(y, "  description: {}", yaml::string(d, 4));
    }
    if let Some(p) = &t.params {
        let key = match p.dialect {
            SchemaDialect::JsonSchema => "input_schema",
            SchemaDialect::OpenApi => "gemini_parameters",
        };
        yaml::block(&mut y, key, &p.schema, 2);
    } else if matches!(format, ImportFormat::OpenAiChat | ImportFormat::Bare) {
        // A Chat Completions function sent without `parameters` renders back without them.
        let _ = writeln!(y, "  no_parameters: true");
    }
    if !t.fields.is_empty() {
        let mut by_provider = serde_json::Map::new();
        by_provider.insert(format.provider().as_str().to_string(), serde_json::Value::Object(t.fields.clone()));
        yaml::block(&mut y, "provider_fields", &serde_json::Value::Object(by_provider), 2);
    }
    if let Some(keys) = &t.key_order {
        let mut by_provider = serde_json::Map::new();
        by_provider.insert(format.provider().as_str().to_string(), serde_json::json!(keys));
        yaml::block(&mut y, "provider_key_order", &serde_json::Value::Object(by_provider), 2);
    }
    y
}

/// The files an earlier import wrote into `dir`, with their hashes, from its manifest's marker
/// and tool list; `None` without the marker, or when an entry has no hash (an older import's
/// manifest, which cannot prove what it wrote).
pub(super) fn owned(dir: &Path) -> Result<Option<Manifest>> {
    let p = dir.join(MANIFEST);
    let bytes = match crate::source::read_regular(&p, crate::source::MAX_OUTPUT_BYTES) {
        Ok(b) => b,
        Err(_) => return Ok(None),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    if lines.next() != Some(MARKER) {
        return Ok(None);
    }
    let mut files = BTreeMap::new();
    let mut in_tools = false;
    for l in lines {
        if l == "tools:" {
            in_tools = true;
        } else if in_tools {
            let Some(entry) = l.strip_prefix("  - ") else {
                in_tools = false;
                continue;
            };
            match entry.split_once(HASH_COMMENT) {
                Some((f, h))
                    if f.starts_with("tool.")
                        && f.ends_with(".yaml")
                        && !f.contains(['/', '\\'])
                        && crate::hash::is_sha256(h) =>
                {
                    files.insert(f.to_string(), h.to_string())
                }
                _ => return Ok(None),
            };
        }
    }
    Ok(Some(Manifest { name: MANIFEST.to_string(), files }))
}
