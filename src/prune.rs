//! The mass-prune guard (SPEC §10): what a render would remove from the
//! previous render, and whether that is so much that it is probably a
//! mistake (an emptied `include` glob, a cluster file moved away, a selector
//! that stopped matching) rather than a change.
//!
//! GitOps tools prune what disappears from the rendered tree, so a render
//! that drops most of the fleet's objects and exits 0 is an outage. Such a
//! render is refused unless `--allow-mass-prune`: one that removes every
//! object of the previous render (which had at least one), or more than
//! `massPrune.maxShare` of them once the previous render has at least
//! `massPrune.minObjects`. Only object files count: `kustomization.yaml`,
//! the bindings and the marker are bookkeeping, and the objects of paused
//! clusters are kept by design, so they are neither counted nor removed.
//! Pure: the commands hand in the two renders as paths.

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::config::MassPruneConfig;
use crate::model::layout::{self, Format, Layout};
use crate::model::meta::ObjectKey;
use crate::model::record::BindingRecord;
use std::collections::{BTreeMap, BTreeSet};

/// How many removed objects the diagnostic names before "and N more".
const LISTED: usize = 20;

/// What a render removes from the previous one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removal {
    /// Object files of the previous render, those of paused clusters aside.
    pub previous: usize,
    /// The paths of those the new render does not keep, sorted.
    pub removed: Vec<String>,
}

/// Whether removing `removed` of `previous` objects is a mass prune: all of
/// them, or more than `max_share` of them once there are `min_objects`.
pub fn is_mass_prune(previous: usize, removed: usize, max_share: f64, min_objects: usize) -> bool {
    if previous == 0 || removed == 0 {
        return false;
    }
    removed >= previous || (previous >= min_objects && removed as f64 > max_share * previous as f64)
}

/// What the previous render (every path of it, read or not) loses when
/// only the paths for which `survives` holds are left; the objects of
/// `paused` clusters are not counted.
pub fn removal<'a>(
    previous: impl IntoIterator<Item = &'a String>,
    survives: impl Fn(&str) -> bool,
    paused: &BTreeSet<&str>,
) -> Removal {
    let mut removal = Removal::default();
    for path in previous {
        let Some(cluster) = layout::object_cluster(path) else {
            continue;
        };
        if paused.contains(cluster) {
            continue;
        }
        removal.previous += 1;
        if !survives(path) {
            removal.removed.push(path.clone());
        }
    }
    removal.removed.sort();
    removal
}

/// Object path → `Kind/namespace/name`, from the previous render's bindings:
/// where each application's file was written on each of its clusters.
pub fn names(
    bindings: &BTreeMap<ObjectKey, BindingRecord>,
    format: Format,
) -> BTreeMap<String, String> {
    let layout = Layout::new(format);
    let mut names = BTreeMap::new();
    for (key, binding) in bindings {
        for (cluster, _) in &binding.clusters {
            let path = layout.cluster_object(key, cluster);
            names.insert(path, key.to_string());
        }
    }
    names
}

