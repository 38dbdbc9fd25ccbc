//! What an account measures, prepared once per cell and provider: the provider's projection and
//! where each tool and parameter sits in its JSON, where each section, tool text and harness
//! message sits in the cell's own texts — and, once the texts are counted, every part's tokens
//! as a difference of token marks (`measure::tokens::Mark`), so the parts of a text partition
//! its count by construction.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use crate::compile::{Compiled, MessageCut};
use crate::error::Result;
use crate::measure::billing::ToolsBill;
use crate::measure::tokens::{Counters, Mark};
use crate::measure::Measure;
use crate::model::params::Property;
use crate::model::provider::{Billing, Provider};
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};

pub(super) fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default() // ok: a Value always serialises
}

/// One parameter's part of what is sent for its tool: `"name":{schema}` as its entry writes it.
fn param_text(provider: Provider, entry: &Value, p: &Property) -> Option<String> {
    let schema = projection::entry_parameters(provider, entry)
        .and_then(|s| s.get("properties"))
        .and_then(|props| props.get(&p.name))?;
    Some(format!("{}:{}", compact(&Value::String(p.name.clone())), compact(schema)))
}

/// A tool's description's part of what is sent for it: `"description":"…"` in its JSON entry.
fn description_text(provider: Provider, entry: &Value) -> Option<String> {
    let d = projection::entry_function(provider, entry).get("description")?;
    Some(format!("\"description\":{}", compact(d)))
}

/// Where `needle` first sits in `text[within]` (of each of `within`).
fn locate_each(text: &str, within: &[Option<Range<usize>>], needles: &[Option<String>]) -> Vec<Option<Range<usize>>> {
    within
        .iter()
        .zip(needles)
        .map(|(w, n)| w.clone().and_then(|w| locate_in_order(text, w, [n.as_deref()]).pop().flatten()))
        .collect()
}

/// Where each of `needles` sits in `text[within]`, found in order (each search starts where
/// the last found one ended); `None` for one not found.
fn locate_in_order<'a>(
    text: &str,
    within: Range<usize>,
    needles: impl IntoIterator<Item = Option<&'a str>>,
) -> Vec<Option<Range<usize>>> {
    let mut from = within.start;
    needles
        .into_iter()
        .map(|needle| {
            let needle = needle.filter(|n| !n.is_empty())?;
            let at = text.get(from..within.end)?.find(needle)? + from;
            from = at + needle.len();
            Some(at..from)
        })
        .collect()
}

/// Add to `sources` where each of `tools` is declared, as `file:line`, unless known. Lines
/// are found in one pass per file over the declarations in file order: a thousand tools in
/// one file would otherwise rescan it a thousand times.
pub(super) fn add_tool_sources<'a>(
    sources: &mut HashMap<String, String>,
    project: &Project,
    tools: impl Iterator<Item = &'a str>,
) {
    let mut todo: Vec<(&str, usize, &str)> = Vec::new();
    for name in tools {
        if sources.contains_key(name) {
            continue;
        }
        match project.catalog.get(name) {
            Some(t) => todo.push((t.name_span.file.as_str(), t.name_span.start, name)),
            None => {
                sources.insert(name.to_string(), String::new());
            }
        }
    }
    todo.sort_unstable();
    todo.dedup();
    // (file, byte offset reached, line at that offset)
    let mut at: Option<(&str, usize, usize)> = None;
    for (file, start, name) in todo {
        let source = match project.files.get(file) {
            Some(f) => {
                let (offset, line) = match at {
                    Some((f2, o, l)) if f2 == file && o <= start => (o, l),
                    _ => (0, 1),
                };
                let start = crate::diagnostic::floor_char_boundary(&f.text, start.min(f.text.len()));
                let line = line + f.text[offset..start].bytes().filter(|b| *b == b'\n').count();
                at = Some((file, start, line));
                format!("{file}:{line}")
            }
            None => file.to_string(),
        };
        sources.insert(name.to_string(), source);
    }
}

/// The projection of `c`'s tools for `provider` (`c`'s own when it is that provider's).
pub(crate) fn projection_for(project: &Project, c: &Compiled, provider: Provider) -> Arc<Value> {
    match (&c.projection, c.provider) {
        (Some(p), Some(q)) if q == provider => Arc::clone(p),
        _ => Arc::new(projection::project(provider, &c.tools, ProjectionOptions::of(project))),
    }
}

