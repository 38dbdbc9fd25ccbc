//! `promptc init`: a small, working starter project that renders, reports, snapshots and
//! checks clean — a template to grow from.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::error::Result;

const MANIFEST: &str = r#"# yaml-language-server: $schema=promptc.schema.json
# A starter promptc project: `promptc render`, `promptc report`, `promptc snapshot`,
# `promptc check`. The JSON Schemas beside it (`promptc schema`) let editors complete keys.
promptc: 1
name: starter
contract_version: 1

# The roles the profiles below play, declared (no profile name means anything by itself):
# standard by default, lite for the models the selection rules pick out (o1-style ids,
# context windows under 64k), and lite checked as a subset of standard (P005).
defaults:
  profile: standard
selection:
  profile: lite
check:
  subsets:
    lite: standard

# Token counts are cached by content hash (the starter's .gitignore keeps the cache out of git).
tokens:
  cache: .promptc-cache/tokens.json

switches:
  web:
    description: The agent may search the web.
    default: false

variables:
  cwd:
    description: The workspace root.
    default: /home/user/project
    dynamic: true

sections:
  role:
    template: sections/role.md.j2
  tool_docs:
    generate: tool_docs
  rules:
    template: sections/rules.md.j2
  environment:
    text: "Working directory: {{ cwd }}"

tools:
  - tools/tools.yaml

profiles:
  standard:
    description: The full contract.
    sections: [role, tool_docs, rules, environment]
    toolsets: [files, web]
  lite:
    description: A compact contract for small models.
    sections: [role, tool_docs, environment]
    tools: [read_file, write_file]
    exclude: [web_search]
"#;

const ROLE: &str = "You are a careful coding assistant. You work through tools, read before you change anything, and \
    keep changes small.\n";

// The starter's rules template; a raw string keeps its quotes, so its first line stays long.
const RULES: &str = r#"- Read a file before you change it{% if "write_file" in tool_names %}, and write whole files with `write_file`{% endif %}.
{% if "web_search" in tool_names %}
- Search the web with `web_search` for documentation you do not have locally.
{% endif %}
{% if not switches.web %}
- You have no web access: say so when a task needs it.
{% endif %}
"#;

const TOOLS: &str = r#"# yaml-language-server: $schema=../tools.schema.json
- name: read_file
  toolset: files
  description: Read a file of the workspace and return its text.
  parameters:
    path:
      type: string
      required: true
      description: Path relative to the workspace root.

- name: write_file
  toolset: files
  description: Write a whole file, creating it if needed.
  parameters:
    path:
      type: string
      required: true
      description: Path relative to the workspace root.
    content:
      type: string
      required: true
      description: The complete new content of the file.

- name: web_search
  toolset: web
  when: web
  description: Search the web and return the top results.
  parameters:
    query:
      type: string
      required: true
      description: What to search for.
"#;

/// Keeps the token cache out of version control (`report`, `check` and `diff` write it).
const GITIGNORE: &str = "# promptc's token cache (see `tokens.cache` in promptc.yaml)\n.promptc-cache/\n";

/// The starter files, by path relative to the project folder.
pub const FILES: [(&str, &str); 5] = [
    ("promptc.yaml", MANIFEST),
    (".gitignore", GITIGNORE),
    ("sections/role.md.j2", ROLE),
    ("sections/rules.md.j2", RULES),
    ("tools/tools.yaml", TOOLS),
];

/// The project name `init` writes: the folder's own name (`promptc init my-agent` names the
/// project `my-agent`; `promptc init` in `~/work/helper` names it `helper`), or `starter` when the
/// folder has no name (`/`).
pub fn project_name(dir: &Path) -> String {
    let last = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    // `.` and `..` have no file name of their own; the resolved path does (the folder may not
    // exist yet, so the lexical absolute path is the fallback).
    last(dir)
        .filter(|n| n != "." && n != "..")
        .or_else(|| std::fs::canonicalize(dir).ok().as_deref().and_then(last))
        .or_else(|| std::path::absolute(dir).ok().as_deref().and_then(last))
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "starter".into())
}

/// `name` as a YAML scalar: plain when it is a simple word, else double-quoted (a JSON string is a
/// valid YAML double-quoted scalar), so a folder named `yes`, `1.0` or `a: b` stays a string.
fn yaml_scalar(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "y" | "n"
        );
    if plain {
        name.to_string()
    } else {
        // ok: serialising a `&str` to JSON cannot fail.
        serde_json::to_string(name).expect("a string serialises")
    }
}

/// Write the starter project into `dir`; refuses (and writes nothing) if any file exists.
pub fn write_starter(dir: &Path) -> Result<Vec<PathBuf>> {
    let existing: Vec<String> = FILES
        .iter()
        .map(|(p, _)| *p)
        // An existing .gitignore is extended, not refused (init often runs inside a repository).
        .filter(|p| *p != ".gitignore")
        .chain(["promptc.schema.json", "tools.schema.json"])
        .map(|p| dir.join(p))
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() {
        return Err(Diagnostic::error(format!("refusing to overwrite {}", existing.join(", ")))
            .with_help("run `promptc init` in an empty folder, or pass a new folder: `promptc init my-agent`")
            .into_error(crate::error::ErrorKind::Usage));
    }
    let schemas = [
        ("promptc.schema.json", crate::format::schema::manifest()),
        ("tools.schema.json", crate::format::schema::tools()),
    ];
    let mut written = Vec::new();
    for (rel, text) in FILES.iter().map(|(p, t)| (*p, t.to_string())).chain(schemas) {
        let p = dir.join(rel);
        let text = if rel == "promptc.yaml" {
            text.replacen("\nname: starter\n", &format!("\nname: {}\n", yaml_scalar(&project_name(dir))), 1)
        } else if rel == ".gitignore" {
            match std::fs::read_to_string(&p) {
                Ok(old) if old.lines().any(|l| l.trim() == ".promptc-cache/" || l.trim() == ".promptc-cache") => {
                    continue
                }
                Ok(old) if old.is_empty() || old.ends_with('\n') => format!("{old}{text}"),
                Ok(old) => format!("{old}\n{text}"),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => text,
                Err(e) => return Err(crate::error::Error::io("read", &p, &e)),
            }
        } else {
            text
        };
        crate::source::atomic::write(&p, text.as_bytes())?;
        written.push(p);
    }
    Ok(written)
}
