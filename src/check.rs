//! `promptc check`: lint levels from -A/-W/-D in command-line order, `--explain`, output formats.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// rustc-style diagnostics.
    Human,
    /// JSON for machines.
    Json,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Allow (silence) a rule, e.g. -A P007 (repeatable).
    #[arg(short = 'A', long = "allow", value_name = "CODE")]
    pub(crate) allow: Vec<String>,
    /// Make a rule a warning (repeatable).
    #[arg(short = 'W', long = "warn", value_name = "CODE")]
    pub(crate) warn: Vec<String>,
    /// Make a rule an error (repeatable).
    #[arg(short = 'D', long = "deny", value_name = "CODE")]
    pub(crate) deny: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub(crate) format: CheckFormat,
    /// Also print the cacheable-prefix table when the project is clean.
    #[arg(short = 'v', long)]
    pub(crate) verbose: bool,
    /// Explain a rule and exit.
    #[arg(long, value_name = "CODE")]
    pub(crate) explain: Option<String>,
}

pub(crate) fn explain(code: &str) -> Result<Exit, Error> {
    print(&promptc::explain(code)?)
}

pub(crate) fn check(
    project: &Project,
    args: &CheckArgs,
    level_flags: &[(String, Level)],
    color: Color,
) -> Result<Exit, Error> {
    let mut overrides = Vec::new();
    for (code, level) in level_flags {
        overrides.push((promptc::rule_code(code)?, *level));
    }
    let mut counter = TokenCounter::for_project(project, None, true);
    let result = promptc::check(project, &overrides, &mut counter)?;
    finish_counter(counter);
    let format = match args.format {
        CheckFormat::Human => {
            let color = wants_color(color, std::io::stdout().is_terminal());
            promptc::check::Format::Human { color, verbose: args.verbose }
        }
        CheckFormat::Json => promptc::check::Format::Json,
        CheckFormat::Github => promptc::check::Format::Github,
    };
    print(&result.render(format))?;
    Ok(if result.failed() { Exit::Found } else { Exit::Success })
}

/// The `-A/-W/-D` flags in command-line order (later wins, as with rustc): clap keeps each
/// flag's values apart, so they are merged by their position on the command line.
pub(crate) fn level_flags_in_order(m: &clap::ArgMatches) -> Vec<(String, Level)> {
    let mut flags: Vec<(usize, String, Level)> = Vec::new();
    for (id, level) in [("allow", Level::Allow), ("warn", Level::Warn), ("deny", Level::Deny)] {
        if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
            flags.extend(indices.zip(values).map(|(i, v)| (i, v.clone(), level)));
        }
    }
    flags.sort_by_key(|(i, _, _)| *i);
    flags.into_iter().map(|(_, code, level)| (code, level)).collect()
}
