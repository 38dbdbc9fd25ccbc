//! `promptc review` (and `diff --review`): the drift decided change by change, like
//! `cargo insta review` — one key per change on a terminal (no Enter), a line per answer
//! otherwise; `--accept`/`--reject` decide by pattern without asking. Skipped changes stay
//! pending in the snapshot folder, so the next review continues with them.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};

use super::*;
use promptc::snapshot::{Change, Decision};

#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// Accept, without asking, the changes matching PATTERN (repeatable): a tool or section
    /// name (`read_file`, `section rules`), a glob every file of the change matches
    /// (`standard.*`, `*.openai.tools.json`), or a change's key (`diff --format json`). The
    /// others are left pending.
    #[arg(long, value_name = "PATTERN")]
    pub(crate) accept: Vec<String>,
    /// Reject, without asking, the changes matching PATTERN (repeatable; as for `--accept`).
    #[arg(long, value_name = "PATTERN")]
    pub(crate) reject: Vec<String>,
    /// Snapshot folder (default: the project's `snapshots:` setting).
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

/// Whether `pattern` names the change: its key, its subject (`tool read_file`), the subject's
/// name (`read_file`), or every file it changes, by name or by cell (`standard.*`).
pub(crate) fn matches(pattern: &str, c: &Change) -> bool {
    if pattern == c.key {
        return true;
    }
    let name = c.subject.split_once(' ').map_or(c.subject.as_str(), |(_, n)| n);
    if !c.subject.is_empty() && (glob_match(pattern, &c.subject) || glob_match(pattern, name)) {
        return true;
    }
    !c.files.is_empty() && c.files.iter().all(|f| glob_match(pattern, f) || glob_match(pattern, cell_of(f)))
}

/// A snapshot file's cell (and provider): its name without the kind of file.
fn cell_of(file: &str) -> &str {
    [".tools.json", ".prompt.md", ".messages.json", ".md"].iter().find_map(|s| file.strip_suffix(s)).unwrap_or(file)
}

const KEYS: &str = "a accept · r reject · s skip · ? help · q quit";

const HELP: &str = concat!(
    "  a  accept: the committed snapshots take this change\n",
    "  r  reject: drop it (the snapshots keep their text; `promptc diff` still reports it while\n",
    "     the project renders it)\n",
    "  s  skip: decide later; it stays pending in the snapshot folder and the next\n",
    "     `promptc review` starts with it\n",
    "  q  quit: every change not yet decided is skipped (Ctrl-C too)\n",
    "  ?  this help\n",
    "Without a terminal, answers are read one per line (a, r, s, q). `--accept`/`--reject PATTERN`\n",
    "decide without asking.",
);

/// Text from the snapshot files (a pull request's) as the terminal shows it: control
/// characters but line breaks and tabs as `\u{…}`, so none moves the cursor or recolours.
fn visible(text: &str) -> String {
    text.chars()
        .map(
            |c| {
                if c.is_control() && c != '\n' && c != '\t' {
                    format!("\\u{{{:04x}}}", c as u32)
                } else {
                    c.to_string()
                }
            },
        )
        .collect()
}

/// An answer as read: a decision, quit, help, or something else.
enum Key {
    Decide(Decision),
    Quit,
    Help,
    Ignore,
    Other(String),
}

fn key_of(s: &str) -> Key {
    match s {
        "a" | "accept" | "y" => Key::Decide(Decision::Accept),
        "r" | "reject" | "n" => Key::Decide(Decision::Reject),
        "s" | "skip" | " " => Key::Decide(Decision::Skip),
        "q" | "quit" | "\u{3}" | "\u{4}" => Key::Quit,
        "?" | "h" | "help" => Key::Help,
        // Enter by habit, an arrow key: nothing to answer.
        "" | "\r" | "\n" | ESCAPE_SEQUENCE => Key::Ignore,
        other => Key::Other(other.to_string()),
    }
}

/// Where answers come from: single keys from a terminal in cbreak mode, or lines.
enum Input {
    Keys(#[allow(dead_code)] raw::Guard),
    Lines,
}

impl Input {
    fn open() -> Input {
        if std::io::stdin().is_terminal() {
            if let Some(g) = raw::Guard::enter() {
                return Input::Keys(g);
            }
        }
        Input::Lines
    }