/// A native cell's tools for one provider: the tools JSON sent, where each tool's entry and
/// each parameter sit in it, and the billing recipe's texts. It depends only on the provider and
/// the tools, so cells with the same tools share it (see `matrix`).
pub(super) struct Prepared {
    /// The provider and its projection.
    pub(super) projection: (Provider, Arc<Value>),
    /// The whole tools JSON, compact: what is sent.
    pub(super) tools_json: String,
    /// Each tool's entry in `tools_json` (`None`: not found as its own compact JSON).
    tool_ranges: Vec<Option<Range<usize>>>,
    /// Each tool's parameters in `tools_json`.
    param_ranges: Vec<Vec<Option<Range<usize>>>>,
    /// Each tool's `"description":"…"` in its entry.
    description_ranges: Vec<Option<Range<usize>>>,
    /// Texts the billing recipe counts (OpenAI's recipe, Gemini's declaration texts).
    pub(super) recipe: Vec<String>,
}

/// The tokens and bytes of a [`Prepared`]: the tools JSON, and each tool's and parameter's part
/// of it — the tokens that start in it, so the tools and the JSON's own punctuation between
/// them (`framing`) add up to the JSON's count.
pub(super) struct ToolCounts {
    /// The whole tools JSON.
    pub(super) tools_sent: Measure,
    /// Each tool's entry.
    pub(super) tools: Vec<Measure>,
    /// Each tool's parameters.
    pub(super) params: Vec<Vec<Measure>>,
    /// Each tool's description (`None`: not found in its entry as written).
    pub(super) descriptions: Vec<Option<Measure>>,
    /// What no tool's entry holds: the list's brackets and commas, a provider's wrapper.
    pub(super) framing: Measure,
    /// What the bill needs of the tools.
    pub(super) bill: ToolsBill,
}

impl Prepared {
    /// `c`'s tools for native `provider`.
    pub(super) fn new(project: &Project, c: &Compiled, provider: Provider) -> Prepared {
        let v = projection_for(project, c, provider);
        let tools_json = compact(&v);
        let entries = projection::tool_entries(provider, &v);
        let entry_texts: Vec<String> = entries.iter().map(|e| compact(e)).collect();
        let tool_ranges =
            locate_in_order(&tools_json, 0..tools_json.len(), entry_texts.iter().map(|t| Some(t.as_str())));
        let param_ranges = c
            .tools
            .iter()
            .zip(&entries)
            .zip(&tool_ranges)
            .map(|((t, e), range)| {
                let texts: Vec<Option<String>> = t.params.iter().map(|p| param_text(provider, e, p)).collect();
                match range {
                    Some(r) => locate_in_order(&tools_json, r.clone(), texts.iter().map(Option::as_deref)),
                    None => vec![None; texts.len()],
                }
            })
            .collect();
        let descriptions: Vec<Option<String>> = entries.iter().map(|e| description_text(provider, e)).collect();
        let description_ranges = locate_each(&tools_json, &tool_ranges, &descriptions);
        let recipe = match provider.info().billing {
            Billing::OpenAiRecipe => crate::measure::billing::recipe_texts(provider, &entries),
            Billing::GeminiTexts => crate::measure::billing::gemini_texts(&entries),
            // Their billing adds no per-tool recipe text (see `measure::billing`).
            Billing::AnthropicToolPrompt | Billing::AsSent => Vec::new(),
        };
        Prepared { projection: (provider, v), tools_json, tool_ranges, param_ranges, description_ranges, recipe }
    }

    /// The counts of the tools' part, with `tokenizer` (texts not yet counted are counted now).
    pub(super) fn counts(&self, tokenizer: &Tokenizer, counters: &mut Counters) -> Result<ToolCounts> {
        let json = &self.tools_json;
        let mut points: Vec<usize> = vec![json.len()];
        let ranges = self.tool_ranges.iter().chain(self.param_ranges.iter().flatten()).chain(&self.description_ranges);
        let ranges = ranges.flatten();
        points.extend(ranges.flat_map(|r| [r.start, r.end]));
        let key = crate::measure::tokens::key_of(json);
        let marks: HashMap<usize, Mark> =
            points.iter().copied().zip(counters.marks(tokenizer, &key, json, &points)?).collect();
        let part = |r: &Option<Range<usize>>| part_of(&marks, r);
        let tools_sent = Measure { tokens: marks.get(&json.len()).map_or(0, |m| m.starts), bytes: json.len() as u64 };
        let tools: Vec<Measure> = self.tool_ranges.iter().map(part).collect();
        let params = self.param_ranges.iter().map(|ps| ps.iter().map(part).collect()).collect();
        let descriptions = self.description_ranges.iter().map(|r| r.as_ref().map(|_| part(r))).collect();
        let in_tools = tools.iter().fold(Measure::default(), |a, t| a.plus(*t));
        let framing = Measure {
            tokens: tools_sent.tokens.saturating_sub(in_tools.tokens),
            bytes: tools_sent.bytes.saturating_sub(in_tools.bytes),
        };
        let (p, v) = &self.projection;
        let bill = ToolsBill::of(Some(*p), &projection::tool_entries(*p, v), tokenizer, counters)?;
        Ok(ToolCounts { tools_sent, tools, params, descriptions, framing, bill })
    }

