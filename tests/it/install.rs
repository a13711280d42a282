//! Installing garrison, as `docs/install.md` says, checked on this machine:
//!
//! - the release workflow and every workflow of the README and `docs/`
//!   pass actionlint (built from its Go module at [`ACTIONLINT`]) with
//!   ShellCheck on their scripts; every documented workflow that runs
//!   `garrison` installs it first, and no pull-request job runs `check`;
//! - `.ci/package` makes the release's archives and `SHA256SUMS` from the
//!   binary the tests built, and the documented one-line install, pointed at
//!   that local release, installs it, and refuses a wrong checksum, an
//!   archive missing from `SHA256SUMS` and a missing archive;
//! - `cargo install --locked` into a temporary root, `cargo publish
//!   --dry-run` (which builds the packaged crate on its own) and `pre-commit
//!   try-repo` with both hooks of `.pre-commit-hooks.yaml`.
//!
//! A missing tool (Go, ShellCheck, pre-commit, curl) fails the test with
//! what to install; nothing is skipped. The three cargo builds share one
//! target directory under `target/tmp/install-check` and run one at a time.
//! They build in the dev profile without debug information (`--debug`; for
//! pre-commit, whose `cargo install` is release, a `cargo` shim adds it):
//! the profile is not what is tested, and a release build of garrison and
//! its C libraries takes many minutes on a 2-core machine, each time the
//! source changes. Once the dependencies are built, each of the three
//! takes seconds. What cannot run here (the workflow on GitHub's runners,
//! musl and macOS builds) is listed in docs/install.md.

use crate::support::{
    doc_pages, git, make_executable, read, root, run_program, stderr, stdout, str_at, temp,
    testdata, transcript, write, yaml,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The actionlint release the workflows are checked with.
const ACTIONLINT: &str = "v1.7.12";

/// The placeholder release URL of the docs, replaced by a local one here.
const RELEASES: &str = "https://github.com/your-org/garrison/releases/download";

/// `tool` on the PATH, or a failure saying how to get it.
fn require(tool: &str, how: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    match std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
    {
        Some(found) => found,
        None => panic!("`{tool}` is required for this test and is not on the PATH: {how}"),
    }
}

fn page_name(page: &Path) -> String {
    page.strip_prefix(root())
        .unwrap_or(page)
        .display()
        .to_string()
}

/// The fenced blocks of `lang` in a Markdown text, with the line before
/// each block's fence (its directive, if any).
fn blocks(markdown: &str, lang: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    let mut previous = String::new();
    let mut before = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        match &mut current {
            None if trimmed == format!("```{lang}") => {
                before = previous.clone();
                current = Some(String::new());
            }
            Some(block) if trimmed == "```" => {
                blocks.push((before.clone(), std::mem::take(block)));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
        if !trimmed.is_empty() {
            previous = trimmed.to_string();
        }
    }
    assert!(current.is_none(), "an unterminated ```{lang} block");
    blocks
}

/// The documented workflows: every ```yaml block of the README and
/// `docs/*.md` with `jobs`, by (page and block number, text, parsed).
fn documented_workflows() -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for page in doc_pages() {
        let name = page_name(&page);
        for (i, (_, block)) in blocks(&read(&page), "yaml").into_iter().enumerate() {
            let what = format!("{name} yaml block {}", i + 1);
            for doc in yaml(&block, &what) {
                if doc.get("jobs").is_some() {
                    found.push((what.clone(), block.clone(), doc));
                }
            }
        }
    }
    found
}

/// actionlint at [`ACTIONLINT`], built once per test process (and kept in
/// `target/tmp/tools/`) with `go install` from the Go module proxy, and how
/// long the build took (`None`: built by an earlier run).
fn actionlint() -> &'static (PathBuf, Option<Duration>) {
    static BUILT: OnceLock<(PathBuf, Option<Duration>)> = OnceLock::new();
    BUILT.get_or_init(build_actionlint)
}

