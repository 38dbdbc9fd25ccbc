//! Loading profiles and project settings: budgets, selection, tokens, cases, lint levels, sub-agents and commands.

use super::*;

/// A switch's default: a boolean, or for a string-valued switch (`values:`) one of its values.
pub(super) fn switch_default(ck: &mut Checker<'_>, name: &str, s: &raw::RawSwitch) -> (bool, Option<Choice>) {
    let Some(values) = &s.values else {
        return match &s.default {
            None => (false, None),
            Some(d) => match d.value.as_bool() {
                Some(b) => (b, None),
                None => {
                    ck.error(
                        &d.referenced,
                        format!("the default of switch `{name}` is {}, not true or false", d.value),
                        "an on/off switch defaults to true or false; give `values:` for a switch that takes one of \
                         several strings",
                    );
                    (false, None)
                }
            },
        };
    };
    let list: Vec<String> = values.value.iter().map(|v| v.value.clone()).collect();
    if list.is_empty() {
        ck.error(
            &values.referenced,
            format!("switch `{name}` has an empty `values:` list"),
            "list the values it may take",
        );
        return (false, None);
    }
    for (i, v) in values.value.iter().enumerate() {
        if list[..i].contains(&v.value) {
            ck.error(&v.referenced, format!("switch `{name}` lists `{}` twice", v.value), "list each value once");
        }
    }
    let default = match &s.default {
        None => list[0].clone(),
        Some(d) => match d.value.as_str().filter(|v| list.iter().any(|x| x == v)) {
            Some(v) => v.to_string(),
            None => {
                ck.error(
                    &d.referenced,
                    format!("the default {} of switch `{name}` is not one of its values", d.value),
                    format!("use one of: {}", list.join(", ")),
                );
                list[0].clone()
            }
        },
    };
    (false, Some(Choice { values: list, default }))
}

/// `tool_docs:`: each template given once, as a file or inline.
pub(super) fn build_tool_docs(
    ck: &mut Checker<'_>,
    raw: Option<&Spanned<raw::RawToolDocs>>,
    fs: &ProjectFs,
    templates: &mut Templates,
    files: &mut BTreeMap<String, SourceFile>,
) -> crate::model::settings::ToolDocFormat {
    let mut out = crate::model::settings::ToolDocFormat::default();
    let Some(raw) = raw else { return out };
    if raw.value.tool.is_none() && raw.value.call.is_none() {
        ck.error(
            &raw.referenced,
            "`tool_docs:` sets neither `tool` nor `call`",
            "give `tool: {template: FILE}` (one tool's documentation) and/or `call: {text: …}` (one call), or leave \
                `tool_docs:` out for the built-in format",
        );
    }
    let mut one = |ck: &mut Checker<'_>, t: &Option<raw::RawTemplateText>, key: &str| -> Option<String> {
        let t = t.as_ref()?;
        match (&t.template, &t.text) {
            (Some(path), None) => add_file(ck, fs, templates, files, path),
            (None, Some(text)) => {
                let name = format!("{}#tool_docs.{key}", ck.file.rel);
                add_inline(ck, templates, &name, &text.value, &text.referenced, "text", true).then_some(name)
            }
            _ => {
                ck.error(
                    &raw.referenced,
                    format!("`tool_docs.{key}` needs exactly one of `template` or `text`"),
                    "use `template: FILE` for a template file or `text: |` for inline text",
                );
                None
            }
        }
    };
    out.tool = one(ck, &raw.value.tool, "tool");
    out.call = one(ck, &raw.value.call, "call");
    if let Some(sep) = &raw.value.separator {
        out.separator = sep.clone();
    }
    out
}

