//! The tool catalog: every tool declared once, selected per profile, filtered per switch set.

use indexmap::IndexMap;

use crate::diagnostic::Span;
use crate::model::condition::Condition;
use crate::model::params::{ObjectShape, Property};

/// How tool and parameter descriptions reach a provider (`descriptions:` in promptc.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DescriptionMode {
    /// Trailing whitespace removed (the newline a YAML `|` block leaves), the default.
    #[default]
    Trim,
    /// Byte for byte as written: what a port diffed against upstream JSON needs.
    Verbatim,
}

/// A `templated: true` tool's texts — description, description parts, `parameters:`
/// descriptions and the wordings overrides and variants give them — each compiled at load as a
/// template rendered per cell with the cell's values (`resolve::values::ToolTexts`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextTemplates {
    /// Each text as the model holds it (trimmed under `descriptions: trim`) → its template.
    pub names: std::collections::BTreeMap<String, String>,
    /// Trailing whitespace of each rendered text removed (`descriptions: trim`).
    pub trim: bool,
}

/// Fields of each provider's tool entry promptc has no model for, sent as written after its own.
pub type ProviderFields =
    std::collections::BTreeMap<crate::model::provider::Provider, serde_json::Map<String, serde_json::Value>>;

/// The order of a tool's entry keys for each provider that has one (`provider_key_order:`).
pub type KeyOrder = std::collections::BTreeMap<crate::model::provider::Provider, Vec<String>>;

/// A canonical tool spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The tool's name, also its id.
    pub name: String,
    /// The toolset it belongs to.
    pub toolset: String,
    /// Text shown to the model (empty without one).
    pub description: String,
    /// The catalog gives the tool no description: no provider's entry has a description key
    /// (every provider and MCP allow it).
    pub undescribed: bool,
    /// Sentences appended to the description (each on a new line) only in the cells whose
    /// conditions they meet: how a description mentions another tool only where it exists.
    pub description_parts: Vec<DescriptionPart>,
    /// The tool exists only when this holds.
    pub when: Condition,
    /// Its parameters, in order.
    pub params: Vec<Property>,
    /// How its parameters object is closed and its `required` list ordered.
    pub shape: ObjectShape,
    /// Per-profile wording overrides, by profile name.
    pub overrides: IndexMap<String, ToolOverride>,
    /// Name and wording chosen by conditions, in order: every one that holds in a cell applies,
    /// over the profile's override and a later one over an earlier one, field by field.
    pub variants: Vec<ToolVariant>,
    /// The catalog file that declares it (project-relative).
    pub file: String,
    /// Whether calling it starts a sub-agent (such tools never reach a sub-agent).
    pub spawns_subagents: bool,
    /// Usage guidance shown (in the `tool_guidance` section) only while the tool is active.
    pub guidance: Option<String>,
    /// Where the guidance is written (empty without guidance).
    pub guidance_span: Span,
    /// Text it contributes to prompt slots while active.
    pub contributions: Vec<Contribution>,
    /// Example calls (checked against its parameters at load).
    pub examples: Vec<ToolExample>,
    /// Entry fields sent as written to one provider, after promptc's own.
    pub provider_fields: ProviderFields,
    /// The order of its entry's keys for a provider, where not promptc's.
    pub provider_key_order: KeyOrder,
    /// Its texts compiled as templates, for a `templated: true` tool (empty otherwise).
    pub text_templates: TextTemplates,
    /// Its name's value in its catalog file.
    pub name_span: Span,
    /// Its declaration, `name: NAME`.
    pub decl_span: Span,
}

/// An example call of a tool: shown (`generate: tool_examples`) in the cells where the tool and
/// every parameter the example uses are active, in each transport's call format.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExample {
    /// What it shows, if said.
    pub description: Option<String>,
    /// The arguments, by parameter name, in declaration order.
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// Where it starts in its catalog file (its description or its arguments, whichever comes
    /// first).
    pub span: Span,
}

