//! Built-in resource interpreters: how garrison reads and revises replicas,
//! prunes a template and finds a workload's dependencies, for the kinds
//! Karmada's native interpreter knows (karmada-semantics §e).
//!
//! Deployment, ReplicaSet and StatefulSet read `spec.replicas` (absent is 0);
//! Job reads min(parallelism, completions); Pod is 1; every other kind has
//! no replicas. Revision only sets a field the template already has, as
//! Karmada's ReviseReplica does.
//!
//! ResourceInterpreterCustomizations (Lua) take precedence over these, per
//! operation: see [`Interpreter`] (`customized`), the sandbox (`lua`) and the
//! `kube` helper library (`kube`). Only these submodules import mlua.

mod convert;
mod customized;
mod kube;
mod lua;
pub mod thirdparty;

pub use customized::{
    DependenciesError, HookCluster, HookFort, InterpretError, Interpreter, ResultError, ScriptFault,
};
pub use lua::{ConvertError, Fault, Limit, Limits};

use crate::schedule::estimate::{requirements_from_pod_spec, ReplicaRequirements};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What scheduling needs to know about a template's replicas.
#[derive(Clone, Debug, PartialEq)]
pub struct Replicas {
    pub desired: u64,
    /// The pod template's spec, when the kind has one (for requirements and dependencies).
    pub pod_spec: Option<Value>,
    /// What one replica asks of a cluster: from the pod spec for built-in
    /// kinds, from GetReplicas' second result for customizations.
    pub requirements: Option<ReplicaRequirements>,
}

impl Replicas {
    fn from_pod_spec(desired: u64, pod_spec: Option<&Value>) -> Replicas {
        Replicas {
            desired,
            requirements: pod_spec.and_then(requirements_from_pod_spec),
            pod_spec: pod_spec.cloned(),
        }
    }
}

fn group_kind(api_version: &str, kind: &str) -> (String, String) {
    (
        crate::model::meta::group_of(api_version).to_string(),
        kind.to_string(),
    )
}

fn int_at(value: &Value, pointer: &str) -> Option<u64> {
    value.pointer(pointer).and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
    })
}

/// Karmada's GetReplicas for the built-in kinds; `None` for kinds without replicas.
pub fn replicas(api_version: &str, kind: &str, object: &Value) -> Option<Replicas> {
    let (group, kind) = group_kind(api_version, kind);
    match (group.as_str(), kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") => Some(Replicas::from_pod_spec(
            int_at(object, "/spec/replicas").unwrap_or(0),
            object.pointer("/spec/template/spec"),
        )),
        ("batch", "Job") => {
            let parallelism = int_at(object, "/spec/parallelism").unwrap_or(0);
            let desired = match int_at(object, "/spec/completions") {
                Some(completions) if completions < parallelism => completions,
                _ => parallelism,
            };
            Some(Replicas::from_pod_spec(
                desired,
                object.pointer("/spec/template/spec"),
            ))
        }
        ("", "Pod") => Some(Replicas::from_pod_spec(1, object.pointer("/spec"))),
        _ => None,
    }
}

/// The field of `spec` where ReviseReplica writes a built-in kind's
/// per-cluster replicas.
fn replica_field(api_version: &str, kind: &str) -> Option<&'static str> {
    let (group, kind) = group_kind(api_version, kind);
    match (group.as_str(), kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") => Some("replicas"),
        ("batch", "Job") => Some("parallelism"),
        _ => None,
    }
}

/// Karmada's ReviseReplica: set the per-cluster replicas where the kind keeps
/// them, only if the template already has the field.
pub fn revise_replicas(api_version: &str, kind: &str, object: &mut Value, replicas: u64) {
    let Some(field) = replica_field(api_version, kind) else {
        return;
    };
    if let Some(slot) = object.get_mut("spec").and_then(|s| s.get_mut(field)) {
        *slot = Value::from(replicas);
    }
}

