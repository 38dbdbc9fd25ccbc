//! `promptc lsp`: a Language Server Protocol 3.17 server over stdio. The editor starts it in
//! the project folder (`rootUri`/`workspaceFolders`, or `-C`); it loads the project from the
//! editor's buffers laid over the disk (`promptc::Overlay`), and after each change publishes
//! every load error or `check` finding, and answers hover, definition, references,
//! completion, code actions and inlay hints from that one analysis.
//!
//! Files: `transport` (framing; a malformed message gets an error answer, never ends the
//! session), `state` (documents, the analysis, the run), `text` (positions in the negotiated
//! encoding, `file:` URIs), `lookup` (what a position names), `diagnostics`, `hover`,
//! `navigate` (definition, references), `complete`, `actions` (code actions, inlay hints).
//!
//! The loop is one thread: changes are applied as they come and the project is loaded once the
//! queue is empty (a burst of keystrokes is one load), or before answering a request, so an
//! answer never reflects an older text than the request's. `check` and the accounts, which
//! compile every cell, run on the checker thread (`state::spawn_checker`); its findings come
//! back on the loop's channel and are published if no change came meanwhile.

mod actions;
mod complete;
mod diagnostics;
mod hover;
mod lookup;
mod navigate;
mod state;
mod text;
mod transport;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{InitializeParams, Uri};

use state::{Doc, State};
use text::Encoding;
use transport::{Incoming, Writer};

use super::{Cli, Error, Exit};

/// How the session ended: `exit` after `shutdown` is a clean end (exit code 0); `exit`
/// without it, or the client closing stdin, is not (1), as the protocol says.
fn ended(shutdown: bool) -> Exit {
    if shutdown {
        Exit::Success
    } else {
        Exit::Found
    }
}

/// Run the server until `exit` or the end of stdin.
pub(crate) fn lsp(cli: &Cli) -> Result<Exit, Error> {
    let (tx, incoming) = std::sync::mpsc::channel();
    transport::spawn_reader(tx.clone());
    let mut out = Writer::stdout();
    let Some((id, params)) = handshake(&incoming, &mut out) else { return Ok(ended(false)) };
    let enc = Encoding::negotiate(params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
    let hints = option(params.initialization_options.as_ref(), "inlayHints").unwrap_or(true);
    let manifest = manifest_for(cli.project.as_deref(), &params);
    out.send(Response::new_ok(id, capabilities(enc)));
    let checker = state::spawn_checker(move |c| tx.send(Incoming::Checked(c)).is_ok());
    let mut state = State::new(enc, manifest, hints, checker);
    // The project as the disk has it, before the first message: an edit that then breaks the
    // load keeps a last good project for hover, definition and completion, however the editor's
    // first messages arrive (together, or with time between them).
    analyse(&mut state, &mut out);
    let mut pending = VecDeque::new();
    let mut shutdown = false;
    loop {
        let next = match pending.pop_front() {
            Some(m) => m,
            None if state.dirty => match incoming.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    analyse(&mut state, &mut out);
                    continue;
                }
                Err(TryRecvError::Disconnected) => Incoming::Closed,
            },
            None => incoming.recv().unwrap_or(Incoming::Closed),
        };
        match next {
            Incoming::Closed => return Ok(ended(false)),
            Incoming::Malformed(code, why) => out.malformed(code, &why),
            Incoming::Checked(c) => {
                if state.checked(c) {
                    publish(&mut state, &mut out);
                }
            }
            Incoming::Message(Message::Request(req)) if req.method == "shutdown" => {
                shutdown = true;
                out.send(Response::new_ok(req.id, ()));
            }
            Incoming::Message(Message::Request(req)) if shutdown => {
                let why = "the server is shutting down".to_string();
                out.send(Response::new_err(req.id, ErrorCode::InvalidRequest as i32, why));
            }
            Incoming::Message(Message::Request(req)) => {
                if state.dirty {
                    analyse(&mut state, &mut out);
                }
                if needs_figures(&req.method) {
                    await_first_check(&mut state, &incoming, &mut pending, &mut out);
                }
                out.send(answer(&mut state, req));
            }
            Incoming::Message(Message::Notification(n)) if n.method == "exit" => return Ok(ended(shutdown)),
            Incoming::Message(Message::Notification(n)) => notified(&mut state, n),
            Incoming::Message(Message::Response(_)) => {}
        }
    }
}

/// Whether answering `method` shows token figures.
fn needs_figures(method: &str) -> bool {
    matches!(method, "textDocument/hover" | "textDocument/inlayHint")
}

