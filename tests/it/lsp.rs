//! `promptc lsp` driven as an editor drives it: a JSON-RPC client over the server's stdin and
//! stdout (initialize → initialized → didOpen → didChange → requests → shutdown → exit), each
//! feature with its positions asserted. The timeout on every wait is a hang guard, not a bound.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::Workspace;

/// Longest wait for one message: only a hung server takes it.
const HANG: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications received while waiting for something else, in order.
    notes: Vec<Value>,
    next_id: i64,
    ws: Workspace,
}

fn read_frames(out: impl Read, tx: std::sync::mpsc::Sender<Value>) {
    let mut out = BufReader::new(out);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.trim().parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length.expect("a Content-Length header")];
        out.read_exact(&mut body).expect("a whole body");
        if tx.send(serde_json::from_slice(&body).expect("the server writes JSON")).is_err() {
            return;
        }
    }
}

impl Client {
    /// A server over a fresh copy of the example, initialized with `init` merged into the
    /// initialize parameters.
    fn start(init: Value) -> Client {
        let ws = Workspace::new();
        let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
            .arg("lsp")
            .current_dir(ws.path("profiles"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start promptc lsp");
        let (tx, incoming) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || read_frames(stdout, tx));
        let stdin = child.stdin.take();
        let mut c = Client { child, stdin, incoming, notes: Vec::new(), next_id: 0, ws };
        let mut params = json!({"processId": null, "rootUri": c.uri(""), "capabilities": {}});
        merge(&mut params, init);
        let answer = c.request("initialize", params);
        assert!(answer["result"]["capabilities"]["hoverProvider"].as_bool().unwrap(), "{answer}");
        c.notify("initialized", json!({}));
        c
    }

    fn uri(&self, rel: &str) -> String {
        let root = self.ws.path("profiles").canonicalize().unwrap();
        format!("file://{}", root.join(rel).display()).trim_end_matches('/').to_string()
    }

    fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ws.path("profiles").join(rel)).unwrap()
    }

    fn send_raw(&mut self, body: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes()).unwrap();
        stdin.write_all(body).unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send_raw(json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string().as_bytes());
    }

    fn next(&mut self) -> Value {
        match self.incoming.recv_timeout(HANG) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("the server did not answer"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server ended"),
        }
    }

    /// Send a request and wait for its answer (the whole response: `result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send_raw(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string().as_bytes());
        self.answer(json!(id))
    }

    fn answer(&mut self, id: Value) -> Value {
        loop {
            let m = self.next();
            if m.get("id") == Some(&id) && m.get("method").is_none() {
                return m;
            }
            self.notes.push(m);
        }
    }

    /// The next diagnostics published for `rel` that satisfy `wanted` (earlier ones skipped).
    fn diagnostics(&mut self, rel: &str, wanted: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = self.uri(rel);
        let is_it = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
        let mut seen = std::mem::take(&mut self.notes).into_iter();
        loop {
            let m = seen.next().unwrap_or_else(|| self.next());
            if is_it(&m) {
                let list = m["params"]["diagnostics"].as_array().unwrap().clone();
                if wanted(&list) {
                    self.notes.extend(seen);
                    return list;
                }
            }
        }
    }

    fn open(&mut self, rel: &str) -> String {
        let text = self.text(rel);
        let doc = json!({"uri": self.uri(rel), "languageId": "jinja", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": doc}));
        text
    }

    fn change(&mut self, rel: &str, text: &str) {
        let doc = json!({"uri": self.uri(rel), "version": 2});
        self.notify("textDocument/didChange", json!({"textDocument": doc, "contentChanges": [{"text": text}]}));
    }

    fn at(&mut self, method: &str, rel: &str, line: u32, character: u32) -> Value {
        let mut params =
            json!({"textDocument": {"uri": self.uri(rel)}, "position": {"line": line, "character": character}});
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        self.request(method, params)
    }

    /// Shut down and exit; the server's exit code.
    fn finish(mut self) -> Option<i32> {
        assert_eq!(self.request("shutdown", Value::Null)["result"], Value::Null);
        self.notify("exit", Value::Null);
        self.child.wait().unwrap().code()
    }
}

fn merge(a: &mut Value, b: Value) {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
}

/// The line (0-based) of `text` holding `needle`, and the column (in bytes) where it starts.
fn find(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let line = text[..at].matches('\n').count();
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line as u32, col as u32)
}

fn range_of(d: &Value) -> (u64, u64, u64, u64) {
    let r = &d["range"];
    let n = |v: &Value| v.as_u64().unwrap();
    (n(&r["start"]["line"]), n(&r["start"]["character"]), n(&r["end"]["line"]), n(&r["end"]["character"]))
}

const CAPABILITIES: &str = "sections/capabilities.md.j2";

