// Long because the clap definitions every command shares live with the dispatch.
//! The promptc command line: parse flags, call the compiler library (`promptc`, in
//! `crates/promptc`), print, and map results to exit codes. One file per command; everything else
//! lives in the library. [`main`] is the whole API: the binary calls it, and so do the Python and
//! Node packages for their `promptc` commands.

// The README's Rust examples (the library's, `promptc::…`) run as doctests here, where the
// working directory is the repository with the example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use promptc::check::Level;
use promptc::{Compiled, Diagnostic, Error, Project, Provider, TokenCounter, Transport};

mod args;
mod chat;
mod check;
mod command;
mod complete;
mod diff;
mod freeze;
mod import;
mod lsp;
mod render;
mod report;
mod review;
mod setup;
mod snapshot;
mod watch;

use args::*;
use chat::*;
use check::*;
use command::*;
use complete::*;
use diff::*;
use freeze::*;
use import::*;
use render::*;
use report::*;
use review::*;
use setup::*;
use snapshot::*;
use watch::*;

pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the check found something (drift, lint error, budget exceeded, stale prompt)
  2  usage or project error (bad YAML, unknown id, template error, I/O error)";

/// A prompt compiler and inspector for LLM agents.
#[derive(Debug, Parser)]
#[command(name = "promptc", version, about, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    /// Project folder or manifest (default: ./promptc.yaml, else ./profiles/promptc.yaml).
    #[arg(short = 'C', long, global = true, value_name = "PATH")]
    pub(crate) project: Option<PathBuf>,

    /// When to use colour in diagnostics (NO_COLOR is honoured).
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub(crate) color: Color,

    /// Write where the command line says even inside a version-control folder (`.git`, `.hg`,
    /// `.svn`…), which promptc otherwise refuses.
    #[arg(long, global = true)]
    pub(crate) allow_vcs_write: bool,

    #[command(subcommand)]
    pub(crate) command: Commands,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Compile one prompt: the system prompt plus the tool projection.
    #[command(after_help = EXIT_CODES)]
    Render(RenderArgs),
    /// Tokens and bytes per section and per tool, with budgets (exit 1 when one is exceeded).
    #[command(after_help = EXIT_CODES)]
    Report(ReportArgs),
    /// Write every profile × case × transport (× provider) cell under the snapshot folder.
    #[command(after_help = EXIT_CODES)]
    Snapshot(SnapshotArgs),
    /// Compare the project with its snapshots (exit 1 on drift), or two folders with each other.
    #[command(after_help = EXIT_CODES)]
    Diff(DiffArgs),
    /// Decide the drift change by change: a accept, r reject, s skip (stays pending), one key
    /// each (exit 1 while changes are left).
    #[command(after_help = EXIT_CODES)]
    Review(ReviewArgs),
    /// Write a frozen-prompt record for a running agent.
    #[command(after_help = EXIT_CODES)]
    Freeze(FreezeArgs),
    /// Say whether a frozen record is still what the project compiles (exit 1 when stale).
    #[command(after_help = EXIT_CODES)]
    Verify(VerifyArgs),
    /// Render a slash command's instruction text for the resolved profile.
    // A command's text sees the profile, transport, switches, variables and tools, never the
    // provider's projection or tool contributions: those flags are hidden (and refused).
    #[command(after_help = EXIT_CODES, mut_arg("provider", |a| a.hide(true)), mut_arg("lenient", |a| a.hide(true)))]
    Command(CommandArgs),
    /// Lint every cell of the project (exit 1 when an error remains).
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Print the JSON Schema of promptc.yaml and tool catalog files (for editors).
    Schema(SchemaArgs),
    /// Write a small, working starter project (refuses to overwrite files).
    Init(InitArgs),
    /// Turn what an agent already has into a project (`import tools FILE --out DIR`).
    Import(ImportArgs),
    /// Run render, report or check again whenever a project file changes (Ctrl-C stops).
    Watch(WatchArgs),
    /// Serve the project to an editor: a language server (LSP 3.17) on stdin and stdout.
    Lsp(LspArgs),
    /// Print shell completions (bash completes the project's profiles, switches, tools… too).
    Completions(CompletionsArgs),
    /// The project's names of a kind, one per line, for shell completion.
    #[command(hide = true)]
    Complete(CompleteArgs),
}

/// A `--transport` value: one of the project's transports, or `chat` (the native cell through
/// an open-weight model's chat template: `render` and `report` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransportArg {
    /// A transport of the project's matrix.
    Of(Transport),
    /// `chat`: with `--chat-template FILE`.
    Chat,
}

