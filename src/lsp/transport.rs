//! JSON-RPC over stdio, framed by `Content-Length` headers. Framing is read here rather than by
//! `lsp_server::Connection::stdio`, whose reader thread ends the connection on the first body
//! that is not a message: a client's malformed message must get an error answer and leave the
//! server running (JSON-RPC 2.0: `-32700` for text that is not JSON, `-32600` for JSON that is
//! not a message).

use std::io::{BufRead, Write};
use std::sync::mpsc::Sender;

use lsp_server::Message;

/// Largest message body read (a whole buffer of a project file is at most a few megabytes).
const MAX_BODY: usize = 64 << 20;

/// What the reader thread hands the server loop.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A well-formed message.
    Message(Message),
    /// A framed body that is not a message: the JSON-RPC error code and why.
    Malformed(i32, String),
    /// Standard input ended (or broke): the client is gone.
    Closed,
    /// Not from the client: the checker's findings for a load (it shares the loop's channel,
    /// so the loop waits on one thing).
    Checked(super::state::Checked),
}

/// JSON-RPC's code for text that is not JSON.
pub(crate) const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's code for JSON that is not a request, response or notification.
pub(crate) const INVALID_REQUEST: i32 = -32600;

/// Read framed messages from stdin on a thread of its own until it ends, sending them to the
/// server loop in order.
pub(crate) fn spawn_reader(tx: Sender<Incoming>) {
    std::thread::spawn(move || read_all(&mut std::io::stdin().lock(), &tx));
}

fn read_all(input: &mut impl BufRead, tx: &Sender<Incoming>) {
    loop {
        let incoming = match read_body(input) {
            Ok(Some(body)) => parse(&body),
            Ok(None) | Err(_) => Incoming::Closed,
        };
        let closed = matches!(incoming, Incoming::Closed);
        let exit = matches!(&incoming, Incoming::Message(Message::Notification(n)) if n.method == "exit");
        if tx.send(incoming).is_err() || closed || exit {
            return;
        }
    }
}

/// A body as a message, or why it is not one.
fn parse(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Err(e) => Incoming::Malformed(PARSE_ERROR, format!("the message is not JSON: {e}")),
        Ok(value) => match serde_json::from_value::<Message>(value) {
            Ok(m) => Incoming::Message(m),
            Err(e) => Incoming::Malformed(INVALID_REQUEST, format!("the JSON is not a JSON-RPC message: {e}")),
        },
    }
}

/// The next body: headers up to an empty line, then `Content-Length` bytes. A header block
/// without a length is skipped (the next block may be sound); `None` at the end of input.
fn read_body(input: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    loop {
        let mut length = None;
        let mut line = String::new();
        loop {
            line.clear();
            if input.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            let header = line.trim_end_matches(['\r', '\n']);
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        let Some(length) = length.filter(|n| *n <= MAX_BODY) else { continue };
        let mut body = vec![0; length];
        input.read_exact(&mut body)?;
        return Ok(Some(body));
    }
}

/// Writes framed messages to stdout.
pub(crate) struct Writer {
    out: std::io::Stdout,
}

impl Writer {
    pub(crate) fn stdout() -> Writer {
        Writer { out: std::io::stdout() }
    }

    /// Send a message. A client that stopped reading is not an error worth more than ending
    /// the session, which the reader notices on its own.
    pub(crate) fn send(&mut self, message: impl Into<Message>) {
        let mut out = self.out.lock();
        let _ = message.into().write(&mut out);
    }

    /// Send the error answer to a message that could not be read (its id is unknown: `null`).
    pub(crate) fn malformed(&mut self, code: i32, why: &str) {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": why}});
        let text = body.to_string();
        let mut out = self.out.lock();
        let _ = write!(out, "Content-Length: {}\r\n\r\n{text}", text.len());
        let _ = out.flush();
    }
}