#[test]
fn a_misspelt_tool_in_a_template_gets_a_diagnostic_on_its_line_a_quick_fix_and_is_cleared_when_fixed() {
    let mut c = Client::start(json!({}));
    let text = c.open(CAPABILITIES);
    let bad = text.replacen("\"list_files\" in tool_names or", "\"list_filez\" in tool_names or", 1);
    c.change(CAPABILITIES, &bad);
    let found = c.diagnostics(CAPABILITIES, |l| !l.is_empty());
    let (line, col) = find(&bad, "\"list_filez\"");
    assert_eq!(range_of(&found[0]), (line.into(), col.into(), line.into(), (col + 12).into()), "{found:?}");
    assert_eq!(found[0]["source"], "promptc");
    assert_eq!(found[0]["severity"], 1, "a load error is an error");
    assert!(found[0]["message"].as_str().unwrap().contains("help: did you mean `list_files`?"), "{found:?}");
    let related = &found[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], c.uri("tools/files.yaml"), "the suggestion's declaration: {related}");
    assert_eq!(related["location"]["range"]["start"]["line"], find(&c.text("tools/files.yaml"), "list_files").0);
    let params = json!({"textDocument": {"uri": c.uri(CAPABILITIES)}, "range": found[0]["range"],
        "context": {"diagnostics": [found[0]]}});
    let actions = c.request("textDocument/codeAction", params);
    let edit = &actions["result"][0]["edit"]["changes"][c.uri(CAPABILITIES)][0];
    assert_eq!(edit["newText"], "list_files", "{actions}");
    assert_eq!(edit["range"]["start"]["character"], col + 1, "the quotes stay: {actions}");
    c.change(CAPABILITIES, &text);
    assert!(c.diagnostics(CAPABILITIES, |_| true).is_empty(), "fixed: the file's diagnostics are cleared");
    assert_eq!(c.finish(), Some(0), "exit after shutdown is a clean end");
}

#[test]
fn a_misspelt_manifest_key_gets_its_diagnostic_on_its_line_and_a_check_finding_carries_its_rule_code() {
    let mut c = Client::start(json!({}));
    let text = c.open("promptc.yaml");
    c.change("promptc.yaml", &text.replacen("strict_tools: true", "strict_tool: true", 1));
    let found = c.diagnostics("promptc.yaml", |l| !l.is_empty());
    let (line, _) = find(&text, "strict_tools: true");
    assert_eq!(range_of(&found[0]), (line.into(), 0, line.into(), 11), "{found:?}");
    assert!(found[0]["data"]["replaceWith"] == "strict_tools", "{found:?}");
    // P007 (a switch no template reads) is a warning `check` finds, with its rule code.
    let unread = text.replacen("switches:\n", "switches:\n  never_read:\n    description: Unread.\n", 1);
    c.change("promptc.yaml", &unread);
    let found = c.diagnostics("promptc.yaml", |l| l.iter().any(|d| d["code"] == "P007"));
    let p007 = found.iter().find(|d| d["code"] == "P007").unwrap();
    let (line, col) = find(&unread, "never_read");
    assert_eq!(range_of(p007), (line.into(), col.into(), line.into(), (col + 10).into()), "{p007}");
    assert_eq!(p007["severity"], 2, "P007 is a warning by default: {p007}");
    c.finish();
}

#[test]
fn hover_on_a_tool_gives_its_description_and_its_tokens_per_cell() {
    let mut c = Client::start(json!({}));
    let tools = c.text("tools/files.yaml");
    let (line, col) = find(&tools, "read_file");
    let h = c.at("textDocument/hover", "tools/files.yaml", line, col + 2);
    let value = h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(value.starts_with("**tool `read_file`**"), "{h}");
    assert!(value.contains("Read the contents of a file"), "the description: {value}");
    assert!(value.contains(" tokens in ") && value.contains("standard.native.openai"), "tokens per cell: {value}");
    assert_eq!(h["result"]["range"]["start"]["line"], line, "{h}");
    // The same tool named in a template's string.
    let text = c.text(CAPABILITIES);
    let (line, col) = find(&text, "\"list_files\"");
    let h = c.at("textDocument/hover", CAPABILITIES, line, col + 3);
    assert!(h["result"]["contents"]["value"].as_str().unwrap().starts_with("**tool `list_files`**"), "{h}");
    c.finish();
}