fn build_actionlint() -> (PathBuf, Option<Duration>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("tools")
        .join(format!("actionlint-{ACTIONLINT}"));
    let binary = dir.join("actionlint");
    let mut took = None;
    if !binary.is_file() {
        let started = Instant::now();
        let built = Command::new("go")
            .args([
                "install",
                &format!("github.com/rhysd/actionlint/cmd/actionlint@{ACTIONLINT}"),
            ])
            .env("GOBIN", &dir)
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .current_dir(root())
            .output();
        match built {
            Ok(o) if o.status.success() => took = Some(started.elapsed()),
            Ok(o) => panic!(
                "building actionlint {ACTIONLINT} with `go install` failed (the Go module proxy must be reachable):\n{}",
                transcript(&o)
            ),
            Err(e) => panic!(
                "the workflow lint needs Go on the PATH to build actionlint {ACTIONLINT} ({e}); install Go (https://go.dev/dl) and run again"
            ),
        }
    }
    let version = run_program(Command::new(&binary).arg("-version"), "actionlint");
    assert_eq!(
        stdout(&version).lines().next(),
        Some(ACTIONLINT),
        "{} is not actionlint {ACTIONLINT}; remove it to rebuild",
        binary.display()
    );
    (binary, took)
}

/// Lint the workflows `files` (name → text) with actionlint and ShellCheck,
/// laid out as `.github/workflows/` of a scratch repository.
fn lint(files: &[(String, String)]) -> Output {
    let shellcheck = require(
        "shellcheck",
        "install ShellCheck (`apt-get install shellcheck`; .ci/test installs it when missing)",
    );
    let dir = temp();
    let workflows = dir.path().join(".github/workflows");
    let mut paths = Vec::new();
    for (name, text) in files {
        let path = workflows.join(name);
        write(&path, text);
        paths.push(path);
    }
    let mut command = Command::new(&actionlint().0);
    command
        .args(["-color=false", "-pyflakes="])
        .arg(format!("-shellcheck={}", shellcheck.display()))
        .args(&paths)
        .current_dir(dir.path());
    run_program(&mut command, "actionlint")
}

#[test]
fn actionlint_passes_the_release_workflow_and_every_documented_workflow() {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap_or_else(|e| panic!("cannot list .github/workflows: {e}"));
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        files.push((name, read(&entry.path())));
    }
    assert!(
        files.iter().any(|(n, _)| n == "release.yml"),
        "no release workflow"
    );
    let documented = documented_workflows();
    for (i, (what, text, _)) in documented.iter().enumerate() {
        let name = what.replace(['/', ' ', '.'], "-").to_lowercase();
        files.push((format!("docs-{i:02}-{name}.yml"), text.clone()));
    }
    assert!(
        documented.len() >= 6,
        "only {} workflows found in the README and docs/: {:?}",
        documented.len(),
        documented.iter().map(|d| &d.0).collect::<Vec<_>>()
    );
    let started = Instant::now();
    let output = lint(&files);
    match actionlint().1 {
        Some(took) => println!("built actionlint {ACTIONLINT} with go install in {took:.1?}"),
        None => println!("actionlint {ACTIONLINT} was built by an earlier run"),
    }
    println!(
        "actionlint {ACTIONLINT} checked {} workflows ({} documented) in {:.1?}",
        files.len(),
        documented.len(),
        started.elapsed()
    );
    assert!(
        output.status.success(),
        "actionlint found problems (the docs-NN files are the README's and docs/' workflows, in order):\n{}",
        transcript(&output)
    );

    // The lint is live: a broken expression and an unquoted variable fail it.
    let broken = "name: broken\non: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ nothing.here }}\n      - run: cd $SOMEWHERE\n";
    let output = lint(&[("broken.yml".into(), broken.into())]);
    let text = stdout(&output);
    assert!(!output.status.success(), "{}", transcript(&output));
    assert!(text.contains("undefined variable"), "{text}");
    assert!(text.contains("shellcheck reported issue"), "{text}");
}

