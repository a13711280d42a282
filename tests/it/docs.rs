//! The documentation cannot rot: every fenced ```sh block of `README.md` and
//! `docs/*.md` is run, in order, against the real binary.
//!
//! Each Markdown file gets its own temporary directory holding a copy of
//! `testdata/` (so `--repo testdata/fleet/repo` means what it says in the
//! README) and an empty git repository. Walking the file from top to bottom:
//!
//! - a fenced block right after `<!-- file: PATH -->` is written to PATH
//!   (relative to the current directory), whatever its language, so a
//!   tutorial's YAML is the YAML the test renders;
//! - a ```sh block is run line by line (`\` continues a line, `&&` chains):
//!   `garrison …` and `cargo run --release -- …` run the built binary;
//!   `cd DIR` changes the current directory; `git` (but not push, fetch,
//!   pull, clone or remote), `mkdir`, `kubectl kustomize`, `cat`, `ls`,
//!   `find`, `sort`, `echo`, `printf`, `sed`, `head`, `tail`, `grep` and
//!   `touch` run with bash in the temporary directory; anything else (and
//!   any line with a `<placeholder>` or a `$VARIABLE`) is skipped and listed;
//! - commands run with the pinned tools of the test suite first on the
//!   `PATH` (`target/tools/`: Helm, see `conformance/helm`), so a page's
//!   dry sources render as the tests render them;
//! - a block right after `<!-- docs-test: skip -->` is not run (listed);
//! - a block right after `<!-- stdout -->` (`<!-- stderr -->`) must equal
//!   what the last command printed on stdout (stderr), the command of the
//!   block just before it (which must have been run; one output is shown
//!   per command), both read through [`normalise`]: the temporary
//!   directory is `~`, and a commit id (7 to 40 hexadecimal digits, letters
//!   and digits both) is `<commit>`, so a page may show a plausible one;
//! - a block with no language (or `text`) right after a ```sh block, blank
//!   lines aside, reads as that command's output, so it must be marked
//!   `<!-- stdout -->` (and is then checked) or `<!-- docs-test: skip -->`.
//!
//! A command must exit 0 unless its line ends with `# exit N`. A page must
//! run at least one command, unless [`WITHOUT_COMMANDS`] lists it, and all
//! pages together must run [`MIN_COMMANDS`] commands and compare
//! [`MIN_OUTPUTS`] outputs: a page whose every block is skipped, or a parser
//! that no longer finds its blocks, would otherwise pass without testing
//! anything.

use crate::support::testdata;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One fenced block and the directive in front of it.
#[derive(Debug)]
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    lang: String,
    body: String,
    directive: Option<Directive>,
    /// Only blank lines (and the directive) separate it from the block before.
    follows_block: bool,
}

#[derive(Debug, PartialEq)]
enum Directive {
    File(String),
    Skip,
    Stdout,
    Stderr,
}

fn parse_directive(line: &str) -> Option<Directive> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    if let Some(path) = inner.strip_prefix("file:") {
        return Some(Directive::File(path.trim().to_string()));
    }
    match inner {
        "docs-test: skip" => Some(Directive::Skip),
        "stdout" => Some(Directive::Stdout),
        "stderr" => Some(Directive::Stderr),
        _ => None,
    }
}

/// The fenced blocks of a Markdown text, with the directive on the line
/// before each (blank lines in between are allowed).
fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut directive = None;
    // Prose since the last block.
    let mut prose = true;
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = line.len() - trimmed.len();
            let mut body = String::new();
            for (_, inner) in lines.by_ref() {
                if inner.trim_start().starts_with("```") && inner.trim().chars().all(|c| c == '`') {
                    break;
                }
                body.push_str(inner.get(indent..).unwrap_or(inner.trim_start()));
                body.push('\n');
            }
            out.push(Block {
                line: index + 1,
                lang: info.trim().to_string(),
                body,
                directive: directive.take(),
                follows_block: !prose,
            });
            prose = false;
            continue;
        }
        if let Some(d) = parse_directive(line) {
            directive = Some(d);
        } else if !line.trim().is_empty() {
            directive = None;
            prose = true;
        }
    }
    out
}

