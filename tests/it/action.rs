//! The GitHub Action (`action.yml`) run the way a runner runs it, against a
//! local bare "remote" with a competing run forced in before the push; and the
//! delivery docs' manifests checked against a real render.

use crate::fleet::{clusters, deployment, policy, DUPLICATED};
use crate::support::{
    git, kustomize, make_executable, read, render_to, root, stderr, stdout, str_at, testdata,
    write, yaml,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn action() -> Value {
    let docs = yaml(&read(&root().join("action.yml")), "action.yml");
    assert_eq!(docs.len(), 1, "action.yml holds one document");
    docs.into_iter().next().unwrap_or_default()
}

/// The data of an HTML report the action drew.
fn report_data(path: &Path) -> Value {
    let page = read(path);
    let start = r#"<script type="application/json" id="garrison-data">"#;
    let data = page
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once("</script>"))
        .map(|(data, _)| data)
        .unwrap_or_else(|| panic!("{} embeds no data", path.display()));
    serde_json::from_str(data).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The row of a report's data for `key`.
fn row<'a>(data: &'a Value, key: &str) -> &'a Value {
    data["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["key"] == key)
        .unwrap_or_else(|| panic!("the report has no row {key}: {data}"))
}

fn steps(action: &Value) -> Vec<Value> {
    action
        .pointer("/runs/steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn map_keys(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The action's inputs with their defaults, overridden by `given`.
fn inputs(action: &Value, given: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut inputs = BTreeMap::new();
    if let Some(map) = action.get("inputs").and_then(Value::as_object) {
        for (name, input) in map {
            let default = match input.get("default") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            inputs.insert(name.clone(), default);
        }
    }
    for (name, value) in given {
        assert!(
            inputs.contains_key(*name),
            "action.yml has no input `{name}`"
        );
        inputs.insert((*name).to_string(), (*value).to_string());
    }
    inputs
}

/// Evaluate the `${{ … }}` expressions of an `env:` value as the runner
/// would, for the forms a render step may use: `inputs.<name>`,
/// `github.action_path`, `steps.<id>.outputs.<name>` (the install steps are
/// not run here, so empty: the binary comes from `PATH`) and `a || b`.
fn evaluate(text: &str, inputs: &BTreeMap<String, String>) -> String {
    evaluate_with(text, inputs, &BTreeMap::new())
}

/// [`evaluate`], with the outputs of earlier steps (`id.name` → value).
fn evaluate_with(
    text: &str,
    inputs: &BTreeMap<String, String>,
    outputs: &BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let Some(end) = after.find("}}") else {
            panic!("unterminated expression in `{text}`");
        };
        let value = after[..end]
            .split("||")
            .map(|operand| {
                let operand = operand.trim();
                if let Some(name) = operand.strip_prefix("inputs.") {
                    match inputs.get(name) {
                        Some(v) => v.clone(),
                        None => panic!("`{text}` reads an input action.yml does not declare"),
                    }
                } else if operand == "github.action_repository" {
                    // Empty inside composite actions on some runners; the
                    // action must cope.
                    String::new()
                } else if operand == "github.action_path" {
                    root().to_string_lossy().into_owned()
                } else if let Some(output) = operand.strip_prefix("steps.") {
                    let output = output.replacen(".outputs.", ".", 1);
                    outputs.get(&output).cloned().unwrap_or_default()
                } else {
                    panic!("the test cannot evaluate `{operand}` in `{text}`")
                }
            })
            .find(|v| !v.is_empty())
            .unwrap_or_default();
        out.push_str(&value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The `git` the shim hands over to.
fn real_git() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("git"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("the git CLI is required for these tests"))
}

/// A source repository pushed to a bare `origin`, a runner's clone of it, and
/// a second clone that plays another run of the workflow: before the action's
/// push, a `git` shim first lets the other clone render a different source and
/// push its render.
struct Runner {
    dir: tempfile::TempDir,
    bare: PathBuf,
    work: PathBuf,
}

const COMPETITOR: &str = r#"#!/usr/bin/env bash
# Another run of the workflow: render a newer source and push the branch first.
set -euo pipefail
n=$(( $(cat "$STATE/races" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$STATE/races"
cd "$OTHER"
"$REAL_GIT" fetch -q origin +refs/heads/rendered:refs/heads/rendered 2>/dev/null || true
cp "$STATE/app-$n.yaml" app.yaml
"$REAL_GIT" -c user.name=Other -c user.email=other@example.com commit -qam "other $n"
garrison render --branch rendered -q
"$REAL_GIT" push -q origin refs/heads/rendered:refs/heads/rendered
"$REAL_GIT" rev-parse refs/heads/rendered > "$STATE/pushed-$n"
"#;

const SHIM: &str = r#"#!/usr/bin/env bash
# `git`, except that the first RACES pushes are preceded by a competing push.
if [ "${1:-}" = -C ]; then sub=${3:-}; else sub=${1:-}; fi
if [ "$sub" = push ]; then
  done=$(cat "$STATE/races" 2>/dev/null || echo 0)
  if [ "$done" -lt "$RACES" ]; then
    "$STATE/competitor" >&2 || { echo "the competing run failed" >&2; exit 99; }
  fi
fi
exec "$REAL_GIT" "$@"
"#;

impl Runner {
    fn new() -> Runner {
        let dir = crate::support::temp();
        let source = dir.path().join("source");
        let _ = std::fs::create_dir_all(&source);
        git(&source, &["init", "-q", "-b", "main"]);
        write(&source.join("clusters.yaml"), &clusters(&["a", "b"]));
        write(&source.join("app.yaml"), &deployment("web", 2, "v1"));
        write(
            &source.join("policy.yaml"),
            &policy("web", DUPLICATED, &[], ""),
        );
        git(&source, &["add", "-A"]);
        git(&source, &["commit", "-qm", "fleet"]);
        let bare = dir.path().join("origin.git");
        let work = dir.path().join("work");
        let other = dir.path().join("other");
        let top = dir.path().to_path_buf();
        for (from, args) in [
            (&source, vec!["clone", "-q", "--bare", ".", path_str(&bare)]),
            (&top, vec!["clone", "-q", path_str(&bare), path_str(&work)]),
            (&top, vec!["clone", "-q", path_str(&bare), path_str(&other)]),
        ] {
            git(from, &args);
        }
        let state = dir.path().join("state");
        for n in 1..=9 {
            write(
                &state.join(format!("app-{n}.yaml")),
                &deployment("web", 2, &format!("other{n}")),
            );
        }
        write(&state.join("competitor"), COMPETITOR);
        write(&dir.path().join("shim/git"), SHIM);
        #[cfg(unix)]
        {
            make_executable(&state.join("competitor"));
            make_executable(&dir.path().join("shim/git"));
        }
        Runner { dir, bare, work }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// Run the action's render-and-push step as a runner would, with the
    /// competing run pushing before the first `races` pushes.
    fn run_action(&self, given: &[(&str, &str)], races: u32, label: &str) -> Run {
        let action = action();
        let inputs = inputs(&action, given);
        let step = steps(&action)
            .into_iter()
            .find(|s| str_at(s, "/id") == "render")
            .unwrap_or_else(|| panic!("action.yml has no step with id `render`"));
        let script = str_at(&step, "/run").to_string();
        assert_eq!(str_at(&step, "/shell"), "bash");
        let files = self.dir.path().join(label);
        let _ = std::fs::create_dir_all(files.join("tmp"));
        let output_file = files.join("github_output");
        let summary_file = files.join("step_summary");
        write(&output_file, "");
        write(&summary_file, "");
        let script_file = files.join("step.sh");
        write(&script_file, &script);

        let binary = PathBuf::from(env!("CARGO_BIN_EXE_garrison"));
        let bin_dir = binary.parent().map(Path::to_path_buf).unwrap_or_default();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.dir.path().join("shim"), bin_dir];
        dirs.extend(std::env::split_paths(&path));
        let path = match std::env::join_paths(dirs) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };

        // As GitHub runs `shell: bash`: bash --noprofile --norc -eo pipefail {0}.
        let mut command = Command::new("bash");
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script_file)
            .current_dir(&self.work)
            .env("PATH", path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", &self.work)
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_STEP_SUMMARY", &summary_file)
            .env("RUNNER_TEMP", files.join("tmp"))
            .env("TMPDIR", files.join("tmp"))
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("REAL_GIT", real_git())
            .env("STATE", self.state())
            .env("OTHER", self.dir.path().join("other"))
            .env("RACES", races.to_string())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE");
        if let Some(env) = step.get("env").and_then(Value::as_object) {
            for (name, value) in env {
                let value = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                command.env(name, evaluate(&value, &inputs));
            }
        }
        let output = match command.output() {
            Ok(o) => o,
            Err(e) => panic!("bash is required for this test: {e}"),
        };
        Run {
            outputs: read(&output_file),
            summary: read(&summary_file),
            output,
        }
    }

    fn remote(&self, args: &[&str]) -> String {
        git(&self.bare, args)
    }

    /// The commit the competing run pushed on its `n`th race.
    fn pushed(&self, n: u32) -> String {
        read(&self.state().join(format!("pushed-{n}")))
            .trim()
            .to_string()
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("non-UTF-8 temp path"))
}

struct Run {
    output: Output,
    outputs: String,
    summary: String,
}

impl Run {
    fn log(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            stdout(&self.output),
            stderr(&self.output)
        )
    }

    /// `key=value` lines; each key must appear once (one attempt reports).
    fn outputs(&self) -> BTreeMap<String, String> {
        let mut map = BTreeMap::new();
        for line in self.outputs.lines() {
            let Some((key, value)) = line.split_once('=') else {
                panic!("not a key=value output: {line:?}");
            };
            let old = map.insert(key.to_string(), value.to_string());
            assert!(
                old.is_none(),
                "output `{key}` written twice:\n{}",
                self.outputs
            );
        }
        map
    }
}

#[test]
fn the_action_renders_loses_a_race_fetches_renders_again_and_pushes() {
    let runner = Runner::new();
    let run = runner.run_action(&[], 1, "first");
    assert!(run.output.status.success(), "{}", run.log());
    let log = stdout(&run.output);
    assert!(log.contains("origin has no branch rendered yet"), "{log}");
    assert!(
        log.contains("moved while rendering; fetching it and rendering again (attempt 2 of 5)"),
        "{log}"
    );

    // The remote has the competing render, then the action's on top of it.
    let competing = runner.pushed(1);
    let tip = runner.remote(&["rev-parse", "rendered"]);
    assert_eq!(runner.remote(&["rev-list", "--count", "rendered"]), "2");
    assert_eq!(runner.remote(&["rev-parse", "rendered^"]), competing);
    assert_ne!(tip, competing);
    let web = runner.remote(&["show", "rendered:clusters/a/apps/deployment.apps_web.yaml"]);
    assert!(web.contains("example.com/web:v1"), "{web}");
    let parent = runner.remote(&["show", "rendered^:clusters/a/apps/deployment.apps_web.yaml"]);
    assert!(parent.contains("example.com/web:other1"), "{parent}");
    let message = runner.remote(&["log", "-1", "--format=%B", "rendered"]);
    let source = git(&runner.work, &["rev-parse", "HEAD"]);
    assert!(
        message.contains(&format!("Source-Commit: {source}")),
        "{message}"
    );

    // Outputs and summary come from the final attempt only: relative to the
    // competing render, two objects changed and nothing was added.
    let mut outputs = run.outputs();
    // The report of the final attempt: drawn before its render, against the
    // competing render it then replaced.
    let report = outputs.remove("report").unwrap_or_default();
    let drawn = report_data(Path::new(&report));
    assert_eq!(drawn["against"], "branch rendered");
    assert_eq!(drawn["totals"]["changed"], 2, "{}", drawn["totals"]);
    assert_eq!(row(&drawn, "Deployment/apps/web")["cells"], "2c,2c");
    let expected: BTreeMap<String, String> = [
        ("changed", "true"),
        ("commit", tip.as_str()),
        ("clusters-changed", "2"),
        ("objects-added", "0"),
        ("objects-changed", "2"),
        ("objects-removed", "0"),
        ("held-back", "0"),
        ("fort-moves", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(outputs, expected, "{}", run.outputs);
    assert_eq!(
        run.summary.matches("### garrison render").count(),
        1,
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains(&format!("Committed `{tip}` to `rendered`.")),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(&format!("Source commit `{source}`.")),
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains("Pushed to `origin/rendered` (attempt 2 of 5)."),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains("| `a` | 0 | 1 | 0 |"),
        "{}",
        run.summary
    );
    assert_eq!(
        git(&runner.work, &["status", "--porcelain"]),
        "",
        "the runner's checkout is untouched"
    );

    // The same source again: nothing to commit, nothing pushed.
    let again = runner.run_action(&[], 0, "again");
    assert!(again.output.status.success(), "{}", again.log());
    assert_eq!(runner.remote(&["rev-parse", "rendered"]), tip);
    let outputs = again.outputs();
    assert_eq!(outputs.get("changed").map(String::as_str), Some("false"));
    let drawn = report_data(Path::new(outputs.get("report").map_or("", String::as_str)));
    assert_eq!(drawn["totals"]["changed"], 0, "nothing to change");
    assert_eq!(outputs.get("commit").map(String::as_str), Some(""));
    assert!(
        again
            .summary
            .contains("Nothing to push: `origin/rendered` is current."),
        "{}",
        again.summary
    );
    runner.remote(&["fsck", "--strict"]);
}

#[test]
fn the_action_gives_up_after_max_attempts_without_overwriting_the_branch() {
    let runner = Runner::new();
    let run = runner.run_action(&[("max-attempts", "2")], 9, "racing");
    assert_eq!(run.output.status.code(), Some(1), "{}", run.log());
    assert!(
        stdout(&run.output).contains(
            "::error title=garrison::origin/rendered kept moving; gave up after 2 attempts without overwriting it"
        ),
        "{}",
        run.log()
    );
    // Never force-pushed: the remote ends at the competitor's second render.
    assert_eq!(runner.remote(&["rev-parse", "rendered"]), runner.pushed(2));
    assert_eq!(runner.remote(&["rev-list", "--count", "rendered"]), "2");
    assert_eq!(run.outputs, "", "a failed run writes no outputs");
    assert_eq!(run.summary, "");
}

#[test]
fn the_action_with_push_false_commits_locally_and_checks_its_inputs() {
    let runner = Runner::new();
    let run = runner.run_action(&[("push", "false"), ("format", "work")], 0, "local");
    assert!(run.output.status.success(), "{}", run.log());
    assert!(run.summary.contains("Not pushed (push: false)."));
    let local = git(&runner.work, &["rev-parse", "rendered"]);
    assert_eq!(
        run.outputs().get("commit").map(String::as_str),
        Some(local.as_str())
    );
    // A first render: the report is drawn after it, of the render made.
    let report = run.outputs().get("report").cloned().unwrap_or_default();
    let drawn = report_data(Path::new(&report));
    assert_eq!(drawn["format"], "work");
    assert_eq!(row(&drawn, "Deployment/apps/web")["cells"], "2,2");
    // No report asked for: none drawn.
    let none = runner.run_action(
        &[("push", "false"), ("format", "work"), ("report", "false")],
        0,
        "no-report",
    );
    assert!(none.output.status.success(), "{}", none.log());
    assert_eq!(none.outputs().get("report").map(String::as_str), Some(""));
    let files = git(&runner.work, &["ls-tree", "-r", "--name-only", "rendered"]);
    assert!(files.contains("clusters/a/"), "{files}");
    assert!(
        git(
            &runner.work,
            &["show", &format!("rendered:{}", first_object(&files))]
        )
        .contains("kind: Work"),
        "{files}"
    );
    let refs = runner.remote(&["for-each-ref", "--format=%(refname)", "refs/heads"]);
    assert_eq!(refs, "refs/heads/main", "nothing pushed");

    for (given, message) in [
        (
            ("format", "yaml"),
            "format must be manifests or work, not 'yaml'",
        ),
        (("push", "yes"), "push must be true or false, not 'yes'"),
        (("strict", "on"), "strict must be true or false, not 'on'"),
        (("report", "yes"), "report must be true or false, not 'yes'"),
        (
            ("max-attempts", "0"),
            "max-attempts must be a positive number, not '0'",
        ),
        (
            ("branch", "bad..name"),
            "'bad..name' is not a valid branch name",
        ),
    ] {
        let run = runner.run_action(&[given], 0, "bad");
        assert_eq!(run.output.status.code(), Some(1), "{}", run.log());
        assert!(stdout(&run.output).contains(message), "{}", run.log());
    }
}

#[test]
fn the_action_is_strict_by_default_and_pushes_nothing_while_the_inputs_have_a_warning() {
    let runner = Runner::new();
    // A policy that matches nothing: warning G0201.
    write(
        &runner.work.join("ghost.yaml"),
        &policy("ghost", DUPLICATED, &[], ""),
    );
    git(&runner.work, &["add", "ghost.yaml"]);
    git(&runner.work, &["commit", "-qm", "a policy for nothing"]);

    let strict = runner.run_action(&[], 0, "strict");
    assert_eq!(strict.output.status.code(), Some(2), "{}", strict.log());
    assert!(
        strict.log().contains("::error file=ghost.yaml,line=8,col=5,title=G0201 policy-matches-nothing::PropagationPolicy/apps/ghost matches no template"),
        "the warning is an error annotation:\n{}",
        strict.log()
    );
    assert_eq!(
        runner.remote(&["for-each-ref", "--format=%(refname)", "refs/heads"]),
        "refs/heads/main",
        "nothing rendered, nothing pushed"
    );
    assert_eq!(
        git(&runner.work, &["branch", "--list", "rendered"]),
        "",
        "nothing committed"
    );
    assert_eq!(strict.outputs, "", "a refused run writes no outputs");

    let lenient = runner.run_action(&[("strict", "false")], 0, "lenient");
    assert!(lenient.output.status.success(), "{}", lenient.log());
    assert!(
        lenient
            .log()
            .contains("::warning file=ghost.yaml,line=8,col=5,title=G0201"),
        "{}",
        lenient.log()
    );
    assert_eq!(
        runner.remote(&["rev-parse", "rendered"]),
        git(&runner.work, &["rev-parse", "rendered"]),
        "rendered and pushed"
    );
}

fn first_object(files: &str) -> String {
    files
        .lines()
        .find(|l| l.starts_with("clusters/a/") && !l.ends_with("kustomization.yaml"))
        .unwrap_or_default()
        .to_string()
}

/// `inputs.<name>` as a whole reference somewhere in `text`.
fn references(text: &str, name: &str) -> bool {
    let needle = format!("inputs.{name}");
    text.match_indices(&needle).any(|(i, _)| {
        let next = text[i + needle.len()..].chars().next();
        !matches!(next, Some(c) if c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

fn all_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| all_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| all_strings(v, out)),
        _ => {}
    }
}

#[test]
fn every_action_input_is_documented_and_used_and_every_output_is_mapped() {
    let action = action();
    let mut runs = String::new();
    all_strings(action.get("runs").unwrap_or(&Value::Null), &mut runs);
    let input_names = map_keys(action.get("inputs"));
    let expected = [
        "source",
        "branch",
        "format",
        "push",
        "strict",
        "args",
        "version",
        "remote",
        "max-attempts",
        "report",
        "report-artifact",
    ];
    assert_eq!(
        input_names
            .iter()
            .map(String::as_str)
            .collect::<BTreeSet<_>>(),
        expected.into_iter().collect::<BTreeSet<_>>()
    );
    let docs = read(&root().join("docs/delivery.md"));
    for name in &input_names {
        let input = &action["inputs"][name];
        assert!(
            !str_at(input, "/description").trim().is_empty(),
            "input `{name}` has no description"
        );
        assert!(references(&runs, name), "input `{name}` is never used");
        assert!(
            docs.contains(&format!("`{name}`")),
            "input `{name}` is not in docs/delivery.md"
        );
    }

    // Inputs reach scripts only through `env:`; every script is bash.
    for step in steps(&action) {
        if let Some(script) = step.get("run").and_then(Value::as_str) {
            assert!(
                !script.contains("${{"),
                "step `{}` expands an expression inside its script; pass it through env:",
                str_at(&step, "/name")
            );
            assert_eq!(str_at(&step, "/shell"), "bash");
        }
    }

    // The outputs are exactly the keys `render --github-output` writes.
    let dir = crate::support::temp();
    let outputs_file = dir.path().join("outputs");
    let repo = testdata().join("duplicated");
    let output = render_to(
        &repo,
        &dir.path().join("out"),
        &["--github-output", path_str(&outputs_file), "-q"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let written: BTreeSet<String> = read(&outputs_file)
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
        .collect();
    let output_names = map_keys(action.get("outputs"));
    let mut expected = written;
    // The one output the render step adds: the report's path.
    expected.insert("report".to_string());
    assert_eq!(
        output_names.iter().cloned().collect::<BTreeSet<_>>(),
        expected
    );
    for name in &output_names {
        let output = &action["outputs"][name];
        assert!(
            !str_at(output, "/description").trim().is_empty(),
            "output `{name}` has no description"
        );
        assert_eq!(
            str_at(output, "/value"),
            format!("${{{{ steps.render.outputs.{name} }}}}"),
            "output `{name}` must map the render step's output"
        );
    }
}

/// The ```yaml blocks of a Markdown file, in order.
fn yaml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_start() == "```yaml" => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    assert!(current.is_none(), "an unterminated ```yaml block");
    blocks
}

#[test]
fn the_delivery_docs_point_argo_cd_and_flux_at_cluster_directories_that_build() {
    let docs = read(&root().join("docs/delivery.md"));
    let mut objects = Vec::new();
    let mut workflows = Vec::new();
    for (i, block) in yaml_blocks(&docs).iter().enumerate() {
        for doc in yaml(block, &format!("docs/delivery.md yaml block {}", i + 1)) {
            if doc.get("jobs").is_some() {
                workflows.push(doc);
            } else {
                objects.push(doc);
            }
        }
    }
    let of_kind = |kind: &str| -> Vec<&Value> {
        objects
            .iter()
            .filter(|o| str_at(o, "/kind") == kind)
            .collect()
    };

    // Argo CD: a git directory generator over clusters/* of the rendered
    // branch (the plugin's ApplicationSet is `tests/it/argocd_plugin.rs`'s).
    let sets: Vec<&Value> = of_kind("ApplicationSet")
        .into_iter()
        .filter(|set| set.pointer("/spec/template/spec/source/plugin").is_none())
        .collect();
    assert_eq!(sets.len(), 1);
    let set = sets[0];
    assert_eq!(str_at(set, "/apiVersion"), "argoproj.io/v1alpha1");
    assert_eq!(set.pointer("/spec/goTemplate"), Some(&Value::Bool(true)));
    let git_generator = set
        .pointer("/spec/generators/0/git")
        .unwrap_or(&Value::Null);
    assert_eq!(str_at(git_generator, "/revision"), "rendered");
    assert_eq!(str_at(git_generator, "/directories/0/path"), "clusters/*");
    let template = set.pointer("/spec/template").unwrap_or(&Value::Null);
    assert_eq!(str_at(template, "/spec/source/targetRevision"), "rendered");
    assert_eq!(str_at(template, "/spec/source/path"), "{{.path.path}}");
    assert_eq!(
        str_at(template, "/spec/destination/name"),
        "{{.path.basename}}"
    );
    assert_eq!(
        str_at(template, "/spec/source/repoURL"),
        str_at(git_generator, "/repoURL")
    );

    // Flux: a GitRepository on the rendered branch, one Kustomization per cluster.
    let repos = of_kind("GitRepository");
    assert_eq!(repos.len(), 1);
    assert_eq!(
        str_at(repos[0], "/apiVersion"),
        "source.toolkit.fluxcd.io/v1"
    );
    assert_eq!(str_at(repos[0], "/spec/ref/branch"), "rendered");
    let kustomizations = of_kind("Kustomization");
    assert!(!kustomizations.is_empty());
    let mut flux_clusters = Vec::new();
    for k in kustomizations {
        assert_eq!(str_at(k, "/apiVersion"), "kustomize.toolkit.fluxcd.io/v1");
        assert_eq!(str_at(k, "/spec/sourceRef/kind"), "GitRepository");
        assert_eq!(
            str_at(k, "/spec/sourceRef/name"),
            str_at(repos[0], "/metadata/name")
        );
        let path = str_at(k, "/spec/path");
        let Some(cluster) = path.strip_prefix("./clusters/") else {
            panic!("Flux Kustomization path {path} is not ./clusters/<name>");
        };
        assert!(!cluster.contains('/'), "{path}");
        assert_eq!(str_at(k, "/metadata/name"), cluster);
        flux_clusters.push(cluster.to_string());
    }

    // Workflows: the action used with real inputs; the render ones may
    // push. (`tests/it/install.rs` checks that each installs garrison
    // before running it, with the action or the documented install line.)
    let action = action();
    let input_names: BTreeSet<String> = map_keys(action.get("inputs")).into_iter().collect();
    let mut pushes = 0;
    let mut using_action = 0;
    for workflow in &workflows {
        let mut uses_action = false;
        for job in workflow["jobs"]
            .as_object()
            .into_iter()
            .flat_map(|j| j.values())
        {
            for step in job["steps"].as_array().into_iter().flatten() {
                if str_at(step, "/uses").starts_with("your-org/garrison@") {
                    uses_action = true;
                    for key in map_keys(step.get("with")) {
                        assert!(
                            input_names.contains(&key),
                            "workflow uses unknown input `{key}`"
                        );
                    }
                    // The runner passes `push: false` to the action as the string "false".
                    let push = step.pointer("/with/push").map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                    if push.as_deref() != Some("false") {
                        pushes += 1;
                        assert_eq!(
                            str_at(workflow, "/permissions/contents"),
                            "write",
                            "a pushing workflow needs contents: write"
                        );
                    }
                }
            }
        }
        if uses_action {
            using_action += 1;
        }
    }
    assert!(
        using_action >= 3,
        "the render, drift and environment workflows use the action"
    );
    assert_eq!(
        pushes, 2,
        "two workflows render and push: to `rendered`, and to each `<env>-next`"
    );

    // What they point at: every cluster directory of a render of the example
    // fleet (the generator's clusters/*) builds with kustomize, and the Flux
    // paths are among them.
    let dir = crate::support::temp();
    let out = dir.path().join("out");
    let repo = testdata().join("fleet/repo");
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut directories = Vec::new();
    if let Ok(entries) = std::fs::read_dir(out.join("clusters")) {
        for entry in entries.filter_map(Result::ok) {
            if entry.path().is_dir() {
                directories.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
    }
    directories.sort();
    let fleet_clusters: Vec<String> = {
        let mut names: Vec<String> = std::fs::read_dir(repo.join("clusters"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .strip_suffix(".yaml")
                    .map(str::to_string)
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(directories, fleet_clusters, "one directory per cluster");
    for cluster in &flux_clusters {
        assert!(
            directories.contains(cluster),
            "the Flux example names `{cluster}`, which is not a cluster of testdata/fleet"
        );
    }
    for cluster in &directories {
        kustomize(&out.join("clusters").join(cluster));
    }
    for cluster in &flux_clusters {
        let built = kustomize(&out.join("clusters").join(cluster));
        assert!(built.contains("kind: Deployment"), "{cluster}: {built}");
    }
}

/// Run one step of action.yml by id with the given environment (no race, no shim).
fn run_step(id: &str, given: &[(&str, &str)], env: &[(&str, &Path)], dir: &Path) -> Output {
    run_step_with(id, given, &BTreeMap::new(), env, dir)
}

/// [`run_step`], with the outputs of earlier steps (`id.name` → value).
fn run_step_with(
    id: &str,
    given: &[(&str, &str)],
    outputs: &BTreeMap<String, String>,
    env: &[(&str, &Path)],
    dir: &Path,
) -> Output {
    let action = action();
    let inputs = inputs(&action, given);
    let step = steps(&action)
        .into_iter()
        .find(|s| str_at(s, "/id") == id)
        .unwrap_or_else(|| panic!("action.yml has no step with id `{id}`"));
    let script = dir.join(format!("{id}.sh"));
    write(&script, str_at(&step, "/run"));
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&script)
        .current_dir(dir)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64");
    for (name, value) in env {
        command.env(name, value);
    }
    if let Some(env) = step.get("env").and_then(Value::as_object) {
        for (name, value) in env {
            command.env(
                name,
                evaluate_with(value.as_str().unwrap_or(""), &inputs, outputs),
            );
        }
    }
    match command.output() {
        Ok(o) => o,
        Err(e) => panic!("bash is required for this test: {e}"),
    }
}

#[test]
fn the_report_is_uploaded_and_linked_from_the_job_summary() {
    let action = action();
    let steps = steps(&action);
    let position = |id: &str| {
        steps
            .iter()
            .position(|s| str_at(s, "/id") == id)
            .unwrap_or_else(|| panic!("action.yml has no step `{id}`"))
    };
    let (render, upload, link) = (
        position("render"),
        position("upload"),
        position("report-link"),
    );
    assert!(
        render < upload && upload < link,
        "render, upload, then link"
    );
    let upload = &steps[upload];
    assert!(str_at(upload, "/uses").starts_with("actions/upload-artifact@v4"));
    assert_eq!(str_at(upload, "/if"), "steps.render.outputs.report != ''");
    assert_eq!(
        str_at(upload, "/with/path"),
        "${{ steps.render.outputs.report }}"
    );
    assert_eq!(
        str_at(upload, "/with/name"),
        "${{ inputs.report-artifact }}"
    );
    assert_eq!(
        str_at(&steps[link], "/if"),
        "steps.upload.outputs.artifact-url != ''"
    );

    let dir = crate::support::temp();
    let summary = dir.path().join("summary");
    write(&summary, "### garrison render\n");
    let outputs: BTreeMap<String, String> = [(
        "upload.artifact-url".to_string(),
        "https://github.com/acme/fleet/actions/runs/1/artifacts/2".to_string(),
    )]
    .into_iter()
    .collect();
    let output = run_step_with(
        "report-link",
        &[("report-artifact", "fleet-report")],
        &outputs,
        &[("GITHUB_STEP_SUMMARY", &summary)],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = read(&summary);
    assert!(
        text.starts_with("### garrison render\n"),
        "appended: {text}"
    );
    assert!(
        text.contains("**[The plan, drawn](https://github.com/acme/fleet/actions/runs/1/artifacts/2)**: the `fleet-report` artifact"),
        "{text}"
    );
}

#[test]
fn a_release_is_downloaded_from_the_actions_own_repository_and_verified() {
    for tool in ["curl", "sha256sum", "tar"] {
        let found = Command::new(tool).arg("--version").output();
        assert!(found.is_ok(), "{tool} is required for this test");
    }
    let dir = crate::support::temp();
    let top = dir.path();
    // A fake release server (file://) and the action checked out where the
    // runner puts it: _actions/<owner>/<repo>/<ref>.
    let release = top.join("server/acme/garrison/releases/download/v0.2.0");
    let asset = "garrison-0.2.0-x86_64-unknown-linux-musl.tar.gz";
    let staging = top.join("staging/garrison-0.2.0");
    write(&staging.join("garrison"), "#!/bin/sh\necho fake garrison\n");
    #[cfg(unix)]
    make_executable(&staging.join("garrison"));
    let _ = std::fs::create_dir_all(&release);
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(release.join(asset))
        .arg("-C")
        .arg(top.join("staging"))
        .arg("garrison-0.2.0")
        .output();
    assert!(matches!(&tar, Ok(o) if o.status.success()), "{tar:?}");
    let sum = match Command::new("sha256sum")
        .arg(asset)
        .current_dir(&release)
        .output()
    {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => panic!("{e}"),
    };
    write(&release.join(format!("{asset}.sha256")), &sum);
    let action_path = top.join("_actions/acme/garrison/v1");
    let _ = std::fs::create_dir_all(&action_path);
    let server = top.join("server");
    let server_url = format!("file://{}", server.display());
    let outputs = top.join("outputs");
    let path_file = top.join("path");
    let runner_temp = top.join("tmp");
    let _ = std::fs::create_dir_all(&runner_temp);
    let env = [
        ("GITHUB_SERVER_URL", Path::new(&server_url)),
        ("GITHUB_ACTION_PATH", action_path.as_path()),
        ("GITHUB_OUTPUT", outputs.as_path()),
        ("GITHUB_PATH", path_file.as_path()),
        ("RUNNER_TEMP", runner_temp.as_path()),
    ];
    let ok = run_step("download", &[("version", "v0.2.0")], &env, top);
    assert!(ok.status.success(), "{}{}", stdout(&ok), stderr(&ok));
    let written = read(&outputs);
    let Some(bin) = written.lines().find_map(|l| l.strip_prefix("bin=")) else {
        panic!("no bin output: {written}");
    };
    let ran = Command::new(bin).output();
    assert!(
        matches!(&ran, Ok(o) if stdout(o).contains("fake garrison")),
        "{ran:?}"
    );
    assert!(read(&path_file).contains("garrison-0.2.0"));

    // A tampered archive is refused before anything is unpacked or exported.
    let tampered = match sum.strip_prefix('0') {
        Some(rest) => format!("1{rest}"),
        None => format!("0{}", &sum[1..]),
    };
    write(&release.join(format!("{asset}.sha256")), &tampered);
    let _ = std::fs::remove_dir_all(&runner_temp);
    let _ = std::fs::create_dir_all(&runner_temp);
    write(&outputs, "");
    let refused = run_step("download", &[("version", "0.2.0")], &env, top);
    assert!(!refused.status.success(), "{}", stdout(&refused));
    assert!(
        stdout(&refused).contains(&format!("{asset}: FAILED")),
        "{}",
        stdout(&refused)
    );
    assert_eq!(read(&outputs), "");

    // The runner's platform picks the archive; one without a release
    // binary is an error that says what to do.
    let mut on = env.to_vec();
    on.push(("RUNNER_ARCH", Path::new("ARM64")));
    let arm = run_step("download", &[("version", "0.2.0")], &on, top);
    assert!(!arm.status.success());
    assert!(
        stderr(&arm).contains("garrison-0.2.0-aarch64-unknown-linux-musl.tar.gz"),
        "{}",
        stderr(&arm)
    );
    on.push(("RUNNER_OS", Path::new("Windows")));
    let windows = run_step("download", &[("version", "0.2.0")], &on, top);
    assert!(!windows.status.success());
    assert!(
        stdout(&windows).contains("no release binary for Windows/ARM64; use version: source"),
        "{}",
        stdout(&windows)
    );

    // Versions are checked before anything runs.
    let bad = run_step("install", &[("version", "latest")], &env, top);
    assert!(!bad.status.success());
    assert!(
        stdout(&bad).contains("version must be `source` or a release such as 0.2.0, not 'latest'"),
        "{}",
        stdout(&bad)
    );
}