pub(super) fn build_lint(ck: &mut Checker<'_>, raw: &RawManifest, profiles: &[&str]) -> LintSettings {
    let mut out = LintSettings::default();
    let codes: Vec<&str> = RuleCode::ALL.iter().map(|c| c.as_str()).collect();
    let parse = |ck: &mut Checker<'_>, code: &S, level: &S| {
        let Some(rule) = RuleCode::parse(&code.value) else {
            ck.error(
                &code.referenced,
                format!("unknown lint rule `{}`", code.value),
                known_names_help("rule", &code.value, &codes),
            );
            return None;
        };
        match Level::parse(&level.value) {
            Some(l) => Some((rule, l)),
            None => {
                ck.error(
                    &level.referenced,
                    format!("invalid level `{}` for rule {}", level.value, code.value),
                    "levels are allow, warn or deny",
                );
                None
            }
        }
    };
    for (code, level) in &raw.check.levels {
        out.levels.extend(parse(ck, code, level));
    }
    for (profile, levels) in &raw.check.profile_levels {
        if ck.refs(std::slice::from_ref(profile), profiles, "profile", "check.profile_levels").is_empty() {
            continue;
        }
        for (code, level) in levels {
            let Some((rule, l)) = parse(ck, code, level) else { continue };
            if !rule.per_cell() {
                ck.error(
                    &code.referenced,
                    format!("{} cannot be set for one profile: it judges the project as a whole", code.value),
                    "set it under `check.levels` instead; per profile: P001, P002, P003, P004, P006, P008",
                );
                continue;
            }
            out.profile_levels.push((profile.value.clone(), rule, l));
        }
    }
    match &raw.check.subsets {
        Some(pairs) => {
            for (small, big) in pairs {
                let ok_small = ck.refs(std::slice::from_ref(small), profiles, "profile", "check.subsets");
                let ok_big = ck.refs(std::slice::from_ref(big), profiles, "profile", "check.subsets");
                if !ok_small.is_empty() && !ok_big.is_empty() {
                    out.subsets.push((small.value.clone(), big.value.clone()));
                }
            }
        }
        None if profiles.contains(&"lite") && profiles.contains(&"standard") => {
            out.subsets.push(("lite".into(), "standard".into()))
        }
        None => {}
    }
    out
}

pub(super) fn build_subagents(
    ck: &mut Checker<'_>,
    raw: &RawManifest,
    sections: &[&str],
    tools: Option<&[&str]>,
    catalog: &Catalog,
) -> IndexMap<String, Subagent> {
    let mut out = IndexMap::new();
    for (name, sa) in &raw.subagents {
        if !is_ident(&name.value, &['-']) {
            ck.error(
                &name.referenced,
                format!("invalid sub-agent name `{}`", name.value),
                "sub-agent names start with a letter and contain letters, digits, `_` or `-`",
            );
        }
        let ctx = format!("sub-agent `{}`", name.value);
        let secs = sa.sections.as_ref().map(|list| ck.refs(list, sections, "section", &ctx));
        let allow = match tools {
            Some(known) => ck.refs(&sa.tools, known, "tool", &format!("the tools of {ctx}")),
            None => sa.tools.iter().map(|t| t.value.clone()).collect(),
        };
        for t in &sa.tools {
            if catalog.get(&t.value).is_some_and(|tool| tool.spawns_subagents) {
                let mut d = Diagnostic::warning(format!(
                    "{ctx} lists `{}`, which spawns sub-agents; it is never given to a sub-agent",
                    t.value
                ))
                .with_label(ck.label(&t.referenced))
                .with_help("sub-agents cannot start sub-agents (no recursion); remove it from the list");
                d.code = Some(RuleCode::P009);
                ck.diags.push(d);
            }
        }
        out.insert(
            name.value.clone(),
            Subagent { name: name.value.clone(), description: sa.description.clone(), sections: secs, tools: allow },
        );
    }
    out
}

#[allow(clippy::too_many_arguments)]
pub(super) fn build_commands(
    ck: &mut Checker<'_>,
    raw: &RawManifest,
    fs: &ProjectFs,
    templates: &mut Templates,
    files: &mut BTreeMap<String, SourceFile>,
    profiles: &[&str],
    tools: &[String],
) -> IndexMap<String, Command> {
    let mut out = IndexMap::new();
    for (name, c) in &raw.commands {
        if !is_ident(&name.value, &['-']) {
            ck.error(
                &name.referenced,
                format!("invalid command name `{}`", name.value),
                "command names start with a letter and contain letters, digits, `_` or `-`",
            );
            continue;
        }
        if tools.contains(&name.value) {
            ck.error(
                &name.referenced,
                format!("command `{}` has the same name as a tool", name.value),
                "slash commands are instructions injected on request, never callable tools; rename the command or the \
                    tool",
            );
            continue;
        }
        let mut add = |ck: &mut Checker<'_>,
                       template: &Option<S>,
                       text: &Option<String>,
                       what: &str,
                       anchor: &Location|
         -> Option<String> {
            match (template, text) {
                (Some(path), None) => add_file(ck, fs, templates, files, path),
                (None, Some(t)) => {
                    let tname = format!("{}#commands.{}{what}", ck.file.rel, name.value);
                    add_inline(ck, templates, &tname, t, anchor, "text", false).then_some(tname)
                }
                _ => {
                    ck.error(
                        anchor,
                        format!("command `{}` needs exactly one of `template` or `text`", name.value),
                        "give the instruction text as `template: FILE` or inline `text: |`",
                    );
                    None
                }
            }
        };
        let Some(template) = add(ck, &c.template, &c.text, "", &name.referenced) else { continue };
        let mut variants = IndexMap::new();
        for (profile, v) in &c.variants {
            if !profiles.contains(&profile.value.as_str()) {
                ck.error(
                    &profile.referenced,
                    format!("variant of command `{}` for unknown profile `{}`", name.value, profile.value),
                    known_names_help("profile", &profile.value, profiles),
                );
                continue;
            }
            if let Some(t) = add(ck, &v.template, &v.text, &format!(".{}", profile.value), &profile.referenced) {
                variants.insert(profile.value.clone(), t);
            }
        }
        out.insert(
            name.value.clone(),
            Command { name: name.value.clone(), description: c.description.clone(), template, variants },
        );
    }
    out
}

