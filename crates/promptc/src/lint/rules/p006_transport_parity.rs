//! P006 transport-parity: an xml or json cell that does not describe every tool the native cell
//! sends.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::transport::Transport;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P006,
    name: "transport-parity",
    default: Level::Deny,
    summary: "the XML or JSON cell does not describe the tools the native cell sends",
    explain: "For a given profile, native, xml and json must describe the same tools and parameters. Native sends \
        them as JSON beside the prompt; xml needs a `generate: tool_docs` section and json a `generate: \
        action_schema` section in the profile, active in that cell, or the model never learns the tools \
        exist. With a project's own `tool_docs.tool` template, each tool's text must name the tool and every \
        parameter it has in that cell.\n\nFix: add the generated section to the profile's `sections:`, or make the \
        template show every parameter (`{% for p in tool.parameters %}`).",
};

/// Whether `text` has `name` as a whole word (not inside a longer identifier).
fn names_word(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident) && !text[i + name.len()..].chars().next().is_some_and(ident)
    })
}

/// Which of `needles` occur in `haystack`, in one pass over it, not once per needle (which made
/// `check` quadratic in tools). Generated docs hold the tools' texts in order, so the needles
/// are first looked for in order, each from where the last one ended; from the first that is
/// not found there, the rest go into one Aho-Corasick automaton over the whole haystack (built
/// only then: on 10,000 tools it costs more than the search). Equal needles share a pattern.
fn occurring(haystack: &str, needles: &[&str]) -> Vec<bool> {
    let mut unique: Vec<&str> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let ids: Vec<usize> = needles
        .iter()
        .map(|n| {
            *index.entry(*n).or_insert_with(|| {
                unique.push(n);
                unique.len() - 1
            })
        })
        .collect();
    let mut found = vec![false; unique.len()];
    let mut from = 0;
    let in_order = unique.iter().map_while(|n| haystack[from..].find(n).map(|at| from += at + n.len())).count();
    found[..in_order].fill(true);
    let rest = &unique[in_order..];
    if !rest.is_empty() {
        match aho_corasick::AhoCorasick::new(rest) {
            Ok(finder) => {
                for m in finder.find_overlapping_iter(haystack) {
                    found[in_order + m.pattern().as_usize()] = true;
                }
            }
            // An automaton too large to build: each needle on its own.
            Err(_) => {
                for (f, n) in found[in_order..].iter_mut().zip(rest) {
                    *f = haystack.contains(n);
                }
            }
        }
    }
    ids.into_iter().map(|i| found[i]).collect()
}

/// Check the generated tool docs and action schema of every non-native cell.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut reported = BTreeSet::new();
    for v in views.iter().filter(|v| v.cell.transport != Transport::Native && !v.compiled.tools.is_empty()) {
        let c = &v.compiled;
        let generated = |g: &str| {
            c.sections
                .iter()
                .filter(|s| s.origin == format!("generated:{g}"))
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        // Each tool not fully described, as it is named in the message.
        let missing: Vec<String> = match v.cell.transport {
            // Each tool's documentation (built-in or the project's `tool_docs.tool`) must be in the
            // prompt, name the tool and every parameter the native cell sends.
            Transport::Xml => {
                let docs = generated("tool_docs");
                let texts: Vec<&str> = c.tool_texts.iter().map(|tt| tt.text.as_str()).collect();
                let in_docs = occurring(&docs, &texts);
                c.tools
                    .iter()
                    .zip(&c.tool_texts)
                    .zip(in_docs)
                    .filter_map(|((t, tt), in_docs)| {
                        let text = &tt.text;
                        if text.is_empty() || !in_docs || !names_word(text, &t.name) {
                            return Some(format!("`{}`", t.name));
                        }
                        let p = t.params.iter().find(|p| !names_word(text, &p.name))?;
                        Some(format!("`{}`: its parameter `{}`", t.name, p.name))
                    })
                    .collect()
            }
            Transport::Json => {
                let schema = generated("action_schema");
                let quoted: Vec<String> = c.tools.iter().map(|t| format!("\"{}\"", t.name)).collect();
                let named = occurring(&schema, &quoted.iter().map(String::as_str).collect::<Vec<_>>());
                c.tools.iter().zip(named).filter(|(_, named)| !named).map(|(t, _)| format!("`{}`", t.name)).collect()
            }
            Transport::Native => Vec::new(),
        };
        if missing.is_empty() {
            continue;
        }
        let section =
            if v.cell.transport == Transport::Xml { "generate: tool_docs" } else { "generate: action_schema" };
        if reported.insert((v.cell.profile.clone(), v.cell.transport, v.cell.subagent.clone())) {
            out.push(
                finding(
                    RuleCode::P006,
                    format!(
                        "cell `{}` does not describe {} of its {} tools (e.g. {}); the native cell sends them all",
                        v.cell.stem(),
                        missing.len(),
                        c.tools.len(),
                        missing[0]
                    ),
                )
                .with_label(v.profile_label(project))
                .with_help(format!("add a section with `{section}` to the profile's sections, active in this cell")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{names_word, occurring};

    #[test]
    fn occurring_finds_each_needle_once_however_often_it_is_given() {
        let docs = "## read_file\nReads a file.\n## write_file\nWrites a file.\n";
        let needles = ["## read_file\nReads a file.", "## list_dir", "## read_file\nReads a file.", "file.\n##", ""];
        assert_eq!(occurring(docs, &needles), [true, false, true, true, true]);
        assert_eq!(occurring("", &["x", ""]), [false, true]);
        assert_eq!(occurring(docs, &[]), Vec::<bool>::new());
    }

    #[test]
    fn occurring_agrees_with_contains_on_overlapping_needles() {
        let hay = "\"a\" \"ab\" \"abc\" abcd";
        let needles = ["\"a\"", "\"ab\"", "\"abc\"", "\"abcd\"", "abc", "bcd", "cd a"];
        let expect: Vec<bool> = needles.iter().map(|n| hay.contains(n)).collect();
        assert_eq!(occurring(hay, &needles), expect);
    }

    /// In order, out of order, missing, repeated, overlapping and empty needles: always what
    /// `contains` says, whichever of the two searches finds them.
    #[test]
    fn occurring_agrees_with_contains_in_and_out_of_order() {
        let hay = "## a\nA.\n## b\nB.\n## c\nC.\n";
        let pool = ["## a\nA.", "## b\nB.", "## c\nC.", "## d", "", "B.\n## c", "## a", "\n"];
        for i in 0..pool.len() {
            for j in 0..pool.len() {
                for k in 0..pool.len() {
                    let needles = [pool[i], pool[j], pool[k]];
                    let expect: Vec<bool> = needles.iter().map(|n| hay.contains(n)).collect();
                    assert_eq!(occurring(hay, &needles), expect, "{needles:?}");
                }
            }
        }
    }

    #[test]
    fn names_word_wants_whole_identifiers() {
        assert!(names_word("call read_file(path)", "read_file"));
        assert!(!names_word("call read_files(path)", "read_file"));
        assert!(!names_word("call xread_file", "read_file"));
    }
}
