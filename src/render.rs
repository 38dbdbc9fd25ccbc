//! `promptc render`: one prompt, its tools, or the frozen artifact.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RenderFormat {
    /// The prompt text (or the tools JSON with --tools).
    Text,
    /// Prompt, projection and metadata as one JSON document.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) cell: CellArgs,
    #[command(flatten)]
    pub(crate) chat: ChatArgs,
    /// Write the frozen artifact (prompt.md, tools.json, metadata.json) into DIR.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Print the tool projection instead of the prompt.
    #[arg(long, conflicts_with = "out")]
    pub(crate) tools: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RenderFormat::Text)]
    pub(crate) format: RenderFormat,
}

pub(crate) fn render(project: &Project, args: &RenderArgs, color: Color) -> Result<Exit, Error> {
    if args.chat.wanted(&args.cell) {
        return render_chat(project, args, color);
    }
    args.chat.refuse_without_chat()?;
    let compiled = promptc::compile(project, &request(project, &args.cell)?)?;
    warn(&compiled, color);
    if let Some(dir) = &args.out {
        let written = promptc::write_artifact(project, &compiled, dir)?;
        let mut err = std::io::stderr().lock();
        for p in written {
            let _ = writeln!(err, "wrote {}", p.display());
        }
        return Ok(Exit::Success);
    }
    if args.format == RenderFormat::Text && !args.tools && std::io::stdout().is_terminal() {
        let _ = writeln!(std::io::stderr().lock(), "{}", tools_note(&compiled));
    }
    let out = match args.format {
        RenderFormat::Text if args.tools => tools_json(&compiled)?,
        RenderFormat::Text => compiled.prompt().to_string(),
        RenderFormat::Json => compiled.to_json(project),
    };
    print(&out)
}

/// The tools JSON, or an error that says which flags to change.
fn tools_json(compiled: &Compiled) -> Result<String, Error> {
    compiled.tools_json().map_err(|_| {
        Error::usage(
            Diagnostic::error(format!(
                "the {} transport has no tool projection: its tools are described in the prompt",
                compiled.transport()
            ))
            .with_help("use --transport native to get the tools JSON, or drop --tools to print the prompt"),
        )
    })
}

/// What a reader at a terminal cannot see in the prompt alone: the tools sent with it. Printed on
/// stderr only when stdout is a terminal, so piped and redirected prompts stay exactly the prompt.
fn tools_note(compiled: &Compiled) -> String {
    let names = compiled.tool_names();
    let count = match names.len() {
        0 => return "note: no tools are sent with this prompt".into(),
        1 => "1 tool".to_string(),
        n => format!("{n} tools"),
    };
    match compiled.projection() {
        Some(_) => format!("note: {count} sent beside the prompt: {} (print them: --tools)", names.join(", ")),
        None => {
            format!("note: {count} described in the prompt ({} transport): {}", compiled.transport(), names.join(", "))
        }
    }
}
