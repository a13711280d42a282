//! `--shard K/N` and `--merge-shards`: a CI matrix renders disjoint shares of
//! the fleet, and their combination is exactly the whole render.

use crate::support::{copy_dir, read_tree, render_to, run, stderr, testdata};

#[test]
fn merged_shards_equal_the_whole_render_and_are_disjoint() {
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    copy_dir(&testdata().join("fleet/repo"), &repo);
    let repo_arg = repo.to_string_lossy().into_owned();
    let whole = dir.path().join("whole");
    let output = render_to(&repo, &whole, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));

    let out = dir.path().join("out");
    let mut shard_dirs = Vec::new();
    let mut seen_clusters = std::collections::BTreeSet::new();
    for k in 1..=3 {
        let shard = dir.path().join(format!("shard-{k}"));
        let output = render_to(
            &repo,
            &out,
            &[
                "--shard",
                &format!("{k}/3"),
                "--shard-dir",
                &shard.to_string_lossy(),
                "-q",
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        for path in read_tree(&shard)
            .keys()
            .filter_map(|p| p.strip_prefix("clusters/"))
        {
            let cluster = path.split('/').next().unwrap_or("").to_string();
            if path.ends_with("/kustomization.yaml") {
                assert!(
                    seen_clusters.insert(cluster.clone()),
                    "cluster {cluster} is in two shards"
                );
            }
        }
        shard_dirs.push(shard.to_string_lossy().into_owned());
    }
    assert_eq!(
        seen_clusters.len(),
        12,
        "every cluster is in exactly one shard"
    );

    let mut args = vec![
        "render".to_string(),
        "--repo".into(),
        repo_arg.clone(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "-q".into(),
        "--merge-shards".into(),
    ];
    args.extend(shard_dirs.iter().cloned());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&refs);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_tree(&out),
        read_tree(&whole),
        "merged shards equal the whole render"
    );

    // A missing shard is refused and nothing is written.
    let before = read_tree(&out);
    let output = render_to(
        &repo,
        &out,
        &["--merge-shards", &shard_dirs[0], &shard_dirs[1]],
    );
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&output), @"garrison: error: shards 3/3 are missing; pass every shard directory");
    assert_eq!(read_tree(&out), before);
}

#[test]
fn a_bad_shard_spec_is_refused_by_the_command_line() {
    let output = run(&["render", "--out", "x", "--shard", "4/3", "--shard-dir", "y"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("shard `4/3` must satisfy 1 <= K <= N"),
        "{}",
        stderr(&output)
    );
}

/// The summary of merged shards is the summary of the whole render: every
/// cluster's row, the paused one marked, and what its pause holds back, on
/// stdout and in the step summary, first render and re-render alike.
#[test]
fn merged_shards_report_what_the_whole_render_reports() {
    let dir = crate::support::temp();
    let repo = testdata().join("fleet/repo");
    let (whole, merged) = (dir.path().join("whole"), dir.path().join("merged"));
    for round in ["first render", "re-render"] {
        let steps = [dir.path().join("whole.md"), dir.path().join("merged.md")];
        let step = |i: usize| steps[i].to_string_lossy().into_owned();
        for step in &steps {
            let _ = std::fs::remove_file(step);
        }
        let direct = render_to(&repo, &whole, &["--step-summary", &step(0)]);
        assert!(direct.status.success(), "{}", stderr(&direct));
        let mut shards = Vec::new();
        for k in 1..=2 {
            let shard = dir.path().join(format!("shard-{k}"));
            let shard_arg = shard.to_string_lossy().into_owned();
            let output = render_to(
                &repo,
                &merged,
                &["--shard", &format!("{k}/2"), "--shard-dir", &shard_arg],
            );
            assert!(output.status.success(), "{}", stderr(&output));
            shards.push(shard_arg);
        }
        let merged_step = step(1);
        let mut extra = vec!["--step-summary", &merged_step, "--merge-shards"];
        extra.extend(shards.iter().map(String::as_str));
        let output = render_to(&repo, &merged, &extra);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = crate::support::stdout(&output);
        assert!(
            text.contains("us-west-2           0        0        0          0  (paused)\n")
                && text.contains("held back on us-west-2: 10 to add, 0 to change, 0 to remove\n"),
            "{round}:\n{text}"
        );
        assert_eq!(text, crate::support::stdout(&direct), "{round}");
        let read = |path: &std::path::Path| std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(read(&steps[1]), read(&steps[0]), "{round}: step summary");
        assert!(
            read(&steps[1]).contains("| `us-west-2` (paused) |"),
            "{round}"
        );
    }
}
