//! `promptc diff`: compare with the snapshots (or two folders), `--update`, `--accept`,
//! `--pending`; `--review` is `promptc review` (`review.rs`).

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    /// Unified diffs and a delta table.
    Text,
    /// A PR comment: delta table and collapsed diffs.
    Markdown,
    /// JSON for machines.
    Json,
    /// One self-contained HTML page: deltas per cell and every file's diff.
    Html,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// Two folders to compare instead (snapshot folders or `render --out` artifact folders).
    #[arg(num_args = 2, value_names = ["A", "B"])]
    pub(crate) folders: Vec<PathBuf>,
    /// Accept the drift: rewrite the snapshots (same as `promptc snapshot`).
    #[arg(long, conflicts_with = "folders")]
    pub(crate) update: bool,
    /// Accept the drift of the snapshot files matching GLOB (`*` and `?`; repeatable), keep
    /// the others as committed.
    #[arg(long, value_name = "GLOB", conflicts_with_all = ["folders", "update"])]
    pub(crate) accept: Vec<String>,
    /// Review the drift change by change (same as `promptc review`): one key per change on a
    /// terminal — a accept, r reject, s skip, ? help, q quit — else one answer per line.
    #[arg(long, conflicts_with_all = ["folders", "update", "accept"])]
    pub(crate) review: bool,
    /// Write the drift as pending snapshots beside the committed ones (`NAME.new`,
    /// `summary.json.new`: for CI to upload, for `promptc review` to decide), leaving the
    /// committed ones as they are; without drift, remove earlier pending ones.
    #[arg(long, conflicts_with_all = ["folders", "update", "accept", "review"])]
    pub(crate) pending: bool,
    /// Snapshot folder (default: the project's `snapshots:` setting).
    #[arg(long, value_name = "DIR", conflicts_with = "folders")]
    pub(crate) dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub(crate) format: DiffFormat,
    /// Cap of the markdown output in bytes, at least 1000 (the default fits a GitHub comment
    /// with margin).
    #[arg(long, value_name = "N", default_value_t = promptc::snapshot::DEFAULT_MARKDOWN_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(promptc::snapshot::MIN_MARKDOWN_BYTES as u64..))]
    pub(crate) max_bytes: u64,
    /// Write the output to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

pub(crate) fn diff_output(r: &promptc::snapshot::DiffReport, args: &DiffArgs, color: Color) -> Result<Exit, Error> {
    use promptc::snapshot::Format;
    let out = args.out.as_deref();
    let text = match args.format {
        DiffFormat::Text => {
            let paint = out.is_none() && wants_color(color, std::io::stdout().is_terminal());
            promptc::snapshot::render(r, Format::Text, paint)
        }
        DiffFormat::Markdown => {
            promptc::snapshot::render_markdown(r, usize::try_from(args.max_bytes).unwrap_or(usize::MAX))
        }
        DiffFormat::Json => promptc::snapshot::render(r, Format::Json, false),
        DiffFormat::Html => promptc::snapshot::render_html(r),
    };
    emit(&text, out)?;
    Ok(drift(r))
}

fn drift(r: &promptc::snapshot::DiffReport) -> Exit {
    if r.drift() {
        Exit::Found
    } else {
        Exit::Success
    }
}