/// `--transport`'s values, listed in help and completed by shells.
pub(crate) fn transport_values() -> impl clap::builder::TypedValueParser<Value = TransportArg> {
    use clap::builder::TypedValueParser;
    let mut names: Vec<&'static str> = Transport::ALL.iter().map(|t| t.as_str()).collect();
    names.push("chat");
    clap::builder::PossibleValuesParser::new(names).try_map(|s| match s.as_str() {
        "chat" => Ok(TransportArg::Chat),
        s => s.parse::<Transport>().map(TransportArg::Of),
    })
}

/// `--provider`'s values, listed in help and completed by shells.
pub(crate) fn provider_values() -> impl clap::builder::TypedValueParser<Value = Provider> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
    clap::builder::PossibleValuesParser::new(names).try_map(|s| s.parse::<Provider>())
}

/// `promptc lsp` takes no flags of its own: the editor starts it in the project folder (or
/// names it with `-C`), and settings come through the protocol (`initializationOptions`).
#[derive(Debug, Args)]
pub(crate) struct LspArgs {}

/// How a run ends; the process exit code is the discriminant (the `--help` text lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// 0: success.
    Success = 0,
    /// 1: the check found something (drift, lint error, budget exceeded, stale prompt).
    Found = 1,
    /// 2: usage or project error.
    Error = 2,
}

/// The project's manifest (`promptc::discover`), with the help said in the command line's flags:
/// the library names none.
fn discover(cli: &Cli) -> Result<PathBuf, Error> {
    promptc::discover(cli.project.as_deref()).map_err(|mut e| {
        if let Some(d) = e.diagnostics_mut().first_mut() {
            d.help = Some(match &cli.project {
                Some(_) => "--project takes a folder containing promptc.yaml, or the manifest itself".into(),
                None => {
                    "run promptc from a project folder, or pass --project PATH or create one with `promptc init`".into()
                }
            });
        }
        e
    })
}

/// The README section that documents each command: its `--help` ends with the link.
const DOCS: [(&str, &str); 15] = [
    ("render", "promptc-render"),
    ("report", "promptc-report"),
    ("snapshot", "promptc-snapshot-and-promptc-diff"),
    ("diff", "promptc-snapshot-and-promptc-diff"),
    ("review", "promptc-snapshot-and-promptc-diff"),
    ("freeze", "promptc-freeze-and-promptc-verify"),
    ("verify", "promptc-freeze-and-promptc-verify"),
    ("command", "commands"),
    ("check", "promptc-check"),
    ("schema", "editors"),
    ("init", "quick-start"),
    ("import", "port-an-existing-agent-promptc-import-tools"),
    ("watch", "commands"),
    ("lsp", "editors"),
    ("completions", "set-up"),
];

/// The command line: help wrapped to the terminal and never wider than 100 columns (clap reads
/// the width from the terminal, else `COLUMNS`, else takes 100), each command's help ending with
/// a link to its documentation.
pub(crate) fn cli_command() -> clap::Command {
    let repo = env!("CARGO_PKG_REPOSITORY");
    let mut cmd = <Cli as clap::CommandFactory>::command().max_term_width(100);
    for (name, anchor) in DOCS {
        cmd = cmd.mut_subcommand(name, |c| {
            // The link on a line of its own: clap cannot break a URL, and the longest fits 80.
            let docs = format!("Docs:\n  {repo}#{anchor}");
            let after = match c.get_after_help() {
                Some(existing) => format!("{existing}\n\n{docs}"),
                None => docs,
            };
            c.after_help(after)
        });
    }
    cmd.after_help(format!("{EXIT_CODES}\n\nDocs:\n  {repo}#commands"))
}

/// Parse `args` (the program name first), run the command, print, and say how it ended.
/// The binary and the Python and Node packages' `promptc` commands call this.
pub fn main(args: impl IntoIterator<Item = OsString>) -> Exit {
    let args: Vec<OsString> = args.into_iter().collect();
    let matches = match cli_command().try_get_matches_from(&args) {
        Ok(m) => m,
        // Help and version are "errors" that print to stdout and exit 0; usage errors exit 2.
        Err(e) => return clap_exit(e, &args),
    };
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e, &args),
    };
    let check_matches = matches
        .subcommand_matches("check")
        .or_else(|| matches.subcommand_matches("watch").and_then(|w| w.subcommand_matches("check")));
    let level_flags = check_matches.map(level_flags_in_order).unwrap_or_default();
    let color = wants_color(cli.color, std::io::stderr().is_terminal());
    match run(&cli, color, &level_flags) {
        Ok(code) => code,
        Err(e) => {
            {
                let mut err = std::io::stderr().lock();
                for d in e.diagnostics() {
                    let _ = write!(err, "{}", d.render(color));
                }
            }
            // A machine format gets the error too, so a CI job is annotated and a script
            // reading JSON sees what failed rather than empty output.
            if let Some(out) = machine_error(&cli.command, &e) {
                let _ = print(&out);
            }
            Exit::Error
        }
    }
}