#[test]
fn the_scripts_of_ci_pass_shellcheck() {
    let shellcheck = require(
        "shellcheck",
        "install ShellCheck (`apt-get install shellcheck`; .ci/test installs it when missing)",
    );
    let output = run_program(
        Command::new(shellcheck)
            .arg(".ci/run")
            .arg(".ci/test")
            .arg(".ci/package")
            .current_dir(root()),
        "shellcheck",
    );
    assert!(output.status.success(), "{}", transcript(&output));
}

/// The README's second command is the one that sets up what the tests
/// need and runs them, and CI runs it after the formatting and the lints:
/// a newcomer who runs it runs what CI runs.
#[test]
fn the_readme_test_command_is_the_one_ci_runs() {
    let readme = crate::support::read(&root().join("README.md"));
    let first_block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_default()
        .lines()
        .collect();
    assert_eq!(first_block.get(1), Some(&".ci/test"), "{first_block:?}");
    let run = crate::support::read(&root().join(".ci/run"));
    let last = run.lines().rfind(|l| !l.trim().is_empty());
    assert_eq!(last, Some(".ci/test"), ".ci/run ends by running .ci/test");
    assert!(
        run.contains("cargo fmt") && run.contains("cargo clippy"),
        "{run}"
    );
    let test = crate::support::read(&root().join(".ci/test"));
    assert_eq!(
        test.lines().rfind(|l| !l.trim().is_empty()),
        Some("cargo test --locked \"$@\""),
        ".ci/test ends with the test suite"
    );
    for tool in ["chromium", "shellcheck", "pre-commit"] {
        assert!(test.contains(tool), ".ci/test installs {tool}");
        assert!(
            readme.to_lowercase().contains(tool),
            "the README names {tool}"
        );
    }
    assert!(
        std::fs::metadata(root().join(".ci/test"))
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0)
            .unwrap_or(false),
        ".ci/test is executable"
    );
}

/// Whether a step installs garrison: the action, the documented one-line
/// install, or `cargo install`.
fn installs_garrison(step: &Value) -> bool {
    let uses = str_at(step, "/uses");
    let run = str_at(step, "/run");
    uses.starts_with("your-org/garrison@")
        || run.contains(&install_line())
        || run.contains("cargo install --locked")
}

/// Whether a step's script runs `garrison <command>`.
fn runs_garrison(step: &Value, command: &str) -> bool {
    str_at(step, "/run").lines().any(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words
            .windows(2)
            .any(|w| (w[0] == "garrison" || w[0].ends_with("/garrison")) && w[1] == command)
    })
}

fn is_pull_request(workflow: &Value) -> bool {
    // YAML 1.1 readers see `on` as true; garrison's reader keeps the key.
    let on = workflow.get("on").or_else(|| workflow.get("true"));
    match on {
        Some(Value::String(event)) => event == "pull_request",
        Some(Value::Array(events)) => events.iter().any(|e| e == "pull_request"),
        Some(Value::Object(events)) => events.contains_key("pull_request"),
        _ => false,
    }
}