/// The per-cluster replicas a made object of a built-in kind holds, where
/// [`revise_replicas`] writes them (an override may have changed them since).
pub fn revised_replicas(api_version: &str, kind: &str, object: &Value) -> Option<u64> {
    let field = replica_field(api_version, kind)?;
    int_at(object, &format!("/spec/{field}"))
}

/// Set a Job's `spec.completions` to its per-cluster share, when it has one.
pub fn revise_completions(object: &mut Value, completions: u64) {
    if let Some(slot) = object
        .get_mut("spec")
        .and_then(|s| s.get_mut("completions"))
    {
        *slot = Value::from(completions);
    }
}

/// A Job's `spec.completions`, if set.
pub fn completions(api_version: &str, kind: &str, object: &Value) -> Option<u64> {
    let (group, kind) = group_kind(api_version, kind);
    (group == "batch" && kind == "Job")
        .then(|| int_at(object, "/spec/completions"))
        .flatten()
}

fn remove(map: &mut Map<String, Value>, key: &str) {
    map.shift_remove(key);
}

/// What Karmada's pruning leaves in a Work's manifest: the binding
/// controller prunes the object when it writes the Work
/// (`ctrlutil.CreateOrUpdateWork`), and the Work mutating webhook prunes it
/// again (`pkg/webhook/work/mutating.go`). Each pass is [`prune`]; only a
/// ServiceAccount's token references come out of the second any different.
pub fn prune_for_work(api_version: &str, kind: &str, object: &mut Value) {
    prune(api_version, kind, object);
    prune(api_version, kind, object);
}

/// Karmada's prune (`RemoveIrrelevantFields`), one pass: drop what a
/// cluster assigns or a controller owns before the object is sent to a
/// member cluster.
pub fn prune(api_version: &str, kind: &str, object: &mut Value) {
    let Some(root) = object.as_object_mut() else {
        return;
    };
    remove(root, "status");
    if let Some(meta) = root.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in [
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
            "managedFields",
            "resourceVersion",
            "selfLink",
            "uid",
            "ownerReferences",
            "finalizers",
        ] {
            remove(meta, key);
        }
    }
    let (group, kind) = group_kind(api_version, kind);
    match (group.as_str(), kind.as_str()) {
        ("apps", "Deployment") => remove_annotations(
            root,
            &[
                "deployment.kubernetes.io/revision",
                "deployment.kubernetes.io/revision-history",
            ],
        ),
        ("", "Service") => {
            // Keyed on `clusterIP` alone: a Service that has only
            // `clusterIPs` keeps them, as in Karmada.
            if let Some(spec) = root.get_mut("spec").and_then(Value::as_object_mut) {
                let assigned = spec
                    .get("clusterIP")
                    .and_then(Value::as_str)
                    .is_some_and(|ip| ip != "None");
                if assigned {
                    remove(spec, "clusterIP");
                    remove(spec, "clusterIPs");
                }
            }
        }
        ("", "PersistentVolumeClaim") => {
            // Only a node name is dropped; an empty value stays, as in Karmada.
            let selected = "volume.kubernetes.io/selected-node";
            let node = root
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(selected))
                .and_then(Value::as_str);
            if node.is_some_and(|n| !n.is_empty()) {
                remove_annotations(root, &[selected]);
            }
        }
        ("", "ServiceAccount") => prune_service_account(root),
        ("", "Secret") => prune_token_secret(root),
        ("batch", "Job") => prune_job(root),
        _ => {}
    }
}

fn remove_annotations(root: &mut Map<String, Value>, keys: &[&str]) {
    if let Some(annotations) = root
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    {
        for key in keys {
            remove(annotations, key);
        }
    }
}