/// A part of a tool's description with the conditions under which it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescriptionPart {
    /// The sentence, sent as written.
    pub text: String,
    /// Sent only while every one of these tools is active in the cell.
    pub tools: Vec<String>,
    /// Where each of `tools` is named.
    pub tool_spans: Vec<Span>,
    /// Sent only when this switch expression holds.
    pub when: Condition,
    /// Sent only in these profiles (empty: every profile).
    pub profiles: Vec<String>,
}

impl DescriptionPart {
    /// Whether the part is sent in a cell of `profile` with `switches` and these active tools.
    pub fn applies(
        &self,
        profile: &str,
        switches: &std::collections::BTreeMap<String, bool>,
        choices: &std::collections::BTreeMap<String, String>,
        active: &[&str],
    ) -> bool {
        self.when.eval_with(switches, choices)
            && (self.profiles.is_empty() || self.profiles.iter().any(|p| p == profile))
            && self.tools.iter().all(|t| active.contains(&t.as_str()))
    }
}

/// What a contribution inserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContributionBody {
    /// Literal text, inserted verbatim: template syntax in it is never evaluated.
    Literal(String),
    /// A compiled template (by name), rendered with the cell's context.
    Template(String),
}

/// Text a tool contributes to a slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contribution {
    /// The slot.
    pub slot: String,
    /// Its `slot:` value in the catalog file.
    pub slot_span: Span,
    /// The text.
    pub body: ContributionBody,
    /// Only in these profiles (empty: all).
    pub profiles: Vec<String>,
}

/// Profile-specific wording for a tool: never a copy, only the changed text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOverride {
    /// Replacement description.
    pub description: Option<String>,
    /// Replacement parameter descriptions, by top-level parameter name.
    pub params: IndexMap<String, String>,
    /// Where each of `params` is named (empty for wording not read from a file).
    pub param_spans: IndexMap<String, Span>,
    /// Where it is declared: the profile's name under `overrides:`, or the variant.
    pub span: Span,
}

/// A tool's name and wording where its conditions hold: a second axis of variation besides the
/// profile (the platform, the runtime), with only the changed text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolVariant {
    /// Applies only when this holds.
    pub when: Condition,
    /// Applies only in these profiles (empty: every profile).
    pub profiles: Vec<String>,
    /// The name the model sees instead (the catalog id stays the tool's name).
    pub name: Option<String>,
    /// The changed wording.
    pub wording: ToolOverride,
}

impl ToolVariant {
    /// Whether the variant applies in a cell of `profile` with `switches`.
    pub fn applies(
        &self,
        profile: &str,
        switches: &std::collections::BTreeMap<String, bool>,
        choices: &std::collections::BTreeMap<String, String>,
    ) -> bool {
        self.when.eval_with(switches, choices)
            && (self.profiles.is_empty() || self.profiles.iter().any(|p| p == profile))
    }
}

/// All tools of a project, in declaration order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Catalog {
    tools: Vec<Tool>,
}

/// What a profile asks of the catalog.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolSelection {
    /// Every tool of these toolsets.
    pub toolsets: Vec<String>,
    /// Plus these ids.
    pub tools: Vec<String>,
    /// Minus these ids.
    pub exclude: Vec<String>,
}

impl Catalog {
    /// A catalog of `tools` (names already checked unique).
    pub fn new(tools: Vec<Tool>) -> Self {
        Catalog { tools }
    }

    /// Every tool, in declaration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tool ids a profile registers, before switches: toolsets ∪ tools − exclude, in
    /// catalog order so that one declaration order governs every cell.
    pub fn registered(&self, sel: &ToolSelection) -> Vec<&Tool> {
        use std::collections::HashSet;
        let toolsets: HashSet<&str> = sel.toolsets.iter().map(String::as_str).collect();
        let tools: HashSet<&str> = sel.tools.iter().map(String::as_str).collect();
        let exclude: HashSet<&str> = sel.exclude.iter().map(String::as_str).collect();
        self.tools
            .iter()
            .filter(|t| toolsets.contains(t.toolset.as_str()) || tools.contains(t.name.as_str()))
            .filter(|t| !exclude.contains(t.name.as_str()))
            .collect()
    }
}

