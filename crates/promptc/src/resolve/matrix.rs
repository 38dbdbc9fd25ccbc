//! The matrix: every cell a project ships (profiles × cases × transports, and sub-agents),
//! how each is named, and the runtime values of a case.

use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::resolve::runtime::Runtime;

/// One prompt cell of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Profile name.
    pub profile: String,
    /// Named case, or `None` for the project's defaults.
    pub case: Option<String>,
    /// Transport.
    pub transport: Transport,
    /// Sub-agent, or `None` for the main prompt.
    pub subagent: Option<String>,
}

impl Cell {
    /// The file-name stem: `standard.native`, `lite.yolo.xml`, `standard.native.subagent-researcher`.
    pub fn stem(&self) -> String {
        cell_name(&self.profile, self.case.as_deref(), self.transport, self.subagent.as_deref(), None)
    }
}

/// The one way promptc names a cell, in files, reports and messages:
/// `profile[.case].transport[.subagent-NAME][.provider]` (`standard.native`,
/// `lite.yolo.xml`, `standard.native.subagent-researcher`, `standard.native.openai`).
pub fn cell_name(
    profile: &str,
    case: Option<&str>,
    transport: Transport,
    subagent: Option<&str>,
    provider: Option<Provider>,
) -> String {
    let mut s = match case {
        Some(c) => format!("{profile}.{c}.{transport}"),
        None => format!("{profile}.{transport}"),
    };
    if let Some(sub) = subagent {
        s.push_str(&format!(".subagent-{sub}"));
    }
    if let Some(p) = provider {
        s.push_str(&format!(".{p}"));
    }
    s
}

/// Every cell of the project's matrix, in a stable order.
pub fn cells(project: &Project) -> Vec<Cell> {
    let mut out = Vec::new();
    let cases: Vec<Option<String>> = std::iter::once(None).chain(project.cases.keys().cloned().map(Some)).collect();
    for profile in project.profiles.keys() {
        for case in &cases {
            for transport in &project.transports {
                out.push(Cell { profile: profile.clone(), case: case.clone(), transport: *transport, subagent: None });
            }
        }
        // Sub-agents in every profile × transport, with the project's defaults.
        for sub in project.subagents.keys() {
            for transport in &project.transports {
                out.push(Cell {
                    profile: profile.clone(),
                    case: None,
                    transport: *transport,
                    subagent: Some(sub.clone()),
                });
            }
        }
    }
    out
}

/// The runtime values of a case: the project's defaults with the case's values on top, and
/// a nonce derived from the project and the cell (`stem`), stable across edits elsewhere.
pub fn case_runtime(project: &Project, case: Option<&str>, stem: &str) -> Runtime {
    let mut rt = Runtime::defaults(project);
    rt.nonce = crate::model::untrusted::derived_nonce(&[&project.name, &project.contract_version.to_string(), stem]);
    if let Some(c) = case.and_then(|c| project.cases.get(c)) {
        rt.switches.extend(c.switches.clone());
        rt.choices.extend(c.choices.clone());
        for (k, v) in &c.variables {
            rt.variables.insert(k.clone(), v.clone());
        }
    }
    rt
}