/// A Job's selector and pod labels that the Job controller generates, unless
/// the Job chose its selector by hand (`manualSelector: true`): the member
/// cluster's controller generates its own.
fn prune_job(root: &mut Map<String, Value>) {
    let Some(spec) = root.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    remove(spec, "ttlSecondsAfterFinished");
    if spec.get("manualSelector").and_then(Value::as_bool) == Some(true) {
        return;
    }
    const UID: &[&str] = &["controller-uid", "batch.kubernetes.io/controller-uid"];
    const NAME: &[&str] = &["job-name", "batch.kubernetes.io/job-name"];
    if let Some(labels) = spec
        .get_mut("selector")
        .and_then(|s| s.get_mut("matchLabels"))
        .and_then(Value::as_object_mut)
    {
        for key in UID {
            remove(labels, key);
        }
    }
    if let Some(labels) = spec
        .get_mut("template")
        .and_then(|t| t.get_mut("metadata"))
        .and_then(|m| m.get_mut("labels"))
        .and_then(Value::as_object_mut)
    {
        for key in UID.iter().chain(NAME) {
            remove(labels, key);
        }
    }
}

/// A ServiceAccount's references to the token Secrets its cluster made
/// (`<name>-token-…`). Karmada walks the list removing as it goes, so of two
/// such references in a row one pass keeps the second; garrison keeps that
/// (the second pass of [`prune_for_work`] removes it).
fn prune_service_account(root: &mut Map<String, Value>) {
    let name = root
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let prefix = format!("{name}-token-");
    let Some(secrets) = root.get_mut("secrets").and_then(Value::as_array_mut) else {
        return;
    };
    let mut index = 0;
    while index < secrets.len() {
        let generated = secrets[index]
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| n.starts_with(&prefix));
        if generated {
            secrets.remove(index);
        }
        index += 1;
    }
}

/// A service-account token Secret: its data and the account's uid are the
/// member cluster's to fill in (Karmada writes `data: null`).
fn prune_token_secret(root: &mut Map<String, Value>) {
    if root.get("type").and_then(Value::as_str) != Some("kubernetes.io/service-account-token") {
        return;
    }
    remove_annotations(root, &["kubernetes.io/service-account.uid"]);
    root.insert("data".into(), Value::Null);
}

/// A dependency of a workload: templates of one kind in the workload's
/// namespace, by name or by labels.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dependency {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub target: Target,
}

/// Which templates of its kind a [`Dependency`] is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// The one with this name.
    Name(String),
    /// Every one whose labels include all of these.
    Labels(BTreeMap<String, String>),
}

/// Karmada's native interpreter refuses a workload's dependencies: its
/// `VerifyDependencies` fails the whole list when one reference has
/// neither a name nor a selector, so none of them is propagated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unnamed {
    /// Which reference of Karmada's list, from 0.
    pub index: usize,
    /// The field that left it without a name.
    pub field: String,
}

/// The derived Service Karmada's multi-cluster service controllers make
/// for a ServiceImport (`names.GenerateDerivedServiceName`).
pub fn derived_service_name(service_import: &str) -> String {
    format!("derived-{service_import}")
}

/// Karmada's GetDependencies for the kinds its native interpreter knows
/// (`getAllDefaultDependenciesInterpreter`, keyed by group, version and
/// kind): what a pod template references; an Ingress's TLS Secrets; a
/// ServiceImport's derived Service and the EndpointSlices labelled
/// `kubernetes.io/service-name` with it.
pub fn dependencies(
    api_version: &str,
    kind: &str,
    object: &Value,
) -> Result<Vec<Dependency>, Unnamed> {
    match (api_version, kind) {
        ("networking.k8s.io/v1", "Ingress") => return ingress_dependencies(object),
        ("multicluster.x-k8s.io/v1alpha1", "ServiceImport") => {
            return Ok(service_import_dependencies(object))
        }
        _ => {}
    }
    let (group, kind) = group_kind(api_version, kind);
    let pod_spec = match (group.as_str(), kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet") | ("batch", "Job") => {
            object.pointer("/spec/template/spec")
        }
        ("batch", "CronJob") => object.pointer("/spec/jobTemplate/spec/template/spec"),
        ("", "Pod") => object.pointer("/spec"),
        _ => None,
    };
    let Some(pod_spec) = pod_spec else {
        return Ok(Vec::new());
    };
    let claim_templates: BTreeSet<&str> = if kind == "StatefulSet" {
        object
            .pointer("/spec/volumeClaimTemplates")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|t| t.pointer("/metadata/name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        BTreeSet::new()
    };
    Ok(pod_dependencies(pod_spec, &claim_templates))
}