/// The error in the machine format the command asked for: `{"format": 1, "error": …}` for
/// `--format json`, workflow commands for `--format github`; `None` for human formats.
fn machine_error(command: &Commands, e: &Error) -> Option<String> {
    let json = match command {
        Commands::Render(a) => a.format == RenderFormat::Json,
        Commands::Report(a) => a.format == ReportFormat::Json,
        Commands::Diff(a) => a.format == DiffFormat::Json,
        Commands::Verify(a) => a.format == VerifyFormat::Json,
        Commands::Check(a) if a.format == CheckFormat::Github => {
            return Some(e.diagnostics().iter().map(|d| format!("{}\n", d.github_line())).collect());
        }
        Commands::Check(a) => a.format == CheckFormat::Json,
        _ => false,
    };
    json.then(|| {
        promptc::json_document(serde_json::json!({
            "error": {
                "kind": e.kind().as_str(),
                "diagnostics": e.diagnostics().iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
            }
        }))
    })
}

/// Print clap's message (help, version or a usage error) and map it to an exit.
/// A usage error clap found still reaches a machine format named on the command line
/// (`--format json` / `--format github`), as every other error does.
fn clap_exit(e: clap::Error, args: &[OsString]) -> Exit {
    let _ = e.print();
    if !e.use_stderr() {
        return Exit::Success;
    }
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let format = args.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--format=") {
        Some(f) => Some(f.to_string()),
        None if a == "--format" => args.get(i + 1).cloned(),
        None => None,
    });
    let text = e.to_string();
    let message = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
    let d = Diagnostic::error(message).with_help("run with --help for the flags and their values");
    let out = match format.as_deref() {
        Some("json") => promptc::json_document(serde_json::json!({
            "error": {"kind": "usage", "diagnostics": [d.to_json()]}
        })),
        Some("github") => format!("{}\n", d.github_line()),
        _ => return Exit::Error,
    };
    let _ = print(&out);
    Exit::Error
}

/// Colour for a stream: forced by --color, else only on a terminal and never with NO_COLOR.
pub(crate) fn wants_color(choice: Color, is_terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && is_terminal,
    }
}

pub(crate) fn run(cli: &Cli, color: bool, level_flags: &[(String, Level)]) -> Result<Exit, Error> {
    let color = (cli.color, color);
    if !cli.allow_vcs_write {
        for path in write_targets(&cli.command) {
            promptc::check_write_target(path).map_err(|mut e| {
                for d in e.diagnostics_mut() {
                    d.notes.push("pass `--allow-vcs-write` to write there anyway".into());
                }
                e
            })?;
        }
    }
    // Commands that need no project.
    match &cli.command {
        Commands::Schema(args) => {
            return print(&promptc::editor_schema(match args.kind {
                SchemaKind::Manifest => promptc::SchemaKind::Manifest,
                SchemaKind::Tools => promptc::SchemaKind::Tools,
            }))
        }
        Commands::Init(args) => return init(args.dir.as_deref().unwrap_or(std::path::Path::new("."))),
        Commands::Import(args) => return import(args),
        Commands::Completions(args) => {
            let mut cmd = cli_command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "promptc", &mut script);
            let mut script = String::from_utf8_lossy(&script).into_owned();
            if args.shell == clap_complete::Shell::Bash {
                script.push_str(BASH_DYNAMIC);
            }
            return print(&script);
        }
        Commands::Check(args) if args.explain.is_some() => return explain(args.explain.as_deref().unwrap_or_default()),
        Commands::Watch(args) => return watch(cli, args, level_flags),
        Commands::Lsp(_) => return lsp::lsp(cli),
        _ => {}
    }
    // Comparing two folders needs no project.
    if let Commands::Diff(args) = &cli.command {
        if let [a, b] = args.folders.as_slice() {
            let r = promptc::diff_folders(a, b)?;
            return diff_output(&r, args, color.0);
        }
    }
    let manifest = discover(cli)?;
    // The process ends right after the command: tearing down a large project (templates,
    // catalog, file texts) would only delay the exit, so it is deliberately leaked.
    let project: &Project = Box::leak(Box::new(Project::load(&manifest)?));
    {
        let color = wants_color(cli.color, std::io::stderr().is_terminal());
        let mut err = std::io::stderr().lock();
        // `check` reports these itself, with levels applied.
        if !matches!(cli.command, Commands::Check(_)) {
            for w in project.warnings() {
                let _ = write!(err, "{}", w.render(color));
            }
        }
    }
    match &cli.command {
        Commands::Render(args) => render(project, args, color.0),
        Commands::Report(args) => report(project, args, color.0),
        Commands::Snapshot(args) => snapshot(project, args),
        Commands::Diff(args) => diff(project, args, color.0),
        Commands::Review(args) => review(project, args, color.0),
        Commands::Complete(args) => complete(project, args),
        Commands::Freeze(args) => freeze(project, args),
        Commands::Verify(args) => verify(project, args),
        Commands::Command(args) => command(project, args),
        Commands::Check(args) => check(project, args, level_flags, color.0),
        Commands::Schema(_)
        | Commands::Init(_)
        | Commands::Import(_)
        | Commands::Completions(_)
        | Commands::Watch(_)
        | Commands::Lsp(_) => Ok(Exit::Success),
    }
}