#[test]
fn every_documented_workflow_installs_garrison_before_it_runs_it_and_pull_requests_never_check() {
    let commands = ["render", "diff", "check", "validate", "explain"];
    let mut faults = Vec::new();
    let mut pull_requests = 0;
    let mut using = 0;
    for (what, _, workflow) in documented_workflows() {
        let mut ran = BTreeSet::new();
        for (job_name, job) in workflow["jobs"].as_object().into_iter().flatten() {
            let mut installed = false;
            for step in job["steps"].as_array().into_iter().flatten() {
                let runs: Vec<&str> = commands
                    .iter()
                    .copied()
                    .filter(|c| runs_garrison(step, c))
                    .collect();
                if !runs.is_empty() && !installed {
                    faults.push(format!(
                        "{what}: job `{job_name}` runs garrison {runs:?} before installing it"
                    ));
                }
                if installs_garrison(step) {
                    installed = true;
                }
                ran.extend(runs);
            }
        }
        if !ran.is_empty() {
            using += 1;
        }
        if is_pull_request(&workflow) {
            pull_requests += 1;
            if ran.contains("check") {
                faults.push(format!(
                    "{what}: a pull-request job runs `garrison check`, which fails on every pull request that changes the inputs"
                ));
            }
            for needed in ["validate", "diff"] {
                if !ran.contains(needed) {
                    faults.push(format!(
                        "{what}: a pull-request job must run `garrison {needed}`"
                    ));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    assert!(
        pull_requests >= 2,
        "the README and docs/delivery.md each have a pull-request job; found {pull_requests}"
    );
    assert!(using >= 4, "only {using} documented workflows run garrison");
}

/// The documented one-line install: the ```sh block after
/// `<!-- install-line -->` in docs/install.md.
fn install_line() -> String {
    static LINE: OnceLock<String> = OnceLock::new();
    LINE.get_or_init(|| {
        let page = read(&root().join("docs/install.md"));
        let found: Vec<String> = blocks(&page, "sh")
            .into_iter()
            .filter(|(before, _)| before == "<!-- install-line -->")
            .map(|(_, body)| body.trim().to_string())
            .collect();
        match found.as_slice() {
            [line] if !line.contains('\n') => line.clone(),
            _ => panic!("docs/install.md must have one one-line ```sh block after <!-- install-line -->: {found:?}"),
        }
    })
    .clone()
}

/// The value of `NAME=` in the install line.
fn assignment(line: &str, name: &str) -> String {
    let prefix = format!("{name}=");
    line.trim_start_matches('(')
        .split([' ', ';'])
        .find_map(|word| word.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("the install line sets no {name}: {line}"))
        .to_string()
}

/// The targets the release workflow builds.
fn release_targets() -> Vec<String> {
    let text = read(&root().join(".github/workflows/release.yml"));
    let docs = yaml(&text, "release.yml");
    let include = docs[0]
        .pointer("/jobs/build/strategy/matrix/include")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    include
        .iter()
        .map(|entry| str_at(entry, "/target").to_string())
        .collect()
}

#[test]
fn the_release_builds_static_linux_and_macos_binaries_for_every_documented_platform() {
    let targets = release_targets();
    let expected = [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
    ];
    assert_eq!(
        targets.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        expected.into_iter().collect::<BTreeSet<_>>()
    );
    let text = read(&root().join(".github/workflows/release.yml"));
    let workflow = &yaml(&text, "release.yml")[0];
    // YAML 1.1 readers see the key `on` as `true`.
    let on = workflow.get("on").or_else(|| workflow.get("true"));
    assert!(
        on.and_then(|on| on.pointer("/push/tags")).is_some(),
        "the release runs on a pushed tag: {on:?}"
    );
    assert_eq!(str_at(workflow, "/permissions/contents"), "read");
    assert_eq!(
        str_at(workflow, "/jobs/release/permissions/contents"),
        "write",
        "only the job that publishes may write"
    );
    for needle in [
        ".ci/package build",
        ".ci/package sums",
        "cargo build --release --locked --target",
        "musl-tools",
        "gh release create",
    ] {
        assert!(text.contains(needle), "release.yml does not run `{needle}`");
    }
    // Every platform is documented, and the action downloads the ones its
    // runners have.
    let install = read(&root().join("docs/install.md"));
    let action = read(&root().join("action.yml"));
    for target in &targets {
        assert!(
            install.contains(&format!("`{target}`")),
            "docs/install.md does not list {target}"
        );
        assert!(
            action.contains(target.as_str()),
            "action.yml cannot download {target}"
        );
    }
    // The release URL of the docs is the repository's.
    let manifest = read(&root().join("Cargo.toml"));
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = \""))
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or_else(|| panic!("Cargo.toml has no repository"));
    assert_eq!(format!("{repository}/releases/download"), RELEASES);
}

/// `.ci/package build` of this test's binary as the release of
/// `version` for `target`, then `.ci/package sums`, under `server`
/// laid out as `<releases>/v<version>/`.
fn package(server: &Path, version: &str, target: &str) -> PathBuf {
    let release = server.join(format!("v{version}"));
    let built = run_program(
        Command::new("bash")
            .arg(root().join(".ci/package"))
            .args(["build", version, target, env!("CARGO_BIN_EXE_garrison")])
            .arg(&release),
        ".ci/package",
    );
    assert!(built.status.success(), "{}", transcript(&built));
    let sums = run_program(
        Command::new("bash")
            .arg(root().join(".ci/package"))
            .arg("sums")
            .arg(&release),
        ".ci/package sums",
    );
    assert!(sums.status.success(), "{}", transcript(&sums));
    release
}

/// Run the install line with `home` as HOME.
fn install(line: &str, home: &Path) -> Output {
    let _ = std::fs::create_dir_all(home);
    run_program(
        Command::new("bash")
            .args(["--noprofile", "--norc", "-c", line])
            .env("HOME", home)
            .current_dir(home),
        "bash",
    )
}

#[test]
fn the_documented_install_line_installs_a_release_and_refuses_a_wrong_checksum() {
    for (tool, package) in [("curl", "curl"), ("sha256sum", "coreutils"), ("tar", "tar")] {
        require(tool, &format!("install {package}"));
    }
    let line = install_line();
    let version = assignment(&line, "V");
    let target = assignment(&line, "T");
    assert_eq!(
        version,
        env!("CARGO_PKG_VERSION"),
        "the documented install line installs another version than Cargo.toml's"
    );
    assert!(
        release_targets().contains(&target),
        "{target} is not released"
    );
    assert_eq!(assignment(&line, "U"), RELEASES);
    // The README shows the same line, and its workflows and the delivery
    // docs' install with it.
    for page in ["README.md", "docs/delivery.md"] {
        assert!(
            read(&root().join(page)).contains(&line),
            "{page} does not show the install line of docs/install.md"
        );
    }

    let dir = temp();
    let server = dir.path().join("releases");
    let release = package(&server, &version, &target);
    let archive = format!("garrison-{version}-{target}.tar.gz");
    let listed = run_program(
        Command::new("tar").arg("-tzf").arg(release.join(&archive)),
        "tar",
    );
    let mut entries: Vec<String> = stdout(&listed).lines().map(str::to_string).collect();
    entries.sort();
    let top = format!("garrison-{version}-{target}");
    assert_eq!(
        entries,
        [
            format!("{top}/"),
            format!("{top}/README.md"),
            format!("{top}/garrison")
        ]
    );
    let sums = read(&release.join("SHA256SUMS"));
    let single = read(&release.join(format!("{archive}.sha256")));
    assert_eq!(sums, single, "SHA256SUMS lists the one archive");
    assert!(single.ends_with(&format!("  {archive}\n")), "{single}");

    let local = line.replace(RELEASES, &format!("file://{}", server.display()));
    let home = dir.path().join("home-ok");
    let output = install(&local, &home);
    assert!(output.status.success(), "{}", transcript(&output));
    assert!(
        stdout(&output).contains(&format!("garrison {version}")),
        "{}",
        transcript(&output)
    );
    let installed = home.join(".local/bin/garrison");
    assert_eq!(
        std::fs::read(&installed).ok(),
        std::fs::read(env!("CARGO_BIN_EXE_garrison")).ok(),
        "the installed binary is the packaged one"
    );
    validates_the_example(&installed);

    // A checksum that differs, an archive missing from SHA256SUMS and a
    // missing archive each stop the line before anything is installed.
    let flipped = match sums.chars().next() {
        Some('0') => format!("1{}", &sums[1..]),
        _ => format!("0{}", &sums[1..]),
    };
    let cases = [
        ("wrong", flipped, local.clone(), "FAILED"),
        (
            "unlisted",
            "0000000000000000000000000000000000000000000000000000000000000000  garrison-other.tar.gz\n".to_string(),
            local.clone(),
            "no properly formatted",
        ),
        (
            "absent",
            sums.clone(),
            local.replace(&format!("T={target}"), "T=riscv64-unknown-linux-musl"),
            "",
        ),
    ];
    for (name, listed, command, says) in cases {
        write(&release.join("SHA256SUMS"), &listed);
        let home = dir.path().join(format!("home-{name}"));
        let output = install(&command, &home);
        assert!(!output.status.success(), "{name}: {}", transcript(&output));
        assert!(
            !home.join(".local/bin/garrison").exists(),
            "{name}: installed anyway"
        );
        assert!(
            transcript(&output).contains(says),
            "{name}: {}",
            transcript(&output)
        );
    }
}

/// The cargo running the tests, building into [`install_target`] without
/// debug information or incremental data (each build is of a fresh copy of
/// the source: neither would be used again).
fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    lean(&mut command);
    command
}

fn lean(command: &mut Command) {
    command
        .env("CARGO_TARGET_DIR", install_target())
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_INCREMENTAL", "0");
}

/// An installed garrison validates the example fleet.
fn validates_the_example(installed: &Path) {
    let checked = run_program(
        Command::new(installed)
            .args(["validate", "--no-cache", "--repo"])
            .arg(testdata().join("fleet/repo")),
        "the installed garrison",
    );
    assert!(checked.status.success(), "{}", transcript(&checked));
}

/// The target directory the cargo builds of these tests share.
fn install_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("install-check")
}

