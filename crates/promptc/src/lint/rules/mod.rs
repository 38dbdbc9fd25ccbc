//! One file per rule: its registry entry (`RULE`) and its check; and the list of every rule
//! with how `check` runs it.

pub mod p001_dangling_tool_reference;
pub mod p002_provider_rejects;
pub mod p003_provider_rewrites;
pub mod p004_cache_unfriendly_order;
pub mod p005_not_a_subset;
pub mod p006_transport_parity;
pub mod p007_unused;
pub mod p008_budget_exceeded;
pub mod p009_subagent_recursion;
pub mod p010_literal_template_syntax;
pub mod p011_chat_template_drops;
pub mod p012_shell_unsafe_value;
pub mod p013_undescribed_tool;

use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::CellView;
use crate::model::Project;

/// How `check` runs a rule.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// Over compiled cells: every cell, or each profile's cells at that profile's level.
    Cells(fn(&Project, &[CellView], &mut Vec<Diagnostic>)),
    /// Over the project as a whole (pairs of profiles, declarations).
    Project(fn(&Project, &mut Vec<Diagnostic>)),
    /// Found while loading: its findings are the project's load-time warnings.
    Load,
}

/// Every rule with its runner, in code order.
pub(crate) const ENTRIES: [(Rule, Run); crate::code::RuleCode::ALL.len()] = [
    (p001_dangling_tool_reference::RULE, Run::Cells(p001_dangling_tool_reference::check)),
    (p002_provider_rejects::RULE, Run::Cells(p002_provider_rejects::check)),
    (p003_provider_rewrites::RULE, Run::Cells(p003_provider_rewrites::check)),
    (p004_cache_unfriendly_order::RULE, Run::Cells(p004_cache_unfriendly_order::check)),
    (p005_not_a_subset::RULE, Run::Project(p005_not_a_subset::check)),
    (p006_transport_parity::RULE, Run::Cells(p006_transport_parity::check)),
    (p007_unused::RULE, Run::Project(p007_unused::check)),
    (p008_budget_exceeded::RULE, Run::Cells(p008_budget_exceeded::check)),
    (p009_subagent_recursion::RULE, Run::Load),
    (p010_literal_template_syntax::RULE, Run::Project(p010_literal_template_syntax::check)),
    (p011_chat_template_drops::RULE, Run::Cells(p011_chat_template_drops::check)),
    (p012_shell_unsafe_value::RULE, Run::Load),
    (p013_undescribed_tool::RULE, Run::Project(p013_undescribed_tool::check)),
];
