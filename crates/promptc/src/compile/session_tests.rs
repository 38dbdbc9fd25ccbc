//! The measurement and the analysis agree, on every cell of the example and of every good
//! fixture: every part another session's compile changes (a section, the layout's own text, a
//! harness message, a tool's text) is one the analysis of what templates read names as
//! dynamic, with a reason — so every "why" the reports print is there when a figure moves —
//! and every part the analysis names as dynamic does change when compiled against another
//! session, unless its template reads the value without printing it (a condition), which
//! the test lists by name so a new one is a decision, not a drift.

use std::path::{Path, PathBuf};

use crate::model::Project;
use crate::resolve::session::Variation;

use super::Compiled;

/// The example project and every good fixture that is a project: what the property tests of
/// this layer and the later ones run over.
pub(crate) fn example_and_fixtures() -> Vec<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut dirs = vec![root.join("profiles")];
    let mut fixtures: Vec<PathBuf> =
        std::fs::read_dir(root.join("fixtures/good")).unwrap().map(|e| e.unwrap().path()).collect();
    fixtures.sort();
    dirs.extend(fixtures.into_iter().filter(|d| d.join("promptc.yaml").is_file()));
    dirs
}

/// What the two disagree on in one cell: (measured but not analysed, analysed but not measured).
fn disagreements(project: &Project, c: &Compiled) -> (Vec<String>, Vec<String>) {
    let stem = c.cell().stem();
    let (mut unexplained, mut unchanged) = (Vec::new(), Vec::new());
    let measured = &c.session;
    for s in &c.sections {
        let changed = measured.changed_sections.contains(&s.id);
        match (changed, s.dynamic) {
            (true, false) => unexplained.push(format!("{stem}: section `{}` changes, analysed static", s.id)),
            (false, true) => unchanged.push(format!("{stem}: section `{}`", s.id)),
            _ => {}
        }
        if s.dynamic && s.why.is_none() {
            unexplained.push(format!("{stem}: section `{}` is dynamic with no reason", s.id));
        }
    }
    // A cut in no section's text is in the layout's own text.
    if let Some(cut) = measured.prompt_cut {
        let in_section = c.placed_sections().iter().any(|(at, s)| *at <= cut && cut < at + s.text.len().max(1));
        let only_other = cut >= c.prompt.len() && !measured.changed_sections.is_empty();
        if !in_section && !only_other && project.layout_dynamic.is_empty() {
            unexplained.push(format!("{stem}: the layout's own text changes at byte {cut}, analysed static"));
        }
    }
    for (i, m) in c.messages.iter().enumerate() {
        let analysed = m.sections.iter().any(|s| s.dynamic);
        match (measured.changed_messages.contains(&i), analysed) {
            (true, false) => unexplained.push(format!("{stem}: message {} changes, analysed static", i + 1)),
            (false, true) => unchanged.push(format!("{stem}: message {}", i + 1)),
            _ => {}
        }
    }
    if let Some(other) = &measured.other_tools {
        for (t, o) in c.tools.iter().zip(other.iter()) {
            if t != o && !t.dynamic {
                unexplained.push(format!("{stem}: tool `{}`'s text changes, analysed static", t.name));
            }
        }
    }
    (unexplained, unchanged)
}

#[test]
fn every_change_another_session_makes_is_one_the_analysis_names() {
    let (mut cells, mut unexplained, mut unchanged) = (0, Vec::new(), Vec::new());
    for dir in example_and_fixtures() {
        let project = crate::load(&dir).unwrap();
        for c in crate::compile::compile_matrix(&project).unwrap() {
            assert_eq!(c.session.variation, Some(Variation::Everything), "{}: measured fully", c.cell().stem());
            let (u, n) = disagreements(&project, &c);
            unexplained.extend(u);
            unchanged.extend(n);
            cells += 1;
        }
    }
    assert!(unexplained.is_empty(), "measured but not explained:\n{}", unexplained.join("\n"));
    assert!(unchanged.is_empty(), "analysed dynamic, unchanged in another session:\n{}", unchanged.join("\n"));
    assert!(cells >= 90, "{cells} cells");
}
