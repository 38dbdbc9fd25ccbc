//! What a provider bills for a request beyond the text promptc sends: a labelled estimate,
//! never presented as exact, each with its method and its published source.
//!
//! - **OpenAI** (Chat Completions and Responses): function definitions are turned into an
//!   internal text format before the model sees them. OpenAI's cookbook ("How to count tokens
//!   with tiktoken", §7 "Counting tokens for chat completions with tool calls") publishes a
//!   recipe: per function 7 tokens (gpt-4o family; 10 for gpt-4 and gpt-3.5) plus the tokens of
//!   `name:description` (a final `.` dropped); for a non-empty parameter list 3 more, then per
//!   property 3 plus `name:type:description`, an enum adding −3 plus 3 and the value's tokens per
//!   item; 12 at the end of the list. The system prompt is one message: 3 tokens of framing plus
//!   its role. The recipe covers top-level properties; nested schemas are counted by their
//!   description and type only.
//! - **Anthropic**: a request with tools gets a tool-use system prompt whose size Anthropic
//!   publishes per model and `tool_choice` (pricing page, "Tool use system prompt token
//!   count"); promptc requests `tool_choice: auto`. The tool definitions themselves are counted
//!   as sent (a Claude estimate: Anthropic's tokenizer is not public).
//! - **Gemini**: what google-genai's `LocalTokenizer.count_tokens` counts (Google's own SDK,
//!   offline, with the Gemma 3 model every Gemini model uses): the system instruction's text,
//!   each content part's text, and for the function declarations not their JSON but their texts
//!   (`_TextsAccumulator`): each name and description, and of each schema its format,
//!   description, enum values, required names, property names and example strings, through
//!   `items` and `properties` (not `anyOf`, nor a `parametersJsonSchema`, which it does not read).
//!   Each text is counted on its own and the counts added.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::measure::tokens::Counters;
use crate::model::provider::{Billing, Provider};
use crate::model::tokenizer::{Encoding, Tokenizer};

/// A provider's bill for one cell: estimated, or (Gemini) the provider's own count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Billed {
    /// The system prompt as billed.
    pub prompt: u64,
    /// The tool definitions as billed, with any tool-use system prompt.
    pub tools: u64,
    /// Prompt plus tools.
    pub total: u64,
    /// How the figures were estimated.
    pub method: String,
    /// Where the constants come from.
    pub source: String,
    /// Whether the figures are the provider's own count (Gemini counted with its tokenizer, as
    /// google-genai counts), not an estimate.
    #[serde(default)]
    pub exact: bool,
}

/// The OpenAI cookbook's constants for function definitions, by encoding family.
struct FunctionConstants {
    func_init: i64,
    prop_init: i64,
    prop_key: i64,
    enum_init: i64,
    enum_item: i64,
    func_end: i64,
}

fn openai_constants(encoding: Encoding) -> FunctionConstants {
    let func_init = if encoding == Encoding::O200kBase { 7 } else { 10 };
    FunctionConstants { func_init, prop_init: 3, prop_key: 3, enum_init: -3, enum_item: 3, func_end: 12 }
}

/// `name`, `description` and `parameters` of one tool entry, whatever the provider's shape.
fn parts(provider: Provider, entry: &Value) -> (&str, &str, &Value) {
    const NONE: &Value = &Value::Null;
    let f = crate::projection::entry_function(provider, entry);
    let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or_default();
    let params = crate::projection::entry_parameters(provider, entry).unwrap_or(NONE);
    (text("name"), text("description"), params)
}

fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ => "object".into(),
    }
}

/// Every text the OpenAI recipe counts for `entries`, for priming the counters in one pass.
pub fn recipe_texts(provider: Provider, entries: &[&Value]) -> Vec<String> {
    let mut out = vec!["system".to_string()];
    for entry in entries {
        let (name, description, params) = parts(provider, entry);
        out.push(format!("{name}:{}", description.strip_suffix('.').unwrap_or(description)));
        if let Some(props) = params.get("properties").and_then(Value::as_object) {
            for (key, schema) in props {
                let d = schema.get("description").and_then(Value::as_str).unwrap_or_default();
                out.push(format!("{key}:{}:{}", type_name(schema), d.strip_suffix('.').unwrap_or(d)));
                for item in schema.get("enum").and_then(Value::as_array).into_iter().flatten() {
                    out.push(item.as_str().map_or_else(|| item.to_string(), str::to_string));
                }
            }
        }
    }
    out
}

/// The texts google-genai's `LocalTokenizer` counts for Gemini function declarations (its
/// `_TextsAccumulator`), in its order; empty texts, which count nothing, left out.
pub fn gemini_texts(entries: &[&Value]) -> Vec<String> {
    let mut out = Vec::new();
    for entry in entries {
        out.extend(non_empty(entry, "name"));
        out.extend(non_empty(entry, "description"));
        for key in ["parameters", "response"] {
            if let Some(schema) = entry.get(key) {
                schema_texts(schema, &mut out);
            }
        }
    }
    out
}

