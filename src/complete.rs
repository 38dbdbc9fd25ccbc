//! `promptc complete KIND [PREFIX]` (hidden): the project's names, one per line, for the shell
//! completion `promptc completions bash` prints — profiles, cases, switches, variables,
//! sub-agents, tools, slash commands, and the patterns `review --accept` takes. The bash script
//! asks it when a flag that takes one of these names is completed, with the `-C` the command
//! line names.
//!
//! A cloned repository's names are untrusted: a switch value may be `$(touch X)`. So promptc
//! does the filtering and the quoting, and the shell only reads lines: `complete --shell bash`
//! takes the word as typed (quotes and backslashes removed), prints each candidate escaped for
//! bash, and the script reads them with `read -r` into `COMPREPLY` — never through
//! `compgen -W`, which expands its word list again. A candidate holding a control character, a
//! line or paragraph separator or a bidirectional override is dropped (it could not be typed,
//! and could make the line read otherwise than it is); `check` refuses such values (P012).
//! Only bash completes the project's names: the zsh, fish and PowerShell scripts are clap's,
//! with the command's own flags and values only.

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
    /// The shell the names are for: PREFIX is the word as typed there, and each name is printed
    /// quoted for it.
    #[arg(long, value_enum)]
    pub(crate) shell: Option<CompleteShell>,
}

/// A shell `promptc complete` quotes its names for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CompleteShell {
    /// bash: every character but letters, digits and `_-.,/:=@%+^` escaped with a backslash.
    Bash,
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
    print(&candidates(&names(project, args.kind), &args.prefix, args.shell))
}

/// The lines `promptc complete` prints: the names starting with `prefix` (as typed in `shell`),
/// each quoted for it; a name with a control character, a line or paragraph separator or a
/// bidirectional override is left out.
pub(crate) fn candidates(names: &[String], prefix: &str, shell: Option<CompleteShell>) -> String {
    let prefix = match shell {
        Some(CompleteShell::Bash) => bash_unquote(prefix),
        None => prefix.to_string(),
    };
    let mut out = String::new();
    for n in names.iter().filter(|n| n.starts_with(&prefix) && !n.chars().any(promptc::is_line_break_or_control)) {
        match shell {
            Some(CompleteShell::Bash) => out.push_str(&bash_quote(n)),
            None => out.push_str(n),
        }
        out.push('\n');
    }
    out
}

/// `word` escaped for bash: safe as one word wherever it lands on a command line, expanded by
/// nothing (no `$`, backquote, glob, brace, tilde or history expansion, no word splitting).
fn bash_quote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        // Non-ASCII characters are letters to bash; ASCII ones outside this set may mean something.
        if !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ',' | '/' | ':' | '=' | '@' | '%' | '+' | '^'))
            && c.is_ascii()
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The word bash's completion was given, as the user meant it: backslashes and quotes removed
/// (what `bash_quote` wrote, or what the user typed around it), for matching names' prefixes.
fn bash_unquote(word: &str) -> String {
    let (mut out, mut quote, mut chars) = (String::new(), None, word.chars());
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None | Some('"'), '\\') => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
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
        # promptc filters by the word and quotes each name for bash; the lines are read as they
        # are (`compgen -W` would expand a name such as `$(...)` a second time: never use it here).
        local line
        COMPREPLY=()
        while IFS= read -r line; do
            COMPREPLY+=("${line}")
        done < <("${COMP_WORDS[0]}" "${project[@]}" complete --shell bash "${kind}" -- "${cur}" 2>/dev/null)
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