/// Shell lines of a block: continuations joined, blank and comment lines dropped.
fn command_lines(body: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in body.lines() {
        let line = if current.is_empty() {
            line.trim_end()
        } else {
            line.trim()
        };
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head.trim_end());
            current.push(' ');
            continue;
        }
        current.push_str(line);
        let full = std::mem::take(&mut current);
        let full = full.trim().trim_start_matches("$ ").to_string();
        if !full.is_empty() && !full.starts_with('#') {
            lines.push(full);
        }
    }
    lines
}

/// The command without its trailing comment, and the exit code that comment expects.
fn expected_exit(line: &str) -> (String, i32) {
    if let Some((command, comment)) = line.rsplit_once(" # ") {
        let code = comment
            .trim()
            .strip_prefix("exit ")
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or(0);
        return (command.trim().to_string(), code);
    }
    (line.to_string(), 0)
}

const ALLOWED: &[&str] = &[
    "cd", "garrison", "git", "mkdir", "cat", "ls", "find", "sort", "echo", "printf", "sed", "head",
    "tail", "grep", "touch", "kubectl",
];
const NETWORK_GIT: &[&str] = &["push", "fetch", "pull", "clone", "remote", "submodule"];

/// Why a command line is not run, or `None` when it is safe to run here.
fn skip_reason(command: &str) -> Option<String> {
    let placeholder = command
        .split('<')
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()) && rest.contains('>'));
    if placeholder {
        return Some("has a placeholder".into());
    }
    if command.contains('$') {
        return Some("uses a shell variable".into());
    }
    for segment in command.split(['|', ';']).flat_map(|s| s.split("&&")) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        if !ALLOWED.contains(first) {
            return Some(format!("`{first}` is not run by the docs test"));
        }
        if *first == "kubectl" && words.get(1) != Some(&"kustomize") {
            return Some("only `kubectl kustomize` is run".into());
        }
        if *first == "git" && words.get(1).is_some_and(|w| NETWORK_GIT.contains(w)) {
            return Some("needs a remote".into());
        }
    }
    None
}

/// One Markdown file's session: its directory, current directory and environment.
struct Session {
    root: PathBuf,
    cwd: PathBuf,
    bin: PathBuf,
    last_stdout: String,
    last_stderr: String,
    /// Whether `last_stdout` and `last_stderr` are the output of the last command line met:
    /// not when that line was skipped, nor once an output was compared.
    fresh: bool,
}

impl Session {
    fn new(root: &Path) -> Session {
        // Every fixture a page may name; not the corpus of real manifests,
        // which no page renders and which is most of testdata/'s files.
        let Ok(entries) = std::fs::read_dir(testdata()) else {
            panic!("cannot read {}", testdata().display());
        };
        if let Err(e) = std::fs::create_dir_all(root.join("testdata")) {
            panic!("cannot create {}: {e}", root.display());
        }
        for entry in entries.filter_map(Result::ok) {
            if entry.file_name() != "corpus" {
                let to = root.join("testdata").join(entry.file_name());
                if entry.path().is_dir() {
                    crate::support::copy_dir(&entry.path(), &to);
                } else if let Err(e) = std::fs::copy(entry.path(), &to) {
                    panic!("cannot copy {}: {e}", entry.path().display());
                }
            }
        }
        let bin = root.join(".bin");
        let home = root.join(".home");
        for dir in [&bin, &home] {
            if let Err(e) = std::fs::create_dir_all(dir) {
                panic!("cannot create {}: {e}", dir.display());
            }
        }
        #[cfg(unix)]
        if let Err(e) =
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_garrison"), bin.join("garrison"))
        {
            panic!("cannot link the binary: {e}");
        }
        let gitconfig = "[user]\n\tname = Docs Test\n\temail = docs@example.com\n[init]\n\tdefaultBranch = main\n";
        if let Err(e) = std::fs::write(home.join(".gitconfig"), gitconfig) {
            panic!("cannot write .gitconfig: {e}");
        }
        let mut session = Session {
            root: root.to_path_buf(),
            cwd: root.to_path_buf(),
            bin,
            last_stdout: String::new(),
            last_stderr: String::new(),
            fresh: false,
        };
        // An empty repository, so `--branch` commands have somewhere to commit.
        let _ = session.bash("git init -q");
        session
    }