/// One cargo build at a time: they share [`install_target`].
fn one_build_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[test]
fn cargo_publish_dry_run_packages_what_the_crate_needs_and_cargo_install_locked_installs_it() {
    let _one = one_build_at_a_time();
    let listed = run_program(
        cargo()
            .args(["package", "--list", "--locked", "--allow-dirty"])
            .current_dir(root()),
        "cargo package --list",
    );
    assert!(listed.status.success(), "{}", transcript(&listed));
    let files: BTreeSet<String> = stdout(&listed).lines().map(str::to_string).collect();
    for needed in [
        "Cargo.toml",
        "Cargo.toml.orig",
        "Cargo.lock",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/build.rs",
        "src/schema/kubernetes/v1.36.json",
        "docs/garrison.schema.json",
    ] {
        assert!(
            files.contains(needed),
            "the package lacks {needed}: {files:?}"
        );
    }
    for file in &files {
        let top = file.split('/').next().unwrap_or(file);
        assert!(
            [
                "Cargo.toml",
                "Cargo.toml.orig",
                "Cargo.lock",
                "README.md",
                "src",
                "docs",
                ".cargo_vcs_info.json"
            ]
            .contains(&top),
            "the package holds {file}, which it does not need"
        );
    }

    // The dry run reads the crates.io index (as a real publish would): the
    // test machines reach the registry.
    let started = Instant::now();
    let output = run_program(
        cargo()
            .args(["publish", "--dry-run", "--locked", "--allow-dirty"])
            .current_dir(root()),
        "cargo publish --dry-run",
    );
    println!("cargo publish --dry-run took {:.1?}", started.elapsed());
    assert!(output.status.success(), "{}", transcript(&output));
    let said = stderr(&output);
    assert!(said.contains("Verifying garrison"), "{said}");
    assert!(said.contains("aborting upload due to dry run"), "{said}");
    // No warning but the targets left out on purpose (tests and benches
    // need the repository) and the dry run itself: a missing field of the
    // manifest, or a file it names that is not packaged, warns.
    let unexpected: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .filter(|l| {
            !(l.contains("ignoring test") || l.contains("ignoring benchmark"))
                || !l.contains("is not included in the published package")
        })
        .filter(|l| !l.contains("aborting upload due to dry run"))
        .collect();
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));

    // `cargo install --locked` of the package the dry run verified, as
    // `cargo install garrison --locked` installs the published one: it
    // builds what the verification built, in the same target directory.
    let packaged = install_target()
        .join("package")
        .join(format!("garrison-{}", env!("CARGO_PKG_VERSION")));
    let dir = temp();
    let started = Instant::now();
    let output = run_program(
        cargo()
            .args(["install", "--locked", "--debug", "--path"])
            .arg(&packaged)
            .arg("--root")
            .arg(dir.path()),
        "cargo install",
    );
    println!(
        "cargo install --locked --debug took {:.1?}",
        started.elapsed()
    );
    assert!(output.status.success(), "{}", transcript(&output));
    let installed = dir.path().join("bin/garrison");
    let version = run_program(
        Command::new(&installed).arg("--version"),
        "the installed garrison",
    );
    assert!(
        stdout(&version).starts_with(&format!("garrison {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        transcript(&version)
    );
    validates_the_example(&installed);
}

/// A copy of what building garrison needs (the hooks' repository as
/// pre-commit clones it), committed: the work tree may hold uncommitted
/// files, which `try-repo` would leave out.
fn hooks_repository(dir: &Path) -> PathBuf {
    let repo = dir.join("garrison");
    if let Err(e) = std::fs::create_dir_all(&repo) {
        panic!("cannot create {}: {e}", repo.display());
    }
    for file in [
        ".pre-commit-hooks.yaml",
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
    ] {
        if let Err(e) = std::fs::copy(root().join(file), repo.join(file)) {
            panic!("cannot copy {file}: {e}");
        }
    }
    for tree in ["src", "benches"] {
        crate::support::copy_dir(&root().join(tree), &repo.join(tree));
    }
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "garrison"]);
    repo
}

