//! `promptc complete KIND [PREFIX]` (hidden): the project's names, one per line, for the shell
//! completion `promptc completions bash` prints — profiles, cases, switches, variables,
//! sub-agents, tools, slash commands, and the patterns `review --accept` takes. The bash script
//! asks it when a flag that takes one of these names is completed, with the `-C` the command
//! line names.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CompleteKind {
    /// Profile names (`--profile`).
    Profile,
    /// Named cases.
    Case,
    /// On/off switches, and `NAME=VALUE` for each value of a string switch (`--set`).
    Switch,
    /// Variables as `NAME=` (`--var`).
    Variable,
    /// Sub-agents (`--subagent`).
    Subagent,
    /// Tools in the catalog.
    Tool,
    /// Slash commands (`promptc command NAME`).
    Command,
    /// Cells as patterns: `PROFILE.*` and `PROFILE.CASE.*` (`diff --accept`).
    Cell,
    /// What `review --accept`/`--reject` picks: tools, sections and cell patterns.
    Change,
}

#[derive(Debug, Args)]
pub(crate) struct CompleteArgs {
    /// What to list.
    #[arg(value_enum)]
    pub(crate) kind: CompleteKind,
    /// Only the names starting with PREFIX.
    #[arg(default_value = "", allow_hyphen_values = true)]
    pub(crate) prefix: String,
}

/// The names of `kind` in `project`, in declaration order.
pub(crate) fn names(project: &Project, kind: CompleteKind) -> Vec<String> {
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
    let cells = || {
        let mut out = Vec::new();
        for p in project.profiles() {
            out.push(format!("{p}.*"));
            out.extend(project.cases().iter().map(|c| format!("{p}.{c}.*")));
        }
        out
    };
    match kind {
        CompleteKind::Profile => owned(project.profiles()),
        CompleteKind::Case => owned(project.cases()),
        CompleteKind::Switch => {
            let mut out: Vec<String> = project.switches().into_iter().map(|(n, _)| n.to_string()).collect();
            for (name, values, _) in project.choices() {
                out.extend(values.iter().map(|v| format!("{name}={v}")));
            }
            out
        }
        CompleteKind::Variable => project.variables().into_iter().map(|v| format!("{v}=")).collect(),
        CompleteKind::Subagent => owned(project.subagents()),
        CompleteKind::Tool => owned(project.tool_names()),
        CompleteKind::Command => owned(project.commands()),
        CompleteKind::Cell => cells(),
        CompleteKind::Change => {
            let mut out = owned(project.tool_names());
            let sections: Vec<String> =
                project.section_ids().into_iter().filter(|s| !out.iter().any(|t| t == s)).map(str::to_string).collect();
            out.extend(sections);
            out.extend(cells());
            out
        }
    }
}

pub(crate) fn complete(project: &Project, args: &CompleteArgs) -> Result<Exit, Error> {
    let mut out = String::new();
    for n in names(project, args.kind).into_iter().filter(|n| n.starts_with(&args.prefix)) {
        out.push_str(&n);
        out.push('\n');
    }
    print(&out)
}

/// What `promptc completions bash` adds to clap's script: a completion function that asks
/// `promptc complete` for the project's names after the flags that take them (with the `-C`
/// of the command line), and clap's own function for everything else.
pub(crate) const BASH_DYNAMIC: &str = r#"
# The project's names (profiles, switches, variables, sub-agents, tools, slash commands, cells),
# asked of the promptc being completed: `promptc [-C PROJECT] complete KIND`.
_promptc_dynamic() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" kind="" sub="" i
    [[ ${COMP_CWORD} -gt 0 ]] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    local project=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            -C|--project) project=(-C "${COMP_WORDS[i+1]}"); i=$((i + 1)) ;;
            --project=*) project=(-C "${COMP_WORDS[i]#--project=}") ;;
            -*) ;;
            *) [[ -z "${sub}" ]] && sub="${COMP_WORDS[i]}" ;;
        esac
    done
    case "${prev}" in
        --profile) kind=profile ;;
        --set) kind=switch ;;
        --var) kind=variable ;;
        --subagent) kind=subagent ;;
        --accept|--reject) if [[ "${sub}" == review ]]; then kind=change; else kind=cell; fi ;;
        command) [[ "${sub}" == command && ${COMP_CWORD} -ge 2 ]] && kind=command ;;
    esac
    if [[ -n "${kind}" ]]; then
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${project[@]}" complete "${kind}" 2>/dev/null)" -- "${cur}"))
        if [[ "${kind}" == variable ]]; then compopt -o nospace 2>/dev/null; fi
        return 0
    fi
    _promptc "$@"
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _promptc_dynamic -o nosort -o bashdefault -o default promptc
else
    complete -F _promptc_dynamic -o bashdefault -o default promptc
fi
"#;
