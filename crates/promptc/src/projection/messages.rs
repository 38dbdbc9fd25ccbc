//! The harness messages as a provider's request writes them: `{"role", "content"}` with the
//! content one string or a list of content blocks (Anthropic, OpenAI Chat Completions and
//! Responses, and xml and json cells, which name no provider's shape), or Gemini's
//! `{"role", "parts"}` with `model` for the assistant.

use serde_json::{json, Value};

use crate::model::profile::{MessageForm, Role};
use crate::model::provider::Provider;
use crate::render::RenderedMessage;

/// The `messages` list (Gemini: `contents`) of `provider`'s request, or the common shape for
/// `None` (an xml or json cell).
pub fn messages(provider: Option<Provider>, messages: &[RenderedMessage]) -> Value {
    Value::Array(messages.iter().map(|m| message(provider, m)).collect())
}

fn message(provider: Option<Provider>, m: &RenderedMessage) -> Value {
    if provider == Some(Provider::Gemini) {
        // Gemini has no string content: a message of one text is one part.
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "model",
        };
        let parts: Vec<Value> = m.blocks.iter().map(|t| json!({ "text": t })).collect();
        return json!({ "role": role, "parts": parts });
    }
    let content = match m.form {
        MessageForm::Text => Value::String(m.text()),
        MessageForm::Blocks => {
            // Responses reads earlier assistant turns as model output (`output_text`, with its
            // `annotations`, as the SDK's `ResponseOutputTextParam`) and refuses `input_text`
            // there; everything else here takes `text` blocks.
            let block = |t: &String| match (provider, m.role) {
                (Some(Provider::OpenAiResponses), Role::User) => json!({ "type": "input_text", "text": t }),
                (Some(Provider::OpenAiResponses), Role::Assistant) => {
                    json!({ "type": "output_text", "text": t, "annotations": [] })
                }
                _ => json!({ "type": "text", "text": t }),
            };
            Value::Array(m.blocks.iter().map(block).collect())
        }
    };
    json!({ "role": m.role.as_str(), "content": content })
}
