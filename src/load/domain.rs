//! garrison's own domain is closed (SPEC §10): every `garrison.dev/` label
//! and annotation of a document, and every `garrison.dev/` key of a label
//! selector in garrison's own inputs, is checked against the table of
//! [`crate::model::domain`]. A key the table lacks, a key on a document
//! that does not read it, and a value the key does not take are each error
//! G0114, with the key or value meant: read as unknown and ignored,
//! `garrison.dev/sync-pause: "true"` would deliver the new image to the
//! cluster the user meant to pause, and `garrison.dev/frot: enabled` would
//! leave the application without its fort.
//!
//! Checked: `metadata.labels` and `metadata.annotations` of every document,
//! and the `matchLabels` and `matchExpressions` keys of the selectors of
//! policies, Subscriptions, Globalizations and taint policies (a template's
//! own selectors select pods, which are not garrison's). A key whose
//! domain is one or two letters from `garrison.dev` (`garison.dev/fort`) is
//! taken for a misspelling of it. Fort pins are cluster names, which
//! claiming checks against the binding (G0401).

use crate::diag::{closest, edit_distance, Code, Diagnostic, Diagnostics, Origin};
use crate::model::domain::{self, Holder, Key, Place, Values, PREFIX};
use crate::model::inputs::Document;
use crate::node::{Node, NodeKind, Pos};

/// Check `doc`, a document of `holder` named `what` (`Cluster `us-west-2``).
pub fn check(doc: &Document, holder: Holder, what: &str, diagnostics: &mut Diagnostics) {
    let NodeKind::Map(entries) = &doc.node.kind else {
        return;
    };
    let checker = Checker { doc, holder, what };
    for (key, _, value) in entries {
        if let ("metadata", NodeKind::Map(fields)) = (key.as_str(), &value.kind) {
            for (field, _, map) in fields {
                let place = match field.as_str() {
                    "labels" => Place::Label,
                    "annotations" => Place::Annotation,
                    _ => continue,
                };
                if let NodeKind::Map(map) = &map.kind {
                    for (key, pos, value) in map {
                        checker.entry(key, *pos, place, &[value], diagnostics);
                    }
                }
            }
        } else if holder != Holder::Template {
            checker.selectors(value, key == "resourceSelectors", diagnostics);
        }
    }
}

struct Checker<'a> {
    doc: &'a Document,
    holder: Holder,
    what: &'a str,
}

