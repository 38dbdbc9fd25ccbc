//! Writing results: frozen artifacts, the snapshot folder, frozen records, the starter
//! project, and the formats people and machines read (tables, markdown, CSV, JSON, HTML pages).

pub mod artifact;
pub mod freeze;
pub mod html;
pub mod init;
pub mod report;
pub mod snapshot;
pub mod table;