/// Before the first figures exist (the session's first check is running), wait for them,
/// keeping the client's messages that arrive meanwhile for later; after that, a hover shows the
/// last figures while a new check runs rather than wait for it.
fn await_first_check(
    state: &mut State,
    incoming: &Receiver<Incoming>,
    pending: &mut VecDeque<Incoming>,
    out: &mut Writer,
) {
    while !state.up_to_date() && state.analysis.as_ref().is_some_and(|a| a.accounts.is_empty()) {
        match incoming.recv() {
            Ok(Incoming::Checked(c)) => {
                if state.checked(c) {
                    publish(state, out);
                }
            }
            Ok(other) => pending.push_back(other),
            Err(_) => return,
        }
    }
}

/// Wait for `initialize`, answering anything before it as the protocol says; `None` when the
/// client leaves first.
fn handshake(incoming: &Receiver<Incoming>, out: &mut Writer) -> Option<(RequestId, InitializeParams)> {
    loop {
        match incoming.recv().ok()? {
            Incoming::Closed => return None,
            Incoming::Malformed(code, why) => out.malformed(code, &why),
            Incoming::Message(Message::Request(req)) if req.method == "initialize" => {
                match serde_json::from_value::<InitializeParams>(req.params) {
                    Ok(params) => return Some((req.id, params)),
                    Err(e) => out.send(Response::new_err(req.id, ErrorCode::InvalidParams as i32, e.to_string())),
                }
            }
            Incoming::Message(Message::Request(req)) => {
                let why = "the server is not initialized yet".to_string();
                out.send(Response::new_err(req.id, ErrorCode::ServerNotInitialized as i32, why));
            }
            Incoming::Message(Message::Notification(n)) if n.method == "exit" => return None,
            Incoming::Message(_) | Incoming::Checked(_) => {}
        }
    }
}

/// A boolean option from `initializationOptions` or a `promptc` settings section.
fn option(options: Option<&serde_json::Value>, name: &str) -> Option<bool> {
    let o = options?;
    o.get(name).or_else(|| o.get("promptc").and_then(|p| p.get(name))).and_then(serde_json::Value::as_bool)
}

/// The manifest the session serves: `-C`'s, else the one found in the client's root folder
/// (or its `profiles/`), else the current folder's; canonical, so the paths diagnostics name
/// compare with the documents'. A folder without one still gets a server, whose diagnostics
/// say what is missing.
fn manifest_for(flag: Option<&Path>, params: &InitializeParams) -> PathBuf {
    #[allow(deprecated)] // `rootUri` is how clients before 3.6 name the folder.
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri)
        .or(params.root_uri.as_ref())
        .and_then(text::uri_path);
    let found = match (flag, &root) {
        (Some(p), _) => promptc::discover(Some(p)),
        (None, Some(r)) => promptc::discover(Some(r)).or_else(|_| promptc::discover(Some(&r.join("profiles")))),
        (None, None) => promptc::discover(None),
    };
    let fallback = || flag.map(Path::to_path_buf).or(root.clone()).unwrap_or_default().join("promptc.yaml");
    let manifest = found.unwrap_or_else(|_| fallback());
    let absolute = std::path::absolute(&manifest).unwrap_or(manifest);
    match (absolute.parent().and_then(|p| p.canonicalize().ok()), absolute.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => absolute,
    }
}

/// What the server can do, in the client's position encoding.
fn capabilities(enc: Encoding) -> serde_json::Value {
    use lsp_types::*;
    let caps = ServerCapabilities {
        position_encoding: Some(enc.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), "\"".into(), "'".into(), " ".into()]),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    let info = ServerInfo { name: "promptc".into(), version: Some(env!("CARGO_PKG_VERSION").into()) };
    serde_json::json!({ "capabilities": caps, "serverInfo": info })
}

/// Load the project again and publish the diagnostics (the checker's follow). A panic inside the library is a bug,
/// but it must not end the session: the editor would lose the server for the rest of the day.
fn analyse(state: &mut State, out: &mut Writer) {
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.run()));
    if ran.is_err() {
        state.dirty = false;
        let message = "promptc failed while analysing the project (a bug: please report it)";
        let params = lsp_types::ShowMessageParams { typ: lsp_types::MessageType::ERROR, message: message.into() };
        out.send(Notification::new("window/showMessage".into(), params));
        return;
    }
    publish(state, out);
}

fn publish(state: &mut State, out: &mut Writer) {
    for n in diagnostics::publish(state) {
        out.send(n);
    }
}

/// The answer to a request: its result, MethodNotFound for a method the server does not know,
/// InvalidParams for parameters it cannot read, InternalError if answering failed.
fn answer(state: &mut State, req: Request) -> Response {
    let id = req.id.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(state, req))) {
        Ok(Ok(result)) => Response::new_ok(id, result),
        Ok(Err((code, why))) => Response::new_err(id, code as i32, why),
        Err(_) => Response::new_err(id, ErrorCode::InternalError as i32, "promptc failed to answer".into()),
    }
}