fn non_empty(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

/// `add_schema`: format, description, enum values, required names, `items`, each property's
/// name and schema, the example's strings.
fn schema_texts(schema: &Value, out: &mut Vec<String>) {
    out.extend(non_empty(schema, "format"));
    out.extend(non_empty(schema, "description"));
    for key in ["enum", "required"] {
        let values = schema.get(key).and_then(Value::as_array).into_iter().flatten();
        out.extend(values.filter_map(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string));
    }
    if let Some(items) = schema.get("items") {
        schema_texts(items, out);
    }
    for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        out.push(name.clone());
        schema_texts(property, out);
    }
    if let Some(example) = schema.get("example") {
        value_texts(example, out);
    }
}

/// `_any_traverse`: every string, and every key of an object (numbers and booleans count
/// nothing).
fn value_texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if !s.is_empty() => out.push(s.clone()),
        Value::Object(map) => {
            out.extend(map.keys().filter(|k| !k.is_empty()).cloned());
            map.values().for_each(|v| value_texts(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| value_texts(v, out)),
        _ => {}
    }
}

/// The OpenAI recipe over the tool entries of `provider`'s projection.
pub fn openai_tools(
    provider: Provider,
    entries: &[&Value],
    tokenizer: &Tokenizer,
    counters: &mut Counters,
) -> Result<u64> {
    if entries.is_empty() {
        return Ok(0);
    }
    let k = openai_constants(tokenizer.encoding());
    let mut n: i64 = 0;
    for entry in entries {
        let (name, description, params) = parts(provider, entry);
        n += k.func_init;
        let desc = description.strip_suffix('.').unwrap_or(description);
        n += counters.count(tokenizer, &format!("{name}:{desc}"))? as i64;
        let props = params.get("properties").and_then(Value::as_object);
        if let Some(props) = props.filter(|p| !p.is_empty()) {
            n += k.prop_init;
            for (key, schema) in props {
                n += k.prop_key;
                if let Some(items) = schema.get("enum").and_then(Value::as_array) {
                    n += k.enum_init;
                    for item in items {
                        n += k.enum_item;
                        let text = item.as_str().map_or_else(|| item.to_string(), str::to_string);
                        n += counters.count(tokenizer, &text)? as i64;
                    }
                }
                let d = schema.get("description").and_then(Value::as_str).unwrap_or_default();
                let d = d.strip_suffix('.').unwrap_or(d);
                n += counters.count(tokenizer, &format!("{key}:{}:{d}", type_name(schema)))? as i64;
            }
        }
    }
    n += k.func_end;
    Ok(n.max(0) as u64)
}

/// The tool-use system prompt Anthropic adds for `model` with `tool_choice: auto` (or none),
/// from its published table; current models when the model is not named.
pub fn anthropic_tool_system_prompt(model: Option<&str>) -> (u64, &'static str) {
    let m = model.unwrap_or_default().to_ascii_lowercase();
    // (auto/none, any/tool) per model family, newest table first.
    let table: [(&str, u64, &str); 4] = [
        ("claude-3-opus", 530, "Claude 3 Opus"),
        ("claude-3-sonnet", 159, "Claude 3 Sonnet"),
        ("claude-3-haiku", 264, "Claude 3 Haiku"),
        ("claude-3-5-haiku", 264, "Claude Haiku 3.5"),
    ];
    for (prefix, tokens, label) in table {
        if m.split('/').any(|seg| seg.starts_with(prefix)) {
            return (tokens, label);
        }
    }
    (346, "current Claude models (Opus 4, Sonnet 4, Sonnet 3.7, …)")
}

/// What a bill needs of a cell's tools, found once per provider and set of tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolsBill {
    /// Whether there are any.
    pub any: bool,
    /// Their tokens by the provider's recipe: OpenAI's, or the texts of Gemini's declarations
    /// (0 for other providers).
    pub recipe: u64,
    /// Whether some property's schema is more than the recipe covers (nested objects or
    /// arrays of them, `anyOf`/`oneOf`/`allOf`, `$ref`): counted by its description and type only.
    pub beyond_recipe: bool,
}

/// Whether a property's schema holds more than the recipe counts.
fn beyond_recipe(schema: &Value) -> bool {
    let nested =
        |s: &Value| s.get("properties").is_some() || s.get("items").is_some_and(|i| i.get("properties").is_some());
    ["anyOf", "oneOf", "allOf", "$ref", "$defs"].iter().any(|k| schema.get(*k).is_some()) || nested(schema)
}