    /// The texts of the tools' part to count whole.
    pub(super) fn tool_part_texts(&self) -> Vec<&str> {
        let mut out = vec![self.tools_json.as_str()];
        out.extend(self.recipe.iter().map(String::as_str));
        out
    }
}

/// The tokens and bytes of `range` of a text, from the text's marks at its ends (tokens that
/// start in it); nothing for a part not found.
fn part_of(marks: &HashMap<usize, Mark>, range: &Option<Range<usize>>) -> Measure {
    let Some(r) = range else { return Measure::default() };
    let at = |p: usize| marks.get(&p).map_or(0, |m| m.starts);
    Measure { tokens: at(r.end).saturating_sub(at(r.start)), bytes: r.len() as u64 }
}

/// The texts of `c` every account of it counts, whatever the provider: the prompt, then each
/// harness message's blocks (a message of one text is one block), then — json cells only — each
/// tool's fragment of the action schema and its parameters'. The schema merges the tools (a
/// parameter two tools share is written once), so no range of the prompt is one tool's: a
/// tool's figure there is its fragment counted on its own, a part of the `actions` section's
/// row, never a row of its own in the partition.
pub(super) fn cell_texts(c: &Compiled) -> Vec<&str> {
    let mut out = vec![c.prompt.as_str()];
    out.extend(c.messages.iter().flat_map(|m| &m.blocks).map(String::as_str));
    if c.transport == Transport::Json {
        for t in &c.tool_texts {
            out.push(&t.text);
            out.extend(t.params.iter().map(String::as_str));
        }
    }
    out
}

/// Where the parts of a cell's own texts sit: each section and each tool text (xml and json
/// cells) in the prompt, each parameter in its tool's text.
pub(super) struct Places {
    sections: Vec<Option<Range<usize>>>,
    tools: Vec<Option<Range<usize>>>,
    params: Vec<Vec<Option<Range<usize>>>>,
    /// Each tool's description in its text, as the tool's own text shows it (xml).
    descriptions: Vec<Option<Range<usize>>>,
}

impl Places {
    pub(super) fn of(c: &Compiled) -> Places {
        let sections: Vec<Option<Range<usize>>> =
            c.sections.iter().zip(&c.offsets).map(|(s, o)| o.map(|i| i..i + s.text.len())).collect();
        // The tools' texts sit in the section that describes them, in order.
        let holder = match c.transport {
            Transport::Native => None,
            Transport::Xml => Some("generated:tool_docs"),
            Transport::Json => Some("generated:action_schema"),
        };
        let within = holder
            .and_then(|origin| c.sections.iter().position(|s| s.origin == origin))
            .and_then(|i| sections[i].clone());
        let (tools, params) = match within {
            Some(w) => {
                let tools = locate_in_order(&c.prompt, w, c.tool_texts.iter().map(|t| Some(t.text.as_str())));
                let params = c
                    .tool_texts
                    .iter()
                    .zip(&tools)
                    .map(|(t, r)| match r {
                        Some(r) => locate_in_order(&c.prompt, r.clone(), t.params.iter().map(|p| Some(p.as_str()))),
                        None => vec![None; t.params.len()],
                    })
                    .collect();
                (tools, params)
            }
            None => (vec![None; c.tool_texts.len()], c.tool_texts.iter().map(|t| vec![None; t.params.len()]).collect()),
        };
        let shown: Vec<Option<String>> = match c.transport {
            Transport::Xml => c.tools.iter().map(|t| Some(t.description.clone())).collect(),
            // A json cell's tools are fragments counted on their own (see `cell_texts`).
            Transport::Native | Transport::Json => vec![None; c.tools.len()],
        };
        let descriptions = locate_each(&c.prompt, &tools, &shown);
        Places { sections, tools, params, descriptions }
    }

    /// Every byte of the prompt a part starts or ends at.
    fn points(&self) -> Vec<usize> {
        let all = self.sections.iter().chain(&self.tools).chain(self.params.iter().flatten()).chain(&self.descriptions);
        let all = all.flatten();
        all.flat_map(|r| [r.start, r.end]).collect()
    }
}

