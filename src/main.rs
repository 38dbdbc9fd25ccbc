//! The `promptc` binary: a thin shell over the library (see `cli/`).

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::main()
}