/// Karmada's `getIngressDependencies`: one Secret per `spec.tls` entry, in
/// order. An entry without a `secretName` (a host served with the
/// controller's default certificate) is a reference without a name, which
/// Karmada's validation refuses.
fn ingress_dependencies(object: &Value) -> Result<Vec<Dependency>, Unnamed> {
    let entries = object
        .pointer("/spec/tls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| match str_at(entry, "/secretName") {
            Some(name) if !name.is_empty() => Ok(core_v1("Secret", name.to_string())),
            _ => Err(Unnamed {
                index,
                field: format!("spec.tls[{index}].secretName"),
            }),
        })
        .collect()
}

/// Karmada's `getServiceImportDependencies`: the derived Service by name,
/// and its EndpointSlices by the label EndpointSlices carry for their
/// Service.
fn service_import_dependencies(object: &Value) -> Vec<Dependency> {
    let name = str_at(object, "/metadata/name").unwrap_or_default();
    let derived = derived_service_name(name);
    vec![
        core_v1("Service", derived.clone()),
        Dependency {
            api_version: "discovery.k8s.io/v1",
            kind: "EndpointSlice",
            target: Target::Labels(BTreeMap::from([(
                "kubernetes.io/service-name".to_string(),
                derived,
            )])),
        },
    ]
}

/// The names a pod spec references, by kind. Sets, so each name is listed
/// once and in name order, as Karmada's GetDependencies returns them.
#[derive(Default)]
struct PodReferences {
    config_maps: BTreeSet<String>,
    secrets: BTreeSet<String>,
    claims: BTreeSet<String>,
}

/// The items of the array at `field`, or none when it is absent or not an array.
fn items<'a>(value: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(field)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A dependency on a core (`v1`) object: every kind a pod spec can reference is one.
fn core_v1(kind: &'static str, name: String) -> Dependency {
    Dependency {
        api_version: "v1",
        kind,
        target: Target::Name(name),
    }
}

/// The string at `pointer`, if there is one.
fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

impl PodReferences {
    /// Record a ConfigMap name where the field is set.
    fn config_map(&mut self, name: Option<&str>) {
        if let Some(name) = name {
            self.config_maps.insert(name.to_string());
        }
    }

    /// Record a Secret name where the field is set.
    fn secret(&mut self, name: Option<&str>) {
        if let Some(name) = name {
            self.secrets.insert(name.to_string());
        }
    }

    /// What every container (init and ephemeral included) reads from its
    /// environment: single keys (`env`) and whole objects (`envFrom`).
    fn add_containers(&mut self, pod_spec: &Value) {
        let containers = ["containers", "initContainers", "ephemeralContainers"]
            .iter()
            .flat_map(|field| items(pod_spec, field));
        for container in containers {
            for env in items(container, "env") {
                self.config_map(str_at(env, "/valueFrom/configMapKeyRef/name"));
                self.secret(str_at(env, "/valueFrom/secretKeyRef/name"));
            }
            for from in items(container, "envFrom") {
                self.config_map(str_at(from, "/configMapRef/name"));
                self.secret(str_at(from, "/secretRef/name"));
            }
        }
    }

    /// The secrets the kubelet pulls images with.
    fn add_image_pull_secrets(&mut self, pod_spec: &Value) {
        for secret in items(pod_spec, "imagePullSecrets") {
            self.secret(secret.get("name").and_then(Value::as_str));
        }
    }