/// A fleet repository, committed.
fn fleet_repository(dir: &Path) -> PathBuf {
    let fleet = dir.join("fleet");
    crate::support::copy_dir(&testdata().join("fleet/repo"), &fleet);
    git(&fleet, &["init", "-q", "-b", "main"]);
    git(&fleet, &["add", "-A"]);
    git(&fleet, &["commit", "-qm", "fleet"]);
    fleet
}

/// `pre-commit`, from the PATH or as a Python module.
fn pre_commit() -> Command {
    let how = "install pre-commit (`python3 -m pip install pre-commit`; .ci/test installs it when missing)";
    if Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Command::new("pre-commit");
    }
    let module = Command::new("python3")
        .args(["-m", "pre_commit", "--version"])
        .output();
    if module.is_ok_and(|o| o.status.success()) {
        let mut command = Command::new("python3");
        command.args(["-m", "pre_commit"]);
        return command;
    }
    panic!("pre-commit is required for this test: {how}");
}

const CARGO_SHIM: &str = r#"#!/bin/sh
# pre-commit's `cargo install` builds in release mode; the test builds in
# the dev profile (the profile is not what is tested).
if [ "$1" = install ]; then
  shift
  exec "$REAL_CARGO" install --debug --locked "$@"
fi
exec "$REAL_CARGO" "$@"
"#;

