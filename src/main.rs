//! The `promptc` binary: the command line (this package's library) over the process's arguments.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(promptc_cli::main(std::env::args_os()) as u8)
}
