//! `garrison verify`'s comparison: per member cluster, per object, what
//! the repository renders against the manifests of the Works a Karmada
//! control plane wrote, on what the member runs ([`super::member`]). A
//! difference garrison can account for carries its reason; the answer is
//! agreement only when every difference does.

use super::export::{identify, Identity};
use super::member::comparable;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::document::Document;
use crate::model::layout::Tree;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The prefix of a member cluster's execution namespace, where Karmada
/// writes that cluster's Works.
const EXECUTION_PREFIX: &str = "karmada-es-";

/// What garrison knows of the repository beyond the rendered objects.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The clusters of the repository.
    pub fleet: BTreeSet<String>,
    /// The templates a FederatedHPA scales (`Kind/namespace/name`): on a
    /// control plane their replicas are what the live autoscaler set.
    pub autoscaled: BTreeSet<String>,
}

/// One object as a member receives it.
#[derive(Clone, Debug)]
pub struct Delivered {
    manifest: Value,
    /// Karmada is deleting the Work that holds it.
    deleting: bool,
    /// The Work's own fields a member acts on: whether its objects are
    /// applied (`suspendDispatching`) and whether they stay when the Work
    /// goes (`preserveResourcesOnDeletion`); absent is false.
    work: [(&'static str, bool); 2],
}

impl Delivered {
    /// Its Work's `suspendDispatching`: Karmada does not apply it.
    fn suspended(&self) -> bool {
        self.work
            .iter()
            .any(|(field, on)| *field == "suspendDispatching" && *on)
    }
}

/// Why a suspended Work only Karmada has is not explained: a suspended
/// Work is not applied, so its member runs what Karmada dispatched before
/// the suspension, which no export holds; and a render gives a cluster a
/// policy suspends nothing new, so a first render would remove it there.
const SUSPENDED: &str = "Karmada suspends this Work (the policy's `suspension`): the member keeps what was dispatched before, which the export does not show, and a first render gives a suspended cluster nothing, so the objects would be removed there; lift the suspension, or render once before it";

/// [`Delivered::work`] of `work`.
fn work_fields(work: &Value) -> [(&'static str, bool); 2] {
    ["suspendDispatching", "preserveResourcesOnDeletion"].map(|field| {
        let value = work
            .pointer(&format!("/spec/{field}"))
            .and_then(Value::as_bool);
        (field, value.unwrap_or(false))
    })
}

/// Per cluster, per object (`Kind/namespace/name`), what is delivered.
pub type Deliveries = BTreeMap<String, BTreeMap<String, Delivered>>;

/// The whole answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub clusters: Vec<ClusterVerdict>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClusterVerdict {
    pub name: String,
    /// Objects both deliver alike.
    pub matching: Vec<String>,
    pub differences: Vec<Difference>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub object: String,
    pub kind: DifferenceKind,
    /// A unified diff from Karmada's manifest (`karmada/`) to garrison's (`garrison/`),
    /// Secret values masked; empty when only one side has the object.
    pub diff: String,
    /// Why, where garrison knows.
    pub reason: Option<String>,
    /// Whether the reason accounts for the difference: a documented
    /// deliberate difference, a decision Karmada took from live status.
    pub explained: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DifferenceKind {
    /// Both deliver it, differently.
    Differs,
    /// Karmada delivers it, the render does not.
    OnlyKarmada,
    /// The render delivers it, Karmada does not.
    OnlyGarrison,
}

impl Verdict {
    /// Every difference explained.
    pub fn agrees(&self) -> bool {
        self.differences().all(|d| d.explained)
    }

    fn differences(&self) -> impl Iterator<Item = &Difference> {
        self.clusters.iter().flat_map(|c| &c.differences)
    }

    /// The verdict as `garrison verify` prints it.
    pub fn to_text(&self, color: bool) -> String {
        let mut out = String::new();
        for cluster in &self.clusters {
            let mut counts = vec![format!("{} match", cluster.matching.len())];
            for (kind, label) in [
                (DifferenceKind::Differs, "differ"),
                (DifferenceKind::OnlyKarmada, "only in Karmada"),
                (DifferenceKind::OnlyGarrison, "only in garrison"),
            ] {
                let n = cluster
                    .differences
                    .iter()
                    .filter(|d| d.kind == kind)
                    .count();
                if n > 0 {
                    counts.push(format!("{n} {label}"));
                }
            }
            out.push_str(&format!("{}: {}\n", cluster.name, counts.join(", ")));
            for difference in &cluster.differences {
                let what = match difference.kind {
                    DifferenceKind::Differs => "differs",
                    DifferenceKind::OnlyKarmada => "only in Karmada",
                    DifferenceKind::OnlyGarrison => "only in garrison",
                };
                let verdict = if difference.explained {
                    "explained"
                } else {
                    "not explained"
                };
                let reason = difference
                    .reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "  {what} ({verdict}): {}{reason}\n",
                    difference.object
                ));
                for line in difference.diff.lines() {
                    out.push_str(&format!("    {}\n", painted(line, color)));
                }
            }
        }
        let objects: usize = self
            .clusters
            .iter()
            .map(|c| c.matching.len() + c.differences.len())
            .sum();
        let total = self.differences().count();
        let unexplained = self.differences().filter(|d| !d.explained).count();
        out.push_str(&match (total, unexplained) {
            (0, _) => format!(
                "every cluster gets what Karmada delivers: {objects} object(s) on {} cluster(s)\n",
                self.clusters.len()
            ),
            (_, 0) => format!(
                "every cluster gets what Karmada delivers, but for {total} explained difference(s)\n"
            ),
            _ => format!(
                "{unexplained} of {total} difference(s) not explained: the clusters would not get what Karmada delivers\n"
            ),
        });
        out
    }
}

/// A diff line in the colours `garrison diff` uses.
fn painted(line: &str, color: bool) -> String {
    match (color, line.chars().next()) {
        (true, Some('+')) if !line.starts_with("+++") => format!("\x1b[32m{line}\x1b[0m"),
        (true, Some('-')) if !line.starts_with("---") => format!("\x1b[31m{line}\x1b[0m"),
        (true, Some('@')) => format!("\x1b[36m{line}\x1b[0m"),
        _ => line.to_string(),
    }
}

/// The manifests of the exported Works, by cluster; a document that is not
/// a Work of an execution namespace is a fault.
pub fn karmada_deliveries(works: &[Document]) -> Result<Deliveries, Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    let mut deliveries = Deliveries::new();
    for doc in works {
        let value = doc.node.to_value();
        let identity = match identify(doc, &value) {
            Ok(identity) => identity,
            Err(fault) => {
                diagnostics.push(fault);
                continue;
            }
        };
        let cluster = identity
            .namespace
            .as_deref()
            .and_then(|n| n.strip_prefix(EXECUTION_PREFIX))
            .filter(|c| !c.is_empty());
        let cluster = match (identity.group(), identity.kind.as_str(), cluster) {
            ("work.karmada.io", "Work", Some(cluster)) => cluster.to_string(),
            _ => {
                diagnostics.push(
                    Diagnostic::error(
                        Code::NotAWork,
                        format!(
                            "`{}` ({}) is not a Work of a member cluster's execution namespace (`{EXECUTION_PREFIX}<cluster>`)",
                            identity.display(),
                            identity.api_version
                        ),
                    )
                    .at(doc.origin())
                    .help("give what `kubectl get works.work.karmada.io -A -o yaml` prints on karmada-apiserver"),
                );
                continue;
            }
        };
        let deleting = value.pointer("/metadata/deletionTimestamp").is_some();
        let manifests = value
            .pointer("/spec/workload/manifests")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (index, manifest) in manifests.into_iter().enumerate() {
            let at = ["spec", "workload", "manifests"];
            let Some(key) = object_key(&manifest) else {
                diagnostics.push(
                    Diagnostic::error(
                        Code::NotAWork,
                        format!(
                            "manifest {} of Work `{}` has no `apiVersion`, `kind` or `metadata.name`",
                            index + 1,
                            identity.display()
                        ),
                    )
                    .at(doc.at(&at))
                    .help("export the Works as karmada-apiserver stores them"),
                );
                continue;
            };
            deliveries.entry(cluster.clone()).or_default().insert(
                key,
                Delivered {
                    manifest,
                    deleting,
                    work: work_fields(&value),
                },
            );
        }
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(deliveries)
}

/// The objects of a render in the Work format, by cluster: the manifests
/// of the Works under `clusters/<cluster>/`.
pub fn garrison_deliveries(rendered: &Tree) -> Deliveries {
    let mut deliveries = Deliveries::new();
    for (path, bytes) in rendered {
        let Some((cluster, true)) = crate::report::cluster_of(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(bytes);
        let nodes = crate::yaml::parse_stream(&text, &crate::yaml::Limits::default());
        for work in nodes.into_iter().flatten().map(|n| n.to_value()) {
            let manifests = work
                .pointer("/spec/workload/manifests")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for manifest in manifests {
                if let Some(key) = object_key(&manifest) {
                    deliveries.entry(cluster.to_string()).or_default().insert(
                        key,
                        Delivered {
                            manifest,
                            deleting: false,
                            work: work_fields(&work),
                        },
                    );
                }
            }
        }
    }
    deliveries
}

/// `Kind/namespace/name` of a manifest (its group too, when not the core
/// group nor a well-known one, is in its apiVersion, which is compared).
fn object_key(manifest: &Value) -> Option<String> {
    let text = |p: &str| manifest.pointer(p).and_then(Value::as_str);
    let identity = Identity {
        api_version: text("/apiVersion")?.to_string(),
        kind: text("/kind")?.to_string(),
        namespace: text("/metadata/namespace")
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        name: text("/metadata/name")?.to_string(),
    };
    Some(match identity.group() {
        "" => identity.display(),
        group => {
            let display = identity.display();
            let (kind, rest) = display.split_once('/').unwrap_or((&display, ""));
            format!("{kind}.{group}/{rest}")
        }
    })
}

/// The group, kind, namespace and name of an object as [`object_key`]
/// writes it: `Kind.group/namespace/name`, `Kind/name` when cluster-scoped
/// or of the core group. Kinds hold no dot, names and namespaces no slash.
pub fn key_parts(object: &str) -> Option<(&str, &str, Option<&str>, &str)> {
    let (kind, rest) = object.split_once('/')?;
    let (kind, group) = kind.split_once('.').unwrap_or((kind, ""));
    let (namespace, name) = match rest.split_once('/') {
        Some((namespace, name)) => (Some(namespace), name),
        None => (None, rest),
    };
    Some((group, kind, namespace, name))
}

/// Compare what Karmada delivers with what garrison renders.
pub fn verify(karmada: &Deliveries, garrison: &Deliveries, context: &Context) -> Verdict {
    let none = BTreeMap::new();
    let clusters: BTreeSet<&String> = karmada.keys().chain(garrison.keys()).collect();
    let mut verdict = Verdict::default();
    for cluster in clusters {
        let theirs = karmada.get(cluster).unwrap_or(&none);
        let ours = garrison.get(cluster).unwrap_or(&none);
        let mut found = ClusterVerdict {
            name: cluster.clone(),
            ..ClusterVerdict::default()
        };
        let objects: BTreeSet<&String> = theirs.keys().chain(ours.keys()).collect();
        for object in objects {
            let difference = |kind, diff: String, reason: Option<String>, explained| Difference {
                object: object.clone(),
                kind,
                diff,
                reason,
                explained,
            };
            match (theirs.get(object), ours.get(object)) {
                (Some(t), Some(o)) => {
                    let fields = work_fields_diff(t, o);
                    let (t, o) = (comparable(&t.manifest), comparable(&o.manifest));
                    if t == o && fields.is_empty() {
                        found.matching.push(object.clone());
                        continue;
                    }
                    let mut diff = String::new();
                    if t != o {
                        diff = manifest_diff(cluster, object, &t, &o);
                    }
                    diff.push_str(&fields);
                    let (reason, explained) = match fields.is_empty() {
                        true => replicas_reason(&t, &o, context),
                        false => (None, false),
                    };
                    found.differences.push(difference(
                        DifferenceKind::Differs,
                        diff,
                        reason,
                        explained,
                    ));
                }
                (Some(t), None) => {
                    let (reason, explained) = if t.deleting {
                        (Some("Karmada is deleting its Work".to_string()), true)
                    } else if !context.fleet.contains(cluster) {
                        (
                            Some("the cluster is not in the repository: import its Cluster".into()),
                            false,
                        )
                    } else if t.suspended() {
                        (Some(SUSPENDED.to_string()), false)
                    } else {
                        (None, false)
                    };
                    found.differences.push(difference(
                        DifferenceKind::OnlyKarmada,
                        String::new(),
                        reason,
                        explained,
                    ));
                }
                (None, Some(_)) => found.differences.push(difference(
                    DifferenceKind::OnlyGarrison,
                    String::new(),
                    None,
                    false,
                )),
                (None, None) => {}
            }
        }
        verdict.clusters.push(found);
    }
    explain_tie_order(&mut verdict, karmada, garrison);
    verdict
}

/// The Work fields on which Karmada's Work (`karmada`) and garrison's
/// differ, a line each.
fn work_fields_diff(karmada: &Delivered, garrison: &Delivered) -> String {
    karmada
        .work
        .iter()
        .zip(&garrison.work)
        .filter(|(k, g)| k.1 != g.1)
        .map(|((field, k), (_, g))| format!("Work spec.{field}: Karmada {k}, garrison {g}\n"))
        .collect()
}

/// The unified diff of one object's two manifests, as `garrison diff`
/// writes one (Secret values masked).
fn manifest_diff(cluster: &str, object: &str, karmada: &Value, garrison: &Value) -> String {
    let path = format!("{cluster}/{object}.yaml");
    let text = |value: &Value| {
        // Karmada writes a manifest with its keys sorted (Go's JSON),
        // garrison in the template's order: the diff shows what differs.
        crate::emit::yaml::to_yaml(&crate::model::override_policy::sort_keys(value))
            .unwrap_or_default()
            .into_bytes()
    };
    let old: Tree = [(path.clone(), text(karmada))].into();
    let new: Tree = [(path, text(garrison))].into();
    let diff = crate::report::unified_diff(&old, &new, false);
    diff.replacen("--- a/", "--- karmada/", 1)
        .replacen("+++ b/", "+++ garrison/", 1)
}

/// The reason two manifests that differ in `spec.replicas` alone differ,
/// where the replicas come from a live input.
fn replicas_reason(karmada: &Value, garrison: &Value, context: &Context) -> (Option<String>, bool) {
    if !differ_in_replicas_alone(karmada, garrison) {
        return (None, false);
    }
    let text = |p: &str| {
        karmada
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let template = format!(
        "{}/{}/{}",
        text("/kind"),
        text("/metadata/namespace"),
        text("/metadata/name")
    );
    if context.autoscaled.contains(&template) {
        return (
            Some("a FederatedHPA scales it: Karmada's replicas are what the live autoscaler set, the render's are the template's within the autoscaler's bounds".into()),
            true,
        );
    }
    (None, false)
}

fn differ_in_replicas_alone(karmada: &Value, garrison: &Value) -> bool {
    let mut karmada = karmada.clone();
    if let Some(spec) = karmada.get_mut("spec").and_then(Value::as_object_mut) {
        match garrison.pointer("/spec/replicas") {
            Some(replicas) => {
                spec.insert("replicas".into(), replicas.clone());
            }
            None => {
                spec.shift_remove("replicas");
            }
        }
    }
    karmada == *garrison && karmada.pointer("/spec/replicas").is_some()
}

/// A division of replicas that differs only where clusters tie: the same
/// clusters receive the object, with the same total, and only
/// `spec.replicas` differs. Karmada breaks ties between equal quotients by
/// an order of its own (the template's UID among them), garrison by
/// cluster name, as documented; the difference is explained.
fn explain_tie_order(verdict: &mut Verdict, karmada: &Deliveries, garrison: &Deliveries) {
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for cluster in &verdict.clusters {
        for d in &cluster.differences {
            if d.kind == DifferenceKind::Differs && !d.explained && d.reason.is_none() {
                candidates.insert(d.object.clone());
            }
        }
    }
    let replicas = |deliveries: &Deliveries, object: &str| -> Option<(BTreeSet<String>, i64)> {
        let mut clusters = BTreeSet::new();
        let mut total = 0;
        for (cluster, objects) in deliveries {
            if let Some(d) = objects.get(object) {
                clusters.insert(cluster.clone());
                total += d.manifest.pointer("/spec/replicas")?.as_i64()?;
            }
        }
        Some((clusters, total))
    };
    let tied: BTreeSet<String> = candidates
        .into_iter()
        .filter(|object| {
            let alone = verdict.clusters.iter().all(|c| {
                c.differences
                    .iter()
                    .filter(|d| &d.object == object)
                    .all(|d| d.kind == DifferenceKind::Differs)
            });
            let same = replicas(karmada, object).is_some()
                && replicas(karmada, object) == replicas(garrison, object);
            let only_replicas = karmada.iter().all(|(cluster, objects)| {
                match (
                    objects.get(object),
                    garrison.get(cluster).and_then(|o| o.get(object)),
                ) {
                    (Some(t), Some(o)) => {
                        let fields = work_fields_diff(t, o);
                        let (t, o) = (comparable(&t.manifest), comparable(&o.manifest));
                        fields.is_empty() && (t == o || differ_in_replicas_alone(&t, &o))
                    }
                    _ => true,
                }
            });
            alone && same && only_replicas
        })
        .collect();
    for cluster in &mut verdict.clusters {
        for d in &mut cluster.differences {
            if tied.contains(&d.object) && d.kind == DifferenceKind::Differs {
                d.reason = Some("the same replicas on the same clusters, divided otherwise where clusters tie: garrison breaks ties by cluster name, Karmada by an order of its own (a documented difference; keep the binding `garrison import` writes to pin Karmada's division)".into());
                d.explained = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::export;
    use serde_json::json;

    /// A Work of `cluster` holding `manifest` (flow YAML), as Karmada stores it.
    fn work(cluster: &str, name: &str, manifest: &str) -> String {
        format!("apiVersion: work.karmada.io/v1alpha1\nkind: Work\nmetadata:\n  name: {name}\n  namespace: karmada-es-{cluster}\n  uid: 4c1d\nspec:\n  workload:\n    manifests:\n    - {manifest}\n")
    }

    #[test]
    fn an_object_key_splits_back_into_its_parts() {
        for manifest in [
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "view.x"}}),
        ] {
            let key = object_key(&manifest).unwrap_or_default();
            let text = |p: &str| manifest.pointer(p).and_then(Value::as_str);
            let api_version = text("/apiVersion").unwrap_or_default();
            let expected = (
                crate::model::meta::group_of(api_version),
                text("/kind").unwrap_or_default(),
                text("/metadata/namespace"),
                text("/metadata/name").unwrap_or_default(),
            );
            assert_eq!(key_parts(&key), Some(expected), "{key}");
        }
        assert_eq!(key_parts("nothing"), None);
    }

    fn deployment(replicas: u32, extra_label: &str) -> String {
        format!("{{apiVersion: apps/v1, kind: Deployment, metadata: {{name: web, namespace: shop, labels: {{app: web{extra_label}}}}}, spec: {{replicas: {replicas}}}}}")
    }

    fn karmada(works: &[String]) -> Deliveries {
        let export = export::parse(vec![("works.yaml".into(), works.join("---\n"))]);
        karmada_deliveries(&export.documents).unwrap_or_else(|d| panic!("{d:?}"))
    }

    /// A render in the Work format holding `works`, each at its cluster's path.
    fn garrison(works: &[(&str, String)]) -> Deliveries {
        let tree: Tree = works
            .iter()
            .enumerate()
            .map(|(i, (cluster, text))| {
                (
                    format!("clusters/{cluster}/karmada-es-{cluster}/w{i}.yaml"),
                    text.clone().into_bytes(),
                )
            })
            .chain([(
                "clusters/m1/kustomization.yaml".to_string(),
                b"resources: []\n".to_vec(),
            )])
            .collect();
        garrison_deliveries(&tree)
    }

    fn fleet(names: &[&str]) -> Context {
        Context {
            fleet: names.iter().map(|n| n.to_string()).collect(),
            ..Context::default()
        }
    }

    #[test]
    fn the_same_manifests_agree_whatever_identities_karmada_adds() {
        let permanent = ", work.karmada.io/permanent-id: 9f1e";
        let theirs = karmada(&[work("m1", "web", &deployment(2, permanent))]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(2, "")))]);
        let verdict = verify(&theirs, &ours, &fleet(&["m1"]));
        assert!(verdict.agrees());
        assert_eq!(verdict.clusters[0].matching, ["Deployment.apps/shop/web"]);
        insta::assert_snapshot!(verdict.to_text(false), @r"
            m1: 1 match
            every cluster gets what Karmada delivers: 1 object(s) on 1 cluster(s)
        ");
    }

    #[test]
    fn a_manifest_that_differs_is_shown_as_a_diff_from_karmadas_to_garrisons() {
        let theirs = karmada(&[work("m1", "web", &deployment(2, ", tier: front"))]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(2, "")))]);
        let verdict = verify(&theirs, &ours, &fleet(&["m1"]));
        assert!(!verdict.agrees());
        insta::assert_snapshot!(verdict.to_text(false), @r#"
            m1: 0 match, 1 differ
              differs (not explained): Deployment.apps/shop/web
                --- karmada/m1/Deployment.apps/shop/web.yaml
                +++ garrison/m1/Deployment.apps/shop/web.yaml
                @@ -3,7 +3,6 @@
                 metadata:
                   labels:
                     app: web
                -    tier: front
                   name: web
                   namespace: shop
                 spec:
            1 of 1 difference(s) not explained: the clusters would not get what Karmada delivers
        "#);
    }

    #[test]
    fn what_one_side_alone_delivers_is_named_with_the_reason_garrison_knows() {
        let deleting = work(
            "m1",
            "old",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: shop}}",
        )
        .replace(
            "  uid: 4c1d\n",
            "  uid: 4c1d\n  deletionTimestamp: \"2026-12-01T00:00:00Z\"\n",
        );
        let theirs = karmada(&[deleting, work("gone", "web", &deployment(1, ""))]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(1, "")))]);
        let verdict = verify(&theirs, &ours, &fleet(&["m1"]));
        assert!(!verdict.agrees());
        insta::assert_snapshot!(verdict.to_text(false), @r#"
            gone: 0 match, 1 only in Karmada
              only in Karmada (not explained): Deployment.apps/shop/web: the cluster is not in the repository: import its Cluster
            m1: 0 match, 1 only in Karmada, 1 only in garrison
              only in Karmada (explained): ConfigMap/shop/old: Karmada is deleting its Work
              only in garrison (not explained): Deployment.apps/shop/web
            2 of 3 difference(s) not explained: the clusters would not get what Karmada delivers
        "#);
    }

    #[test]
    fn a_work_that_suspends_dispatching_differs_from_one_that_does_not() {
        let suspended = work("m1", "web", &deployment(2, ""))
            .replace(
                "    manifests:",
                "    suspendDispatching: true\n    manifests:",
            )
            .replace(
                "  workload:\n    suspendDispatching: true\n",
                "  suspendDispatching: true\n  workload:\n",
            );
        let theirs = karmada(&[suspended]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(2, "")))]);
        let verdict = verify(&theirs, &ours, &fleet(&["m1"]));
        assert!(!verdict.agrees());
        assert_eq!(
            verdict.clusters[0].differences[0].diff,
            "Work spec.suspendDispatching: Karmada true, garrison false\n"
        );
    }

    #[test]
    fn a_suspended_work_the_render_does_not_deliver_is_named_with_why_it_is_not_explained() {
        let suspended = work("m1", "web", &deployment(2, ""))
            .replace("  workload:\n", "  suspendDispatching: true\n  workload:\n");
        let verdict = verify(&karmada(&[suspended]), &garrison(&[]), &fleet(&["m1"]));
        assert!(!verdict.agrees());
        let difference = &verdict.clusters[0].differences[0];
        assert_eq!(difference.kind, DifferenceKind::OnlyKarmada);
        assert_eq!(difference.reason.as_deref(), Some(SUSPENDED));
        assert!(!difference.explained);
    }

    #[test]
    fn a_secret_that_differs_shows_no_value() {
        let secret = |value: &str| {
            format!("{{apiVersion: v1, kind: Secret, metadata: {{name: db, namespace: shop}}, data: {{password: {value}}}}}")
        };
        let theirs = karmada(&[work("m1", "db", &secret("aHVudGVyMg=="))]);
        let ours = garrison(&[("m1", work("m1", "db", &secret("czNjcjN0")))]);
        let text = verify(&theirs, &ours, &fleet(&["m1"])).to_text(false);
        assert!(
            text.contains("differs (not explained): Secret/shop/db"),
            "{text}"
        );
        assert!(
            !text.contains("aHVudGVyMg") && !text.contains("czNjcjN0"),
            "{text}"
        );
    }

    #[test]
    fn a_division_that_differs_only_where_clusters_tie_is_explained() {
        let theirs = karmada(&[
            work("m1", "web", &deployment(2, "")),
            work("m2", "web", &deployment(1, "")),
        ]);
        let ours = garrison(&[
            ("m1", work("m1", "web", &deployment(1, ""))),
            ("m2", work("m2", "web", &deployment(2, ""))),
        ]);
        let verdict = verify(&theirs, &ours, &fleet(&["m1", "m2"]));
        assert!(verdict.agrees(), "{}", verdict.to_text(false));
        let reasons: Vec<_> = verdict.differences().map(|d| d.reason.is_some()).collect();
        assert_eq!(reasons, [true, true]);
    }

    #[test]
    fn another_total_of_replicas_is_not_a_tie() {
        let theirs = karmada(&[work("m1", "web", &deployment(3, ""))]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(2, "")))]);
        assert!(!verify(&theirs, &ours, &fleet(&["m1"])).agrees());
    }

    #[test]
    fn replicas_a_federated_hpa_sets_are_a_live_input() {
        let theirs = karmada(&[work("m1", "web", &deployment(5, ""))]);
        let ours = garrison(&[("m1", work("m1", "web", &deployment(2, "")))]);
        let context = Context {
            autoscaled: ["Deployment/shop/web".to_string()].into(),
            ..fleet(&["m1"])
        };
        let verdict = verify(&theirs, &ours, &context);
        assert!(verdict.agrees(), "{}", verdict.to_text(false));
    }

    #[test]
    fn a_document_that_is_not_a_work_of_an_execution_namespace_is_refused() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n---\napiVersion: work.karmada.io/v1alpha1\nkind: Work\nmetadata: {name: w, namespace: shop}\n";
        let export = export::parse(vec![("works.yaml".into(), text.into())]);
        let faults = karmada_deliveries(&export.documents)
            .err()
            .unwrap_or_default();
        let lines: Vec<String> = faults
            .0
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d.origin
                        .map(|o| export.sources.locate(&o))
                        .unwrap_or_default(),
                    d.code.code()
                )
            })
            .collect();
        assert_eq!(lines, ["works.yaml:1:1 G0802", "works.yaml:5:1 G0802"]);
    }
}