    /// The next answer; `None` at the end of input.
    fn next(&mut self) -> Result<Option<String>, Error> {
        let stdin = std::io::stdin();
        let failed = |e: std::io::Error| Error::io("read the answer", std::path::Path::new("stdin"), &e);
        match self {
            Input::Keys(_) => {
                let mut lock = stdin.lock();
                let mut byte = [0u8; 1];
                loop {
                    match lock.read(&mut byte) {
                        Ok(0) => return Ok(None),
                        Ok(_) if byte[0] == 0x1b => return Ok(Some(escape(&mut lock))),
                        Ok(_) => return Ok(Some(char::from(byte[0]).to_string())),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(failed(e)),
                    }
                }
            }
            Input::Lines => {
                let mut line = String::new();
                match stdin.lock().read_line(&mut line) {
                    Ok(0) => Ok(None),
                    Ok(_) => Ok(Some(line.trim().to_string())),
                    Err(e) => Err(failed(e)),
                }
            }
        }
    }
}

/// After an Escape key: a key's escape sequence (an arrow: `ESC [ A`, which arrives in one go
/// and so is buffered already) is read to its end and ignored, as is Escape alone (the key after
/// it is read as usual).
fn escape(lock: &mut std::io::StdinLock<'_>) -> String {
    let Ok(rest) = lock.fill_buf() else { return ESCAPE_SEQUENCE.into() };
    if !matches!(rest.first(), Some(b'[' | b'O')) {
        return ESCAPE_SEQUENCE.into();
    }
    // The introducer, then parameters up to the final byte (`@` to `~`).
    let end = rest.iter().skip(1).position(|b| (0x40..=0x7e).contains(b)).map_or(rest.len(), |i| i + 2);
    lock.consume(end);
    ESCAPE_SEQUENCE.into()
}

/// What [`escape`] returns for a key's escape sequence.
const ESCAPE_SEQUENCE: &str = "\u{1b}[";

/// `promptc review`: decide each change of the drift (the pending one when the folder holds
/// some), write the decisions, and say what is left.
pub(crate) fn review(project: &Project, args: &ReviewArgs, color: Color) -> Result<Exit, Error> {
    let mut counter = TokenCounter::for_project(project, None, true);
    let r = promptc::review(project, args.dir.as_deref(), &mut counter)?;
    finish_counter(counter);
    let mut out = std::io::stdout().lock();
    let changes = &r.report.changes;
    if changes.is_empty() {
        r.finish(|_| Decision::Skip)?;
        let _ = writeln!(out, "nothing to review: the project matches {}", r.dir.display());
        return Ok(Exit::Success);
    }
    let added = promptc::snapshot::Status::Added;
    if !r.from_pending && r.report.files.iter().all(|f| f.status == added) {
        let _ = writeln!(
            out,
            "{} holds no snapshots of this project yet: run `promptc snapshot` to write them, then commit them",
            r.dir.display()
        );
        return Ok(Exit::Found);
    }
    if r.from_pending {
        let _ = writeln!(
            out,
            "reviewing the pending snapshots in {} (run `promptc diff --pending` to refresh them from the project)",
            r.dir.display()
        );
    }
    let mut decided: BTreeMap<&str, Decision> = BTreeMap::new();
    if !args.accept.is_empty() || !args.reject.is_empty() {
        for c in changes {
            let accept = args.accept.iter().any(|p| matches(p, c));
            let reject = args.reject.iter().any(|p| matches(p, c));
            let d = match (accept, reject) {
                (true, true) => {
                    return Err(Diagnostic::error(format!("{} matches both --accept and --reject", c.title()))
                        .with_help("give patterns that pick each change once")
                        .into_error(promptc::ErrorKind::Usage))
                }
                (true, false) => Decision::Accept,
                (false, true) => Decision::Reject,
                (false, false) => Decision::Skip,
            };
            decided.insert(&c.key, d);
        }
    } else {
        let paint = wants_color(color, std::io::stdout().is_terminal());
        let mut input = Input::open();
        'changes: for (i, c) in changes.iter().enumerate() {
            let files = c.files.len();
            let _ = writeln!(
                out,
                "\n[{}/{}] {} · {files} file{} · Δ tokens {}",
                i + 1,
                changes.len(),
                visible(&c.title()),
                if files == 1 { "" } else { "s" },
                r.report.change_tokens(c)
            );
            let diff = visible(&c.diff);
            let _ = write!(out, "{}", if paint { colorize_diff(&diff) } else { diff });
            let mut ask = true;
            loop {
                if ask {
                    let _ = write!(out, "{KEYS} › ");
                    let _ = out.flush();
                }
                ask = true;
                let Some(answer) = input.next()? else { break 'changes };
                match key_of(&answer) {
                    Key::Decide(d) => {
                        let word = match d {
                            Decision::Accept => "accepted",
                            Decision::Reject => "rejected",
                            _ => "skipped",
                        };
                        let _ = writeln!(out, "{word}");
                        decided.insert(&c.key, d);
                        break;
                    }
                    Key::Quit => {
                        let _ = writeln!(out, "quit");
                        break 'changes;
                    }
                    Key::Help => {
                        let _ = writeln!(out, "\n{HELP}");
                    }
                    Key::Ignore => ask = false,
                    Key::Other(other) => {
                        let _ = writeln!(out, "unknown answer `{}` (? for help)", other.escape_debug());
                    }
                }
            }
        }
        drop(input);
    }
    let done = r.finish(|c| decided.get(c.key.as_str()).copied().unwrap_or(Decision::Skip))?;
    let _ = writeln!(out, "\naccepted {}, rejected {}, skipped {}", done.accepted, done.rejected, done.skipped);
    if done.skipped > 0 {
        let _ = writeln!(out, "{} change(s) left pending: run `promptc review` to continue", done.skipped);
    }
    Ok(if done.skipped > 0 || done.rejected > 0 { Exit::Found } else { Exit::Success })
}

/// The terminal in cbreak mode (a key is read as it is pressed, without echo; Ctrl-C and Ctrl-D
/// are read as keys and quit), restored when the guard is dropped: on every return, an error or
/// a panic's unwinding.
#[cfg(any(target_os = "linux", target_os = "macos"))]
mod raw {
    use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions, SpecialCodeIndex, Termios};

