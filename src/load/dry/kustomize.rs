//! What `kustomize build` of a directory reads, found before it runs.
//!
//! kustomize loads files only from inside the kustomization's own directory
//! tree (its default load restrictor), except for the other kustomizations it
//! names: `resources`, `bases`, `components`, `generators`, `transformers`
//! and `validators` entries that are directories. So the directories reached
//! from the source through those entries hold every file the build can read:
//! their trees are the source's inputs (hashed for the cache) and are not read
//! as plain templates. An entry that is not a path in the repository would be
//! fetched by kustomize (a Git URL, an HTTP address) and is refused first: a
//! render reads the repository only.

use super::Problem;
use crate::load::yaml::{parse_stream, Limits};
use crate::node::{Node, NodeKind, Pos};
use std::collections::BTreeSet;
use std::path::Path;

/// The names kustomize reads a kustomization from, in its order.
pub const KUSTOMIZATION_FILES: &[&str] =
    &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The fields whose entries may be other kustomization directories.
const REFERENCING_FIELDS: &[&str] = &[
    "resources",
    "bases",
    "components",
    "generators",
    "transformers",
    "validators",
];

/// What a build of a directory reaches: every kustomization directory
/// (relative to `root`, `/`-separated) it names, the start included, and
/// what stops it from building.
#[derive(Debug, Default)]
pub struct Reached {
    pub dirs: BTreeSet<String>,
    pub problems: Vec<Problem>,
}

/// The directories a build of `start` reaches, and every fault on the
/// way. A fault does not end the walk: the directories past it are still
/// the source's (a base beside a remote one, a component), so that a
/// refused source's files are never read as plain templates.
pub fn reach(root: &Path, start: &str) -> Reached {
    let mut reached = Reached::default();
    let mut pending = vec![normalize(start).unwrap_or_default()];
    while let Some(dir) = pending.pop() {
        if !reached.dirs.insert(dir.clone()) {
            continue;
        }
        let Some((file, text)) = kustomization(root, &dir) else {
            reached.problems.push(Problem::plain(
                format!("`{dir}` holds no kustomization (`kustomization.yaml`, `kustomization.yml` or `Kustomization`)"),
                "name a directory that `kustomize build` can build",
            ));
            continue;
        };
        let node = match parse_stream(&text, &Limits::default()) {
            Ok(mut nodes) if !nodes.is_empty() => nodes.swap_remove(0),
            Ok(_) => continue,
            Err(e) => {
                let mut problem = Problem::in_file(
                    &file,
                    text,
                    e.pos.unwrap_or(Pos { line: 1, column: 1 }),
                    e.message,
                    e.help,
                );
                problem.code = crate::diag::Code::Syntax;
                reached.problems.push(problem);
                continue;
            }
        };
        for (entry, pos) in references(&node) {
            match resolve(root, &dir, &entry) {
                Ok(Some(next)) => pending.push(next),
                Ok(None) => {}
                Err((message, help)) => {
                    reached.problems.push(Problem::in_file(
                        &file,
                        text.clone(),
                        pos,
                        message,
                        help,
                    ));
                }
            }
        }
    }
    reached
}

/// The kustomization file of `dir`: its path relative to the root, and text.
fn kustomization(root: &Path, dir: &str) -> Option<(String, String)> {
    KUSTOMIZATION_FILES.iter().find_map(|name| {
        let relative = join(dir, name);
        let text = std::fs::read_to_string(root.join(&relative)).ok()?;
        Some((relative, text))
    })
}

/// The string entries of the referencing fields, with their positions.
/// Inline generator or transformer configurations (YAML written as a
/// string) are not paths.
fn references(node: &Node) -> Vec<(String, Pos)> {
    let NodeKind::Map(entries) = &node.kind else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (key, _, value) in entries {
        if !REFERENCING_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if let NodeKind::Seq(items) = &value.kind {
            for item in items {
                if let NodeKind::String(s) = &item.kind {
                    if !s.contains('\n') {
                        found.push((s.clone(), item.pos));
                    }
                }
            }
        }
    }
    found
}

/// Where `entry`, written in the kustomization of `dir`, leads: another
/// kustomization directory (`Some`), a file (`None`), or a fault.
fn resolve(root: &Path, dir: &str, entry: &str) -> Result<Option<String>, (String, String)> {
    if is_remote(entry) {
        return Err((
            format!("`{entry}` is a remote base: garrison renders from the repository only and never fetches"),
            "vendor the base into the repository and name its directory".to_string(),
        ));
    }
    let Some(path) = normalize(&join(dir, entry)) else {
        return Err((
            format!("`{entry}` leads out of the repository"),
            "dry sources are read from the repository only: keep every base inside it".to_string(),
        ));
    };
    let absolute = root.join(&path);
    if absolute.is_dir() {
        if kustomization(root, &path).is_none() {
            return Err((
                format!("`{entry}` is a directory without a kustomization (`kustomization.yaml`, `kustomization.yml` or `Kustomization`)"),
                "name a kustomization directory or a file; kustomize builds directories only through their kustomization".to_string(),
            ));
        }
        Ok(Some(path))
    } else if absolute.is_file() {
        Ok(None)
    } else {
        Err((
            format!("`{entry}` is not a file or directory of the repository (`{path}`); kustomize would try to fetch it"),
            "fix the path, or vendor what it names into the repository".to_string(),
        ))
    }
}