type Answer = Result<serde_json::Value, (ErrorCode, String)>;

/// The parameters of a request, or InvalidParams.
fn params<P: serde::de::DeserializeOwned>(req: Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(req.params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

/// A document's project-relative path and the byte a position names in it; `None` for a
/// document outside the project (answered with an empty result, not an error: editors ask
/// about every file they show).
fn at(state: &State, uri: &Uri, pos: lsp_types::Position) -> Option<(String, usize)> {
    let rel = state.rel(uri)?;
    let text = state.text(&rel)?;
    Some((rel, text::offset(&text, pos, state.enc)))
}

fn handle(state: &mut State, req: Request) -> Answer {
    use lsp_types::*;
    let json = |v: Option<serde_json::Value>| Ok(v.unwrap_or(serde_json::Value::Null));
    match req.method.as_str() {
        "textDocument/hover" => {
            let p: HoverParams = params(req)?;
            let pp = p.text_document_position_params;
            let h = at(state, &pp.text_document.uri, pp.position).and_then(|(rel, b)| hover::hover(state, &rel, b));
            json(h.map(|h| serde_json::json!(h)))
        }
        "textDocument/definition" => {
            let p: GotoDefinitionParams = params(req)?;
            let pp = p.text_document_position_params;
            let l =
                at(state, &pp.text_document.uri, pp.position).and_then(|(rel, b)| navigate::definition(state, &rel, b));
            json(l.map(|l| serde_json::json!(l)))
        }
        "textDocument/references" => {
            let p: ReferenceParams = params(req)?;
            let pp = p.text_document_position;
            let found = at(state, &pp.text_document.uri, pp.position)
                .map(|(rel, b)| navigate::references(state, &rel, b, p.context.include_declaration));
            json(Some(serde_json::json!(found.unwrap_or_default())))
        }
        "textDocument/completion" => {
            let p: CompletionParams = params(req)?;
            let pp = p.text_document_position;
            let items =
                at(state, &pp.text_document.uri, pp.position).map(|(rel, b)| complete::complete(state, &rel, b));
            json(Some(serde_json::json!(items.unwrap_or_default())))
        }
        "textDocument/codeAction" => {
            let p: CodeActionParams = params(req)?;
            let uri = p.text_document.uri;
            let found = state.rel(&uri).map(|rel| actions::code_actions(state, &uri, &rel, &p.context.diagnostics));
            json(Some(serde_json::json!(found.unwrap_or_default())))
        }
        "textDocument/inlayHint" => {
            let p: InlayHintParams = params(req)?;
            let found = state.rel(&p.text_document.uri).map(|rel| actions::inlay_hints(state, &rel));
            json(Some(serde_json::json!(found.unwrap_or_default())))
        }
        method => Err((ErrorCode::MethodNotFound, format!("promptc lsp does not handle `{method}`"))),
    }
}

/// Apply a notification: documents opened, changed, closed; settings changed. Unknown ones
/// (and ones whose parameters cannot be read) are ignored, as the protocol asks.
fn notified(state: &mut State, n: Notification) {
    use lsp_types::*;
    match n.method.as_str() {
        "textDocument/didOpen" => {
            let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else { return };
            if let Some(rel) = state.rel(&p.text_document.uri) {
                state.docs.insert(rel, Doc { text: p.text_document.text });
                state.dirty = true;
            }
        }
        "textDocument/didChange" => {
            let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else { return };
            let Some(rel) = state.rel(&p.text_document.uri) else { return };
            let enc = state.enc;
            let Some(doc) = state.docs.get_mut(&rel) else { return };
            for change in p.content_changes {
                apply(&mut doc.text, change, enc);
            }
            state.dirty = true;
        }
        "textDocument/didClose" => {
            let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else { return };
            if let Some(rel) = state.rel(&p.text_document.uri) {
                state.docs.remove(&rel);
                state.dirty = true;
            }
        }
        // A save, or a file changed on disk by another program: the disk is read again.
        "textDocument/didSave" | "workspace/didChangeWatchedFiles" => state.dirty = true,
        "workspace/didChangeConfiguration" => {
            if let Some(on) = option(n.params.get("settings"), "inlayHints") {
                state.hints = on;
            }
        }
        _ => {}
    }
}

/// Apply one content change to a document's text (a whole new text, or a range replaced).
fn apply(doc: &mut String, change: lsp_types::TextDocumentContentChangeEvent, enc: Encoding) {
    match change.range {
        None => *doc = change.text,
        Some(r) => {
            let start = text::offset(doc, r.start, enc);
            let end = text::offset(doc, r.end, enc).max(start);
            doc.replace_range(start..end, &change.text);
        }
    }
}