/// `catalog` holds the declared toolsets and tools, or `None` when a catalog file failed to
/// load and tool references cannot be checked.
pub(super) fn build_profile(
    ck: &mut Checker<'_>,
    name: &str,
    span: Span,
    p: &RawProfile,
    sections: &[&str],
    catalog: Option<(&[&str], &[&str])>,
) -> Profile {
    let ctx = format!("profile `{name}`");
    let values = |list: &[S]| list.iter().map(|s| s.value.clone()).collect::<Vec<_>>();
    let tools = match catalog {
        Some((toolsets, tools)) => ToolSelection {
            toolsets: ck.refs(&p.toolsets, toolsets, "toolset", &ctx),
            tools: ck.refs(&p.tools, tools, "tool", &ctx),
            exclude: ck.refs(&p.exclude, tools, "tool", &format!("the exclusions of {ctx}")),
        },
        None => ToolSelection { toolsets: values(&p.toolsets), tools: values(&p.tools), exclude: values(&p.exclude) },
    };
    // Listed by name and excluded by name: a contradiction, not a quiet removal.
    for x in &p.exclude {
        if p.tools.iter().any(|t| t.value == x.value) {
            ck.error(
                &x.referenced,
                format!("tool `{}` is both listed in `tools:` and excluded by {ctx}", x.value),
                "keep it in one of the lists: `exclude:` removes tools a listed toolset brings in",
            );
        }
    }
    let sections_known = sections;
    let sections = ck.refs(&p.sections, sections, "section", &ctx);
    let budget = p.budget.as_ref().map(|b| build_budget(ck, name, &b.value, &sections)).unwrap_or_default();
    // The `budget:` key with its colon, as diagnostics have always underlined it.
    let budget_span = p.budget.as_ref().map(|b| {
        let key = ck.key_span(&b.referenced, "budget");
        Span { end: key.end + 1, ..key }
    });
    let mut messages = Vec::new();
    for m in &p.messages {
        if m.sections.value.is_empty() {
            ck.error(
                &m.sections.referenced,
                format!("a message of {ctx} has no sections"),
                "list the sections the message is made of, or leave the message out",
            );
            continue;
        }
        let ids = ck.refs(&m.sections.value, sections_known, "section", &format!("a message of {ctx}"));
        messages.push(crate::model::profile::Message { role: m.role, sections: ids });
    }
    Profile {
        name: name.to_string(),
        description: p.description.clone(),
        sections,
        tools,
        budget,
        span,
        budget_span,
        messages,
    }
}

pub(super) fn build_budget(ck: &mut Checker<'_>, profile: &str, raw: &RawBudget, sections: &[String]) -> Budget {
    let amount = |ck: &mut Checker<'_>, v: &Spanned<serde_json::Value>| match parse_amount(&v.value) {
        Ok(a) => Some(a),
        Err(msg) => {
            ck.error(
                &v.referenced,
                format!("invalid budget in profile `{profile}`: {msg}"),
                "write a whole number of tokens (`total: 12000`) or `{bytes: 40000}`",
            );
            None
        }
    };
    let mut b = Budget {
        total: raw.total.as_ref().and_then(|v| amount(ck, v)),
        prompt: raw.prompt.as_ref().and_then(|v| amount(ck, v)),
        tools: raw.tools.as_ref().and_then(|v| amount(ck, v)),
        sections: IndexMap::new(),
    };
    let known: Vec<&str> = sections.iter().map(String::as_str).collect();
    for (id, v) in &raw.sections {
        if !known.contains(&id.value.as_str()) {
            ck.error(
                &id.referenced,
                format!("budget names section `{}`, which profile `{profile}` does not have", id.value),
                known_names_help("section", &id.value, &known),
            );
            continue;
        }
        if let Some(a) = amount(ck, v) {
            b.sections.insert(id.value.clone(), a);
        }
    }
    b
}

