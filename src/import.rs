//! `promptc import tools`: an agent's existing tool definitions into a promptc project.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    #[command(subcommand)]
    pub(crate) what: ImportWhat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ImportWhat {
    /// Tool definitions (OpenAI, OpenAI Responses, Anthropic, Gemini, MCP tools/list JSON) into
    /// a catalog file per tool and a manifest that renders them back.
    #[command(after_help = EXIT_CODES)]
    Tools(ImportToolsArgs),
}

/// `--from`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FromFormat {
    /// OpenAI Chat Completions tools.
    Openai,
    /// OpenAI Responses tools.
    OpenaiResponses,
    /// Anthropic Messages tools.
    Anthropic,
    /// Gemini function declarations.
    Gemini,
    /// An MCP tools/list result.
    Mcp,
    /// A bare list of `{name, description, parameters}` function definitions.
    Bare,
}

#[derive(Debug, Args)]
pub(crate) struct ImportToolsArgs {
    /// The JSON file of tool definitions (`-` reads standard input).
    pub(crate) file: PathBuf,
    /// The project folder to write (created; refused when it holds files an import did not write).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// The input's form (default: detected from its shape).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) from: Option<FromFormat>,
    /// The project's `strict_tools` (default: from the input's `strict` flags).
    #[arg(long, value_name = "BOOL")]
    pub(crate) strict_tools: Option<bool>,
    /// The providers the project renders for, comma-separated (default: all; the input's own
    /// is always one of them).
    #[arg(long, value_delimiter = ',', value_name = "PROVIDERS", value_parser = provider_values())]
    pub(crate) providers: Vec<promptc::Provider>,
    /// Write the tools that can be imported and list the others (exit code 1 when some are left
    /// out), instead of refusing the whole input for one tool.
    #[arg(long)]
    pub(crate) skip_invalid: bool,
}

/// Largest input read: tool definitions are kilobytes; this only stops a wrong file.
const MAX_INPUT: u64 = 64 * 1024 * 1024;

pub(crate) fn import(args: &ImportArgs) -> Result<Exit, Error> {
    let ImportWhat::Tools(args) = &args.what;
    let (text, source) = read_input(&args.file)?;
    let mut options = promptc::ImportOptions::new();
    if let Some(f) = args.from {
        options = options.from(match f {
            FromFormat::Openai => promptc::ImportFormat::OpenAiChat,
            FromFormat::OpenaiResponses => promptc::ImportFormat::OpenAiResponses,
            FromFormat::Anthropic => promptc::ImportFormat::Anthropic,
            FromFormat::Gemini => promptc::ImportFormat::Gemini,
            FromFormat::Mcp => promptc::ImportFormat::Mcp,
            FromFormat::Bare => promptc::ImportFormat::Bare,
        });
    }
    if let Some(s) = args.strict_tools {
        options = options.strict_tools(s);
    }
    options = options.skip_invalid(args.skip_invalid);
    options = options.providers(args.providers.clone());
    let imported = promptc::import_tools(&text, &source, &options)?;
    let written = promptc::write_imported(&imported, &args.out)?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "imported {} tool{} from {} definitions ({}strict) into {}",
        imported.tool_names().len(),
        if imported.tool_names().len() == 1 { "" } else { "s" },
        imported.format(),
        if imported.strict_tools() { "" } else { "not " },
        args.out.display()
    );
    for p in &written {
        let _ = writeln!(err, "wrote {}", p.display());
    }
    let skipped = imported.skipped();
    if !skipped.is_empty() {
        let color = wants_color(Color::Auto, std::io::stderr().is_terminal());
        for d in skipped {
            let _ = write!(err, "{}", d.render(color));
        }
        let _ = writeln!(
            err,
            "left out: {} problem{} in the tools above (--skip-invalid)",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(err, "next: promptc -C {} render --tools", args.out.display());
    Ok(if skipped.is_empty() { Exit::Success } else { Exit::Found })
}

/// The input's text and the name messages give it.
fn read_input(file: &std::path::Path) -> Result<(String, String), Error> {
    use std::io::Read;
    let (bytes, source) = if file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .take(MAX_INPUT + 1)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("read", std::path::Path::new("stdin"), &e))?;
        (buf, "<stdin>".to_string())
    } else {
        (read_file(file)?, file.display().to_string())
    };
    if bytes.len() as u64 > MAX_INPUT {
        return Err(Error::usage(
            Diagnostic::error(format!("`{source}` is larger than 64 MiB"))
                .with_help("tool definitions are a few kilobytes: is this the right file?"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::usage(
            Diagnostic::error(format!("`{source}` is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
                .with_help("JSON is UTF-8; convert the file first"),
        )
    })?;
    Ok((text, source))
}

/// The contents of `file`, at most `MAX_INPUT + 1` bytes, if it is a regular file: a FIFO would
/// block the import until something writes to it, a device may never end, a folder is no input.
fn read_file(file: &std::path::Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let kind = |m: &std::fs::Metadata| -> Option<&'static str> {
        let t = m.file_type();
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Some("a FIFO (named pipe)");
            }
            if t.is_char_device() || t.is_block_device() {
                return Some("a device");
            }
            if t.is_socket() {
                return Some("a socket");
            }
        }
        if t.is_dir() {
            Some("a folder")
        } else {
            (!t.is_file()).then_some("not a regular file")
        }
    };
    let refuse = |what: &str| {
        Error::usage(
            Diagnostic::error(format!("`{}` is {what}: the import reads only regular files", file.display()))
                .with_label(promptc::Label::file(file.display().to_string()))
                .with_help("give the JSON file of tool definitions, or `-` to read them from standard input"),
        )
    };
    let meta = std::fs::metadata(file).map_err(|e| Error::io("read", file, &e))?;
    if let Some(what) = kind(&meta) {
        return Err(refuse(what));
    }
    let f = std::fs::File::open(file).map_err(|e| Error::io("read", file, &e))?;
    // The path may have been swapped between the two looks: check what was opened.
    if let Some(what) = f.metadata().ok().as_ref().and_then(kind) {
        return Err(refuse(what));
    }
    let mut buf = Vec::new();
    f.take(MAX_INPUT + 1).read_to_end(&mut buf).map_err(|e| Error::io("read", file, &e))?;
    Ok(buf)
}
