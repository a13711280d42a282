//! `garrison man [COMMAND]`: garrison(1), or the page of one command
//! (garrison-render(1), …), which garrison(1) lists under SUBCOMMANDS, so
//! that every page it names can be printed. clap's pages have no EXIT
//! STATUS section; each page gets its command's, as `docs/reference.md`
//! states them.

use crate::cli::Cli;
use anyhow::{bail, Context};

/// Per command, what exit codes 0, 1 and 2 mean (`None`: never used).
const EXIT_STATUS: &[(&str, [Option<&str>; 3])] = &[
    (
        "render",
        [
            Some("Rendered, or nothing to change."),
            None,
            Some("Input errors (warnings too with --strict), a mass prune without --allow-mass-prune, a locked or foreign --out, a dirty working tree without --allow-dirty, or a failure; nothing was written."),
        ],
    ),
    (
        "diff",
        [
            Some("Done."),
            Some("With --exit-code: a render would change something."),
            Some("Input errors, a missing --out or --branch, or a failure."),
        ],
    ),
    (
        "check",
        [
            Some("The stored render is current."),
            Some("The stored render is stale."),
            Some("Input errors, a missing --out or --branch, or a failure."),
        ],
    ),
    (
        "explain",
        [
            Some("Explained."),
            None,
            Some("Input errors, a missing --out or --branch, or no such application."),
        ],
    ),
    (
        "report",
        [
            Some("The page was written."),
            None,
            Some("Input errors, a missing --out or --branch, or a failure; no page was written."),
        ],
    ),
    (
        "manifests",
        [
            Some("Printed."),
            None,
            Some("Input errors, a missing --out or --branch, no such cluster, a paused cluster without a stored render, or a failure; nothing was printed on stdout."),
        ],
    ),
    (
        "validate",
        [
            Some("Valid (warnings allowed, unless --strict)."),
            None,
            Some("Input errors."),
        ],
    ),
    (
        "import",
        [
            Some("Imported."),
            None,
            Some("An export that cannot be imported faithfully, a --repo that is not new or empty, or a failure; nothing was written."),
        ],
    ),
    (
        "verify",
        [
            Some("Every cluster gets what Karmada delivers: every difference is explained."),
            Some("A difference is not explained."),
            Some("Input errors in the repository or the Works, or a failure."),
        ],
    ),
    ("completions", [Some("Printed."), None, None]),
    ("man", [Some("Printed."), None, Some("No such command.")]),
];

/// garrison(1)'s exit status: every command's, in short.
const EXIT_STATUS_ALL: [Option<&str>; 3] = [
    Some("Success: the command did what was asked (check: the stored render is current)."),
    Some("diff --exit-code: a render would change something; check: the stored render is stale; verify: a difference with Karmada is not explained."),
    Some("Input errors (warnings too with --strict), a refused render, a missing --out or --branch, no such application (explain), a failure; nothing was written."),
];

/// Invalid arguments, for every page.
const INVALID_ARGUMENTS: &str = "Invalid command-line arguments also exit 2.";

/// The page of `command` (garrison(1) when `None`), in roff.
pub fn page(command: Option<&str>) -> anyhow::Result<String> {
    // The help subcommand is clap's own: no page of its own to list.
    let mut root = crate::cli::with_flags_that_act(
        <Cli as clap::CommandFactory>::command().disable_help_subcommand(true),
    );
    root.build();
    let (page_of, codes) = match command {
        None => (root, EXIT_STATUS_ALL),
        Some(name) => {
            let Some(found) = root.find_subcommand(name).cloned() else {
                let names: Vec<&str> = root.get_subcommands().map(|c| c.get_name()).collect();
                bail!("no command `{name}`; name one of {}", names.join(", "));
            };
            let codes = EXIT_STATUS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, codes)| *codes)
                .with_context(|| format!("no exit status is written for `{name}`"))?;
            (found, codes)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page_of)
        .source(format!("garrison {}", env!("GARRISON_VERSION")))
        .render(&mut roff)?;
    let roff = String::from_utf8(roff)?;
    let section = exit_status(&codes);
    // Before VERSION, where man-pages(7) puts it, after the options.
    Ok(match roff.find("\n.SH VERSION") {
        Some(at) => format!("{}\n{section}{}", &roff[..at], &roff[at + 1..]),
        None => format!("{roff}{section}"),
    })
}

/// The EXIT STATUS section for `codes`.
fn exit_status(codes: &[Option<&str>; 3]) -> String {
    let mut out = String::from(".SH \"EXIT STATUS\"\n");
    for (code, text) in codes.iter().enumerate() {
        if let Some(text) = text {
            out.push_str(&format!(".TP\n{code}\n{}\n", roff_text(text)));
        }
    }
    out.push_str(&format!(".PP\n{}\n", roff_text(INVALID_ARGUMENTS)));
    out
}

/// `text` as a roff text line: backslashes and hyphens escaped, and a
/// leading `.` or `'` kept from reading as a request.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_an_exit_status() {
        let root = <Cli as clap::CommandFactory>::command();
        for command in root.get_subcommands() {
            let name = command.get_name();
            assert!(
                EXIT_STATUS.iter().any(|(n, _)| *n == name),
                "`{name}` has no exit status"
            );
        }
    }

    #[test]
    fn roff_text_escapes_what_roff_reads() {
        assert_eq!(roff_text("--exit-code"), "\\-\\-exit\\-code");
        assert_eq!(roff_text(".garrison.json"), "\\&.garrison.json");
        assert_eq!(roff_text("a\\b"), "a\\eb");
    }
}