pub(super) fn build_cases(
    ck: &mut Checker<'_>,
    raw: &RawManifest,
    switches: &IndexMap<String, Switch>,
    variables: &IndexMap<String, Variable>,
    profiles: &[&str],
) -> IndexMap<String, Case> {
    let switch_names: Vec<&str> = switches.keys().map(String::as_str).collect();
    let var_names: Vec<&str> = variables.keys().map(String::as_str).collect();
    let mut out = IndexMap::new();
    for (name, c) in &raw.cases {
        if !is_ident(&name.value, &['-']) || name.value.chars().any(|ch| ch.is_ascii_uppercase()) {
            ck.error(
                &name.referenced,
                format!("invalid case name `{}`", name.value),
                "case names are lower-case: a letter, then letters, digits, `_` or `-`",
            );
        } else if profiles.contains(&name.value.as_str()) || RESERVED_PROFILE_NAMES.contains(&name.value.as_str()) {
            ck.error(
                &name.referenced,
                format!("case name `{}` is also a profile, transport or provider name", name.value),
                "snapshot file names put the case beside those names; pick a distinct name",
            );
        }
        let mut case = Case {
            description: c.description.clone(),
            switches: BTreeMap::new(),
            choices: BTreeMap::new(),
            variables: IndexMap::new(),
        };
        for (k, v) in &c.switches {
            if let Some(s) = switches.get(&k.value) {
                match s.value_of(&v.value) {
                    Ok(crate::model::SwitchValue::On(b)) => _ = case.switches.insert(k.value.clone(), b),
                    Ok(crate::model::SwitchValue::Is(x)) => _ = case.choices.insert(k.value.clone(), x),
                    Err(help) => ck.error(
                        &v.referenced,
                        format!("invalid value {} for switch `{}` in case `{}`", v.value, k.value, name.value),
                        &help,
                    ),
                }
            } else {
                ck.error(
                    &k.referenced,
                    format!("unknown switch `{}` in case `{}`", k.value, name.value),
                    known_names_help("switch", &k.value, &switch_names),
                );
            }
        }
        for (k, v) in &c.variables {
            if variables.contains_key(&k.value) {
                case.variables.insert(k.value.clone(), v.clone());
            } else {
                ck.error(
                    &k.referenced,
                    format!("unknown variable `{}` in case `{}`", k.value, name.value),
                    known_names_help("variable", &k.value, &var_names),
                );
            }
        }
        out.insert(name.value.clone(), case);
    }
    out
}

pub(super) fn build_tokens(ck: &mut Checker<'_>, raw: &RawTokens, fs: &ProjectFs) -> TokenSettings {
    let mut factors = Factors::new();
    for (name, v) in &raw.estimates {
        let Some(family) = Family::parse(&name.value) else {
            let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            ck.error(
                &name.referenced,
                format!("unknown model family `{}` in tokens.estimates", name.value),
                known_names_help("family", &name.value, &known),
            );
            continue;
        };
        match v.value.as_f64().filter(|f| *f > 0.0 && f.is_finite()) {
            Some(f) => {
                factors.insert(family, f);
            }
            None => ck.error(
                &v.referenced,
                format!("estimate factor for `{}` must be a positive number, found {}", name.value, v.value),
                "e.g. `claude: 1.2` means 20% more tokens than o200k_base",
            ),
        }
    }
    let tokenizer = match &raw.tokenizer {
        Some(t) => match Tokenizer::from_name(&t.value, &factors) {
            Ok(tok) => tok,
            Err(e) => {
                let help = e.diagnostics().first().and_then(|d| d.help.clone()).unwrap_or_default();
                ck.error(&t.referenced, format!("unknown tokenizer `{}`", t.value), help);
                Tokenizer::Exact(Encoding::O200kBase)
            }
        },
        None => Tokenizer::Exact(Encoding::O200kBase),
    };
    let cache = raw.cache.as_ref().and_then(|c| match fs.normalize(&c.value) {
        Ok(p) => Some(p),
        Err(why) => {
            ck.error(
                &c.referenced,
                format!("invalid token cache path `{}`: {why}", c.value),
                "use a path inside the project folder, e.g. `.promptc-cache/tokens.json`",
            );
            None
        }
    });
    TokenSettings { tokenizer, factors, cache }
}