#[test]
fn hover_on_a_section_says_its_tokens_and_cacheable_prefix_and_on_a_switch_which_cases_set_it() {
    let mut c = Client::start(json!({}));
    let manifest = c.text("promptc.yaml");
    let (line, col) = find(&manifest, "  rules:\n");
    let h = c.at("textDocument/hover", "promptc.yaml", line, col + 3);
    let value = h["result"]["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.starts_with("**section `rules`** — template sections/rules.md.j2"), "{value}");
    assert!(value.contains(" tokens in ") && value.contains("In the cacheable prefix in "), "{value}");
    // The same section from its template's path, and from anywhere in its template's prose.
    let (line, col) = find(&manifest, "sections/rules.md.j2");
    let h = c.at("textDocument/hover", "promptc.yaml", line, col + 2);
    assert!(h["result"]["contents"]["value"].as_str().unwrap().starts_with("**section `rules`**"), "{h}");
    let rules = c.text("sections/rules.md.j2");
    let (line, col) = find(&rules, ". ");
    let h = c.at("textDocument/hover", "sections/rules.md.j2", line, col + 1);
    assert!(h["result"]["contents"]["value"].as_str().unwrap().starts_with("**section `rules`**"), "{h}");
    let text = c.text(CAPABILITIES);
    let (line, col) = find(&text, "switches.browser");
    let h = c.at("textDocument/hover", CAPABILITIES, line, col + 10);
    let value = h["result"]["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.starts_with("**switch `browser`** — default false"), "{value}");
    assert!(value.contains("Set by the cases: all-capabilities"), "{value}");
    c.finish();
}

#[test]
fn definition_goes_from_a_name_to_its_declaration_and_references_come_back() {
    let mut c = Client::start(json!({}));
    let text = c.text(CAPABILITIES);
    let tools = c.text("tools/files.yaml");
    let (line, col) = find(&text, "\"search_files\"");
    let d = c.at("textDocument/definition", CAPABILITIES, line, col + 2);
    assert_eq!(d["result"]["uri"], c.uri("tools/files.yaml"), "{d}");
    let (decl, decl_col) = find(&tools, "search_files");
    assert_eq!(d["result"]["range"]["start"], json!({"line": decl, "character": decl_col}), "{d}");
    // A section's key in the manifest goes to its template; a switch in a template to its key.
    let manifest = c.text("promptc.yaml");
    let (line, col) = find(&manifest, "  rules:\n");
    let d = c.at("textDocument/definition", "promptc.yaml", line, col + 3);
    assert_eq!(d["result"]["uri"], c.uri("sections/rules.md.j2"), "{d}");
    let (line, col) = find(&text, "switches.browser");
    let d = c.at("textDocument/definition", CAPABILITIES, line, col + 10);
    let (decl, _) = find(&manifest, "  browser:\n");
    assert_eq!(
        (d["result"]["uri"].clone(), d["result"]["range"]["start"]["line"].clone()),
        (json!(c.uri("promptc.yaml")), json!(decl))
    );
    let refs = c.at("textDocument/references", "tools/files.yaml", find(&tools, "search_files").0, decl_col + 1);
    let uris: Vec<&str> = refs["result"].as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap()).collect();
    assert!(uris.contains(&c.uri(CAPABILITIES).as_str()), "the template mentions it: {uris:?}");
    assert!(uris.contains(&c.uri("tools/files.yaml").as_str()), "its declaration: {uris:?}");
    c.finish();
}

fn labels(answer: &Value) -> Vec<String> {
    answer["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
}

#[test]
fn completion_offers_tools_in_strings_switch_members_list_entries_and_manifest_keys() {
    let mut c = Client::start(json!({}));
    let text = c.open(CAPABILITIES);
    let edited = format!("{{% if \"li\" in tool_names and switches.br %}}x{{% endif %}}\n{text}");
    c.change(CAPABILITIES, &edited);
    let tools = labels(&c.at("textDocument/completion", CAPABILITIES, 0, 9));
    assert!(tools.contains(&"list_files".to_string()) && tools.contains(&"read_file".to_string()), "{tools:?}");
    let switches = labels(&c.at("textDocument/completion", CAPABILITIES, 0, 38));
    assert!(switches.contains(&"browser".to_string()) && !switches.contains(&"read_file".to_string()), "{switches:?}");
    let manifest = c.open("promptc.yaml");
    let (line, _) = find(&manifest, "      - write_to_file\n");
    let listed = labels(&c.at("textDocument/completion", "promptc.yaml", line, 8));
    assert!(listed.contains(&"execute_command".to_string()), "a profile's tools: {listed:?}");
    let edited = manifest.replacen("strict_tools: true\n", "strict_tools: true\nstr\n", 1);
    c.change("promptc.yaml", &edited);
    let (line, _) = find(&edited, "\nstr\n");
    let keys = labels(&c.at("textDocument/completion", "promptc.yaml", line + 1, 3));
    assert!(keys.contains(&"strict_tools".to_string()) && keys.contains(&"sections".to_string()), "{keys:?}");
    c.finish();
}

#[test]
fn inlay_hints_show_tokens_after_each_tool_and_atop_a_section_unless_turned_off() {
    let mut c = Client::start(json!({}));
    let tools = c.text("tools/files.yaml");
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}});
    let hints = c
        .request("textDocument/inlayHint", json!({"textDocument": {"uri": c.uri("tools/files.yaml")}, "range": range}));
    let hints = hints["result"].as_array().unwrap().clone();
    let (line, col) = find(&tools, "- name: read_file\n");
    assert_eq!(hints[0]["position"], json!({"line": line, "character": col + 17}), "after `read_file`: {hints:?}");
    assert!(hints[0]["label"].as_str().unwrap().contains(" tokens ("), "{hints:?}");
    let names = tools.matches("\n- name: ").count() + usize::from(tools.starts_with("- name: "));
    assert_eq!(hints.len(), names, "one hint per tool");
    let section = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": c.uri("sections/rules.md.j2")}, "range": range}),
    );
    assert_eq!(section["result"][0]["position"], json!({"line": 0, "character": 0}), "{section}");
    assert!(section["result"][0]["label"].as_str().unwrap().starts_with("section rules: "), "{section}");
    c.finish();
    let mut off = Client::start(json!({"initializationOptions": {"inlayHints": false}}));
    let none = off.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": off.uri("tools/files.yaml")}, "range": range}),
    );
    assert_eq!(none["result"], json!([]), "turned off by the initialization option");
    off.finish();
}

