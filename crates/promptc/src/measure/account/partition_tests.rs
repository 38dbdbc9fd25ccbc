//! The rows of every account are a partition of what is sent — a property of every cell of the
//! example and of every good fixture, for every provider the matrix counts it with, not of the
//! cases we thought of: the sections placed in the prompt and `(outside sections)` add up to
//! the prompt, each tool and the tools JSON's framing to the tools JSON, each message's blocks
//! to the message, the prompt, tools and messages to the total, and `cacheable + uncached` to
//! the total. A figure that overlapped another, or that a `saturating_sub` clipped, breaks one
//! of these sums.

use std::path::Path;

use super::{accounts, Account};
use crate::compile::session::agreement_tests::example_and_fixtures;
use crate::measure::tokens::Counters;
use crate::measure::Measure;
use crate::model::transport::Transport;

fn sum<'a>(parts: impl IntoIterator<Item = &'a Measure>) -> Measure {
    parts.into_iter().fold(Measure::default(), |a, m| a.plus(*m))
}

/// Every sum an account's rows must make, as a list of what does not add up.
fn broken_sums(a: &Account) -> Vec<String> {
    let broken = std::cell::RefCell::new(Vec::new());
    let expect = |what: &str, parts: Measure, whole: Measure| {
        if parts != whole {
            broken.borrow_mut().push(format!("{}: {what}: parts {parts:?} ≠ whole {whole:?}", a.name));
        }
    };
    let placed = sum(a.sections.iter().filter(|s| s.placed).map(|s| &s.sent));
    expect("placed sections + (outside sections) = prompt", placed.plus(a.layout), a.prompt);
    let unplaced = sum(a.sections.iter().filter(|s| !s.placed).map(|s| &s.sent));
    expect("a section the prompt does not hold has no figure of its own", unplaced, Measure::default());
    if a.transport == Transport::Native {
        let tools = sum(a.tools.iter().map(|t| &t.sent));
        expect("tools + framing = tools JSON", tools.plus(a.tools_framing), a.tools_sent);
        for t in &a.tools {
            let params = sum(t.params.iter().map(|p| &p.sent));
            if params.tokens > t.sent.tokens || params.bytes > t.sent.bytes {
                broken
                    .borrow_mut()
                    .push(format!("{}: tool {}: its parameters {params:?} exceed it {:?}", a.name, t.name, t.sent));
            }
        }
    } else {
        expect("xml and json cells send no tools JSON", a.tools_sent, Measure::default());
        expect("xml and json cells have no tools JSON framing", a.tools_framing, Measure::default());
        // A tool's figure is a part of the section that describes it.
        if let Some(holder) = a.tools.first().and_then(|t| t.part_of.clone()) {
            let section = a.sections.iter().find(|s| s.id == holder).map(|s| s.sent).unwrap_or_default();
            let tools = sum(a.tools.iter().map(|t| &t.sent));
            if a.transport == Transport::Xml && (tools.tokens > section.tokens || tools.bytes > section.bytes) {
                broken
                    .borrow_mut()
                    .push(format!("{}: the tools {tools:?} exceed their section {holder} {section:?}", a.name));
            }
        }
    }
    for (i, m) in a.messages.iter().enumerate() {
        if !m.blocks.is_empty() {
            expect(&format!("message {} blocks = message", i + 1), sum(&m.blocks), m.sent);
        }
    }
    let messages = sum(a.messages.iter().map(|m| &m.sent));
    expect("prompt + tools JSON + messages = total", a.prompt.plus(a.tools_sent).plus(messages), a.total);
    let cache = Measure { tokens: a.cache.cacheable + a.cache.uncached, bytes: a.total.bytes };
    expect("cacheable + uncached = total", cache, a.total);
    broken.into_inner()
}

#[test]
fn every_account_of_every_cell_is_a_partition_of_what_is_sent() {
    let (mut cells, mut checked, mut broken) = (0, 0, Vec::new());
    let mut projects = Vec::new();
    for dir in example_and_fixtures() {
        let project = crate::load(&dir).unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
        let compiled = crate::compile::compile_matrix(&project).unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
        let mut counters = Counters::new(None);
        let (all, _) = accounts(&project, &compiled, None, None, &mut counters).unwrap();
        // One cell's account made alone is the matrix's, figure for figure.
        let first = &compiled[0];
        let provider = all.iter().find(|a| a.cell == first.cell().stem()).and_then(|a| a.provider);
        let tokenizer = super::tokenizer_for(&project, provider, None, None).0;
        let alone = super::account(&project, first, provider, &tokenizer, None, &mut Counters::new(None)).unwrap();
        let in_matrix = all.iter().find(|a| a.name == alone.name).unwrap();
        assert_eq!(serde_json::to_value(&alone).unwrap(), serde_json::to_value(in_matrix).unwrap(), "{}", alone.name);
        for a in &all {
            broken.extend(broken_sums(a));
            checked += 1;
        }
        cells += compiled.len();
        projects.push(dir.file_name().unwrap().to_string_lossy().to_string());
    }
    assert!(broken.is_empty(), "{} of {checked} accounts do not add up:\n{}", broken.len(), broken.join("\n"));
    // The reach: every project, every cell, every provider.
    assert!(projects.len() >= 20 && cells >= 90 && checked >= 200, "{projects:?}: {cells} cells, {checked} accounts");
}

/// The property fails where it should: an account with an overlapping row, or a clipped one,
/// is caught.
#[test]
fn a_row_that_overlaps_or_is_missing_breaks_the_partition() {
    let project =
        crate::load(&Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures/good/message-blocks"))
            .unwrap();
    let compiled = crate::compile::compile_matrix(&project).unwrap();
    let (all, _) = accounts(&project, &compiled, None, None, &mut Counters::new(None)).unwrap();
    let a = all.iter().find(|a| !a.messages.is_empty()).unwrap();
    assert!(broken_sums(a).is_empty(), "{:?}", broken_sums(a));
    let mut more = a.clone();
    more.sections[0].sent.tokens += 1;
    assert_eq!(broken_sums(&more).len(), 1);
    let mut fewer = a.clone();
    fewer.messages.pop();
    assert!(!broken_sums(&fewer).is_empty());
    let mut uncached = a.clone();
    uncached.cache.uncached += 1;
    assert_eq!(broken_sums(&uncached).len(), 1);
}
