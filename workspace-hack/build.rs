// Empty: the build script exists so that the build-dependencies above (host-side features of
// the proc-macro stack) are part of every build that includes this crate.
fn main() {}
