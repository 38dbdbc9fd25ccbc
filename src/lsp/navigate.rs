//! Go to definition and find references: a name goes to its declaration (a tool to its
//! `name:` in its tool file, a switch, variable, section, profile, case or slot to its key in
//! the manifest), a file name to the file; references are every place a project file names
//! the declaration.

use lsp_types::{Location, Range};

use super::lookup::{mentions, target_at, Target};
use super::state::State;
use super::text::range;

/// Where the name at byte `at` of file `rel` is declared.
pub(crate) fn definition(state: &State, rel: &str, at: usize) -> Option<Location> {
    let analysis = state.analysis.as_ref()?;
    let text = state.text(rel)?;
    match target_at(analysis, rel, &text, at)?.0 {
        Target::Symbol(i) => {
            let sym = &analysis.symbols[i];
            // On a section's own key, its text is the more useful place to go.
            if sym.file == rel && sym.start <= at && at <= sym.end {
                if let Some(file) = &sym.text_file {
                    return Some(Location::new(state.uri(file), Range::default()));
                }
            }
            let decl = state.text(&sym.file)?;
            Some(Location::new(state.uri(&sym.file), range(&decl, sym.start, sym.end, state.enc)))
        }
        Target::File(file) => Some(Location::new(state.uri(&file), Range::default())),
    }
}

/// Every place the project's files name what byte `at` of file `rel` names (its declaration
/// included when `declaration`), in file order.
pub(crate) fn references(state: &State, rel: &str, at: usize, declaration: bool) -> Vec<Location> {
    let Some(analysis) = state.analysis.as_ref() else { return Vec::new() };
    let Some(text) = state.text(rel) else { return Vec::new() };
    let Some((Target::Symbol(i), _)) = target_at(analysis, rel, &text, at) else { return Vec::new() };
    let sym = &analysis.symbols[i];
    let mut out = Vec::new();
    for file in analysis.project.file_paths() {
        let Some(body) = state.text(file) else { continue };
        for w in mentions(analysis, file, &body, i) {
            let is_decl = file == sym.file && w.start == sym.start;
            if declaration || !is_decl {
                out.push(Location::new(state.uri(file), range(&body, w.start, w.end, state.enc)));
            }
        }
    }
    out
}
