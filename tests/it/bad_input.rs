//! The bad-input corpus (SPEC §8): every case under `testdata/bad-input/`
//! is rendered over a known-good previous render. A `G….-*` case must exit 2,
//! print exactly the snapshotted diagnostics and leave the previous output
//! byte-identical; an `ok-*` case must succeed with the snapshotted warnings.

use crate::support::{copy_dir, read_tree, render_to, stderr, testdata};
use std::path::{Path, PathBuf};

fn render(repo: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--color", "never"];
    args.extend_from_slice(extra);
    render_to(repo, out, &args)
}

/// The repository to render for `case`: the fixture itself, or a copy with
/// what git does not hold well (symbolic links) added at run time.
fn prepare(case: &str, repo: &Path, dir: &Path) -> PathBuf {
    let link = |target: &Path, link: &Path| {
        if let Err(e) = std::os::unix::fs::symlink(target, link) {
            panic!("cannot create the link {}: {e}", link.display());
        }
    };
    match case {
        "G0003-symlink-outside" => {
            let copy = dir.join("repo");
            copy_dir(repo, &copy);
            let outside = dir.join("outside");
            let _ = std::fs::create_dir_all(&outside);
            let secret = outside.join("secret.yaml");
            if let Err(e) = std::fs::write(
                &secret,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\n  namespace: shop\n",
            ) {
                panic!("cannot write {}: {e}", secret.display());
            }
            link(&secret, &copy.join("linked.yaml"));
            link(Path::new("../outside"), &copy.join("shared"));
            copy
        }
        "G0001-broken-symlink" => {
            let copy = dir.join("repo");
            copy_dir(repo, &copy);
            link(Path::new("missing.yaml"), &copy.join("gone.yaml"));
            copy
        }
        _ => repo.to_path_buf(),
    }
}

/// A copy of `repo` with byte-order marks and CRLF line ends removed.
fn normalized_copy(repo: &Path, to: &Path) {
    for (path, bytes) in read_tree(repo) {
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let target = to.join(&path);
        if let Some(parent) = target.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&target, text.replace("\r\n", "\n")) {
            panic!("cannot write {}: {e}", target.display());
        }
    }
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    insta::glob!("../../testdata/bad-input", "*/repo", |repo| {
        let case_dir = repo.parent().unwrap_or(Path::new("."));
        let case = case_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The previous render is of another fleet, which an `ok-` case
        // replaces whole: a mass prune, allowed here (tests/it/prune.rs
        // tests the guard).
        let extra: &[&str] = if case.starts_with("ok-") {
            &["--allow-mass-prune"]
        } else {
            &[]
        };
        let dir = crate::support::temp();
        let out = dir.path().join("out");

        // A known-good previous render.
        let good = render(&testdata().join("duplicated/repo"), &out, &[]);
        assert!(good.status.success(), "{}", stderr(&good));
        let before = read_tree(&out);
        assert!(!before.is_empty());

        let repo = prepare(&case, repo, dir.path());
        let output = render(&repo, &out, extra);
        let text = stderr(&output)
            .replace(&repo.to_string_lossy().into_owned(), "[REPO]")
            .replace(&dir.path().to_string_lossy().into_owned(), "[TMP]");

        if case.starts_with("ok-") {
            assert_eq!(output.status.code(), Some(0), "{case} must render:\n{text}");
            if case == "ok-crlf" || case == "ok-utf8-bom" {
                // The same output as the file written plainly.
                let plain = dir.path().join("plain");
                normalized_copy(&repo, &plain);
                let out2 = dir.path().join("out2");
                let first = render(&testdata().join("duplicated/repo"), &out2, &[]);
                assert!(first.status.success(), "{}", stderr(&first));
                let again = render(&plain, &out2, extra);
                assert!(again.status.success(), "{}", stderr(&again));
                assert_eq!(read_tree(&out), read_tree(&out2), "{case}");
            }
        } else {
            assert_eq!(
                output.status.code(),
                Some(2),
                "{case} must be refused with exit 2:\n{text}"
            );
            assert!(
                text.contains("help:"),
                "{case}: every error says what to do:\n{text}"
            );
            assert_eq!(
                read_tree(&out),
                before,
                "{case} changed the previous output"
            );
        }
        insta::assert_snapshot!(text);
    });
}
