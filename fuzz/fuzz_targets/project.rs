//! Whole projects from a structured generator: sections (templates with conditionals, loops,
//! sets, filters and deep nesting), tools with parameters and contributions, switches,
//! profiles, sub-agents — written as files, loaded, every cell compiled and linted. Reaches
//! the loader and renderer far deeper than bytes would.
#![no_main]

use arbitrary::Arbitrary;

const NAMES: [&str; 6] = ["alpha", "beta", "gamma", "delta", "read_file", "write_file"];
const FILTERS: [&str; 8] = ["upper", "trim", "length", "join(', ')", "replace('a', 'bb')", "indent(2)", "default('x')", "first"];

#[derive(Arbitrary, Debug)]
enum Tpl {
    Lit(String),
    Var(u8),
    Switch(u8, Box<Tpl>, Box<Tpl>),
    HasTool(u8, Box<Tpl>),
    Loop(Box<Tpl>),
    Set(u8, Box<Tpl>, Box<Tpl>),
    Concat(Box<Tpl>, Box<Tpl>),
    Filter(u8, Box<Tpl>),
    /// Deep nesting of one kind: parentheses, ifs, lists or `!`.
    Nest(u8, u16),
    Seq(Vec<Tpl>),
}

fn expr(t: &Tpl, depth: usize) -> String {
    if depth > 40 {
        return "x".into();
    }
    match t {
        Tpl::Var(i) => ["cwd", "rules", "x"][*i as usize % 3].into(),
        Tpl::Concat(a, b) => format!("({} ~ {})", expr(a, depth + 1), expr(b, depth + 1)),
        Tpl::Filter(f, a) => format!("({}|{})", expr(a, depth + 1), FILTERS[*f as usize % FILTERS.len()]),
        Tpl::Lit(s) => format!("{:?}", s.chars().take(40).collect::<String>()),
        _ => "cwd".into(),
    }
}

fn render(t: &Tpl, depth: usize) -> String {
    if depth > 40 {
        return String::new();
    }
    let d = depth + 1;
    match t {
        Tpl::Lit(s) => s.chars().take(200).collect(),
        Tpl::Var(_) | Tpl::Concat(..) | Tpl::Filter(..) => format!("{{{{ {} }}}}", expr(t, d)),
        Tpl::Switch(i, a, b) => format!(
            "{{% if switches.{} %}}{}{{% else %}}{}{{% endif %}}",
            ["browser", "mcp", "yolo"][*i as usize % 3],
            render(a, d),
            render(b, d)
        ),
        Tpl::HasTool(i, a) => {
            format!("{{% if \"{}\" in tool_names %}}{}{{% endif %}}", NAMES[*i as usize % NAMES.len()], render(a, d))
        }
        Tpl::Loop(a) => format!("{{% for t in tools %}}{{{{ t.name }}}}: {}\n{{% endfor %}}", render(a, d)),
        Tpl::Set(i, v, body) => {
            let name = ["s", "ns_x", "y"][*i as usize % 3];
            format!("{{% set {name} = {} %}}{}{{{{ {name} }}}}", expr(v, d), render(body, d))
        }
        Tpl::Nest(kind, n) => {
            let n = *n as usize % 5000;
            match kind % 4 {
                0 => format!("{{{{ {}1{} }}}}", "(".repeat(n), ")".repeat(n)),
                1 => format!("{}x{}", "{% if true %}".repeat(n), "{% endif %}".repeat(n)),
                2 => format!("{{{{ {}1{} }}}}", "[".repeat(n), "]".repeat(n)),
                _ => format!("{{{{ {}true }}}}", "not ".repeat(n)),
            }
        }
        Tpl::Seq(items) => items.iter().take(8).map(|x| render(x, d)).collect::<Vec<_>>().join("\n"),
    }
}

#[derive(Arbitrary, Debug)]
struct Param {
    name: u8,
    kind: u8,
    required: bool,
    when_switch: Option<u8>,
    deep_when: Option<u16>,
}

#[derive(Arbitrary, Debug)]
struct Tool {
    name: u8,
    toolset: bool,
    description: String,
    params: Vec<Param>,
    contributes: Option<Tpl>,
    spawns: bool,
}

#[derive(Arbitrary, Debug)]
struct Project {
    sections: Vec<Tpl>,
    tools: Vec<Tool>,
    lite_sections: u8,
    transports: u8,
    subagent: bool,
    untrusted: bool,
    layout: Option<Tpl>,
}