/// Whether kustomize would fetch `entry` rather than read it.
fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.contains("?ref=")
        || entry.contains(".git//")
        || ["github.com/", "gitlab.com/", "bitbucket.org/"]
            .iter()
            .any(|host| entry.starts_with(host))
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// `path` with `.` and `..` worked out; `None` when it leaves the root.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "garrison-kustomize-reach-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).ok();
            }
            std::fs::write(path, text).ok();
        }
        dir
    }

    #[test]
    fn an_overlay_reaches_its_bases_and_components_but_not_its_files() {
        let root = tree("overlay", &[
            ("apps/base/kustomization.yaml", "resources: [deployment.yaml]\n"),
            ("apps/base/deployment.yaml", "kind: Deployment\n"),
            ("apps/components/probes/kustomization.yaml", "kind: Component\n"),
            (
                "apps/prod/kustomization.yaml",
                "resources:\n- ../base\n- extra.yaml\ncomponents:\n- ../components/probes\ntransformers:\n- |\n  kind: X\n",
            ),
            ("apps/prod/extra.yaml", "kind: ConfigMap\n"),
        ]);
        let reached = reach(&root, "apps/prod");
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(reached.problems.len(), 0, "{:?}", reached.problems);
        assert_eq!(
            reached.dirs.into_iter().collect::<Vec<_>>(),
            vec![
                "apps/base".to_string(),
                "apps/components/probes".to_string(),
                "apps/prod".to_string()
            ]
        );
    }

    #[test]
    fn a_remote_or_missing_base_or_one_outside_the_repository_is_refused_at_its_line() {
        for (entry, says) in [
            (
                "https://github.com/org/repo//base?ref=v1",
                "is a remote base",
            ),
            ("github.com/org/repo/base", "is a remote base"),
            ("../../../elsewhere", "leads out of the repository"),
            ("../missing", "is not a file or directory of the repository"),
            ("../plain", "is a directory without a kustomization"),
        ] {
            let root = tree(
                "refused",
                &[
                    (
                        "apps/prod/kustomization.yaml",
                        &format!("namespace: shop\nresources:\n- {entry}\n"),
                    ),
                    ("apps/plain/deployment.yaml", "kind: Deployment\n"),
                ],
            );
            let result = reach(&root, "apps/prod");
            let _ = std::fs::remove_dir_all(&root);
            let [problem] = result.problems.as_slice() else {
                panic!("`{entry}`: {:?}", result.problems);
            };
            assert!(
                problem.message.contains(says),
                "{entry}: {}",
                problem.message
            );
            assert_eq!(
                problem
                    .place
                    .as_ref()
                    .map(|p| (p.path.as_str(), p.pos.line)),
                Some(("apps/prod/kustomization.yaml", 3)),
                "{entry}"
            );
        }
    }

    #[test]
    fn a_refused_overlay_still_reaches_every_base_and_component_past_each_fault() {
        let root = tree("past-faults", &[
            ("apps/base/kustomization.yaml", "resources: [deployment.yaml, ../more]\n"),
            ("apps/base/deployment.yaml", "kind: Deployment\n"),
            ("apps/more/kustomization.yaml", "resources: [\"oops\n"),
            ("apps/components/probes/kustomization.yaml", "kind: Component\n"),
            (
                "apps/prod/kustomization.yaml",
                "resources:\n- https://github.com/org/repo//base?ref=v1\n- ../base\n- github.com/org/other\ncomponents:\n- ../components/probes\n",
            ),
        ]);
        let reached = reach(&root, "apps/prod");
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            reached.dirs.iter().map(String::as_str).collect::<Vec<_>>(),
            [
                "apps/base",
                "apps/components/probes",
                "apps/more",
                "apps/prod"
            ]
        );
        let found: Vec<(u32, &str)> = reached
            .problems
            .iter()
            .map(|p| {
                (
                    p.place.as_ref().map_or(0, |p| p.pos.line),
                    p.message.as_str(),
                )
            })
            .collect();
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found
            .iter()
            .any(|(line, m)| *line == 2 && m.contains("is a remote base")));
        assert!(found
            .iter()
            .any(|(line, m)| *line == 4 && m.contains("is a remote base")));
        assert!(
            reached
                .problems
                .iter()
                .any(|p| p.code == crate::diag::Code::Syntax),
            "the base's unreadable kustomization"
        );
    }

    #[test]
    fn normalize_works_out_dots_and_refuses_leaving_the_root() {
        assert_eq!(normalize("a/./b/../c/"), Some("a/c".to_string()));
        assert_eq!(normalize("a/../.."), None);
    }
}
