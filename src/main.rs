//! The `promptc` binary: a thin shell over the library (see `cli/`).

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    ExitCode::from(cli::main(std::env::args_os()) as u8)
}