    fn bash(&mut self, command: &str) -> std::process::Output {
        // The pinned tools (Helm) first, as for every garrison the tests run.
        let path = format!(
            "{}:{}",
            self.bin.display(),
            crate::support::path_with_tools().to_string_lossy()
        );
        let output = Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(&self.cwd)
            .env("PATH", path)
            .env("HOME", self.root.join(".home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .env("CI", "1")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output();
        match output {
            Ok(output) => {
                self.last_stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                self.last_stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                self.fresh = true;
                output
            }
            Err(e) => panic!("cannot run bash: {e}"),
        }
    }
}

/// The pages with no command the docs test runs, by path from the
/// repository root: prose and YAML, or (`performance.md`) benchmarks run
/// with `cargo bench`, which the docs test does not run.
const WITHOUT_COMMANDS: &[&str] = &[
    "docs/architecture.md",
    "docs/concepts.md",
    "docs/delivery.md",
    "docs/kustomize-comparison.md",
    "docs/performance.md",
    "docs/reliability.md",
    "docs/sharding.md",
];

/// Run one Markdown file and check that it ran a command, or is listed in
/// [`WITHOUT_COMMANDS`] and ran none; failures and skipped lines are
/// appended to the reports.
fn run_page(doc: &Path, failures: &mut String, skipped: &mut String) -> Ran {
    let name = page_name(doc);
    let checked = run_doc(doc, failures, skipped);
    let ran = checked.commands;
    let listed = WITHOUT_COMMANDS.contains(&name.as_str());
    if ran == 0 && !listed {
        let _ = writeln!(
            failures,
            "{name}: no command was run (every block was skipped, or none was found); run one, or list the page in WITHOUT_COMMANDS"
        );
    } else if ran > 0 && listed {
        let _ = writeln!(
            failures,
            "{name}: {ran} command(s) were run; take the page off WITHOUT_COMMANDS"
        );
    }
    checked
}

/// What a page's test did.
#[derive(Clone, Copy, Debug, Default)]
struct Ran {
    /// Commands run.
    commands: usize,
    /// Outputs compared with what the page shows.
    compared: usize,
}

/// How many commands the pages run together, at least: fewer means
/// examples were dropped or stopped being found. Lower it on purpose only.
const MIN_COMMANDS: usize = 38;

/// How many shown outputs the pages compare together, at least.
const MIN_OUTPUTS: usize = 9;

/// `text` as the docs test compares it: the session's directory is `~`,
/// and a commit id (7 to 40 hexadecimal digits, with letters and digits
/// both) is `<commit>`.
fn normalise(text: &str, root: &Path) -> String {
    let mut text = text.to_string();
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for dir in [canonical.as_path(), root] {
        text = text.replace(&dir.display().to_string(), "~");
    }
    let commit = regex::Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap_or_else(|e| panic!("{e}"));
    commit
        .replace_all(&text, |found: &regex::Captures<'_>| {
            let word = &found[0];
            let mixed = word.bytes().any(|b| b.is_ascii_digit())
                && word.bytes().any(|b| b.is_ascii_alphabetic());
            if mixed {
                "<commit>".to_string()
            } else {
                word.to_string()
            }
        })
        .into_owned()
}

/// `doc`'s path from the repository root.
fn page_name(doc: &Path) -> String {
    doc.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(doc)
        .display()
        .to_string()
}

/// Run one Markdown file; failures and skipped lines are appended to the
/// reports. Returns how many commands were run and outputs compared.
fn run_doc(doc: &Path, failures: &mut String, skipped: &mut String) -> Ran {
    let name = page_name(doc);
    let text = match std::fs::read_to_string(doc) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {name}: {e}"),
    };
    let dir = crate::support::temp();
    let mut session = Session::new(dir.path());
    let mut ran = Ran::default();
    let mut previous_lang = String::new();
    for block in blocks(&text) {
        let after_command = block.follows_block && previous_lang == "sh";
        previous_lang = block.lang.clone();
        let plain = block.lang.is_empty() || block.lang == "text";
        if after_command && plain && block.directive.is_none() {
            let _ = writeln!(
                failures,
                "{name}:{}: a block right after a command reads as its output: mark it `<!-- stdout -->` to check it, or `<!-- docs-test: skip -->`",
                block.line
            );
        }
        match &block.directive {
            Some(Directive::File(path)) => {
                let target = session.cwd.join(path);
                if let Some(parent) = target.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                if let Err(e) = std::fs::write(&target, &block.body) {
                    panic!("{name}:{}: cannot write {path}: {e}", block.line);
                }
                continue;
            }
            Some(Directive::Skip) => {
                let _ = writeln!(
                    skipped,
                    "{name}:{}: block skipped by `docs-test: skip`",
                    block.line
                );
                continue;
            }
            Some(stream @ (Directive::Stdout | Directive::Stderr)) => {
                if !session.fresh {
                    let _ = writeln!(
                        failures,
                        "{name}:{}: an output shown for no command that was run (the command before it was skipped, or its output was shown already)",
                        block.line
                    );
                    return ran;
                }
                session.fresh = false;
                let shown = normalise(&block.body, &session.root);
                let printed = match stream {
                    Directive::Stderr => &session.last_stderr,
                    _ => &session.last_stdout,
                };
                let printed = normalise(printed, &session.root);
                if shown != printed {
                    let _ = writeln!(
                        failures,
                        "{name}:{}: the output shown differs from what the command printed:\n--- shown\n{shown}--- printed\n{printed}",
                        block.line
                    );
                    return ran;
                }
                ran.compared += 1;
                continue;
            }
            None => {}
        }
        if block.lang != "sh" {
            continue;
        }
        for line in command_lines(&block.body) {
            let line = line.replace("cargo run --release --", "garrison");
            let (command, expected) = expected_exit(&line);
            if let Some(why) = skip_reason(&command) {
                let _ = writeln!(skipped, "{name}:{}: `{command}`: {why}", block.line);
                session.fresh = false;
                continue;
            }
            let parts: Vec<&str> = command.split(" && ").map(str::trim).collect();
            for (i, part) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                if let Some(dir) = part.strip_prefix("cd ") {
                    session.cwd = session.cwd.join(dir.trim());
                    continue;
                }
                let output = session.bash(part);
                ran.commands += 1;
                let want = if last { expected } else { 0 };
                if output.status.code() != Some(want) {
                    let _ = writeln!(
                        failures,
                        "{name}:{}: `{part}` exited {:?}, the doc expects {want}\nstdout:\n{}\nstderr:\n{}",
                        block.line,
                        output.status.code(),
                        String::from_utf8_lossy(&output.stdout),
                        String::from_utf8_lossy(&output.stderr)
                    );
                    return ran;
                }
            }
        }
    }
    ran
}

