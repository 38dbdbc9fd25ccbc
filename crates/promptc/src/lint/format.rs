//! How `check` prints its result: rustc-style for people, JSON for machines, GitHub Actions
//! workflow commands for annotations.

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::CheckResult;

/// How `check` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// rustc-style diagnostics, the cacheable-prefix table and a summary line; a clean result is
    /// the summary line alone unless `verbose`.
    Human {
        /// ANSI colour.
        color: bool,
        /// The cacheable-prefix table even when there is nothing to report.
        verbose: bool,
    },
    /// Diagnostics and cache prefixes as JSON.
    Json,
    /// GitHub Actions workflow commands.
    Github,
}

impl CheckResult {
    /// Errors and warnings.
    pub fn counts(&self) -> (usize, usize) {
        let count = |s: Severity| self.diagnostics.iter().filter(|d| d.severity == s).count();
        (count(Severity::Error), count(Severity::Warning))
    }

    /// Render the result.
    pub fn render(&self, format: Format) -> String {
        let (errors, warnings) = self.counts();
        match format {
            Format::Json => crate::json::document(serde_json::json!({
                "errors": errors,
                "warnings": warnings,
                "diagnostics": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
                "cache_prefixes": self.cache_prefixes,
            })),
            Format::Github => self.diagnostics.iter().map(|d| format!("{}\n", github_line(d))).collect(),
            Format::Human { color, verbose } => {
                let mut s: String = self.diagnostics.iter().map(|d| format!("{}\n", d.render(color))).collect();
                // A clean project gets one line: the table is reference, wanted when something
                // is being looked into (a finding) or asked for.
                let table = if verbose || !self.diagnostics.is_empty() { self.cache_prefixes.as_slice() } else { &[] };
                if !table.is_empty() {
                    s.push_str("cacheable prefix (the request before the first byte another session changes):\n");
                }
                for p in table {
                    let end = p.ends_at.as_deref().map_or("whole request".to_string(), |e| format!("until `{e}`"));
                    s.push_str(&format!("  {:<48} {:>6} of {:>6}  {end}\n", p.cell, p.cacheable, p.total));
                }
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                s.push_str(&format!(
                    "{}: {errors} error{}, {warnings} warning{}\n",
                    if errors > 0 { "check failed" } else { "check passed" },
                    plural(errors),
                    plural(warnings)
                ));
                s
            }
        }
    }
}

/// A `--format github` workflow command for a diagnostic (see [`Diagnostic::github_line`]).
pub fn github_line(d: &Diagnostic) -> String {
    d.github_line()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::RuleCode;
    use crate::diagnostic::{Label, Position};
    use crate::lint::finding;

    #[test]
    fn github_lines_follow_the_workflow_command_syntax() {
        let d = finding(RuleCode::P001, "50% done, a: b\nnext".into()).with_label(Label::at(
            "dir/a,b.yaml",
            "x\n",
            Position::new(1, 1, 1),
        ));
        assert_eq!(github_line(&d), "::error file=dir/a%2Cb.yaml,line=1,col=1,title=P001::50%25 done, a: b%0Anext");
        let w = Diagnostic::warning("plain");
        assert_eq!(github_line(&w), "::warning::plain");
        // A literal `%0A` stays text; line separators and controls never reach the line raw.
        let d = Diagnostic::error("a%0Ab\u{2028}::warning::x\u{85}\u{1b}[2K\u{202e}").with_label(Label::at(
            "f\u{2029}:g",
            "x\n",
            Position::new(1, 1, 1),
        ));
        assert_eq!(
            github_line(&d),
            "::error file=f\\u{2029}%3Ag,line=1,col=1::a%250Ab\\u{2028}::warning::x\\u{0085}\\u{001b}[2K\\u{202e}"
        );
    }
}
