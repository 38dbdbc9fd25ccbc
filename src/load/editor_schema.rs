//! JSON Schemas of the project files (`promptc schema`), for editors: the shipped example's
//! YAML files point yaml-language-server at them, which completes and validates keys.

use serde_json::{json, Value};

fn str_desc(d: &str) -> Value {
    json!({"type": "string", "description": d})
}

fn when() -> Value {
    str_desc("Switch expression: switch names with !, &&, || and parentheses, e.g. \"browser && !yolo\".")
}

fn ident_map(description: &str, value: Value) -> Value {
    json!({"type": "object", "description": description, "additionalProperties": value})
}

fn amount() -> Value {
    json!({
        "description": "Whole tokens, or {tokens: N} / {bytes: N}.",
        "anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "object", "properties": {"tokens": {"type": "integer", "minimum": 0}}, "required": ["tokens"],
                "additionalProperties": false},
            {"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 0}}, "required": ["bytes"],
                "additionalProperties": false}
        ]
    })
}

fn names(description: &str) -> Value {
    json!({"type": "array", "description": description, "items": {"type": "string"}})
}

/// A `profiles:` list: never empty (leaving it out means every profile).
fn profile_names(description: &str) -> Value {
    json!({"type": "array", "description": description, "items": {"type": "string"}, "minItems": 1})
}

fn template_text(description: &str) -> Value {
    json!({
        "type": "object", "additionalProperties": false, "description": description,
        "properties": {"template": {"type": "string"}, "text": {"type": "string"}}
    })
}

fn additional_properties() -> Value {
    json!({"type": "boolean", "description": "Objects: `additionalProperties`, sent only when declared (OpenAI strict \
        mode always sends false)."})
}

fn required_order() -> Value {
    json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true, "description": "Objects: the order of \
        the `required` list when it is not the properties' order; names exactly the required properties."})
}

fn parameter() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["type"],
        "properties": {
            "type": {"enum": ["string", "integer", "number", "boolean", "array", "object"]},
            "description": {"type": "string"},
            "required": {"type": "boolean", "description": "The caller must supply it (default false)."},
            "nullable": {"type": "boolean"},
            "enum": {"type": "array", "items": {"type": ["string", "number", "integer"]}},
            "default": {},
            "format": {"type": "string"},
            "pattern": {"type": "string"},
            "min_length": {"type": "integer", "minimum": 0},
            "max_length": {"type": "integer", "minimum": 0},
            "minimum": {"type": "number"},
            "maximum": {"type": "number"},
            "items": {"$ref": "#/$defs/parameter"},
            "min_items": {"type": "integer", "minimum": 0},
            "max_items": {"type": "integer", "minimum": 0},
            "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/parameter"}},
            "additional_properties": additional_properties(),
            "required_order": required_order(),
            "when": when(),
            "profiles": profile_names("Top-level parameters: sent only in these profiles (default: all).")
        }
    })
}

fn tool() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "toolset", "description"],
        "properties": {
            "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_-]{0,63}$", "description": "The tool's name \
                and id."},
            "toolset": {"type": "string"},
            "description": {"type": "string"},
            "description_parts": {
                "type": "array", "minItems": 1,
                "description": "Sentences appended to the description, each on a new line, only where their \
                    conditions hold.",
                "items": {
                    "type": "object", "additionalProperties": false, "required": ["text"],
                    "properties": {
                        "text": {"type": "string"},
                        "tools": names("Sent only while all of these tools are active."),
                        "when": when(),
                        "profiles": profile_names("Sent only in these profiles.")
                    }
                }
            },
            "when": when(),
            "parameters": {"type": "object", "additionalProperties": {"$ref": "#/$defs/parameter"}},
            "additional_properties": additional_properties(),
            "required_order": required_order(),
            "variants": {
                "type": "array",
                "description": "Name and wording where conditions hold: every variant whose `when` and `profiles` hold \
                    applies, a later one over an earlier one.",
                "items": {"type": "object", "additionalProperties": false, "properties": {
                    "when": when(), "profiles": profile_names("Only in these profiles."),
                    "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_-]{0,63}$"},
                    "description": {"type": "string"},
                    "parameters": {"type": "object", "additionalProperties": {"type": "object",
                        "additionalProperties": false, "required": ["description"],
                        "properties": {"description": {"type": "string"}}}}
                }}
            },
            "overrides": ident_map("Per-profile wording.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {
                    "description": {"type": "string"},
                    "parameters": ident_map("Per-parameter descriptions.", json!({
                        "type": "object", "additionalProperties": false, "required": ["description"],
                        "properties": {"description": {"type": "string"}}
                    }))
                }
            })),
            "spawns_subagents": {"type": "boolean"},
            "examples": {
                "type": "array", "minItems": 1,
                "description": "Example calls, shown by a `generate: tool_examples` section while the tool is active.",
                "items": {
                    "type": "object", "additionalProperties": false, "required": ["arguments"],
                    "properties": {
                        "description": {"type": "string"},
                        "arguments": {"type": "object", "description": "Parameter name → value."}
                    }
                }
            },
            "guidance": str_desc("Usage guidance shown only while the tool is active (generate: tool_guidance)."),
            "contributes": {
                "type": "array", "minItems": 1,
                "items": {
                    "type": "object", "additionalProperties": false,
                    "properties": {
                        "slot": {"type": "string"},
                        "text": str_desc("Literal text, inserted verbatim."),
                        "template": str_desc("A template rendered with the prompt context."),
                        "profiles": profile_names("Only in these profiles.")
                    }
                }
            }
        }
    })
}

