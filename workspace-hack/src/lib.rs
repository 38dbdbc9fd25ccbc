//! No code: this crate only unifies the features of shared dependencies across the workspace's
//! builds (see its Cargo.toml).