/// The Markdown files whose examples are run: the README and every `docs/*.md`.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        let mut more: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        more.sort();
        docs.extend(more);
    }
    docs
}

#[test]
fn every_shell_example_in_the_docs_runs() {
    let started = Instant::now();
    let mut failures = String::new();
    let mut skipped = String::new();
    let mut total = Ran::default();
    for doc in documents() {
        let ran = run_page(&doc, &mut failures, &mut skipped);
        total.commands += ran.commands;
        total.compared += ran.compared;
    }
    println!(
        "lines not run by the docs test:\n{skipped}({} commands run, {} outputs compared, in {:?})",
        total.commands,
        total.compared,
        started.elapsed()
    );
    assert!(failures.is_empty(), "{failures}");
    assert!(
        total.commands >= MIN_COMMANDS && total.compared >= MIN_OUTPUTS,
        "the docs ran {} commands and compared {} outputs; at least {MIN_COMMANDS} and {MIN_OUTPUTS} were expected",
        total.commands,
        total.compared
    );
}

#[test]
fn blocks_and_directives_are_read_as_documented() {
    let text = "intro\n<!-- file: a/b.yaml -->\n```yaml\nkind: X\n```\n\n<!-- docs-test: skip -->\n\n```sh\nkubectl apply -k out\n```\n```sh\ngarrison check \\\n  --out out # exit 1\n```\n";
    let found = blocks(text);
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].directive, Some(Directive::File("a/b.yaml".into())));
    assert_eq!(found[0].body, "kind: X\n");
    assert_eq!(found[1].directive, Some(Directive::Skip));
    assert_eq!(found[2].directive, None);
    let lines = command_lines(&found[2].body);
    assert_eq!(lines, vec!["garrison check --out out # exit 1".to_string()]);
    assert_eq!(
        expected_exit(&lines[0]),
        ("garrison check --out out".to_string(), 1)
    );
    assert!(skip_reason("garrison man | man -l -").is_some());
    assert!(skip_reason("kubectl apply -k out").is_some());
    assert!(skip_reason("git push origin rendered").is_some());
    assert!(skip_reason("kubectl kustomize out/clusters/<cluster>").is_some());
    assert!(skip_reason("kubectl kustomize out/clusters/eu-1 | head").is_none());
    assert!(skip_reason("echo out/ > .gitignore").is_none());
}