impl Removal {
    /// G0603 when this removal is a mass prune under `config`: an error for
    /// a render, a warning for a command that only shows what a render
    /// would do. The removed objects are named from `names` ([`names`]),
    /// which is asked for only then.
    pub fn diagnostic(
        &self,
        config: &MassPruneConfig,
        severity: Severity,
        names: impl FnOnce() -> BTreeMap<String, String>,
    ) -> Option<Diagnostic> {
        let removed = self.removed.len();
        let share = config.max_share();
        if !is_mass_prune(self.previous, removed, share, config.min_objects()) {
            return None;
        }
        let mut message = if removed >= self.previous {
            format!(
                "the render would remove every object of the previous render ({removed} of {})",
                self.previous
            )
        } else {
            format!(
                "the render would remove {removed} of the previous render's {} objects, more than `massPrune.maxShare` ({share}) allows",
                self.previous
            )
        };
        // One line each: the full renderer aligns them under the message,
        // the concise one joins them.
        message.push(':');
        let names = names();
        for path in self.removed.iter().take(LISTED) {
            message.push('\n');
            match (layout::object_cluster(path), names.get(path)) {
                (Some(cluster), Some(name)) => message.push_str(&format!("{cluster}: {name}")),
                _ => message.push_str(path),
            }
        }
        if removed > LISTED {
            message.push_str(&format!("\nand {} more", removed - LISTED));
        }
        let diagnostic = match severity {
            Severity::Error => Diagnostic::error(Code::MassPrune, message),
            Severity::Warning => Diagnostic::warning(Code::MassPrune, message),
        };
        Some(diagnostic.help(
            "if the removal is deliberate, render with `--allow-mass-prune` (or raise `massPrune.maxShare` / `massPrune.minObjects` in garrison.yaml); otherwise check `--repo`, the `include`/`exclude` globs of garrison.yaml and the clusters, policies and templates the objects came from",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mass_prune_decisions() {
        // (previous, removed, maxShare, minObjects, refused, case)
        let table: &[(usize, usize, f64, usize, bool, &str)] = &[
            (0, 0, 0.5, 20, false, "no previous render"),
            (1, 1, 0.5, 20, true, "the only object removed"),
            (3, 2, 0.5, 20, false, "most of a small render, not all"),
            (20, 19, 0.5, 20, true, "19 of 20"),
            (20, 20, 0.5, 20, true, "all of 20"),
            (20, 10, 0.5, 20, false, "exactly half is allowed"),
            (20, 11, 0.5, 20, true, "more than half"),
            (19, 18, 0.5, 20, false, "below minObjects only all counts"),
            (100, 0, 0.5, 20, false, "nothing removed"),
            (10, 2, 0.1, 5, true, "custom share and minimum"),
            (10, 1, 0.1, 5, false, "custom share reached, not passed"),
            (10, 9, 1.0, 0, false, "maxShare 1: only all counts"),
            (10, 10, 1.0, 0, true, "maxShare 1, all removed"),
            (4, 1, 0.0, 0, true, "maxShare 0: any removal"),
        ];
        for &(previous, removed, share, min, refused, case) in table {
            assert_eq!(
                is_mass_prune(previous, removed, share, min),
                refused,
                "{case}: {removed} of {previous}, maxShare {share}, minObjects {min}"
            );
        }
    }

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn only_object_files_of_unpaused_clusters_count() {
        let previous = paths(&[
            ".garrison.json",
            "bindings/web/deployment.apps_web.yaml",
            "clusters/a/kustomization.yaml",
            "clusters/a/web/deployment.apps_web.yaml",
            "clusters/b/web/deployment.apps_web.yaml",
            "clusters/p/web/deployment.apps_web.yaml",
        ]);
        // Unread files come after the read ones; the removed are sorted.
        let unread = paths(&["clusters/a/_cluster/namespace_web.yaml"]);
        let paused = BTreeSet::from(["p"]);
        let survives = |p: &str| p.starts_with("clusters/b/");
        let removal = removal(previous.iter().chain(&unread), survives, &paused);
        assert_eq!(
            removal,
            Removal {
                previous: 3,
                removed: paths(&[
                    "clusters/a/_cluster/namespace_web.yaml",
                    "clusters/a/web/deployment.apps_web.yaml",
                ]),
            }
        );
    }

    #[test]
    fn the_diagnostic_counts_and_names_the_first_twenty() {
        let removal = Removal {
            previous: 30,
            removed: (1..=25)
                .map(|i| format!("clusters/a/web/configmap_c{i:02}.yaml"))
                .collect(),
        };
        let names = || {
            (2..=25)
                .map(|i| {
                    (
                        format!("clusters/a/web/configmap_c{i:02}.yaml"),
                        format!("ConfigMap/web/c{i:02}"),
                    )
                })
                .collect()
        };
        let config = MassPruneConfig::default();
        let Some(diagnostic) = removal.diagnostic(&config, Severity::Error, names) else {
            panic!("25 of 30 is a mass prune");
        };
        assert_eq!(diagnostic.severity, Severity::Error);
        insta::assert_snapshot!(diagnostic.message, @r"
        the render would remove 25 of the previous render's 30 objects, more than `massPrune.maxShare` (0.5) allows:
        clusters/a/web/configmap_c01.yaml
        a: ConfigMap/web/c02
        a: ConfigMap/web/c03
        a: ConfigMap/web/c04
        a: ConfigMap/web/c05
        a: ConfigMap/web/c06
        a: ConfigMap/web/c07
        a: ConfigMap/web/c08
        a: ConfigMap/web/c09
        a: ConfigMap/web/c10
        a: ConfigMap/web/c11
        a: ConfigMap/web/c12
        a: ConfigMap/web/c13
        a: ConfigMap/web/c14
        a: ConfigMap/web/c15
        a: ConfigMap/web/c16
        a: ConfigMap/web/c17
        a: ConfigMap/web/c18
        a: ConfigMap/web/c19
        a: ConfigMap/web/c20
        and 5 more
        ");
        let few = Removal {
            previous: 30,
            removed: paths(&["clusters/a/web/configmap_c01.yaml"]),
        };
        let unasked = || -> BTreeMap<String, String> { panic!("no names without a mass prune") };
        assert_eq!(few.diagnostic(&config, Severity::Warning, unasked), None);
        let all = Removal {
            previous: 2,
            removed: paths(&[
                "clusters/a/web/configmap_c01.yaml",
                "clusters/b/web/configmap_c01.yaml",
            ]),
        };
        let warning = all.diagnostic(&config, Severity::Warning, BTreeMap::new);
        assert_eq!(
            warning.as_ref().map(|d| d.severity),
            Some(Severity::Warning)
        );
        insta::assert_snapshot!(warning.map(|d| d.message).unwrap_or_default(), @r"
        the render would remove every object of the previous render (2 of 2):
        clusters/a/web/configmap_c01.yaml
        clusters/b/web/configmap_c01.yaml
        ");
    }
}