impl ToolsBill {
    /// Of `entries`, the tool entries of `provider`'s projection.
    pub fn of(
        provider: Option<Provider>,
        entries: &[&Value],
        tokenizer: &Tokenizer,
        counters: &mut Counters,
    ) -> Result<ToolsBill> {
        let recipe = match provider.map(|p| (p, p.info().billing)) {
            Some((p, Billing::OpenAiRecipe)) => openai_tools(p, entries, tokenizer, counters)?,
            Some((_, Billing::GeminiTexts)) => {
                let mut n = 0;
                for text in gemini_texts(entries) {
                    n += counters.count(tokenizer, &text)?;
                }
                n
            }
            Some((_, Billing::AnthropicToolPrompt | Billing::AsSent)) | None => 0,
        };
        let beyond = entries.iter().any(|e| {
            let (_, _, params) = parts(provider.unwrap_or(Provider::OpenAiChat), e);
            params.get("properties").and_then(Value::as_object).is_some_and(|ps| ps.values().any(beyond_recipe))
        });
        let openai = provider.is_some_and(|p| p.info().billing == Billing::OpenAiRecipe);
        Ok(ToolsBill { any: !entries.is_empty(), recipe, beyond_recipe: beyond && openai && recipe > 0 })
    }
}

/// The estimated bill of one native cell for `provider`, from its sent prompt and tool counts.
pub fn bill(
    provider: Option<Provider>,
    model: Option<&str>,
    prompt_tokens: u64,
    tools_tokens: u64,
    tools_bill: ToolsBill,
    tokenizer: &Tokenizer,
    counters: &mut Counters,
) -> Result<Billed> {
    let b = match provider.map(|p| (p, p.info().billing)) {
        Some((p, Billing::OpenAiRecipe)) => {
            let prompt = prompt_tokens + 3 + counters.count(tokenizer, "system")?;
            let tools = tools_bill.recipe;
            let api = if p == Provider::OpenAiChat {
                "Chat Completions"
            } else {
                "Responses (recipe published for Chat Completions)"
            };
            Billed {
                prompt,
                tools,
                total: prompt + tools,
                method: format!(
                    "{} {api}: function definitions in OpenAI's internal format ({} constants), the system \
                     prompt as one message{}",
                    p.info().label,
                    if tokenizer.encoding() == Encoding::O200kBase { "gpt-4o" } else { "gpt-4" },
                    if tools_bill.beyond_recipe {
                        "; nested schemas, combinators and references, which the recipe does not cover, counted \
                         by their description and type only (a rougher estimate)"
                    } else {
                        ""
                    }
                ),
                source: "OpenAI cookbook, \"How to count tokens with tiktoken\", §7".into(),
                exact: false,
            }
        }
        Some((p, Billing::AnthropicToolPrompt)) => {
            let (system, label) = if tools_bill.any { anthropic_tool_system_prompt(model) } else { (0, "no tools") };
            Billed {
                prompt: prompt_tokens,
                tools: tools_tokens + system,
                total: prompt_tokens + tools_tokens + system,
                method: format!(
                    "{}: the tool definitions as sent plus the tool-use system prompt ({system} tokens for \
                     {label}, tool_choice auto)",
                    p.info().label
                ),
                source: "Anthropic pricing, \"Tool use system prompt token count\"".into(),
                exact: false,
            }
        }
        Some((p, Billing::GeminiTexts)) => Billed {
            prompt: prompt_tokens,
            tools: tools_bill.recipe,
            total: prompt_tokens + tools_bill.recipe,
            method: format!(
                "{}: as google-genai's LocalTokenizer counts the request, with {}: the system instruction's \
                 text, and the function declarations' texts (names, descriptions, and the schemas' formats, \
                 descriptions, enum values, required and property names, example strings), each on its own",
                p.info().label,
                tokenizer.name()
            ),
            source: "google-genai LocalTokenizer.count_tokens (local_tokenizer.py, _TextsAccumulator)".into(),
            exact: tokenizer.encoding() == Encoding::Gemma3 && tokenizer.exact(),
        },
        Some((p, Billing::AsSent)) => Billed {
            prompt: prompt_tokens,
            tools: tools_tokens,
            total: prompt_tokens + tools_tokens,
            method: if p == Provider::Mcp {
                "MCP: the tools/list result as an MCP client reads it, counted as sent (no model bills it as such; \
                 a model is billed for the tools as its own provider sends them)"
                    .into()
            } else {
                format!("{}: no published overhead; billed as sent", p.info().label)
            },
            source: "none published".into(),
            exact: false,
        },
        None => Billed {
            prompt: prompt_tokens,
            tools: 0,
            total: prompt_tokens,
            method: "tools described in the prompt: billed as the prompt is sent".into(),
            source: "none".into(),
            exact: false,
        },
    };
    Ok(b)
}

#[cfg(test)]
#[path = "billing_tests.rs"]
mod tests;
