//! Frozen records: read and verified against the shipped example.
#![no_main]

use std::sync::OnceLock;

fn example() -> &'static promptc::Project {
    static P: OnceLock<promptc::Project> = OnceLock::new();
    P.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../profiles");
        promptc::load(&dir).expect("the example loads")
    })
}

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| promptc::fuzz::record(bytes, example()));