/// Whether `name` is a valid tool name for a catalog (and a file name of an import).
pub fn valid_tool_name(name: &str) -> bool {
    // The providers' rules together; a provider with a narrower one (OpenAI and Anthropic: no
    // dot; Gemini: a letter or `_` first) is P002's to say, for the projects that send to it.
    crate::model::provider::NameRule::Catalog.allows(name)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::params::{Kind, Schema};

    fn param(name: &str, when: Condition) -> Property {
        Property {
            name: name.into(),
            required: false,
            schema: Schema {
                description: Some(format!("{name} text")),
                nullable: false,
                default: None,
                kind: Kind::Boolean,
                json: None,
            },
            when,
            profiles: Vec::new(),
            span: Default::default(),
        }
    }

    fn tool(name: &str, toolset: &str, when: Condition) -> Tool {
        Tool {
            name: name.into(),
            toolset: toolset.into(),
            description: format!("{name} does things"),
            undescribed: false,
            description_parts: Vec::new(),
            when,
            params: vec![param("a", Condition::Always), param("b", Condition::Switch("yolo".into()))],
            shape: Default::default(),
            variants: Vec::new(),
            overrides: IndexMap::new(),
            file: "tools.yaml".into(),
            spawns_subagents: false,
            text_templates: TextTemplates::default(),
            guidance: None,
            guidance_span: Span::default(),
            contributions: Vec::new(),
            examples: Vec::new(),
            provider_fields: Default::default(),
            provider_key_order: Default::default(),
            name_span: Span::default(),
            decl_span: Span::default(),
        }
    }

    pub(crate) fn catalog() -> Catalog {
        let mut t = tool("read", "files", Condition::Always);
        t.overrides.insert(
            "lite".into(),
            ToolOverride {
                description: Some("Read.".into()),
                params: [("a".to_string(), "A.".to_string())].into_iter().collect(),
                ..ToolOverride::default()
            },
        );
        Catalog::new(vec![
            t,
            tool("browse", "web", Condition::Switch("browser".into())),
            tool("ask", "interaction", Condition::Always),
        ])
    }

    #[test]
    fn selection_is_union_minus_exclusions_in_catalog_order() {
        let c = catalog();
        let sel = ToolSelection {
            toolsets: vec!["interaction".into(), "web".into()],
            tools: vec!["read".into()],
            exclude: vec!["browse".into()],
        };
        let names: Vec<&str> = c.registered(&sel).iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "ask"]);
    }

    #[test]
    fn tool_name_rules() {
        use crate::model::provider::NameRule;
        assert!(valid_tool_name("read_file"));
        assert!(valid_tool_name("mcp-use"));
        // OpenAI and Anthropic take a digit first; Gemini does not, which P002 says.
        assert!(valid_tool_name("1tool"));
        assert!(!NameRule::GeminiFunction.allows("1tool"));
        assert!(NameRule::GeminiFunction.allows("mcp:server.tool"));
        assert!(!NameRule::Word64.allows(""));
        assert!(NameRule::PropertyKey.allows("filter.id") && !NameRule::PropertyKey.allows("filter[id]"));
        assert!(!valid_tool_name("has space"));
        // An MCP server's dotted name is a catalog's; OpenAI and Anthropic refuse it (P002).
        assert!(valid_tool_name("sites.get_project") && !NameRule::Word64.allows("sites.get_project"));
        assert!(NameRule::McpTool.allows(&"a".repeat(128)) && !NameRule::McpTool.allows(&"a".repeat(129)));
        assert!(!valid_tool_name(&"a".repeat(65)));
    }
}