pub(super) fn build_selection(
    ck: &mut Checker<'_>,
    raw: &RawManifest,
    profiles: &[&str],
    default_profile: &str,
) -> SelectionPolicy {
    let rs = &raw.selection;
    let profile = match &rs.profile {
        Some(p) => {
            ck.refs(std::slice::from_ref(p), profiles, "profile", "selection.profile");
            p.value.clone()
        }
        None if profiles.contains(&"lite") => "lite".into(),
        None => default_profile.to_string(),
    };
    let mut model_segments = Vec::new();
    match &rs.model_segments {
        Some(list) => {
            for s in list {
                match SegmentPattern::parse(&s.value) {
                    Ok(p) => model_segments.push(p),
                    Err(msg) => ck.error(
                        &s.referenced,
                        msg,
                        "patterns match one `/`-separated segment of a model id, ignoring case: `o1` exactly, `o1-*` as \
                         a prefix, `*gpt-4*` anywhere in it",
                    ),
                }
            }
        }
        None => model_segments = ["o1", "o1-*"].into_iter().filter_map(|p| SegmentPattern::parse(p).ok()).collect(),
    }
    SelectionPolicy {
        default_profile: default_profile.to_string(),
        profile,
        model_segments,
        below_context_window: rs.below_context_window.unwrap_or(64_000),
        assumed_context_window: rs.assumed_context_window.unwrap_or(128_000),
    }
}

/// `limits:`: caps on rendered sizes, each between 1 KiB and [`Limits::MAX_BYTES`].
pub(super) fn build_limits(ck: &mut Checker<'_>, raw: &RawLimits) -> Limits {
    let mut limits = Limits::default();
    let mut take = |v: &Option<Spanned<u64>>, key: &str, out: &mut usize| {
        if let Some(v) = v {
            if (1024..=Limits::MAX_BYTES).contains(&v.value) {
                *out = v.value as usize;
            } else {
                ck.error(
                    &v.referenced,
                    format!("`limits.{key}` must be between 1024 and {} bytes, found {}", Limits::MAX_BYTES, v.value),
                    "the limits stop runaway templates; the defaults (2 MiB a section, 8 MiB a prompt) are far \
                     above real prompts",
                );
            }
        }
    };
    take(&raw.section_bytes, "section_bytes", &mut limits.section_bytes);
    take(&raw.prompt_bytes, "prompt_bytes", &mut limits.prompt_bytes);
    limits
}

/// `templates:`: whitespace handling, from `compat: jinja2` (Python Jinja2's defaults) or the
/// default, with each flag set on its own overriding either.
pub(super) fn build_template_settings(ck: &mut Checker<'_>, raw: &RawTemplates) -> TemplateSettings {
    let mut t = TemplateSettings::default();
    if let Some(compat) = &raw.compat {
        match compat.value.as_str() {
            "jinja2" => t = TemplateSettings::JINJA2,
            other => ck.error(
                &compat.referenced,
                format!("unknown `templates.compat` value `{other}`"),
                "the only compatibility mode is `jinja2` (Python Jinja2's whitespace defaults); omit the key for \
                 promptc's own (trim_blocks and lstrip_blocks on)",
            ),
        }
    }
    t.trim_blocks = raw.trim_blocks.unwrap_or(t.trim_blocks);
    t.lstrip_blocks = raw.lstrip_blocks.unwrap_or(t.lstrip_blocks);
    t.keep_trailing_newline = raw.keep_trailing_newline.unwrap_or(t.keep_trailing_newline);
    t
}

/// `snapshots:`: a relative folder that stays inside the project's repository (or the project
/// folder, outside a repository). A project from a pull request decides nothing elsewhere.
pub(super) fn build_snapshots(ck: &mut Checker<'_>, raw: Option<&S>, root: &Path, write_root: &Path) -> String {
    let Some(s) = raw else { return "snapshots".to_string() };
    let path = Path::new(&s.value);
    let inside = crate::source::clean_path(&root.join(path));
    if path.is_absolute() || s.value.is_empty() {
        ck.error(
            &s.referenced,
            format!("the snapshot folder `{}` must be a relative path", crate::diagnostic::excerpt(&s.value, 80)),
            "write it relative to the project folder, e.g. `snapshots` or `../snapshots`; `promptc snapshot --dir` \
             takes any folder",
        );
    } else if !inside.starts_with(write_root) || inside == write_root {
        ck.error(
            &s.referenced,
            format!(
                "the snapshot folder `{}` is outside the project's repository",
                crate::diagnostic::excerpt(&s.value, 80)
            ),
            format!(
                "a project may only name folders inside `{}`; `promptc snapshot --dir` takes any folder",
                write_root.display()
            ),
        );
    }
    s.value.clone()
}
