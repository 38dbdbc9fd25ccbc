//! P009 subagent-recursion: found while loading (a sub-agent's allowlist naming a tool that spawns
//! sub-agents); reported with the load's warnings and by `promptc check`.

use crate::code::{Level, RuleCode};
use crate::lint::registry::Rule;

pub const RULE: Rule = Rule {
    code: RuleCode::P009,
    name: "subagent-recursion",
    default: Level::Warn,
    summary: "a sub-agent's allowlist names a tool that spawns sub-agents",
    explain: "Sub-agents never get tools marked `spawns_subagents: true` (no recursion), whatever their allowlist \
        says. Listing one is dead configuration that suggests the author expected recursion.\n\nFix: remove the tool \
        from the sub-agent's `tools:`.",
};