#[test]
fn a_page_that_runs_no_command_fails() {
    let dir = crate::support::temp();
    let page = |name: &str, text: &str| {
        let path = dir.path().join(name);
        if let Err(e) = std::fs::write(&path, text) {
            panic!("cannot write {}: {e}", path.display());
        }
        let (mut failures, mut skipped) = (String::new(), String::new());
        run_page(&path, &mut failures, &mut skipped);
        failures.replace(&dir.path().display().to_string(), "[TMP]")
    };
    let command = "```sh\ngarrison --version\n```\n";
    assert_eq!(page("runs.md", command), "");
    insta::assert_snapshot!(
        page("skipped.md", &format!("<!-- docs-test: skip -->\n{command}")),
        @"[TMP]/skipped.md: no command was run (every block was skipped, or none was found); run one, or list the page in WITHOUT_COMMANDS"
    );
    insta::assert_snapshot!(
        page("unrunnable.md", "```sh\nkubectl apply -k out\n```\n"),
        @"[TMP]/unrunnable.md: no command was run (every block was skipped, or none was found); run one, or list the page in WITHOUT_COMMANDS"
    );
    insta::assert_snapshot!(
        page("prose.md", "No block at all.\n\n    garrison --version\n"),
        @"[TMP]/prose.md: no command was run (every block was skipped, or none was found); run one, or list the page in WITHOUT_COMMANDS"
    );
}