#[test]
fn both_pre_commit_hooks_validate_a_fleet_with_pre_commit_try_repo() {
    let _one = one_build_at_a_time();
    let mut version = pre_commit();
    let version = run_program(version.arg("--version"), "pre-commit");
    println!("{}", stdout(&version).trim());
    let dir = temp();
    let hooks = hooks_repository(dir.path());
    let fleet = fleet_repository(dir.path());
    let shim = dir.path().join("shim");
    write(&shim.join("cargo"), CARGO_SHIM);
    #[cfg(unix)]
    make_executable(&shim.join("cargo"));
    // For the system hook: garrison on the PATH.
    let bin = dir.path().join("bin");
    let _ = std::fs::create_dir_all(&bin);
    #[cfg(unix)]
    if let Err(e) = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_garrison"), bin.join("garrison"))
    {
        panic!("cannot link the binary: {e}");
    }
    let real_cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![shim.clone()];
    dirs.extend(std::env::split_paths(&path));
    let try_repo = |hook: &str, with_garrison: bool| -> Output {
        let mut dirs = dirs.clone();
        if with_garrison {
            dirs.insert(0, bin.clone());
        }
        let mut command = pre_commit();
        lean(&mut command);
        command
            .args(["try-repo"])
            .arg(&hooks)
            .args([hook, "--all-files", "--color=never"])
            .current_dir(&fleet)
            .env("PATH", std::env::join_paths(dirs).unwrap_or_default())
            .env("REAL_CARGO", &real_cargo)
            .env("PRE_COMMIT_HOME", dir.path().join("pre-commit-home"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Dev")
            .env("GIT_AUTHOR_EMAIL", "dev@example.com")
            .env("GIT_COMMITTER_NAME", "Dev")
            .env("GIT_COMMITTER_EMAIL", "dev@example.com")
            .env("NO_COLOR", "1");
        run_program(&mut command, "pre-commit try-repo")
    };

    let started = Instant::now();
    let built = try_repo("garrison-validate", false);
    println!(
        "pre-commit try-repo garrison-validate (building garrison) took {:.1?}",
        started.elapsed()
    );
    assert!(built.status.success(), "{}", transcript(&built));
    assert!(stdout(&built).contains("Passed"), "{}", transcript(&built));
    let system = try_repo("garrison-validate-system", true);
    assert!(system.status.success(), "{}", transcript(&system));
    assert!(
        stdout(&system).contains("Passed"),
        "{}",
        transcript(&system)
    );

    // A misspelt field fails the hook, naming the file. (Both hooks run
    // the same entry, `the_pre_commit_hooks_run_garrison_validate_on_yaml_and_json`
    // checks; the built one is not built a second time here.)
    let broken = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: typo\n  namespace: shop\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n  placement:\n    clusterAffinity:\n      matchLabel: {geo: eu}\n";
    write(&fleet.join("typo.yaml"), broken);
    git(&fleet, &["add", "typo.yaml"]);
    let failed = try_repo("garrison-validate-system", true);
    assert!(!failed.status.success(), "{}", transcript(&failed));
    let text = stdout(&failed);
    assert!(text.contains("Failed"), "{text}");
    assert!(
        text.contains("typo.yaml") && text.contains("matchLabel"),
        "{text}"
    );
}

#[test]
fn the_pre_commit_hooks_run_garrison_validate_on_yaml_and_json() {
    let text = read(&root().join(".pre-commit-hooks.yaml"));
    let docs = yaml(&text, ".pre-commit-hooks.yaml");
    let hooks = docs
        .first()
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ids: Vec<&str> = hooks.iter().map(|h| str_at(h, "/id")).collect();
    assert_eq!(ids, ["garrison-validate", "garrison-validate-system"]);
    let languages: Vec<&str> = hooks.iter().map(|h| str_at(h, "/language")).collect();
    assert_eq!(languages, ["rust", "system"]);
    for hook in &hooks {
        assert_eq!(str_at(hook, "/entry"), "garrison validate");
        assert_eq!(hook["pass_filenames"], Value::Bool(false), "{hook}");
        let files = match regex::Regex::new(str_at(hook, "/files")) {
            Ok(files) => files,
            Err(e) => panic!("{hook}: `files` is not a regular expression: {e}"),
        };
        for path in ["garrison.yaml", "fleet/policy.yml", "crds/x.json"] {
            assert!(files.is_match(path), "{path} does not trigger {hook}");
        }
        for path in ["README.md", "yaml/notes.txt"] {
            assert!(!files.is_match(path), "{path} triggers {hook}");
        }
    }
    // docs/install.md shows the hooks by these ids.
    let install = read(&root().join("docs/install.md"));
    for id in ids {
        assert!(
            install.contains(&format!("`{id}`")),
            "docs/install.md does not name {id}"
        );
    }
}