    /// What one volume mounts: a ConfigMap or Secret, directly or projected,
    /// a volume plugin's credentials secret, or a claim. Claims the
    /// StatefulSet makes from its `claim_templates` are not dependencies.
    fn add_volume(&mut self, volume: &Value, claim_templates: &BTreeSet<&str>) {
        self.config_map(str_at(volume, "/configMap/name"));
        self.secret(str_at(volume, "/secret/secretName"));
        if let Some(projected) = volume.get("projected") {
            for source in items(projected, "sources") {
                self.config_map(str_at(source, "/configMap/name"));
                self.secret(str_at(source, "/secret/name"));
            }
        }
        // Only the first volume source that names a secret counts, as in Karmada.
        self.secret(
            [
                "/azureFile/secretName",
                "/cephfs/secretRef/name",
                "/cinder/secretRef/name",
                "/flexVolume/secretRef/name",
                "/rbd/secretRef/name",
            ]
            .into_iter()
            .find_map(|pointer| str_at(volume, pointer)),
        );
        if let Some(name) = str_at(volume, "/persistentVolumeClaim/claimName") {
            if !claim_templates.contains(name) {
                self.claims.insert(name.to_string());
            }
        }
    }

    /// The dependencies in Karmada's order: ConfigMaps, Secrets, the
    /// ServiceAccount (unless empty or `default`), then claims.
    fn into_dependencies(self, service_account: Option<&str>) -> Vec<Dependency> {
        let mut result: Vec<Dependency> = Vec::new();
        result.extend(
            self.config_maps
                .into_iter()
                .map(|n| core_v1("ConfigMap", n)),
        );
        result.extend(self.secrets.into_iter().map(|n| core_v1("Secret", n)));
        if let Some(sa) = service_account.filter(|s| !s.is_empty() && *s != "default") {
            result.push(core_v1("ServiceAccount", sa.to_string()));
        }
        result.extend(
            self.claims
                .into_iter()
                .map(|n| core_v1("PersistentVolumeClaim", n)),
        );
        result
    }
}