#[test]
fn a_shown_output_must_be_what_the_command_printed() {
    let dir = crate::support::temp();
    let page = |name: &str, text: &str| {
        let path = dir.path().join(name);
        if let Err(e) = std::fs::write(&path, text) {
            panic!("cannot write {}: {e}", path.display());
        }
        let (mut failures, mut skipped) = (String::new(), String::new());
        let ran = run_page(&path, &mut failures, &mut skipped);
        (
            ran.compared,
            failures.replace(&dir.path().display().to_string(), "[TMP]"),
        )
    };
    let shown =
        |output: &str| format!("```sh\necho 3f2a1bc\n```\n\n<!-- stdout -->\n```\n{output}```\n");
    assert_eq!(
        page("same.md", &shown("9e8d7c6\n")),
        (1, String::new()),
        "any commit id"
    );
    insta::assert_snapshot!(page("differs.md", &shown("a different line\n")).1, @r"
    [TMP]/differs.md:6: the output shown differs from what the command printed:
    --- shown
    a different line
    --- printed
    <commit>
    ");
    insta::assert_snapshot!(
        page("unmarked.md", "```sh\necho hi\n```\n\n```\nhi\n```\n").1,
        @"[TMP]/unmarked.md:5: a block right after a command reads as its output: mark it `<!-- stdout -->` to check it, or `<!-- docs-test: skip -->`"
    );
    insta::assert_snapshot!(
        page("stale.md", "```sh\necho hi\nkubectl apply -k out\n```\n<!-- stdout -->\n```\nhi\n```\n").1,
        @"[TMP]/stale.md:6: an output shown for no command that was run (the command before it was skipped, or its output was shown already)"
    );
    assert_eq!(
        page(
            "prose.md",
            "```sh\necho hi\n```\n\nThen:\n\n```\nnot an output\n```\n"
        ),
        (0, String::new()),
        "a block after prose is no output"
    );
}

#[test]
fn outputs_are_compared_with_the_temporary_directory_and_commit_ids_normalised() {
    let root = Path::new("/tmp/.tmpAbC123");
    assert_eq!(
        normalise(
            "committed 5d41402abc4b2a76b9719d911017c592bbbbbbbb to `rendered` in /tmp/.tmpAbC123/fleet\n",
            root
        ),
        "committed <commit> to `rendered` in ~/fleet\n"
    );
    assert_eq!(
        normalise("cluster 1234567 deadbeef abc12\n", root),
        "cluster 1234567 deadbeef abc12\n",
        "numbers, words and short ids stay"
    );
}

/// What is wrong with the diagnostics reference `text`: a code of
/// [`garrison::diag::Code::ALL`] without its `#### GXXXX name` section, a
/// section whose name is not its code's, a section for no code, or
/// sections out of the codes' order.
fn reference_faults(text: &str) -> Vec<String> {
    use garrison::diag::Code;
    let headings: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| line.strip_prefix("#### G"))
        .filter_map(|rest| rest.split_once(' '))
        .collect();
    let mut faults = Vec::new();
    for code in Code::ALL {
        let number = &code.code()[1..];
        match headings.iter().find(|(n, _)| *n == number) {
            None => faults.push(format!("no section `#### {} {}`", code.code(), code.name())),
            Some((_, name)) if *name != code.name() => faults.push(format!(
                "the section of {} is named `{name}`, the code `{}`",
                code.code(),
                code.name()
            )),
            Some(_) => {}
        }
    }
    let known: Vec<&str> = Code::ALL.iter().map(|c| &c.code()[1..]).collect();
    for (number, name) in &headings {
        if !known.contains(number) {
            faults.push(format!("a section for G{number} {name}, which no code has"));
        }
    }
    let order: Vec<&str> = headings
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| known.contains(n))
        .collect();
    let mut sorted = order.clone();
    sorted.sort_by_key(|n| known.iter().position(|k| k == n));
    if order != sorted {
        faults.push(format!(
            "sections out of the codes' order: G{}",
            order.join(", G")
        ));
    }
    faults
}

#[test]
fn every_diagnostic_code_has_a_section_in_the_reference() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md");
    let reference = std::fs::read_to_string(&path).unwrap_or_default();
    let faults = reference_faults(&reference);
    assert!(
        faults.is_empty(),
        "docs/reference.md, diagnostics:\n{}",
        faults.join("\n")
    );
}

#[test]
fn every_key_of_garrisons_domain_is_in_the_reference_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md");
    let reference = std::fs::read_to_string(&path).unwrap_or_default();
    let section = reference
        .split("### garrison's own keys")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .unwrap_or_default();
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    for key in garrison::model::domain::KEYS {
        let listed = rows.iter().any(|row| {
            let first = row.split(" | ").next().unwrap_or_default();
            first.contains(&format!("`{}`", key.key))
        });
        assert!(
            listed,
            "`{}` ({}) is not in the table of docs/reference.md, \"garrison's own keys\"",
            key.key,
            key.describe()
        );
    }
    let keys: Vec<&str> = garrison::model::domain::KEYS
        .iter()
        .map(|k| k.key)
        .collect();
    for row in rows {
        let first = row.split(" | ").next().unwrap_or_default();
        for listed in first.split('`').skip(1).step_by(2) {
            assert!(
                keys.contains(&listed),
                "the reference lists `{listed}`, which garrison has not"
            );
        }
    }
}

