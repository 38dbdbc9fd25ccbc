//! How `check` prints its result: rustc-style for people, JSON for machines, GitHub Actions
//! workflow commands for annotations.

use crate::diagnostic::{Diagnostic, Severity};
use crate::json::to_pretty_json;
use crate::lint::CheckResult;

/// How `check` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// rustc-style diagnostics, the cacheable-prefix table and a summary line.
    Human {
        /// ANSI colour.
        color: bool,
    },
    /// Diagnostics and cache prefixes as JSON.
    Json,
    /// GitHub Actions workflow commands.
    Github,
}

impl CheckResult {
    /// Errors and warnings.
    pub fn counts(&self) -> (usize, usize) {
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        (errors, self.diagnostics.len() - errors)
    }

    /// Render the result.
    pub fn render(&self, format: Format) -> String {
        let (errors, warnings) = self.counts();
        match format {
            Format::Json => to_pretty_json(&serde_json::json!({
                "errors": errors,
                "warnings": warnings,
                "diagnostics": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
                "cache_prefixes": self.cache_prefixes,
            })),
            Format::Github => self.diagnostics.iter().map(|d| format!("{}\n", github_line(d))).collect(),
            Format::Human { color } => {
                let mut s: String = self.diagnostics.iter().map(|d| format!("{}\n", d.render(color))).collect();
                s.push_str(
                    "cacheable prefix (tools and prompt before the first section that changes between \
                            sessions):\n",
                );
                for p in &self.cache_prefixes {
                    let end = p.ends_at.as_deref().map_or("whole prompt".to_string(), |e| format!("until `{e}`"));
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

/// A `--format github` workflow command for a diagnostic.
pub fn github_line(d: &Diagnostic) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    // Workflow commands escape %, CR and LF in the message, and also , and : in properties.
    let esc_msg = |s: &str| s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    let esc_prop = |s: &str| esc_msg(s).replace(':', "%3A").replace(',', "%2C");
    let mut props = Vec::new();
    if let Some(l) = &d.label {
        props.push(format!("file={}", esc_prop(&l.file)));
        if let Some(p) = l.position {
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
        }
    }
    if let Some(code) = &d.code {
        props.push(format!("title={}", esc_prop(code.as_str())));
    }
    let mut msg = d.message.clone();
    if let Some(h) = &d.help {
        msg.push_str(&format!("\nhelp: {h}"));
    }
    if props.is_empty() {
        format!("::{kind}::{}", esc_msg(&msg))
    } else {
        format!("::{kind} {}::{}", props.join(","), esc_msg(&msg))
    }
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
    }
}