    pub(super) struct Guard {
        saved: Termios,
    }

    impl Guard {
        pub(super) fn enter() -> Option<Guard> {
            let stdin = std::io::stdin();
            let saved = tcgetattr(&stdin).ok()?;
            let mut t = saved.clone();
            t.local_modes.remove(LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG);
            t.special_codes[SpecialCodeIndex::VMIN] = 1;
            t.special_codes[SpecialCodeIndex::VTIME] = 0;
            tcsetattr(&stdin, OptionalActions::Now, &t).ok()?;
            Some(Guard { saved })
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, &self.saved);
        }
    }
}

/// Elsewhere answers are read a line at a time.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod raw {
    pub(super) struct Guard;

    impl Guard {
        pub(super) fn enter() -> Option<Guard> {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_words_are_the_same_answers() {
        assert!(matches!(key_of("a"), Key::Decide(Decision::Accept)));
        assert!(matches!(key_of("reject"), Key::Decide(Decision::Reject)));
        assert!(matches!(key_of("s"), Key::Decide(Decision::Skip)));
        assert!(matches!(key_of("\u{3}"), Key::Quit));
        assert!(matches!(key_of("?"), Key::Help));
        assert!(matches!(key_of("x"), Key::Other(_)));
        assert!(matches!(key_of("\r"), Key::Ignore) && matches!(key_of(ESCAPE_SEQUENCE), Key::Ignore));
        assert!(matches!(key_of("\u{3}"), Key::Quit));
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(visible("a\u{1b}[31mb\nc\td\r"), "a\\u{001b}[31mb\nc\td\\u{000d}");
    }

    #[test]
    fn cells_are_file_names_without_their_kind() {
        assert_eq!(cell_of("standard.native.openai.tools.json"), "standard.native.openai");
        assert_eq!(cell_of("lite.xml.prompt.md"), "lite.xml");
    }
}
