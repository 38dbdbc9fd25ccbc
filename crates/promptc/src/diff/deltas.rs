//! Changed items between two summaries, with their token and byte figures before and after:
//! account by account when both sides were counted, file by file (bytes only) otherwise.

use std::collections::BTreeMap;

use crate::measure::Measure;
use crate::output::snapshot::{AccountSummary, CellSummary, Fingerprint, Item, Summary};

use super::{Counts, Delta};

/// Changed items between two summaries: account by account when both were counted (the
/// figures `report` gives, per cell and provider), else file by file with bytes only.
pub fn deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    let counted = |s: &Summary| s.cells.iter().any(|c| !c.accounts.is_empty());
    if counted(old) && counted(new) {
        account_deltas(old, new)
    } else {
        file_deltas(old, new)
    }
}

/// Names in `new`'s order, then those only in `old`.
fn union<'a>(new: impl Iterator<Item = &'a str>, old: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = new.collect();
    for n in old {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// The deltas of every account (a cell and provider), in `new`'s order: its prompt, tools,
/// messages, each section and tool item, a tool's description and parameters
/// (`tool read_file, description`, `tool read_file, parameter path`), each message (`message 1`).
fn account_deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    let all = |s: &'_ Summary| -> Vec<AccountSummary> { s.cells.iter().flat_map(|c| c.accounts.clone()).collect() };
    let (old_accounts, new_accounts) = (all(old), all(new));
    let find = |list: &[AccountSummary], name: &str| list.iter().find(|a| a.name == name).cloned();
    let mut out = Vec::new();
    let names = union(new_accounts.iter().map(|a| a.name.as_str()), old_accounts.iter().map(|a| a.name.as_str()));
    for name in names {
        let (o, n) = (find(&old_accounts, name), find(&new_accounts, name));
        let mut push = |item: String, before: Option<Measure>, after: Option<Measure>| {
            if before != after {
                out.push(Delta {
                    cell: name.to_string(),
                    item,
                    before: before.as_ref().map(Counts::from),
                    after: after.as_ref().map(Counts::from),
                });
            }
        };
        push("prompt".into(), o.as_ref().map(|a| a.prompt), n.as_ref().map(|a| a.prompt));
        if o.as_ref().or(n.as_ref()).is_some_and(|a| a.provider.is_some()) {
            push("tools".into(), o.as_ref().map(|a| a.tools), n.as_ref().map(|a| a.tools));
        }
        push("messages".into(), o.as_ref().and_then(|a| a.messages), n.as_ref().and_then(|a| a.messages));
        let items = |a: &Option<AccountSummary>, f: fn(&AccountSummary) -> &Vec<Item>| -> Vec<Item> {
            a.as_ref().map(|a| f(a).clone()).unwrap_or_default()
        };
        let (before, after) = (items(&o, |a| &a.sections), items(&n, |a| &a.sections));
        for id in union(after.iter().map(|i| i.name.as_str()), before.iter().map(|i| i.name.as_str())) {
            let b = before.iter().find(|i| i.name == id).map(|i| i.sent);
            let a = after.iter().find(|i| i.name == id).map(|i| i.sent);
            push(format!("section {id}"), b, a);
        }
        let tools = |a: &Option<AccountSummary>| a.as_ref().map(|a| a.tool_items.clone()).unwrap_or_default();
        let (before, after) = (tools(&o), tools(&n));
        for id in union(after.iter().map(|i| i.name.as_str()), before.iter().map(|i| i.name.as_str())) {
            let (b, a) = (before.iter().find(|i| i.name == id), after.iter().find(|i| i.name == id));
            push(format!("tool {id}"), b.map(|i| i.sent), a.map(|i| i.sent));
            // A tool on both sides: its description's and each parameter's own figures, where
            // both summaries kept them (a tool added or removed is one change, with its figure).
            let (Some(b), Some(a)) = (b, a) else { continue };
            if let (Some(x), Some(y)) = (b.description, a.description) {
                push(format!("tool {id}, description"), Some(x), Some(y));
            }
            if let (Some(x), Some(y)) = (&b.params, &a.params) {
                for p in union(y.iter().map(|i| i.name.as_str()), x.iter().map(|i| i.name.as_str())) {
                    let find = |list: &[Item]| list.iter().find(|i| i.name == p).map(|i| i.sent);
                    push(format!("tool {id}, parameter {p}"), find(x), find(y));
                }
            }
        }
        // Each harness message, where both summaries kept them one by one (or a side has none).
        let kept =
            |a: &Option<AccountSummary>| a.as_ref().is_none_or(|a| a.messages.is_none() || !a.message_items.is_empty());
        if kept(&o) && kept(&n) {
            let (before, after) = (items(&o, |a| &a.message_items), items(&n, |a| &a.message_items));
            for id in union(after.iter().map(|i| i.name.as_str()), before.iter().map(|i| i.name.as_str())) {
                let b = before.iter().find(|i| i.name == id).map(|i| i.sent);
                let a = after.iter().find(|i| i.name == id).map(|i| i.sent);
                push(format!("message {id}"), b, a);
            }
        }
    }
    out
}

/// The deltas of every cell from its files' bytes and hashes, in `new`'s order: its prompt,
/// each section, each provider's tools file and its messages.
fn file_deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    let old_cells: BTreeMap<&str, &CellSummary> = old.cells.iter().map(|c| (c.cell.as_str(), c)).collect();
    let new_cells: BTreeMap<&str, &CellSummary> = new.cells.iter().map(|c| (c.cell.as_str(), c)).collect();
    let order = union(new.cells.iter().map(|c| c.cell.as_str()), old.cells.iter().map(|c| c.cell.as_str()));
    let mut out = Vec::new();
    for cell in order {
        let (o, n) = (old_cells.get(cell), new_cells.get(cell));
        let mut push = |item: String, before: Option<&Fingerprint>, after: Option<&Fingerprint>| {
            if before.map(|m| &m.sha256) != after.map(|m| &m.sha256) {
                out.push(Delta {
                    cell: cell.to_string(),
                    item,
                    before: before.map(Counts::from),
                    after: after.map(Counts::from),
                });
            }
        };
        push("prompt".into(), o.map(|c| &c.prompt), n.map(|c| &c.prompt));
        let ids = union(
            n.map(|c| c.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>()).unwrap_or_default().into_iter(),
            o.map(|c| c.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>()).unwrap_or_default().into_iter(),
        );
        for id in ids {
            let before = o.and_then(|c| c.sections.iter().find(|s| s.name == id));
            let after = n.and_then(|c| c.sections.iter().find(|s| s.name == id));
            push(format!("section {id}"), before, after);
        }
        let mut providers: Vec<&String> = o.map(|c| c.tools.keys().collect()).unwrap_or_default();
        providers.extend(n.map(|c| c.tools.keys().collect::<Vec<_>>()).unwrap_or_default());
        providers.sort();
        providers.dedup();
        for p in providers {
            push(format!("tools {p}"), o.and_then(|c| c.tools.get(p)), n.and_then(|c| c.tools.get(p)));
        }
        push("messages".into(), o.and_then(|c| c.messages.as_ref()), n.and_then(|c| c.messages.as_ref()));
    }
    out
}
