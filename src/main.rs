//! The `garrison` binary: parse, run, map the outcome to an exit code.
//! What went wrong is printed by `commands`, through its printer.

use clap::FromArgMatches;
use garrison::cli::Cli;
use garrison::commands;
use std::process::ExitCode;

/// mimalloc: the render allocates and frees millions of small JSON nodes
/// across rayon threads, where it is markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    restore_sigpipe();
    let matches = garrison::cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    ExitCode::from(commands::run(&cli).code())
}

/// `garrison diff | head` must end quietly when `head` stops reading, as
/// other command-line tools do, instead of panicking on a closed pipe.
#[cfg(unix)]
fn restore_sigpipe() {
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}
