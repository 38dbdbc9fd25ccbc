//! The promptc command line: parse flags, call the library, print, and map results to exit
//! codes. Everything else lives in the library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use promptc::compile::{self, Compiled, Request};
use promptc::context::RuntimeInput;
use promptc::error::Error;
use promptc::project::{self, Project};
use promptc::providers::Provider;
use promptc::selection::SelectionInput;
use promptc::transport::Transport;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the check found something (drift, lint error, budget exceeded, stale prompt)
  2  usage or project error (bad YAML, unknown id, template error, I/O error)";

/// A prompt compiler and inspector for LLM agents.
#[derive(Debug, Parser)]
#[command(name = "promptc", version, about, after_help = EXIT_CODES)]
struct Cli {
    /// Project folder or manifest (default: ./promptc.yaml, else ./profiles/promptc.yaml).
    #[arg(short = 'C', long, global = true, value_name = "PATH")]
    project: Option<PathBuf>,

    /// When to use colour in diagnostics (NO_COLOR is honoured).
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    color: Color,

    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Commands {
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
    /// Write a frozen-prompt record for a running agent.
    #[command(after_help = EXIT_CODES)]
    Freeze(FreezeArgs),
    /// Say whether a frozen record is still what the project compiles (exit 1 when stale).
    #[command(after_help = EXIT_CODES)]
    Verify(VerifyArgs),
    /// Render a slash command's instruction text for the resolved profile.
    #[command(after_help = EXIT_CODES)]
    Command(CommandArgs),
    /// Lint every cell of the project (exit 1 when an error remains).
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Print the JSON Schema of promptc.yaml and tool catalog files (for editors).
    Schema(SchemaArgs),
    /// Write a small, working starter project (refuses to overwrite files).
    Init(InitArgs),
    /// Print shell completions.
    Completions(CompletionsArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    /// rustc-style diagnostics.
    Human,
    /// JSON for machines.
    Json,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// Allow (silence) a rule, e.g. -A P007 (repeatable).
    #[arg(short = 'A', long = "allow", value_name = "CODE")]
    allow: Vec<String>,
    /// Make a rule a warning (repeatable).
    #[arg(short = 'W', long = "warn", value_name = "CODE")]
    warn: Vec<String>,
    /// Make a rule an error (repeatable).
    #[arg(short = 'D', long = "deny", value_name = "CODE")]
    deny: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
    /// Explain a rule and exit.
    #[arg(long, value_name = "CODE")]
    explain: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SchemaKind {
    /// promptc.yaml
    Manifest,
    /// A tool catalog file.
    Tools,
}

#[derive(Debug, Args)]
struct SchemaArgs {
    /// Which file's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Manifest)]
    kind: SchemaKind,
}

#[derive(Debug, Args)]
struct InitArgs {
    /// Folder to create the project in (default: the current folder).
    dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct CompletionsArgs {
    /// The shell.
    shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
struct CommandArgs {
    /// The command's name.
    name: String,
    #[command(flatten)]
    cell: CellArgs,
}

#[derive(Debug, Args)]
struct SnapshotArgs {
    /// Snapshot folder (default: the project's `snapshots:` setting, else <project>/snapshots).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DiffFormat {
    /// Unified diffs and a delta table.
    Text,
    /// A PR comment: delta table and collapsed diffs.
    Markdown,
    /// JSON for machines.
    Json,
}

#[derive(Debug, Args)]
struct DiffArgs {
    /// Two folders to compare instead (snapshot folders or `render --out` artifact folders).
    #[arg(num_args = 2, value_names = ["A", "B"])]
    folders: Vec<PathBuf>,
    /// Accept the drift: rewrite the snapshots (same as `promptc snapshot`).
    #[arg(long, conflicts_with = "folders")]
    update: bool,
    /// Snapshot folder (default: the project's `snapshots:` setting).
    #[arg(long, value_name = "DIR", conflicts_with = "folders")]
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
}

#[derive(Debug, Args)]
struct FreezeArgs {
    #[command(flatten)]
    cell: CellArgs,
    /// Where to write the record (JSON).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum VerifyFormat {
    /// A verdict and its reasons.
    Text,
    /// JSON for machines.
    Json,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// The record written by `promptc freeze`.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    format: VerifyFormat,
}

/// Flags that pick one cell of the matrix and its runtime values.
#[derive(Debug, Args)]
struct CellArgs {
    /// Profile to render (default: chosen by the project's selection policy).
    #[arg(long)]
    profile: Option<String>,
    /// Model id, used by the selection policy (e.g. openai/o1-mini).
    #[arg(long, value_name = "ID")]
    model: Option<String>,
    /// Context window in tokens, used by the selection policy; invalid values count as unknown.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    context_window: Option<String>,
    /// Tool transport.
    #[arg(long, value_parser = parse_transport)]
    transport: Option<Transport>,
    /// Provider of the native tool projection.
    #[arg(long, value_parser = parse_provider)]
    provider: Option<Provider>,
    /// Set a switch: NAME, NAME=true or NAME=false (repeatable).
    #[arg(long = "set", value_name = "NAME[=BOOL]")]
    sets: Vec<String>,
    /// Set a variable: NAME=VALUE (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// YAML or JSON file with `switches:`, `variables:`, `model:` and `context_window:`.
    #[arg(long, value_name = "FILE")]
    context: Option<PathBuf>,
    /// Render this sub-agent's prompt (same profile and transport, its own tool allowlist).
    #[arg(long, value_name = "NAME")]
    subagent: Option<String>,
    /// Nonce of the untrusted-content delimiters (default: random per render).
    #[arg(long, value_name = "NONCE")]
    nonce: Option<String>,
    /// Drop a tool contribution whose template fails (with a warning) instead of failing.
    #[arg(long)]
    lenient: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RenderFormat {
    /// The prompt text (or the tools JSON with --tools).
    Text,
    /// Prompt, projection and metadata as one JSON document.
    Json,
}

#[derive(Debug, Args)]
struct RenderArgs {
    #[command(flatten)]
    cell: CellArgs,
    /// Write the frozen artifact (prompt.md, tools.json, metadata.json) into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the tool projection instead of the prompt.
    #[arg(long, conflicts_with = "out")]
    tools: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RenderFormat::Text)]
    format: RenderFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// A table for people.
    Table,
    /// JSON for machines.
    Json,
    /// A markdown table for PR comments.
    Markdown,
    /// CSV for spreadsheets.
    Csv,
}

#[derive(Debug, Args)]
struct ReportArgs {
    #[command(flatten)]
    cell: CellArgs,
    /// Tokenizer: o200k_base (default), cl100k_base, p50k_base, r50k_base (exact), or claude,
    /// gemini (estimates). Default: the one --model maps to, else the project's.
    #[arg(long, value_name = "NAME")]
    tokenizer: Option<String>,
    /// Summarise every profile × transport cell side by side.
    #[arg(long)]
    matrix: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    format: ReportFormat,
    /// Do not read or write the project's on-disk token cache.
    #[arg(long)]
    no_cache: bool,
}

fn parse_transport(s: &str) -> Result<Transport, String> {
    Transport::parse(s).ok_or_else(|| format!("unknown transport `{s}` (expected one of: native, xml, json)"))
}

fn parse_provider(s: &str) -> Result<Provider, String> {
    Provider::parse(s)
        .ok_or_else(|| format!("unknown provider `{s}` (expected one of: openai, openai-responses, anthropic, gemini)"))
}

fn main() -> ExitCode {
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let level_flags = matches.subcommand_matches("check").map(level_flags_in_order).unwrap_or_default();
    let color = wants_color(cli.color, std::io::stderr().is_terminal());
    match run(&cli, color, &level_flags) {
        Ok(code) => code,
        Err(e) => {
            let mut err = std::io::stderr().lock();
            for d in e.diagnostics() {
                let _ = write!(err, "{}", d.render(color));
            }
            ExitCode::from(2)
        }
    }
}

/// Colour for a stream: forced by --color, else only on a terminal and never with NO_COLOR.
fn wants_color(choice: Color, is_terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && is_terminal,
    }
}

fn run(cli: &Cli, color: bool, level_flags: &[(String, promptc::lint::Level)]) -> Result<ExitCode, Error> {
    let color = (cli.color, color);
    // Commands that need no project.
    match &cli.command {
        Commands::Schema(args) => {
            return print(&match args.kind {
                SchemaKind::Manifest => promptc::project_schema::manifest(),
                SchemaKind::Tools => promptc::project_schema::tools(),
            })
        }
        Commands::Init(args) => return init(args.dir.as_deref().unwrap_or(std::path::Path::new("."))),
        Commands::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "promptc", &mut std::io::stdout());
            return Ok(ExitCode::SUCCESS);
        }
        Commands::Check(args) if args.explain.is_some() => return explain(args.explain.as_deref().unwrap_or_default()),
        _ => {}
    }
    // Comparing two folders needs no project.
    if let Commands::Diff(args) = &cli.command {
        if let [a, b] = args.folders.as_slice() {
            let r = promptc::diff::folders(a, b)?;
            return diff_output(&r, args.format, color.0);
        }
    }
    let manifest = project::discover(cli.project.as_deref())?;
    // The process ends right after the command: tearing down a large project (templates,
    // catalog, file texts) would only delay the exit, so it is deliberately leaked.
    let project: &Project = Box::leak(Box::new(Project::load(&manifest)?));
    {
        let color = wants_color(cli.color, std::io::stderr().is_terminal());
        let mut err = std::io::stderr().lock();
        // `check` reports these itself, with levels applied.
        if !matches!(cli.command, Commands::Check(_)) {
            // The project's `check.levels` apply here too: an allowed rule stays quiet.
            let levels = promptc::lint::levels(project, &[]);
            for w in &project.warnings {
                let allowed = w.code.as_deref().and_then(|c| levels.get(c)) == Some(&promptc::lint::Level::Allow);
                if !allowed {
                    let _ = write!(err, "{}", w.render(color));
                }
            }
        }
    }
    match &cli.command {
        Commands::Render(args) => render(project, args, color.0),
        Commands::Report(args) => report(project, args),
        Commands::Snapshot(args) => snapshot(project, args.dir.as_deref()),
        Commands::Diff(args) => diff(project, args, color.0),
        Commands::Freeze(args) => freeze(project, args),
        Commands::Verify(args) => verify(project, args),
        Commands::Command(args) => command(project, args, color.0),
        Commands::Check(args) => check(project, args, level_flags, color.0),
        Commands::Schema(_) | Commands::Init(_) | Commands::Completions(_) => Ok(ExitCode::SUCCESS),
    }
}

fn token_counter(project: &Project) -> promptc::tokens::Counter {
    let disk = project.tokens.cache.as_ref().map(|rel| project.fs().root().join(rel));
    promptc::tokens::Counter::new(project.tokens.tokenizer, disk)
}

fn snapshot_dir(project: &Project, dir: Option<&std::path::Path>) -> PathBuf {
    dir.map_or_else(|| promptc::snapshot::folder(project), std::path::Path::to_path_buf)
}

fn snapshot(project: &Project, dir: Option<&std::path::Path>) -> Result<ExitCode, Error> {
    let dir = snapshot_dir(project, dir);
    let mut counter = token_counter(project);
    counter.prefetch();
    let mut matrix = promptc::snapshot::Matrix::render(project)?;
    matrix.count_tokens(&mut counter)?;
    counter.save()?;
    std::mem::forget(counter); // see report(): no need to free the tokenizer before exit
    let w = promptc::snapshot::write(&dir, &matrix.all_files())?;
    let mut err = std::io::stderr().lock();
    for f in &w.written {
        let _ = writeln!(err, "wrote {}", dir.join(f).display());
    }
    for f in &w.removed {
        let _ = writeln!(err, "removed {}", dir.join(f).display());
    }
    let _ = writeln!(
        err,
        "{}: {} written, {} unchanged, {} removed",
        dir.display(),
        w.written.len(),
        w.unchanged,
        w.removed.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn diff_output(r: &promptc::diff::DiffReport, format: DiffFormat, color: Color) -> Result<ExitCode, Error> {
    let f = match format {
        DiffFormat::Text => promptc::diff::Format::Text,
        DiffFormat::Markdown => promptc::diff::Format::Markdown,
        DiffFormat::Json => promptc::diff::Format::Json,
    };
    print(&promptc::diff::render(r, f, wants_color(color, std::io::stdout().is_terminal())))?;
    Ok(if r.drift() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn diff(project: &Project, args: &DiffArgs, color: Color) -> Result<ExitCode, Error> {
    let dir = snapshot_dir(project, args.dir.as_deref());
    let mut counter = token_counter(project);
    let (report, matrix) = promptc::diff::against_snapshots(project, &dir, &mut counter)?;
    counter.save()?;
    std::mem::forget(counter); // see report(): no need to free the tokenizer before exit
    if args.update {
        if report.drift() {
            let w = promptc::snapshot::write(&dir, &matrix.all_files())?;
            let _ = writeln!(
                std::io::stderr(),
                "{}: {} written, {} removed",
                dir.display(),
                w.written.len(),
                w.removed.len()
            );
        }
        diff_output(&report, args.format, color)?;
        return Ok(ExitCode::SUCCESS);
    }
    diff_output(&report, args.format, color)
}

fn freeze(project: &Project, args: &FreezeArgs) -> Result<ExitCode, Error> {
    if args.cell.subagent.is_some() {
        return Err(promptc::diagnostic::Diagnostic::error("sub-agent prompts are never frozen")
            .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt (drop --subagent)")
            .into());
    }
    let req = request(&args.cell)?;
    let compiled = compile::compile(project, &req)?;
    let rec = promptc::freeze::record(project, &compiled, &req.runtime);
    promptc::atomic::write(&args.out, promptc::freeze::to_json(&rec).as_bytes())?;
    let _ = writeln!(
        std::io::stderr(),
        "froze {} ({}) into {}",
        compiled.selection.profile,
        compiled.transport,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn verify(project: &Project, args: &VerifyArgs) -> Result<ExitCode, Error> {
    let rec = promptc::freeze::read(&args.file)?;
    let v = promptc::freeze::verify(project, &rec)?;
    print(&v.render(&args.file.display().to_string(), args.format == VerifyFormat::Json))?;
    Ok(if v.fresh { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn request(cell: &CellArgs) -> Result<Request, Error> {
    if let (Some(t @ (Transport::Xml | Transport::Json)), Some(_)) = (cell.transport, cell.provider) {
        return Err(promptc::diagnostic::Diagnostic::error(format!("--provider has no effect with --transport {t}"))
            .with_help(format!(
                "the {t} transport describes the tools inside the prompt and sends no tools JSON; drop --provider"
            ))
            .into());
    }
    Ok(Request {
        selection: SelectionInput {
            explicit: cell.profile.clone(),
            model: cell.model.clone(),
            context_window: cell.context_window.clone(),
        },
        transport: cell.transport,
        provider: cell.provider,
        runtime: RuntimeInput {
            sets: cell.sets.clone(),
            vars: cell.vars.clone(),
            context_file: cell.context.clone(),
            nonce: cell.nonce.clone(),
            lenient: cell.lenient,
        },
        subagent: cell.subagent.clone(),
    })
}

/// Print the warnings a render collected (`--lenient`).
fn warn(c: &Compiled, choice: Color) {
    let color = wants_color(choice, std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    for w in &c.warnings {
        let _ = write!(err, "{}", w.render(color));
    }
}

fn explain(code: &str) -> Result<ExitCode, Error> {
    print(&promptc::lint::explain(code)?)
}

fn check(
    project: &Project,
    args: &CheckArgs,
    level_flags: &[(String, promptc::lint::Level)],
    color: Color,
) -> Result<ExitCode, Error> {
    let mut overrides = Vec::new();
    for (code, level) in level_flags {
        overrides.push((promptc::lint::known_code(code)?.to_string(), *level));
    }
    let mut counter = token_counter(project);
    let result = promptc::lint::check(project, &overrides, &mut counter)?;
    counter.save()?;
    std::mem::forget(counter); // see report(): no need to free the tokenizer before exit
    let format = match args.format {
        CheckFormat::Human => {
            promptc::lint::Format::Human { color: wants_color(color, std::io::stdout().is_terminal()) }
        }
        CheckFormat::Json => promptc::lint::Format::Json,
        CheckFormat::Github => promptc::lint::Format::Github,
    };
    print(&result.render(format))?;
    Ok(if result.failed() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The `-A/-W/-D` flags in command-line order (later wins, as with rustc): clap keeps each
/// flag's values apart, so they are merged by their position on the command line.
fn level_flags_in_order(m: &clap::ArgMatches) -> Vec<(String, promptc::lint::Level)> {
    use promptc::lint::Level;
    let mut flags: Vec<(usize, String, Level)> = Vec::new();
    for (id, level) in [("allow", Level::Allow), ("warn", Level::Warn), ("deny", Level::Deny)] {
        if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
            flags.extend(indices.zip(values).map(|(i, v)| (i, v.clone(), level)));
        }
    }
    flags.sort_by_key(|(i, _, _)| *i);
    flags.into_iter().map(|(_, code, level)| (code, level)).collect()
}

fn init(dir: &std::path::Path) -> Result<ExitCode, Error> {
    let written = promptc::init::write_starter(dir)?;
    let mut err = std::io::stderr().lock();
    for p in &written {
        let _ = writeln!(err, "created {}", p.display());
    }
    let _ = writeln!(err, "next: promptc -C {} render", dir.display());
    Ok(ExitCode::SUCCESS)
}

fn command(project: &Project, args: &CommandArgs, color: Color) -> Result<ExitCode, Error> {
    let compiled = compile::compile(project, &request(&args.cell)?)?;
    warn(&compiled, color);
    print(&promptc::command::render(project, &compiled, &args.name)?)
}

fn render(project: &Project, args: &RenderArgs, color: Color) -> Result<ExitCode, Error> {
    let compiled = compile::compile(project, &request(&args.cell)?)?;
    warn(&compiled, color);
    if let Some(dir) = &args.out {
        let written = promptc::artifact::write_artifact(dir, project, &compiled)?;
        let mut err = std::io::stderr().lock();
        for p in written {
            let _ = writeln!(err, "wrote {}", p.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = match args.format {
        RenderFormat::Text if args.tools => compiled.tools_json()?,
        RenderFormat::Text => compiled.prompt.clone(),
        RenderFormat::Json => promptc::artifact::render_json(project, &compiled),
    };
    print(&out)
}

fn report(project: &Project, args: &ReportArgs) -> Result<ExitCode, Error> {
    use promptc::report::{self, Format};
    let req = request(&args.cell)?;
    let runtime = promptc::context::Runtime::resolve(project, &req.runtime)?;
    let model = args.cell.model.clone().or_else(|| runtime.model.clone());
    let tokenizer = report::choose_tokenizer(project, args.tokenizer.as_deref(), model.as_deref())?;
    let disk =
        if args.no_cache { None } else { project.tokens.cache.as_ref().map(|rel| project.fs().root().join(rel)) };
    let mut counter = promptc::tokens::Counter::new(tokenizer, disk);
    counter.prefetch();
    let cells = if args.matrix {
        report::matrix_cells(project, &runtime, req.provider.unwrap_or(project.defaults.provider))?
    } else {
        vec![compile::compile_with(project, &req, runtime)?]
    };
    let mut reports = Vec::new();
    for c in &cells {
        reports.push(report::build(project, c, &mut counter)?);
    }
    counter.save()?;
    let stats = counter.stats();
    let cached = counter.disk_path().is_some();
    // The tokenizer's tables take tens of milliseconds to free; the process is about to exit.
    std::mem::forget(counter);
    let format = match args.format {
        ReportFormat::Table => Format::Table,
        ReportFormat::Json => Format::Json,
        ReportFormat::Markdown => Format::Markdown,
        ReportFormat::Csv => Format::Csv,
    };
    let out = if args.matrix { report::render_matrix(&reports, format) } else { report::render(&reports[0], format) };
    let code = print(&out)?;
    let mut err = std::io::stderr().lock();
    if cached {
        let _ = writeln!(err, "{}", report::cache_line(stats));
    }
    let failures: Vec<String> = reports.iter().flat_map(report::budget_failures).collect();
    for f in &failures {
        let _ = writeln!(err, "budget exceeded: {f}");
    }
    Ok(if failures.is_empty() { code } else { ExitCode::from(1) })
}

fn print(s: &str) -> Result<ExitCode, Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // A closed pipe (`promptc render | head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Error::io("write to", std::path::Path::new("stdout"), &e)),
    }
}
