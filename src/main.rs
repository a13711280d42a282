//! The `garrison` binary: parse, run, map the outcome to an exit code.

use clap::Parser;
use garrison::cli::Cli;
use garrison::commands::{self, ExitStatus};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(&cli) {
        Ok(status) => ExitCode::from(status.code()),
        Err(error) => {
            eprintln!("garrison: error: {error:#}");
            ExitCode::from(ExitStatus::Error.code())
        }
    }
}
