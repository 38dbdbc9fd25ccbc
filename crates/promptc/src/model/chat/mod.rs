//! Chat templates as the project declares them (`chat_templates:`) or a user names one
//! (`--chat-template FILE`): the template's source (one, or a `tokenizer_config.json`'s named
//! ones), its variables, the date `strftime_now` reads, and which cells it renders. The `chat`
//! layer applies them to compiled cells.

// How a chat template is read, rendered and compared with Jinja2 is the engine's.
pub use promptc_template::chat::{differences, ChatDate, ChatTemplate};

use indexmap::IndexMap;

use crate::diagnostic::Span;

/// One entry of `chat_templates:`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatTemplateDecl {
    /// Its name (`qwen`): chat cells are named `PROFILE[.CASE].chat-NAME`.
    pub name: String,
    /// The template.
    pub template: ChatTemplate,
    /// Template variables, over the template file's special tokens.
    pub variables: IndexMap<String, serde_json::Value>,
    /// The date `strftime_now` gives (`None`: today — snapshots of a template that reads it then
    /// change every day; the loader warns).
    pub date: Option<ChatDate>,
    /// The model's `tokenizer.json` (project-relative, normalised), read when a report counts,
    /// and where it is named.
    pub tokenizer: Option<(String, Span)>,
    /// The profiles whose cells it renders (empty: every profile).
    pub profiles: Vec<String>,
    /// Model id segments it is for (as `selection:` patterns), chosen by `--model` with
    /// `--transport chat`.
    pub models: Vec<crate::model::selection::SegmentPattern>,
    /// Where it is declared.
    pub span: Span,
}

impl ChatTemplateDecl {
    /// Whether it is for model `id` (any of its `/`-separated segments matches a pattern).
    pub fn for_model(&self, id: &str) -> bool {
        id.split('/').any(|seg| self.models.iter().any(|p| p.matches(seg)))
    }

    /// Whether it renders `profile`'s cells.
    pub fn covers(&self, profile: &str) -> bool {
        self.profiles.is_empty() || self.profiles.iter().any(|p| p == profile)
    }
}