#[test]
fn columns_after_non_ascii_text_are_counted_in_the_negotiated_encoding() {
    // `{% if "é😀" or ` is 15 UTF-16 units (`é` one, `😀` two) and 18 bytes (`é` two, `😀` four).
    for (offered, column) in [(json!(["utf-16"]), 15), (json!(["utf-8", "utf-16"]), 18), (json!(null), 15)] {
        let mut c = Client::start(json!({"capabilities": {"general": {"positionEncodings": offered}}}));
        let text = c.open(CAPABILITIES);
        let bad = text.replacen("{% if \"list_files\" in", "{% if \"é😀\" or \"list_filez\" in", 1);
        c.change(CAPABILITIES, &bad);
        let found = c.diagnostics(CAPABILITIES, |l| !l.is_empty());
        let start = found[0]["range"]["start"]["character"].as_u64().unwrap();
        assert_eq!(start, column, "offered {offered}: {found:?}");
        assert_eq!(found[0]["range"]["end"]["character"].as_u64().unwrap(), column + 12, "`\"list_filez\"` is ASCII");
        c.finish();
    }
}

#[test]
fn malformed_messages_unknown_methods_and_files_outside_the_project_leave_the_server_answering() {
    let mut c = Client::start(json!({}));
    c.send_raw(b"{not json");
    let err = c.answer(Value::Null);
    assert_eq!(err["error"]["code"], -32700, "a parse error: {err}");
    c.send_raw(br#"{"jsonrpc": "2.0", "what": 1}"#);
    assert_eq!(c.answer(Value::Null)["error"]["code"], -32600, "an invalid request");
    let unknown = c.request("promptc/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "method not found: {unknown}");
    let outside = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///etc/hostname"},
        "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(outside["result"], Value::Null, "{outside}");
    let bad_params = c.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");
    let tools = c.text("tools/files.yaml");
    let (line, col) = find(&tools, "read_file");
    let h = c.at("textDocument/hover", "tools/files.yaml", line, col);
    assert!(h["result"]["contents"]["value"].as_str().unwrap().contains("read_file"), "still serving: {h}");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn a_project_that_fails_to_load_is_reported_and_the_session_survives_and_ends_on_eof() {
    let ws = Workspace::new();
    std::fs::write(ws.path("profiles/promptc.yaml"), "promptc: 1\nname: [unclosed\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
        .args(["lsp", "-C"])
        .arg(ws.path("profiles"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, incoming) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || read_frames(stdout, tx));
    let stdin = child.stdin.take();
    let mut c = Client { child, stdin, incoming, notes: Vec::new(), next_id: 0, ws };
    let before = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(before["error"]["code"], -32002, "not initialized yet: {before}");
    c.request("initialize", json!({"capabilities": {}}));
    c.notify("initialized", json!({}));
    let found = c.diagnostics("promptc.yaml", |l| !l.is_empty());
    assert_eq!(found[0]["range"]["start"]["line"], 1, "{found:?}");
    let h = c.at("textDocument/hover", "promptc.yaml", 1, 1);
    assert_eq!(h["result"], Value::Null, "nothing to say about a project that never loaded");
    drop(c.stdin.take());
    assert_eq!(c.child.wait().unwrap().code(), Some(1), "stdin closed without shutdown: exit code 1");
}
