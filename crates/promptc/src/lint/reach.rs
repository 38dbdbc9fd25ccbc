//! What `check` renders beyond the matrix: every value of a declared switch (on/off, or one of a
//! string-valued switch's choices) that no cell of the matrix has — neither the defaults nor a
//! case sets it — is a value a user reaches with `--set`, so `check` renders it too: one extra
//! case per value, `NAME=VALUE` over the defaults, in every profile and transport. The rules
//! that look at rendered cells see those cells like the matrix's.
//!
//! **Bound.** The extra cells and the matrix together stay within `limits.matrix_cells` (the
//! most a run may compile): values past it, in declaration order, are not rendered, and a note
//! names each of them and says why.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::model::profile::Case;
use crate::model::Project;
use crate::resolve::matrix::{cells, Cell};

/// One switch value no matrix cell has.
struct Unreached {
    /// The switch.
    name: String,
    /// On/off: `Ok(value)`; a string-valued switch: `Err(choice)`.
    value: std::result::Result<bool, String>,
}

impl Unreached {
    /// The extra case's name, as cells are named with it: `yolo=true`, `mode=fast`.
    fn case_name(&self) -> String {
        match &self.value {
            Ok(b) => format!("{}={b}", self.name),
            Err(c) => format!("{}={c}", self.name),
        }
    }

    /// The case that sets it over the defaults.
    fn case(&self) -> Case {
        let mut case = Case {
            description: format!("`{}` over the project's defaults (rendered by check)", self.case_name()),
            switches: BTreeMap::new(),
            choices: BTreeMap::new(),
            variables: IndexMap::new(),
            span: Default::default(),
        };
        match &self.value {
            Ok(b) => {
                case.switches.insert(self.name.clone(), *b);
            }
            Err(c) => {
                case.choices.insert(self.name.clone(), c.clone());
            }
        }
        case
    }
}

/// Every switch value neither the defaults nor a case sets, in declaration order (the sub-agent
/// switch aside).
fn unreached(project: &Project) -> Vec<Unreached> {
    let mut on_off: BTreeSet<(&str, bool)> = BTreeSet::new();
    let mut chosen: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (name, s) in &project.switches {
        match &s.choice {
            None => on_off.insert((name, s.default)),
            Some(c) => chosen.insert((name, c.default.as_str())),
        };
    }
    for case in project.cases.values() {
        on_off.extend(case.switches.iter().map(|(k, v)| (k.as_str(), *v)));
        chosen.extend(case.choices.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
    let mut out = Vec::new();
    // The sub-agent switch is promptc's own: it is on in exactly the sub-agents' cells.
    for (name, s) in project.switches.iter().filter(|(n, _)| n.as_str() != crate::model::SUBAGENT_SWITCH) {
        match &s.choice {
            None => out.extend(
                [false, true]
                    .into_iter()
                    .filter(|v| !on_off.contains(&(name.as_str(), *v)))
                    .map(|v| Unreached { name: name.clone(), value: Ok(v) }),
            ),
            Some(c) => out.extend(
                c.values
                    .iter()
                    .filter(|v| !chosen.contains(&(name.as_str(), v.as_str())))
                    .map(|v| Unreached { name: name.clone(), value: Err(v.clone()) }),
            ),
        }
    }
    out
}

/// The cells of the switch values the matrix does not reach, compiled, and a note for those
/// left out by the bound. Errors are the cells' own: a value a user can set that fails to
/// render fails `check`, as `render --set` would.
pub(crate) fn compile_unreached(project: &Project) -> Result<(Vec<Compiled>, Vec<Diagnostic>)> {
    let values = unreached(project);
    if values.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let per_value = project.profiles.len() * project.transports.len();
    let room = project.templates.limits().matrix_cells.saturating_sub(cells(project).len());
    let fit = room.checked_div(per_value).map_or(values.len(), |n| n.min(values.len()));
    let mut notes = Vec::new();
    if fit < values.len() {
        notes.push(left_out(project, &values[fit..], per_value));
    }
    let mut extended = project.clone();
    for v in &values[..fit] {
        extended.cases.insert(v.case_name(), v.case());
    }
    let todo: Vec<Cell> = values[..fit]
        .iter()
        .flat_map(|v| {
            let case = v.case_name();
            project.profiles.keys().flat_map(move |profile| {
                let case = case.clone();
                project.transports.iter().map(move |t| Cell {
                    profile: profile.clone(),
                    case: Some(case.clone()),
                    transport: *t,
                    subagent: None,
                })
            })
        })
        .collect();
    let compiled = compile_cells(&extended, &todo)?;
    Ok((compiled, notes))
}

/// Compile `todo` of `project` one after another, on a thread with the stack the matrix
/// compiles on, within a run's byte and fuel caps.
fn compile_cells(project: &Project, todo: &[Cell]) -> Result<Vec<Compiled>> {
    let budget = crate::compile::RunBudget::new(project)?;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().stack_size(crate::compile::COMPILE_STACK).spawn_scoped(scope, || {
            let out = todo
                .iter()
                .map(|cell| {
                    crate::compile::compile_matrix_cell(project, cell).and_then(|c| budget.charge(&c).map(|_| c))
                })
                .collect::<Result<Vec<_>>>();
            project.templates.work().close();
            out
        });
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|_| Err(internal("a compile thread panicked"))),
            Err(e) => Err(internal(&format!("could not start a compile thread: {e}"))),
        }
    })
}

fn internal(message: &str) -> crate::error::Error {
    crate::error::Error::new(crate::error::ErrorKind::Internal, vec![Diagnostic::error(message.to_string())])
}

/// The note naming the values `check` did not render, and why.
fn left_out(project: &Project, values: &[Unreached], per_value: usize) -> Diagnostic {
    let names: Vec<String> = values.iter().map(|v| format!("`{}`", v.case_name())).collect();
    let label = project.switches.get(&values[0].name).map_or_else(
        || crate::diagnostic::Label::file(project.fs().display(&project.manifest)),
        |s| project.label(&s.span),
    );
    let cells = values.len() * per_value;
    Diagnostic::note(format!(
        "check did not render {} switch value{} no case sets: {} ({cells} more cell{} would pass \
         `limits.matrix_cells`, {})",
        values.len(),
        if values.len() == 1 { "" } else { "s" },
        names.join(", "),
        if cells == 1 { "" } else { "s" },
        project.templates.limits().matrix_cells
    ))
    .with_label(label)
    .with_help("add cases that set them (`cases:`), or raise `limits.matrix_cells` in promptc.yaml")
}