impl Checker<'_> {
    /// Every selector below `node`. Those under `resourceSelectors` select
    /// templates, which carry no `garrison.dev/` label.
    fn selectors(&self, node: &Node, templates: bool, diagnostics: &mut Diagnostics) {
        let (place, holder) = if templates {
            (Place::Label, Holder::Template)
        } else {
            (Place::ClusterSelector, self.holder)
        };
        let here = Checker { holder, ..*self };
        match &node.kind {
            NodeKind::Map(entries) => {
                for (key, _, value) in entries {
                    match (key.as_str(), &value.kind) {
                        ("matchLabels", NodeKind::Map(labels)) => {
                            for (label, pos, value) in labels {
                                here.entry(label, *pos, place, &[value], diagnostics);
                            }
                        }
                        ("matchExpressions", NodeKind::Seq(requirements)) => {
                            for requirement in requirements {
                                here.requirement(requirement, place, diagnostics);
                            }
                        }
                        _ => {
                            let templates = templates || key == "resourceSelectors";
                            self.selectors(value, templates, diagnostics);
                        }
                    }
                }
            }
            NodeKind::Seq(items) => {
                for item in items {
                    self.selectors(item, templates, diagnostics);
                }
            }
            _ => {}
        }
    }

    /// One `matchExpressions` requirement: its key, and the values of `In`
    /// and `NotIn`.
    fn requirement(&self, node: &Node, place: Place, diagnostics: &mut Diagnostics) {
        let Some(key) = node.get_path(&["key"]) else {
            return;
        };
        let NodeKind::String(name) = &key.kind else {
            return;
        };
        let values: Vec<&Node> = match node.get_path(&["values"]).map(|n| &n.kind) {
            Some(NodeKind::Seq(values)) => values.iter().collect(),
            _ => Vec::new(),
        };
        self.entry(name, key.pos, place, &values, diagnostics);
    }

    /// One key written at `pos` with its values.
    fn entry(
        &self,
        key: &str,
        pos: Pos,
        place: Place,
        values: &[&Node],
        diagnostics: &mut Diagnostics,
    ) {
        let at = |pos| Origin {
            file: self.doc.file,
            pos,
        };
        if !key.starts_with(PREFIX) {
            if let Some(meant) = misspelt_domain(key) {
                diagnostics.push(
                    Diagnostic::error(
                        Code::UnknownGarrisonKey,
                        format!(
                            "{} `{key}` on {}: its domain is one or two letters from garrison's own",
                            place.describe(),
                            self.what
                        ),
                    )
                    .at(at(pos))
                    .help(format!("did you mean `{meant}`?")),
                );
            }
            return;
        }
        let Some(line) = domain::find(key, place, self.holder) else {
            diagnostics.push(self.misplaced_or_unknown(key, place).at(at(pos)));
            return;
        };
        let Values::OneOf(allowed) = line.values else {
            return;
        };
        for value in values {
            let NodeKind::String(written) = &value.kind else {
                continue;
            };
            if allowed.contains(&written.as_str()) {
                continue;
            }
            let help = match meant_value(written, allowed) {
                Some(meant) => format!(
                    "did you mean `{meant}`? `{key}` takes {}, compared as written",
                    line.values.describe()
                ),
                None => format!("`{key}` takes {}", line.values.describe()),
            };
            diagnostics.push(
                Diagnostic::error(
                    Code::UnknownGarrisonKey,
                    format!(
                        "`{key}: \"{written}\"` on {}: `{written}` is not a value of `{key}`",
                        self.what
                    ),
                )
                .at(at(value.pos))
                .help(help),
            );
        }
    }

    /// A key of the domain written where it has no effect, or one the
    /// domain does not have.
    fn misplaced_or_unknown(&self, key: &str, place: Place) -> Diagnostic {
        let lines: Vec<&Key> = domain::lines_of(key).collect();
        if !lines.is_empty() {
            // Where the same kind of key goes, if it goes anywhere else.
            let alike: Vec<&Key> = lines.iter().copied().filter(|l| l.place == place).collect();
            let shown = if alike.is_empty() { lines } else { alike };
            let belongs: Vec<String> = shown.iter().map(|line| line.describe()).collect();
            return Diagnostic::error(
                Code::UnknownGarrisonKey,
                format!(
                    "the {} `{key}` on {} has no effect: it is {}",
                    place.describe(),
                    self.what,
                    belongs.join("; and ")
                ),
            )
            .help(hint(key, place, self.holder).unwrap_or_else(|| {
                if shown.iter().all(|line| line.values == Values::Written) {
                    "remove it: garrison writes it on the bindings it renders, to remember the previous render".to_string()
                } else {
                    "remove it, or write it where it belongs".to_string()
                }
            }));
        }
        let here: Vec<&str> = domain::keys_for(place, self.holder).collect();
        let suffix = &key[PREFIX.len()..];
        let near = |keys: &[&'static str]| -> Option<&'static str> {
            let found = closest(suffix, keys.iter().map(|k| &k[PREFIX.len()..]))?;
            keys.iter().find(|k| k[PREFIX.len()..] == *found).copied()
        };
        let all: Vec<&'static str> = domain::KEYS.iter().map(|k| k.key).collect();
        let help = match near(&here).or_else(|| near(&all)) {
            Some(meant) if here.contains(&meant) => format!("did you mean `{meant}`?"),
            Some(meant) => {
                let lines: Vec<String> = domain::lines_of(meant).map(Key::describe).collect();
                format!("did you mean `{meant}`? It is {}", lines.join("; and "))
            }
            None if here.is_empty() => format!(
                "remove it: garrison reads no `{PREFIX}` {} on {}",
                place.describe(),
                self.holder.describe()
            ),
            None => format!(
                "remove it; the `{PREFIX}` {}s of {} are {}",
                place.describe(),
                self.holder.describe(),
                here.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Diagnostic::error(
            Code::UnknownGarrisonKey,
            format!(
                "unknown {} `{key}` on {}: garrison has no such key",
                place.describe(),
                self.what
            ),
        )
        .help(help)
    }
}

/// What to do instead, where a misplaced key is a known mistake.
fn hint(key: &str, place: Place, holder: Holder) -> Option<String> {
    use crate::model::cluster::SYNC_PAUSED_ANNOTATION;
    use crate::model::meta::FORT_CLUSTER_ANNOTATION;
    use crate::model::policy::FORT_ANNOTATION;
    Some(match (key, place, holder) {
        (SYNC_PAUSED_ANNOTATION, _, Holder::ManagedCluster) => {
            "a ManagedCluster is paused by `spec.syncPaused: true`".to_string()
        }
        (SYNC_PAUSED_ANNOTATION, _, Holder::PropagationPolicy) => {
            "to hold a policy's applications, set its `spec.suspension.dispatching: true` (or `dispatchingOnClusters`); to pause a cluster, annotate the Cluster".to_string()
        }
        (SYNC_PAUSED_ANNOTATION, Place::Label, Holder::Cluster) => {
            "move it to the Cluster's `metadata.annotations`".to_string()
        }
        (domain::FORT_LABEL, Place::Label, Holder::Cluster | Holder::ManagedCluster) => {
            "garrison gives a cluster this label while it renders a fort-enabled application for it; remove it from the cluster".to_string()
        }
        (domain::FORT_LABEL, Place::ClusterSelector, _) => {
            "a cluster carries it only while a fort-enabled application's overrides are applied: select on it in an override rule's `targetCluster` or a Globalization's `clusterAffinity`; the scheduler never sees it".to_string()
        }
        (FORT_ANNOTATION, _, Holder::Template) => format!(
            "opt in on the policy that claims the template (`{FORT_ANNOTATION}: {}`); pin its fort with `{FORT_CLUSTER_ANNOTATION}`",
            domain::FORT_ENABLED
        ),
        (FORT_CLUSTER_ANNOTATION, _, Holder::PropagationPolicy | Holder::Subscription) => {
            format!("pin the fort on the template: `{FORT_CLUSTER_ANNOTATION}` in its annotations")
        }
        _ => return None,
    })
}

/// The value meant by `written`: the closest allowed one, or for a word
/// YAML 1.1 reads as a boolean (`yes`, `on`, `True`) the allowed one it
/// stands for.
fn meant_value(written: &str, allowed: &[&'static str]) -> Option<&'static str> {
    const TRUTHY: &[&str] = &["yes", "y", "on", "1", "enable"];
    const FALSY: &[&str] = &["no", "n", "off", "0", "disable", "disabled"];
    let lower = written.to_lowercase();
    if let Some(near) = closest(written, allowed.iter().copied()) {
        return Some(near);
    }
    let truthy = lower == "true" || TRUTHY.contains(&lower.as_str());
    if truthy {
        if let Some(yes) = allowed.iter().find(|v| **v == "true") {
            return Some(yes);
        }
        if let [only] = allowed {
            return Some(only);
        }
    }
    if lower == "false" || FALSY.contains(&lower.as_str()) {
        return allowed.iter().find(|v| **v == "false").copied();
    }
    None
}

/// The key in garrison's domain that `key` misspells in its domain part
/// (`garison.dev/fort`, `garrison.dve/fort`), if any.
fn misspelt_domain(key: &str) -> Option<String> {
    let (domain_part, name) = key.split_once('/')?;
    let ours = PREFIX.trim_end_matches('/');
    let distance = edit_distance(&domain_part.to_lowercase(), ours);
    (distance > 0 && distance <= 2).then(|| format!("{PREFIX}{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{FileId, Sources};
    use crate::load::yaml::{parse_stream, Limits};

    fn faults(holder: Holder, text: &str) -> Vec<String> {
        let node = match parse_stream(text, &Limits::default()) {
            Ok(mut nodes) if !nodes.is_empty() => nodes.remove(0),
            other => panic!("{other:?}"),
        };
        let doc = Document {
            file: FileId(0),
            node,
        };
        let mut diagnostics = Diagnostics::default();
        check(&doc, holder, "it", &mut diagnostics);
        let mut sources = Sources::default();
        sources.add("d.yaml".into(), text.into());
        crate::diag::render(&diagnostics, &sources, crate::diag::Style::Concise)
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_keys_of_the_table_pass_where_they_belong() {
        let none: Vec<String> = Vec::new();
        assert_eq!(
            faults(Holder::Cluster, "metadata:\n  name: c\n  annotations: {garrison.dev/sync-paused: \"true\", other.io/x: y}\n  labels: {env: prod}\n"),
            none
        );
        assert_eq!(
            faults(Holder::PropagationPolicy, "metadata:\n  annotations: {garrison.dev/fort: enabled}\nspec:\n  placement:\n    clusterAffinity:\n      labelSelector: {matchLabels: {env: prod}}\n"),
            none
        );
        assert_eq!(
            faults(Holder::OverridePolicy, "spec:\n  overrideRules:\n  - targetCluster:\n      labelSelector:\n        matchLabels: {garrison.dev/fort: \"true\"}\n        matchExpressions:\n        - {key: garrison.dev/fort, operator: In, values: [\"false\"]}\n"),
            none
        );
        assert_eq!(
            faults(Holder::Binding, "metadata:\n  annotations: {garrison.dev/render-digest: abc, garrison.dev/held-clusters: a}\n"),
            none,
            "what garrison writes on a binding, copied into the source"
        );
        assert_eq!(
            faults(Holder::Template, "metadata:\n  annotations: {garrison.dev/fort-cluster: us-east-1a}\nspec:\n  selector: {matchLabels: {garrison.dev/anything: x}}\n"),
            none,
            "a template's own selectors are not garrison's"
        );
    }

    #[test]
    fn unknown_keys_misplaced_keys_and_unknown_values_are_refused_with_the_one_meant() {
        let found = |holder, text| faults(holder, text).join("\n");
        insta::assert_snapshot!(found(Holder::Cluster, "metadata:\n  annotations:\n    garrison.dev/sync-pause: \"true\"\n    garrison.dev/sync-paused: \"yes\"\n"), @r#"
        d.yaml:3:5: error[G0114]: unknown annotation `garrison.dev/sync-pause` on it: garrison has no such key (help: did you mean `garrison.dev/sync-paused`?)
        d.yaml:4:31: error[G0114]: `garrison.dev/sync-paused: "yes"` on it: `yes` is not a value of `garrison.dev/sync-paused` (help: did you mean `true`? `garrison.dev/sync-paused` takes `true` or `false`, compared as written)
        "#);
        insta::assert_snapshot!(found(Holder::PropagationPolicy, "metadata:\n  annotations:\n    garrison.dev/frot: enabled\n    garrison.dev/sync-paused: \"true\"\n"), @"
        d.yaml:3:5: error[G0114]: unknown annotation `garrison.dev/frot` on it: garrison has no such key (help: did you mean `garrison.dev/fort`?)
        d.yaml:4:5: error[G0114]: the annotation `garrison.dev/sync-paused` on it has no effect: it is an annotation of a Cluster (cluster.karmada.io) (help: to hold a policy's applications, set its `spec.suspension.dispatching: true` (or `dispatchingOnClusters`); to pause a cluster, annotate the Cluster)
        ");
        insta::assert_snapshot!(found(Holder::PropagationPolicy, "metadata:\n  annotations: {garrison.dev/fort: \"true\", garison.dev/fort: enabled}\nspec:\n  placement:\n    clusterAffinity:\n      labelSelector: {matchLabels: {garrison.dev/fort: \"true\"}}\n  resourceSelectors:\n  - {kind: Deployment, labelSelector: {matchExpressions: [{key: garrison.dev/team, operator: Exists}]}}\n"), @r#"
        d.yaml:2:36: error[G0114]: `garrison.dev/fort: "true"` on it: `true` is not a value of `garrison.dev/fort` (help: did you mean `enabled`? `garrison.dev/fort` takes `enabled`, compared as written)
        d.yaml:2:44: error[G0114]: annotation `garison.dev/fort` on it: its domain is one or two letters from garrison's own (help: did you mean `garrison.dev/fort`?)
        d.yaml:6:37: error[G0114]: the selector key `garrison.dev/fort` on it has no effect: it is a cluster label that the cluster selectors of an OverridePolicy or ClusterOverridePolicy, or a Globalization select on (help: a cluster carries it only while a fort-enabled application's overrides are applied: select on it in an override rule's `targetCluster` or a Globalization's `clusterAffinity`; the scheduler never sees it)
        d.yaml:8:65: error[G0114]: unknown label `garrison.dev/team` on it: garrison has no such key (help: remove it: garrison reads no `garrison.dev/` label on a resource template)
        "#);
        insta::assert_snapshot!(found(Holder::ManagedCluster, "metadata:\n  annotations: {garrison.dev/sync-paused: \"true\"}\n  labels: {garrison.dev/fort: \"true\"}\n"), @"
        d.yaml:2:17: error[G0114]: the annotation `garrison.dev/sync-paused` on it has no effect: it is an annotation of a Cluster (cluster.karmada.io) (help: a ManagedCluster is paused by `spec.syncPaused: true`)
        d.yaml:3:12: error[G0114]: the label `garrison.dev/fort` on it has no effect: it is an annotation of a PropagationPolicy or ClusterPropagationPolicy, or a Subscription; and a cluster label that the cluster selectors of an OverridePolicy or ClusterOverridePolicy, or a Globalization select on (help: garrison gives a cluster this label while it renders a fort-enabled application for it; remove it from the cluster)
        ");
        insta::assert_snapshot!(found(Holder::Template, "metadata:\n  annotations: {garrison.dev/fort: enabled, garrison.dev/render-digest: x}\n"), @"
        d.yaml:2:17: error[G0114]: the annotation `garrison.dev/fort` on it has no effect: it is an annotation of a PropagationPolicy or ClusterPropagationPolicy, or a Subscription (help: opt in on the policy that claims the template (`garrison.dev/fort: enabled`); pin its fort with `garrison.dev/fort-cluster`)
        d.yaml:2:45: error[G0114]: the annotation `garrison.dev/render-digest` on it has no effect: it is an annotation garrison writes on a ResourceBinding or ClusterResourceBinding (help: remove it: garrison writes it on the bindings it renders, to remember the previous render)
        ");
        insta::assert_snapshot!(found(Holder::OverridePolicy, "spec:\n  overrideRules:\n  - targetCluster:\n      labelSelector:\n        matchLabels: {garrison.dev/fort: \"yes\"}\n        matchExpressions:\n        - {key: garrison.dev/frot, operator: In, values: [\"true\"]}\n"), @r#"
        d.yaml:5:42: error[G0114]: `garrison.dev/fort: "yes"` on it: `yes` is not a value of `garrison.dev/fort` (help: did you mean `true`? `garrison.dev/fort` takes `true` or `false`, compared as written)
        d.yaml:7:17: error[G0114]: unknown selector key `garrison.dev/frot` on it: garrison has no such key (help: did you mean `garrison.dev/fort`?)
        "#);
    }
}