pub(crate) fn diff(project: &Project, args: &DiffArgs, color: Color) -> Result<Exit, Error> {
    let mut counter = TokenCounter::for_project(project, None, true);
    let drift = promptc::diff(project, args.dir.as_deref(), &mut counter)?;
    finish_counter(counter);
    if args.update {
        if drift.report.drift() {
            let w = drift.accept()?;
            let _ = writeln!(
                std::io::stderr(),
                "{}: {} written, {} removed",
                drift.dir.display(),
                w.written.len(),
                w.removed.len()
            );
        }
        diff_output(&drift.report, args, color)?;
        return Ok(Exit::Success);
    }
    if args.review {
        let review_args = ReviewArgs { accept: Vec::new(), reject: Vec::new(), dir: args.dir.clone() };
        return review(project, &review_args, color);
    }
    if args.pending {
        let pending = drift.write_pending()?;
        let code = diff_output(&drift.report, args, color)?;
        if pending > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "note: {pending} pending snapshot file(s) written in {}: run `promptc review` to accept or reject \
                 each change",
                drift.dir.display()
            );
        }
        return Ok(code);
    }
    if !args.accept.is_empty() {
        let matching = |name: &str| args.accept.iter().any(|g| glob_match(g, name));
        let changed: Vec<&str> = changed_files(&drift.report);
        let accepted: Vec<&str> = changed.iter().copied().filter(|f| matching(f)).collect();
        if !accepted.is_empty() {
            drift.accept_files(matching)?;
        }
        let kept = changed.len() - accepted.len();
        let _ = writeln!(std::io::stderr(), "accepted {} changed file(s), kept {kept} as committed", accepted.len());
        return Ok(if kept > 0 { Exit::Found } else { Exit::Success });
    }
    let code = diff_output(&drift.report, args, color)?;
    let r = &drift.report;
    let mut err = std::io::stderr().lock();
    if drift.older_folder() {
        let _ = writeln!(
            err,
            "note: {} was written by an older promptc: run `promptc snapshot --adopt` to take it over in the \
             current format, then commit it",
            drift.dir.display()
        );
    } else if !r.files.is_empty() && r.files.iter().all(|f| f.status == promptc::snapshot::Status::Added) {
        let _ = writeln!(
            err,
            "note: {} holds no snapshots of this project yet: run `promptc snapshot` to write them, then commit \
             them",
            drift.dir.display()
        );
    } else if r.drift() && drift.pending_files() > 0 {
        let _ = writeln!(
            err,
            "note: {} holds pending snapshots: run `promptc review` to accept or reject each change (`promptc diff \
             --pending` refreshes them), or `promptc diff --update` to accept everything, then commit {}",
            drift.dir.display(),
            drift.dir.display()
        );
    } else if r.drift() {
        // Every drift message ends with the command that accepts it.
        let _ = writeln!(
            err,
            "note: if the change is intended, run `promptc diff --update` to accept it (or `promptc review` \
             change by change), then commit {}",
            drift.dir.display()
        );
    }
    Ok(code)
}

/// The drifted snapshot files a user decides on (summary.json follows them).
fn changed_files(r: &promptc::snapshot::DiffReport) -> Vec<&str> {
    r.files.iter().map(|f| f.file.as_str()).filter(|f| *f != "summary.json").collect()
}

/// Red and green lines of a unified diff.
pub(crate) fn colorize_diff(diff: &str) -> String {
    diff.lines()
        .map(|l| match l.as_bytes().first() {
            Some(b'+') if !l.starts_with("+++") => format!("\x1b[32m{l}\x1b[0m\n"),
            Some(b'-') if !l.starts_with("---") => format!("\x1b[31m{l}\x1b[0m\n"),
            Some(b'@') => format!("\x1b[36m{l}\x1b[0m\n"),
            _ => format!("{l}\n"),
        })
        .collect()
}

/// A file-name glob: `*` any run of characters, `?` one character, everything else literal.
pub(crate) fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative matching with backtracking to the last `*` (linear in practice).
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_file_names() {
        assert!(glob_match("*.openai.tools.json", "standard.native.openai.tools.json"));
        assert!(!glob_match("*.openai.tools.json", "standard.native.openai-responses.tools.json"));
        assert!(glob_match("lite.*", "lite.xml.prompt.md"));
        assert!(glob_match("lite.?ml.prompt.md", "lite.xml.prompt.md"));
        assert!(glob_match("*", "anything"));
        assert!(!glob_match("standard.*", "lite.xml.prompt.md"));
        assert!(glob_match("*a*b*", "xxaxxbxx"));
        assert!(!glob_match("*a*b", "xxaxxbxx"));
    }
}