#[test]
fn a_reference_missing_or_misnaming_a_code_is_refused() {
    use garrison::diag::Code;
    let whole: String = Code::ALL
        .iter()
        .map(|c| format!("#### {} {}\nText.\n", c.code(), c.name()))
        .collect();
    assert_eq!(reference_faults(&whole), Vec::<String>::new());
    let missing = whole.replace("#### G0701 lua-load-failed\n", "");
    assert_eq!(
        reference_faults(&missing),
        ["no section `#### G0701 lua-load-failed`"]
    );
    let misnamed = whole.replace("#### G0006 empty-repository", "#### G0006 empty-repo");
    assert_eq!(
        reference_faults(&misnamed),
        ["the section of G0006 is named `empty-repo`, the code `empty-repository`"]
    );
    let extra = format!("{whole}#### G0999 gone\n");
    assert_eq!(
        reference_faults(&extra),
        ["a section for G0999 gone, which no code has"]
    );
    let swapped = whole.replace("#### G0001 unreadable-file\n", "").replace(
        "#### G0002",
        "#### G0001 unreadable-file\nText.\n#### G0002",
    );
    assert_eq!(
        reference_faults(&swapped).len(),
        0,
        "the same order: {swapped:.120}"
    );
    let late = format!(
        "{}#### G0001 unreadable-file\n",
        whole.replace("#### G0001 unreadable-file\n", "")
    );
    assert!(
        reference_faults(&late)[0].starts_with("sections out of the codes' order"),
        "{:?}",
        reference_faults(&late)
    );
}

/// The apiVersion of each typed kind the reference's table of inputs names.
const TYPED_KINDS: &[(&str, &str)] = &[
    ("PropagationPolicy", "policy.karmada.io/v1alpha1"),
    ("ClusterPropagationPolicy", "policy.karmada.io/v1alpha1"),
    ("OverridePolicy", "policy.karmada.io/v1alpha1"),
    ("ClusterOverridePolicy", "policy.karmada.io/v1alpha1"),
    ("ClusterTaintPolicy", "policy.karmada.io/v1alpha1"),
    ("FederatedResourceQuota", "policy.karmada.io/v1alpha1"),
    ("Cluster", "cluster.karmada.io/v1alpha1"),
    ("ManagedCluster", "clusters.clusternet.io/v1beta1"),
    ("ResourceBinding", "work.karmada.io/v1alpha2"),
    ("ClusterResourceBinding", "work.karmada.io/v1alpha2"),
    ("Work", "work.karmada.io/v1alpha1"),
    (
        "ResourceInterpreterCustomization",
        "config.karmada.io/v1alpha1",
    ),
    (
        "ResourceInterpreterWebhookConfiguration",
        "config.karmada.io/v1alpha1",
    ),
    ("FederatedHPA", "autoscaling.karmada.io/v1alpha1"),
    ("CronFederatedHPA", "autoscaling.karmada.io/v1alpha1"),
    ("WorkloadRebalancer", "apps.karmada.io/v1alpha1"),
    ("MultiClusterService", "networking.karmada.io/v1alpha1"),
    ("MultiClusterIngress", "networking.karmada.io/v1alpha1"),
    ("Remedy", "remedy.karmada.io/v1alpha1"),
    ("ResourceRegistry", "search.karmada.io/v1alpha1"),
    ("Kustomization", "kustomize.config.k8s.io/v1beta1"),
];

