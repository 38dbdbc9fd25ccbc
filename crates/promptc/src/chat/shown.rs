//! What a chat template shows the model of a cell, found without trusting the template: where
//! its tools block is (the lines the text with tools has that the text without them lacks),
//! where another session's text first differs (the cell compiled with another session's
//! values, on another date), and the warnings when a template leaves out the system prompt or
//! every tool — so a chat cell's rows are a partition of its text and say what the model
//! never sees.

use std::ops::Range;

use similar::{Algorithm, DiffOp};

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::model::Project;

use super::{ChatOptions, ChatTemplate, ChatText};

/// Where a chat text holds its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolsShown {
    /// The cell has no tools.
    NoTools,
    /// The text's ranges the tools put there (empty: the template shows none of them).
    Ranges(Vec<Range<usize>>),
    /// Unknown: the template renders the cell only with its tools (it fails without them, as
    /// it does in transformers); the tools' text is counted in the template's row.
    Unknown(String),
}

/// Where `chat` (the text of `compiled` through `template` with `options`, dated) holds the
/// cell's tools: the text is rendered again without them — with `tools` undefined, as a caller
/// without tools passes it, else with an empty list — and the lines only the text with tools has
/// are theirs. A template that renders neither way does not fail the count: the share is
/// unknown, and said so.
pub fn tools_shown(
    project: &Project,
    compiled: &Compiled,
    template: &ChatTemplate,
    options: &ChatOptions,
    chat: &ChatText,
) -> ToolsShown {
    if compiled.tools.is_empty() {
        return ToolsShown::NoTools;
    }
    let conversation = super::conversation(compiled);
    let cap = project.templates.limits().prompt_bytes;
    let none = super::render(project, template, &conversation, None, options, cap);
    let without = none.or_else(|e| {
        let empty = serde_json::Value::Array(Vec::new());
        super::render(project, template, &conversation, Some(&empty), options, cap).map_err(|_| e)
    });
    match without {
        Ok(without) => ToolsShown::Ranges(added_lines(&without, &chat.text)),
        Err(e) => ToolsShown::Unknown(e.diagnostics().first().map(|d| d.message.clone()).unwrap_or_default()),
    }
}

/// The byte ranges of `with`'s lines that `without` lacks (added or rewritten lines), merged.
fn added_lines(without: &str, with: &str) -> Vec<Range<usize>> {
    let starts: Vec<usize> =
        std::iter::once(0).chain(with.match_indices('\n').map(|(i, _)| i + 1)).filter(|&i| i <= with.len()).collect();
    let line_start = |i: usize| starts.get(i).copied().unwrap_or(with.len());
    let diff = similar::TextDiff::configure().algorithm(Algorithm::Myers).diff_lines(without, with);
    let mut out: Vec<Range<usize>> = Vec::new();
    for op in diff.ops() {
        let new = match *op {
            DiffOp::Insert { new_index, new_len, .. } | DiffOp::Replace { new_index, new_len, .. } => {
                new_index..new_index + new_len
            }
            DiffOp::Equal { .. } | DiffOp::Delete { .. } => continue,
        };
        let r = line_start(new.start)..line_start(new.end);
        match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ if r.is_empty() => {}
            _ => out.push(r),
        }
    }
    out
}

/// Where another session's text through the same template first differs from `chat`: the cell
/// compiled with another session's values and rendered on another date (`strftime_now`). `Err`
/// says why it could not be measured.
pub fn session_cut(
    project: &Project,
    compiled: &Compiled,
    template: &ChatTemplate,
    options: &ChatOptions,
    chat: &ChatText,
) -> Result<Option<usize>, String> {
    let other = crate::compile::other_session(project, compiled)
        .ok_or_else(|| "the cell could not be compiled with another session's values".to_string())?;
    let date = options.date.unwrap_or_else(super::ChatDate::now).other_session();
    let options = ChatOptions { date: Some(date), ..options.clone() };
    let text = super::apply(project, &other, template, &options)
        .map_err(|e| e.diagnostics().first().map(|d| d.message.clone()).unwrap_or_default())?;
    Ok(crate::compile::session::first_difference(&chat.text, &text.text))
}

/// The warnings for what `template` (named `name`) leaves out of cell `compiled`'s text: the
/// system prompt, or every tool.
pub fn dropped(name: &str, compiled: &Compiled, chat: &ChatText, tools: &ToolsShown) -> Vec<Diagnostic> {
    let stem = compiled.cell().stem();
    let mut out = Vec::new();
    let prompt = compiled.prompt().trim_end_matches('\n');
    if !prompt.is_empty() && !chat.prompt_found {
        let shown = chat.parts.iter().filter(|p| matches!(p.kind, super::ChatPartKind::Section(_))).count();
        let sections = compiled.placed_sections().len();
        let what = if shown == 0 {
            format!(
                "drops the system prompt of cell `{stem}`: the model sees none of its {}",
                count(sections, "section")
            )
        } else {
            format!(
                "does not show the system prompt of cell `{stem}` as written: {shown} of its {} found",
                count(sections, "section")
            )
        };
        out.push(
            Diagnostic::warning(format!("chat template `{name}` {what}"))
                .with_note("their rows count nothing: the tokens the text has are the template's")
                .with_help("give this model the rules another way (a user turn), or use a template that keeps the system message"),
        );
    }
    if let ToolsShown::Ranges(r) = tools {
        if r.is_empty() {
            out.push(
                Diagnostic::warning(format!(
                    "chat template `{name}` shows the model none of the {} of cell `{stem}`",
                    count(compiled.tools.len(), "tool")
                ))
                .with_note("the text is the same with and without them")
                .with_help("check the template reads `tools` for this conversation (some only do with a user turn)"),
            );
        }
    }
    if let ToolsShown::Unknown(why) = tools {
        out.push(
            Diagnostic::warning(format!(
                "cannot tell the tools' share of cell `{stem}` through chat template `{name}`: it fails without them ({why})"
            ))
            .with_note("their tokens are counted in the template's row"),
        );
    }
    out
}

/// `n` things, in words: `1 section`, `3 sections`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_are_the_lines_only_the_text_with_tools_has() {
        let without = "<s>system\nYou help.\n<user>hi\n";
        let with = "<s>system\nYou help.\nTools: [f]\nCall them so.\n<user>hi\n";
        let r = added_lines(without, with);
        assert_eq!(r.iter().map(|r| &with[r.clone()]).collect::<Vec<_>>(), ["Tools: [f]\nCall them so.\n"]);
        // A rewritten line is the tools' too; the same text, none.
        let with = "<s>system with tools\nYou help.\n<user>hi\n";
        assert_eq!(added_lines(without, with), vec![0..21]);
        assert!(added_lines(without, without).is_empty());
        // The last line without a line feed.
        assert_eq!(added_lines("a\n", "a\nb"), vec![2..3]);
    }
}