/// Print the warnings a render collected (`--lenient`).
pub(crate) fn warn(c: &Compiled, choice: Color) {
    let color = wants_color(choice, std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    for w in c.warnings() {
        let _ = write!(err, "{}", w.render(color));
    }
}

/// The paths the command line names for writing (files and folders), checked before anything
/// runs: none may lie in a version-control folder without `--allow-vcs-write`.
fn write_targets(command: &Commands) -> Vec<&std::path::Path> {
    let paths: Vec<Option<&PathBuf>> = match command {
        Commands::Render(a) => vec![a.out.as_ref()],
        Commands::Report(a) => vec![a.out.as_ref()],
        Commands::Snapshot(a) => vec![a.dir.as_ref()],
        Commands::Diff(a) => {
            vec![a.out.as_ref(), a.dir.as_ref().filter(|_| a.update || !a.accept.is_empty() || a.review || a.pending)]
        }
        Commands::Review(a) => vec![a.dir.as_ref()],
        Commands::Freeze(a) => vec![Some(&a.out)],
        Commands::Import(a) => match &a.what {
            ImportWhat::Tools(t) => vec![Some(&t.out)],
        },
        Commands::Watch(a) => match &a.what {
            WatchWhat::Render(r) => vec![r.out.as_ref()],
            WatchWhat::Report(r) => vec![r.out.as_ref()],
            WatchWhat::Check(_) => vec![],
        },
        _ => vec![],
    };
    paths.into_iter().flatten().map(PathBuf::as_path).collect()
}

/// Print `s`, or with `out` write it to that file.
pub(crate) fn emit(s: &str, out: Option<&std::path::Path>) -> Result<Exit, Error> {
    match out {
        Some(path) => {
            promptc::write_output(path, s)?;
            // What was written where, in one line: a file written in silence looks like nothing
            // happened.
            let _ = writeln!(std::io::stderr().lock(), "wrote {} ({})", path.display(), size(s.len()));
            Ok(Exit::Success)
        }
        None => print(s),
    }
}

/// A byte count for people: `812 bytes`, `74 KB`, `3.2 MB`.
pub(crate) fn size(bytes: usize) -> String {
    match bytes {
        0..1_000 => format!("{bytes} bytes"),
        1_000..1_000_000 => format!("{} KB", bytes.div_ceil(1_000)),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

pub(crate) fn print(s: &str) -> Result<Exit, Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(Exit::Success),
        // A closed pipe (`promptc render | head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Exit::Success),
        Err(e) => Err(Error::io("write to", std::path::Path::new("stdout"), &e)),
    }
}

/// The width of the terminal stdout prints to, for tables: `COLUMNS` when it is a number, else
/// the terminal's window size; none when stdout is not a terminal (pipes and CI get the same
/// output everywhere).
pub(crate) fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    let out = std::io::stdout();
    if !out.is_terminal() {
        return None;
    }
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    columns.or_else(|| window_columns(&out)).filter(|w| *w >= 40)
}

/// The terminal's window width, asked of the terminal stdout is.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn window_columns(out: &std::io::Stdout) -> Option<usize> {
    rustix::termios::tcgetwinsize(out).ok().map(|w| usize::from(w.ws_col))
}

/// Elsewhere (Windows: rustix is a dependency on Linux and macOS only) only `COLUMNS` gives the
/// width: the release builds a Windows binary, whose tables then keep their natural width.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn window_columns(_out: &std::io::Stdout) -> Option<usize> {
    None
}