fn yaml_str(s: &str) -> String {
    serde_json_like(s)
}

/// A JSON string literal (JSON is YAML).
fn serde_json_like(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars().take(300) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn files(p: &Project) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut m = String::from("promptc: 1\nname: fuzz\ncontract_version: 1\n");
    let transports = ["[native, xml]", "[native]", "[xml]", "[native, xml, json]"][p.transports as usize % 4];
    m.push_str(&format!("transports: {transports}\n"));
    m.push_str("switches:\n  browser: {}\n  mcp: {default: true}\n  yolo: {}\n");
    m.push_str(&format!(
        "variables:\n  cwd: {{default: /w, dynamic: true}}\n  rules: {{default: \"be <|kind|>\"{}}}\n  x: {{default: v}}\n",
        if p.untrusted { ", untrusted: USER_RULES" } else { "" }
    ));
    m.push_str("slots:\n  notes: {}\nsections:\n");
    let n = p.sections.len().min(6);
    for (i, s) in p.sections.iter().take(6).enumerate() {
        let name = format!("s{i}.md.j2");
        out.push((name.clone(), render(s, 0)));
        m.push_str(&format!("  s{i}: {{template: {name}}}\n"));
    }
    m.push_str("  notes: {slot: notes}\n  docs: {generate: tool_docs}\n");
    if let Some(l) = &p.layout {
        out.push(("layout.md.j2".into(), format!("{}\n{{{{ body }}}}", render(l, 0))));
        m.push_str("layout: layout.md.j2\n");
    }
    m.push_str("tools: [tools.yaml]\nprofiles:\n");
    let all: Vec<String> = (0..n).map(|i| format!("s{i}")).chain(["notes".into(), "docs".into()]).collect();
    m.push_str(&format!("  standard: {{sections: [{}], toolsets: [t, u]}}\n", all.join(", ")));
    let lite: Vec<String> = all.iter().take(p.lite_sections as usize % (all.len() + 1)).cloned().collect();
    m.push_str(&format!("  lite: {{sections: [{}], toolsets: [t]}}\n", lite.join(", ")));
    let mut t = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for tool in p.tools.iter().take(8) {
        let name = NAMES[tool.name as usize % NAMES.len()];
        if !seen.insert(name) {
            continue;
        }
        t.push_str(&format!(
            "- name: {name}\n  toolset: {}\n  description: {}\n",
            if tool.toolset { "t" } else { "u" },
            yaml_str(if tool.description.trim().is_empty() { "A tool." } else { &tool.description })
        ));
        if tool.spawns {
            t.push_str("  spawns_subagents: true\n");
        }
        if !tool.params.is_empty() {
            t.push_str("  parameters:\n");
            let mut pseen = std::collections::BTreeSet::new();
            for prm in tool.params.iter().take(5) {
                let pname = ["path", "content", "limit", "items", "mode"][prm.name as usize % 5];
                if !pseen.insert(pname) {
                    continue;
                }
                let kind = ["{type: string}", "{type: integer, minimum: 0}", "{type: boolean}", "{type: array, items: {type: string}}", "{type: string, enum: [a, b]}"][prm.kind as usize % 5];
                let mut spec = kind.trim_end_matches('}').to_string();
                spec.push_str(&format!(", required: {}, description: \"The {pname}.\"", prm.required));
                if let Some(w) = prm.when_switch {
                    spec.push_str(&format!(", when: {}", ["browser", "\"!yolo\"", "\"mcp && !browser\""][w as usize % 3]));
                }
                if let Some(d) = prm.deep_when {
                    let d = d as usize % 3000;
                    spec.push_str(&format!(", when: \"{}browser{}\"", "(".repeat(d), ")".repeat(d)));
                }
                spec.push('}');
                t.push_str(&format!("    {pname}: {spec}\n"));
            }
        }
        if let Some(c) = &tool.contributes {
            t.push_str(&format!("  contributes:\n    - slot: notes\n      template: {}\n", yaml_str(&render(c, 0))));
        }
    }
    if t.is_empty() {
        t.push_str("[]\n");
    }
    if p.subagent {
        m.push_str(&format!("subagents:\n  helper: {{tools: [{}]}}\n", seen.iter().copied().collect::<Vec<_>>().join(", ")));
    }
    out.push(("promptc.yaml".into(), m));
    out.push(("tools.yaml".into(), t));
    out
}

libfuzzer_sys::fuzz_target!(|p: Project| promptc::fuzz::project(&files(&p)));