/// Where the cell's own texts part from another session's: a byte of the prompt, or of a
/// harness message's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OwnCut {
    Prompt(usize),
    Message(MessageCut),
}

/// Tokens and bytes of a cell's own texts ([`cell_texts`]) with one tokenizer, and of their
/// parts.
pub(super) struct OwnCounts {
    pub(super) prompt: Measure,
    /// Each section's part of the prompt (nothing for one the prompt does not hold as rendered).
    pub(super) sections: Vec<Measure>,
    /// Each tool's part of the prompt (xml and json cells).
    pub(super) tools: Vec<Measure>,
    /// Each of its parameters' part.
    pub(super) params: Vec<Vec<Measure>>,
    /// Each tool's description's part (xml cells; `None`: not found as written).
    pub(super) descriptions: Vec<Option<Measure>>,
    /// Each harness message's blocks.
    pub(super) messages: Vec<Vec<Measure>>,
    /// Where the own texts part from another session's, and the tokens of them that end before
    /// it (the texts before it whole): what caching can reuse of them.
    pub(super) cut: Option<(OwnCut, u64)>,
}

impl OwnCounts {
    /// The counts of `c`'s own texts: `marks(i, text, points)` gives the marks of own text `i`
    /// (in [`cell_texts`] order) at `points`.
    pub(super) fn new(
        c: &Compiled,
        places: &Places,
        mut marks: impl FnMut(usize, &str, &[usize]) -> Result<Vec<Mark>>,
    ) -> Result<OwnCounts> {
        let prompt_cut = c.prompt_cut();
        let message_cut = c.messages_cut().filter(|_| prompt_cut.is_none());
        let mut points = places.points();
        points.push(c.prompt.len());
        points.extend(prompt_cut);
        let at: HashMap<usize, Mark> = points.iter().copied().zip(marks(0, &c.prompt, &points)?).collect();
        let prompt = Measure { tokens: at.get(&c.prompt.len()).map_or(0, |m| m.starts), bytes: c.prompt.len() as u64 };
        let part = |r: &Option<Range<usize>>| part_of(&at, r);
        let mut cut = prompt_cut.map(|b| (OwnCut::Prompt(b), at.get(&b).map_or(0, |m| m.ends)));
        let mut messages = Vec::new();
        let mut text = 1;
        let mut before_cut = prompt.tokens;
        for (i, m) in c.messages.iter().enumerate() {
            let mut blocks = Vec::new();
            for (j, block) in m.blocks.iter().enumerate() {
                let here = message_cut.filter(|k| (k.message, k.block) == (i, j));
                let mut points = vec![block.len()];
                points.extend(here.map(|k| k.byte));
                let found = marks(text, block, &points)?;
                let sent = Measure { tokens: found[0].starts, bytes: block.len() as u64 };
                if let (Some(k), Some(m)) = (here, found.get(1)) {
                    cut = Some((OwnCut::Message(k), before_cut + m.ends));
                }
                before_cut += sent.tokens;
                blocks.push(sent);
                text += 1;
            }
            messages.push(blocks);
        }
        let (mut tools, mut params): (Vec<Measure>, Vec<Vec<Measure>>) = (
            places.tools.iter().map(part).collect(),
            places.params.iter().map(|ps| ps.iter().map(part).collect()).collect(),
        );
        if c.transport == Transport::Json {
            // Each fragment on its own (see `cell_texts`), in the order it lists them.
            let mut whole = |t: &str| -> Result<Measure> {
                let found = marks(text, t, &[t.len()])?;
                text += 1;
                Ok(Measure { tokens: found[0].starts, bytes: t.len() as u64 })
            };
            (tools, params) = (Vec::new(), Vec::new());
            for t in &c.tool_texts {
                tools.push(whole(&t.text)?);
                params.push(t.params.iter().map(|p| whole(p)).collect::<Result<_>>()?);
            }
        }
        let descriptions = places.descriptions.iter().map(|r| r.as_ref().map(|_| part(r))).collect();
        let sections = places.sections.iter().map(part).collect();
        Ok(OwnCounts { prompt, sections, tools, params, descriptions, messages, cut })
    }
}

/// Every text an account of `c` for `provider` counts whole (for benchmarks and priming).
pub fn texts(project: &Project, c: &Compiled, provider: Option<Provider>) -> Vec<String> {
    let mut out: Vec<String> = cell_texts(c).into_iter().map(str::to_string).collect();
    if let Some(p) = provider.filter(|_| c.transport == Transport::Native) {
        out.extend(Prepared::new(project, c, p).tool_part_texts().into_iter().map(str::to_string));
    }
    out
}