/// The ConfigMaps, Secrets, ServiceAccount and PVCs a pod spec references,
/// leaving out the claims a StatefulSet makes from `claim_templates`.
pub(crate) fn pod_dependencies(
    pod_spec: &Value,
    claim_templates: &BTreeSet<&str>,
) -> Vec<Dependency> {
    let mut references = PodReferences::default();
    references.add_containers(pod_spec);
    references.add_image_pull_secrets(pod_spec);
    for volume in items(pod_spec, "volumes") {
        references.add_volume(volume, claim_templates);
    }
    references.into_dependencies(pod_spec.get("serviceAccountName").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deployment_replicas_absent_is_zero() {
        let r = replicas("apps/v1", "Deployment", &json!({"spec": {}}));
        assert_eq!(r.map(|r| r.desired), Some(0));
    }

    #[test]
    fn job_replicas_are_min_of_parallelism_and_completions() {
        let job = json!({"spec": {"parallelism": 5, "completions": 3}});
        assert_eq!(
            replicas("batch/v1", "Job", &job).map(|r| r.desired),
            Some(3)
        );
        let job = json!({"spec": {"parallelism": 2}});
        assert_eq!(
            replicas("batch/v1", "Job", &job).map(|r| r.desired),
            Some(2)
        );
    }

    #[test]
    fn pod_is_one_and_configmap_has_none() {
        assert_eq!(
            replicas("v1", "Pod", &json!({})).map(|r| r.desired),
            Some(1)
        );
        assert_eq!(replicas("v1", "ConfigMap", &json!({})), None);
    }

    #[test]
    fn revise_only_sets_an_existing_field() {
        let mut with = json!({"spec": {"replicas": 4}});
        revise_replicas("apps/v1", "Deployment", &mut with, 2);
        assert_eq!(with, json!({"spec": {"replicas": 2}}));
        let mut without = json!({"spec": {}});
        revise_replicas("apps/v1", "Deployment", &mut without, 2);
        assert_eq!(without, json!({"spec": {}}));
    }

    #[test]
    fn prune_drops_cluster_assigned_fields_and_keeps_order() {
        let mut svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "uid": "x", "resourceVersion": "1"},
            "spec": {"type": "ClusterIP", "clusterIP": "10.0.0.1", "ports": []}, "status": {}});
        prune("v1", "Service", &mut svc);
        assert_eq!(serde_json::to_string(&svc).ok(), Some(r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"type":"ClusterIP","ports":[]}}"#.to_string()));
    }

    /// Karmada's `removeGenerateSelectorOfJob`: generated selector and pod
    /// labels go, the user's stay; a manual selector is left alone.
    #[test]
    fn prune_drops_a_jobs_generated_selector_unless_manual() {
        let job = |manual: Option<bool>| {
            let mut spec = json!({
                "ttlSecondsAfterFinished": 60,
                "selector": {"matchLabels": {"controller-uid": "u", "batch.kubernetes.io/controller-uid": "u", "app": "x"}},
                "template": {"metadata": {"labels": {
                    "controller-uid": "u", "job-name": "j", "batch.kubernetes.io/controller-uid": "u",
                    "batch.kubernetes.io/job-name": "j", "app": "x",
                }}},
            });
            if let Some(manual) = manual {
                spec["manualSelector"] = json!(manual);
            }
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec})
        };
        for manual in [None, Some(false)] {
            let mut pruned = job(manual);
            prune("batch/v1", "Job", &mut pruned);
            assert_eq!(
                pruned["spec"]["selector"],
                json!({"matchLabels": {"app": "x"}})
            );
            assert_eq!(
                pruned["spec"]["template"]["metadata"]["labels"],
                json!({"app": "x"})
            );
            assert_eq!(pruned["spec"].get("ttlSecondsAfterFinished"), None);
        }
        let mut manual = job(Some(true));
        prune("batch/v1", "Job", &mut manual);
        assert_eq!(
            manual["spec"]["selector"]["matchLabels"]
                .as_object()
                .map(|m| m.len()),
            Some(3)
        );
    }

    /// Karmada's `removeServiceAccountIrrelevantField` and
    /// `removeSecretIrrelevantField`, including that of two generated token
    /// references in a row the second stays.
    #[test]
    fn prune_drops_service_account_tokens_as_karmada_does() {
        let mut account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "ci"},
            "secrets": [{"name": "ci-token-a"}, {"name": "ci-token-b"}, {"name": "mine"}, {"name": "ci-token-c"}]});
        prune("v1", "ServiceAccount", &mut account);
        assert_eq!(
            account["secrets"],
            json!([{"name": "ci-token-b"}, {"name": "mine"}])
        );

        let mut token = json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "ci-token-a", "annotations": {"kubernetes.io/service-account.name": "ci", "kubernetes.io/service-account.uid": "u"}},
            "data": {"token": "dA=="}});
        prune("v1", "Secret", &mut token);
        assert_eq!(
            token["metadata"]["annotations"],
            json!({"kubernetes.io/service-account.name": "ci"})
        );
        assert_eq!(token.get("data"), Some(&Value::Null));

        let mut opaque = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "dg=="}});
        let before = opaque.clone();
        prune("v1", "Secret", &mut opaque);
        assert_eq!(opaque, before);
    }

    /// A Service's cluster IPs go only when it has a `clusterIP` (not
    /// `None`): `clusterIPs` alone stay, as Karmada's prune keys on it.
    #[test]
    fn prune_keys_a_services_ips_on_cluster_ip() {
        let mut only_ips = json!({"spec": {"type": "ClusterIP", "clusterIPs": ["10.0.0.7"]}});
        prune("v1", "Service", &mut only_ips);
        assert_eq!(only_ips["spec"]["clusterIPs"], json!(["10.0.0.7"]));
        let mut headless = json!({"spec": {"clusterIP": "None", "clusterIPs": ["None"]}});
        prune("v1", "Service", &mut headless);
        assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
        let mut both = json!({"spec": {"clusterIP": "", "clusterIPs": ["10.0.0.8"]}});
        prune("v1", "Service", &mut both);
        assert_eq!(both["spec"], json!({}));
    }

    /// The Work holds the object pruned twice (binding controller, Work
    /// webhook): of two token references in a row both go, of four the last
    /// stays.
    #[test]
    fn the_work_prunes_service_account_tokens_twice() {
        let account = |names: &[&str]| {
            let secrets: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
            json!({"metadata": {"name": "ci"}, "secrets": secrets})
        };
        let table: &[(&[&str], &[&str])] = &[
            (&["ci-token-a", "ci-token-b", "mine"], &["mine"]),
            (
                &["ci-token-a", "ci-token-b", "mine", "ci-token-c"],
                &["mine"],
            ),
            (
                &["ci-token-a", "ci-token-b", "ci-token-c", "ci-token-d"],
                &["ci-token-d"],
            ),
            (&["mine", "ci-token-a"], &["mine"]),
        ];
        for (before, after) in table {
            let mut object = account(before);
            prune_for_work("v1", "ServiceAccount", &mut object);
            assert_eq!(object["secrets"], account(after)["secrets"], "{before:?}");
        }
    }

    fn named(dependencies: &[Dependency]) -> Vec<String> {
        dependencies
            .iter()
            .map(|d| match &d.target {
                Target::Name(name) => format!("{} {}/{name}", d.api_version, d.kind),
                Target::Labels(labels) => format!("{} {}/{labels:?}", d.api_version, d.kind),
            })
            .collect()
    }

    /// Karmada's `getIngressDependencies`: a Secret per TLS entry; one
    /// without a `secretName` makes the whole list invalid.
    #[test]
    fn ingress_dependencies_are_its_tls_secrets() {
        let ingress =
            json!({"spec": {"tls": [{"secretName": "b"}, {"hosts": ["x"], "secretName": "a"}]}});
        let found = dependencies("networking.k8s.io/v1", "Ingress", &ingress);
        assert_eq!(
            found.as_deref().map(named),
            Ok(vec!["v1 Secret/b".to_string(), "v1 Secret/a".to_string()])
        );
        assert_eq!(
            dependencies("networking.k8s.io/v1", "Ingress", &json!({"spec": {}})),
            Ok(Vec::new())
        );
        let unnamed = json!({"spec": {"tls": [{"secretName": "a"}, {"hosts": ["x"]}]}});
        assert_eq!(
            dependencies("networking.k8s.io/v1", "Ingress", &unnamed),
            Err(Unnamed {
                index: 1,
                field: "spec.tls[1].secretName".into()
            })
        );
        // Karmada's table is keyed by version too.
        assert_eq!(
            dependencies("networking.k8s.io/v1beta1", "Ingress", &ingress),
            Ok(Vec::new())
        );
    }

    /// Karmada's `getServiceImportDependencies`: the derived Service by
    /// name, its EndpointSlices by label.
    #[test]
    fn service_import_dependencies_are_the_derived_service_and_slices() {
        let import = json!({"metadata": {"name": "web", "namespace": "shop"}});
        let found = dependencies("multicluster.x-k8s.io/v1alpha1", "ServiceImport", &import);
        assert_eq!(
            found.as_deref().map(named),
            Ok(vec![
                "v1 Service/derived-web".to_string(),
                r#"discovery.k8s.io/v1 EndpointSlice/{"kubernetes.io/service-name": "derived-web"}"#
                    .to_string()
            ])
        );
    }

    #[test]
    fn dependencies_in_karmada_order() {
        let deploy = json!({"spec": {"template": {"spec": {
            "serviceAccountName": "runner",
            "imagePullSecrets": [{"name": "pull"}],
            "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cm-b"}}],
                "env": [{"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}],
            "volumes": [{"name": "v", "configMap": {"name": "cm-a"}}, {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}}});
        let names: Vec<String> = dependencies("apps/v1", "Deployment", &deploy)
            .unwrap_or_default()
            .into_iter()
            .map(|d| match d.target {
                Target::Name(name) => format!("{}/{name}", d.kind),
                Target::Labels(labels) => format!("{}/{labels:?}", d.kind),
            })
            .collect();
        assert_eq!(
            names,
            [
                "ConfigMap/cm-a",
                "ConfigMap/cm-b",
                "Secret/pull",
                "Secret/s",
                "ServiceAccount/runner",
                "PersistentVolumeClaim/data"
            ]
        );
    }
}
