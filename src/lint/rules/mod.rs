//! One file per rule: its registry entry (`RULE`) and its check.

pub mod p001_dangling_tool_reference;
pub mod p002_provider_rejects;
pub mod p003_provider_rewrites;
pub mod p004_cache_unfriendly_order;
pub mod p005_lite_not_subset;
pub mod p006_transport_parity;
pub mod p007_unused;
pub mod p008_budget_exceeded;
pub mod p009_subagent_recursion;