fn defs() -> Value {
    json!({"parameter": parameter(), "tool": tool()})
}

/// The schema of a tool catalog file (a list of tools).
pub fn tools() -> String {
    let v = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "promptc tool catalog file",
        "type": "array",
        "items": {"$ref": "#/$defs/tool"},
        "$defs": defs()
    });
    crate::json::to_pretty_json(&v)
}

/// The schema of `promptc.yaml`.
pub fn manifest() -> String {
    let section = json!({
        "type": "object", "additionalProperties": false,
        "properties": {
            "template": str_desc("A template file."),
            "text": str_desc("An inline template."),
            "generate": {"enum": ["tool_docs", "tool_guidance", "action_schema", "tool_examples"]},
            "slot": str_desc("Show the active tools' contributions to this slot."),
            "when": when(),
            "untrusted": str_desc("Delimiter tag (e.g. MEMORY): the rendered section is wrapped and neutralised."),
            "description": {"type": "string"}
        }
    });
    let profile = json!({
        "type": "object", "additionalProperties": false, "required": ["sections"],
        "properties": {
            "description": {"type": "string"},
            "sections": names("Section ids in prompt order."),
            "toolsets": names("Every tool of these toolsets."),
            "tools": names("Plus these tool ids."),
            "exclude": names("Minus these tool ids."),
            "messages": {
                "type": "array", "description": "Messages the harness sends besides the system prompt, in order.",
                "items": {"type": "object", "additionalProperties": false, "required": ["role", "sections"],
                    "properties": {"role": {"enum": ["user", "assistant"]}, "sections": names("Its sections.")}}
            },
            "budget": {
                "type": "object", "additionalProperties": false,
                "properties": {"total": amount(), "prompt": amount(), "tools": amount(),
                    "sections": {"type": "object", "additionalProperties": amount()}}
            }
        }
    });
    let text_or_template = json!({"type": "object", "additionalProperties": false,
        "properties": {"template": {"type": "string"}, "text": {"type": "string"}}});
    let v = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "promptc project manifest (promptc.yaml)",
        "type": "object",
        "additionalProperties": false,
        "required": ["promptc", "name", "contract_version", "sections", "tools", "profiles"],
        "properties": {
            "promptc": {"const": 1, "description": "Project format version."},
            "name": {"type": "string"},
            "contract_version": {"type": "integer", "minimum": 0,
                "description": "Bump to invalidate every frozen prompt."},
            "defaults": {"type": "object", "additionalProperties": false, "properties": {
                "profile": {"type": "string"},
                "transport": {"enum": ["native", "xml", "json"]},
                "provider": {"enum": ["openai", "openai-responses", "anthropic", "gemini"]}
            }},
            "transports": {"type": "array", "items": {"enum": ["native", "xml", "json"]}},
            "providers": {"type": "array", "items": {"enum": ["openai", "openai-responses", "anthropic", "gemini"]}},
            "selection": {"type": "object", "additionalProperties": false, "properties": {
                "profile": {"type": "string"},
                "model_segments": names("Segment patterns: `o1` or `o1-*`."),
                "below_context_window": {"type": "integer", "minimum": 0},
                "assumed_context_window": {"type": "integer", "minimum": 0}
            }},
            "strict_tools": {"type": "boolean"},
            "tool_docs": {
                "type": "object", "additionalProperties": false,
                "description": "The xml transport's own tool documentation and call format (default: built in).",
                "properties": {
                    "tool": template_text("One tool's documentation; sees the cell's context plus `tool` (with its \
                        parameters' whole schema) and `index` (1, 2, …)."),
                    "separator": {"type": "string", "description": "Between two tools (default: a blank line)."},
                    "call": template_text("One call, as `generate: tool_examples` shows it; sees the cell's context \
                        plus `tool` and `arguments` (each with `name`, `value`, `text`).")
                }
            },
            "descriptions": {"enum": ["trim", "verbatim"], "description": "How tool and parameter descriptions are \
                sent: `trim` (default) removes trailing whitespace, such as the newline a YAML `|` block ends with; \
                `verbatim` sends them byte for byte."},
            "limits": {"type": "object", "additionalProperties": false, "properties": {
                "section_bytes": {"type": "integer", "minimum": 1024, "maximum": 268435456,
                    "description": "Most bytes one rendered template may produce (default 2 MiB)."},
                "prompt_bytes": {"type": "integer", "minimum": 1024, "maximum": 268435456,
                    "description": "Most bytes a whole prompt may have (default 8 MiB)."}
            }},
            "templates": {"type": "object", "additionalProperties": false, "properties": {
                "compat": {"enum": ["jinja2"],
                    "description": "`jinja2`: Python Jinja2's whitespace defaults (no trim_blocks, no lstrip_blocks)."},
                "trim_blocks": {"type": "boolean",
                    "description": "Drop the first newline after a block tag (default true)."},
                "lstrip_blocks": {"type": "boolean",
                    "description": "Strip spaces before a block tag at the start of a line (default true)."},
                "keep_trailing_newline": {"type": "boolean",
                    "description": "Keep the final newline of a template's source (default false)."}
            }},
            "tokens": {"type": "object", "additionalProperties": false, "properties": {
                "tokenizer": {"enum": ["o200k_base", "cl100k_base", "p50k_base", "r50k_base", "claude", "gemini"]},
                "estimates": {"type": "object", "additionalProperties": false,
                    "properties": {"claude": {"type": "number", "exclusiveMinimum": 0}, "gemini": {"type": "number",
                    "exclusiveMinimum": 0}}},
                "cache": {"type": "string"}
            }},
            "snapshots": {"type": "string"},
            "cases": ident_map("Named switch/variable sets that extend the snapshot matrix.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {"description": {"type": "string"}, "switches": {"type": "object",
                    "additionalProperties": {"type": ["boolean", "string"]}}, "variables": {"type": "object"}}
            })),
            "slots": ident_map("Places tools may contribute to.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {"description": {"type": "string"}, "kind": {"enum": ["system", "user_intent",
                    "history"]}}
            })),
            "subagents": ident_map("Sub-agents.", json!({
                "type": "object", "additionalProperties": false, "required": ["tools"],
                "properties": {"description": {"type": "string"}, "sections": names("Sections (default: the \
                    profile's)."), "tools": names("Tool allowlist.")}
            })),
            "commands": ident_map("Slash commands.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {"description": {"type": "string"}, "template": {"type": "string"},
                    "text": {"type": "string"}, "variants": ident_map("Per-profile texts.", text_or_template)}
            })),
            "check": {"type": "object", "additionalProperties": false, "properties": {
                "levels": {"type": "object", "additionalProperties": {"enum": ["allow", "warn", "deny"]}},
                "subsets": {"type": "object", "additionalProperties": {"type": "string"}},
                "profile_levels": {"type": "object", "description": "Profile → rule → level, for that profile's \
                    cells only (P001–P004, P006, P008).", "additionalProperties": {"type": "object",
                    "additionalProperties": {"enum": ["allow", "warn", "deny"]}}}
            }},
            "switches": ident_map("Runtime capabilities.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {"description": {"type": "string"},
                    "default": {"type": ["boolean", "string"], "description": "true/false, or one of `values`."},
                    "values": {"type": "array", "minItems": 1, "uniqueItems": true, "items": {"type": "string"},
                        "description": "A string-valued switch's values, compared in `when:` as `name == \"value\"`."}}
            })),
            "variables": ident_map("Template variables.", json!({
                "type": "object", "additionalProperties": false,
                "properties": {"description": {"type": "string"}, "default": {}, "dynamic": {"type": "boolean"},
                    "untrusted": {"type": "string"}}
            })),
            "layout": str_desc("Core template placing the rendered sections."),
            "sections": ident_map("Sections by id.", section),
            "tools": names("Tool catalog files."),
            "profiles": ident_map("Prompt contracts.", profile)
        },
        "$defs": defs()
    });
    crate::json::to_pretty_json(&v)
}

#[cfg(test)]
#[path = "editor_schema_tests.rs"]
mod tests;
