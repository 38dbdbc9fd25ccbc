//! Unit tests of `measure::billing`.

use super::*;

/// OpenAI's worked example (cookbook §7): one weather function and two messages are 101
/// prompt tokens on gpt-4o (o200k_base) and 105 on gpt-4 (cl100k_base), as the API reports.
#[test]
fn the_openai_recipe_reproduces_the_cookbook_example() {
    let tool = serde_json::json!({
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}
                },
                "required": ["location"]
            }
        }
    });
    let messages = [
        ("system", "You are a helpful assistant that can answer to questions about the weather."),
        ("user", "What's the weather like in San Francisco?"),
    ];
    for (encoding, expected) in [(Encoding::O200kBase, 101), (Encoding::Cl100kBase, 105)] {
        let t = Tokenizer::Exact(encoding);
        let mut c = Counters::new(None);
        let tools = openai_tools(Provider::OpenAiChat, &[&tool], &t, &mut c).unwrap();
        let mut msgs = 3; // every reply is primed with <|start|>assistant<|message|>
        for (role, content) in messages {
            msgs += 3 + c.count(&t, role).unwrap() + c.count(&t, content).unwrap();
        }
        assert_eq!(msgs + tools, expected, "{}", encoding.name());
    }
}

#[test]
fn anthropic_system_prompt_sizes_follow_the_published_table() {
    assert_eq!(anthropic_tool_system_prompt(Some("claude-3-opus-20240229")).0, 530);
    assert_eq!(anthropic_tool_system_prompt(Some("anthropic/claude-3-sonnet-20240229")).0, 159);
    assert_eq!(anthropic_tool_system_prompt(Some("claude-3-haiku-20240307")).0, 264);
    assert_eq!(anthropic_tool_system_prompt(Some("claude-3-5-haiku-latest")).0, 264);
    assert_eq!(anthropic_tool_system_prompt(Some("claude-sonnet-4-5")).0, 346);
    assert_eq!(anthropic_tool_system_prompt(None).0, 346);
}
