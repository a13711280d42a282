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