/// The reference's table of inputs says which kinds are warned about and
/// have no effect (G0105); the binary must agree, kind by kind, in both
/// directions: a kind the table gives a role (a ResourceInterpreterCustomization
/// above all) is no G0105.
#[test]
fn the_table_of_inputs_says_which_kinds_have_no_effect() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md");
    let reference = std::fs::read_to_string(&path).unwrap_or_default();
    let Some(table) = reference
        .split("| group | kind | role |")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
    else {
        panic!("docs/reference.md has no `| group | kind | role |` table");
    };
    let mut claims: Vec<(String, bool)> = Vec::new();
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let (Some(kinds), Some(role)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        for kind in kinds.split('`').skip(1).step_by(2) {
            claims.push((kind.to_string(), role.contains("G0105")));
        }
    }
    assert!(
        claims
            .iter()
            .any(|(k, _)| k == "ResourceInterpreterCustomization"),
        "{claims:?}"
    );
    let dir = crate::support::temp();
    for (kind, _) in &claims {
        let Some((_, api_version)) = TYPED_KINDS.iter().find(|(k, _)| k == kind) else {
            panic!("`{kind}` is in the table of inputs: add its apiVersion to TYPED_KINDS");
        };
        let text = format!(
            "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: x\n  namespace: x\n"
        );
        if let Err(e) = std::fs::write(dir.path().join(format!("{kind}.yaml")), text) {
            panic!("{e}");
        }
    }
    let repo = dir.path().to_string_lossy().into_owned();
    let output = crate::support::run(&["validate", "--diagnostics", "concise", "--repo", &repo]);
    let stderr = crate::support::stderr(&output);
    let mut wrong = Vec::new();
    for (kind, no_effect) in &claims {
        let warned = stderr
            .lines()
            .any(|l| l.starts_with(&format!("{kind}.yaml:")) && l.contains("[G0105]"));
        if warned != *no_effect {
            wrong.push(format!(
                "`{kind}`: the table says {}, the binary {}",
                if *no_effect { "G0105" } else { "no G0105" },
                if warned { "warns G0105" } else { "does not" }
            ));
        }
    }
    assert!(wrong.is_empty(), "{}\n{stderr}", wrong.join("\n"));
}

/// The pages whose links and citations must resolve in the repository:
/// the README, `docs/`, and every fixture's README under `testdata/` (not
/// the corpus of real manifests, which holds other projects' pages).
fn linked_pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, pages: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() && entry.file_name() != "corpus" {
                walk(&path, pages);
            } else if entry.file_name() == "README.md" {
                pages.push(path);
            }
        }
    }
    let mut pages = documents();
    walk(&testdata(), &mut pages);
    pages.sort();
    pages
}

/// The anchors GitHub gives the headings of a Markdown text.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        if fenced {
            continue;
        }
        let title = heading.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = seen.iter().filter(|s| **s == slug).count();
        seen.push(slug.clone());
        if repeats > 0 {
            seen.push(format!("{slug}-{repeats}"));
        }
    }
    seen
}

/// Every relative link of the pages leads to a file of the repository
/// and, with `#anchor`, to a heading of it; no page cites a section of a
/// document the repository does not hold.
#[test]
fn every_link_in_the_docs_resolves_in_the_repository() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap_or_else(|e| panic!("{e}"));
    let mut faults = Vec::new();
    let mut checked = 0;
    for page in linked_pages() {
        let name = page_name(&page);
        let text = std::fs::read_to_string(&page).unwrap_or_default();
        let mut fenced = false;
        for (number, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if fenced {
                continue;
            }
            if line.contains("SPEC §") {
                faults.push(format!(
                    "{name}:{}: cites a SPEC the repository does not hold",
                    number + 1
                ));
            }
            for found in link.captures_iter(line) {
                let target = &found[1];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let resolved = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap_or(&page).join(file)
                };
                if !resolved.exists() {
                    faults.push(format!("{name}:{}: `{target}`: no such file", number + 1));
                    continue;
                }
                if anchor.is_empty() || resolved.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let target_text = std::fs::read_to_string(&resolved).unwrap_or_default();
                if !anchors(&target_text).iter().any(|a| a == anchor) {
                    faults.push(format!(
                        "{name}:{}: `{target}`: no such heading",
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} links were checked");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn anchors_are_the_ones_github_makes() {
    let text = "# Scheduling, as Karmada does it\n## `garrison render`\n#### G0603 mass-prune\n```\n# not a heading\n```\n## Notes\n## Notes\n";
    assert_eq!(
        anchors(text),
        [
            "scheduling-as-karmada-does-it",
            "garrison-render",
            "g0603-mass-prune",
            "notes",
            "notes",
            "notes-1"
        ]
    );
}
