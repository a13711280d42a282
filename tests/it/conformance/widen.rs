//! Shapes of a generated case that the first generator did not draw, each
//! aimed at Karmada code the differential run did not walk
//! (`super::coverage` lists what is left): Clusters with the connection
//! fields Karmada's registry validates, workload kinds beyond Deployment
//! and Job with the ConfigMaps, Secrets, ServiceAccounts and PVCs they
//! reference and a policy that takes them along (`propagateDeps`), Lua
//! customizations that call Karmada's `kube` library or name dependencies
//! by label, policies with an application failover, capacity at the
//! estimator's edges, and spreads over several regions. Drawn from a
//! random stream of their own, so every choice the rest of the generator
//! makes for a seed stays as it was.

use super::generate::{Case, Rng};
use serde_json::{json, Value};

/// `case` widened by the shapes above, from `seed`'s own stream.
pub fn widen(seed: u64, case: &mut Case) {
    let mut rng = Rng::new(seed ^ 0x0077_6964_656e_6564);
    if rng.chance(3) {
        large_fleet(&mut rng, &mut case.clusters);
    }
    for cluster in &mut case.clusters {
        connection(&mut rng, cluster);
        if rng.chance(20) {
            second_taint(&mut rng, cluster);
        }
    }
    let clusters: Vec<String> = case
        .clusters
        .iter()
        .filter_map(|c| c.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    if rng.chance(50) {
        let namespace = *rng.pick(&["shop", "web"]);
        let kind = *rng.pick(&WORKLOADS);
        let (workload, dependencies) = workload(&mut rng, kind, namespace);
        for cluster in &mut case.clusters {
            serve(&mut rng, cluster, kind);
        }
        case.templates.push(workload);
        case.templates.extend(dependencies);
        if kind == "StatefulSet" && rng.chance(40) {
            case.customizations.push(stateful_set_customization());
        }
        case.policies
            .push(workload_policy(&mut rng, kind, namespace, &clusters));
    }
    if rng.chance(40) {
        for cluster in &mut case.clusters {
            if rng.chance(85) {
                enable(
                    cluster,
                    "rbac.authorization.k8s.io/v1",
                    "clusterroles",
                    "ClusterRole",
                );
            }
        }
        case.templates.push(cluster_role(&mut rng));
        case.policies.push(cluster_role_policy(&mut rng, &clusters));
    }
    for template in &mut case.templates {
        unwritten_defaults(&mut rng, template);
        if template["kind"] == "Deployment" && rng.chance(30) {
            // Booleans and more numbers for the Lua customization to read.
            template["spec"]["paused"] = json!(false);
            template["spec"]["minReadySeconds"] = json!(rng.below(30));
            template["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = json!(15);
        }
    }
    for policy in &mut case.policies {
        placement_extras(&mut rng, &mut policy["spec"]["placement"], clusters.len());
        if rng.chance(15) {
            // Karmada's webhook refuses an application failover without
            // propagateDeps (case file `refused-failover-without-deps`).
            policy["spec"]["propagateDeps"] = json!(true);
            policy["spec"]["failover"] = json!({"application": {
                "decisionConditions": {"tolerationSeconds": 30 * (1 + rng.below(4))},
                "purgeMode": rng.pick(&["Gracefully", "Directly", "Never"]),
            }});
            if policy["spec"]["failover"]["application"]["purgeMode"] == "Gracefully" {
                policy["spec"]["failover"]["application"]["gracePeriodSeconds"] = json!(600);
            }
            if rng.chance(40) {
                policy["spec"]["failover"]["application"]["statePreservation"] = json!({"rules": [
                    {"aliasLabelName": "failover.example/replicas", "jsonPath": "{ .replicas }"},
                ]});
            }
        }
    }
    if rng.chance(30) {
        case.overrides
            .push(deployment_override(&mut rng, &clusters));
    }
    // Only the customizations that read replicas: one written for a kind's
    // dependencies alone stays so, or Karmada refuses it as a second
    // `replicaResource` for the kind.
    for customization in &mut case.customizations {
        let reads_replicas = customization["spec"]["customizations"]
            .get("replicaResource")
            .is_some();
        if reads_replicas && rng.chance(60) {
            kube_library(&mut rng, customization);
        }
    }
    for cluster in &mut case.clusters {
        if rng.chance(8) {
            capacity_edge(&mut rng, cluster);
        }
    }
    for policy in &mut case.policies {
        if rng.chance(12) {
            region_spread(&mut rng, &mut policy["spec"]["placement"]);
        }
    }
}

/// Capacity at the estimator's edges: every pod slot taken, every CPU
/// allocated, no CPU listed at all, exactly 2147483647 pods allowed,
/// which Karmada's scheduler reads as the template's replicas for pods
/// without requests (`calAvailableReplicas`; case file
/// `estimator-pods-maxint32`), or 1.5 billion, which two clusters add up
/// past what Karmada's int32 sum holds (`estimator-sum-past-int32`).
fn capacity_edge(rng: &mut Rng, cluster: &mut Value) {
    let summary = &mut cluster["status"]["resourceSummary"];
    match rng.below(5) {
        0 => summary["allocated"]["pods"] = summary["allocatable"]["pods"].clone(),
        1 => summary["allocated"]["cpu"] = summary["allocatable"]["cpu"].clone(),
        2 => {
            if let Some(allocatable) = summary["allocatable"].as_object_mut() {
                allocatable.remove("cpu");
            }
        }
        pods => {
            let allowed = if pods == 3 {
                "2147483647"
            } else {
                "1500000000"
            };
            summary["allocatable"]["pods"] = json!(allowed);
            summary["allocated"]["pods"] = json!("0");
            summary["allocating"]["pods"] = json!("0");
        }
    }
}

/// A spread over one to three regions with the clusters it needs drawn
/// up to four: several region combinations fit, or none does, or fewer
/// regions exist than asked (`select_groups.go`,
/// `select_clusters_by_region.go`).
fn region_spread(rng: &mut Rng, placement: &mut Value) {
    let region_min = 1 + rng.below(3);
    let region_max = region_min + rng.below(2);
    let cluster_min = 1 + rng.below(4);
    let cluster_max = cluster_min + rng.below(3);
    placement["spreadConstraints"] = json!([
        {"spreadByField": "region", "minGroups": region_min, "maxGroups": region_max},
        {"spreadByField": "cluster", "minGroups": cluster_min, "maxGroups": cluster_max},
    ]);
}

/// More changes between two schedules (`generate::changed`), from a
/// stream of their own: a cluster's labels change (label affinities and
/// static weights by label then select otherwise), a cluster is tainted
/// `NoSchedule` (a cluster already scheduled keeps the application, a new
/// placement avoids it), an override's values change (only the manifests
/// do). Each change is described in `changes`.
pub fn change_more(seed: u64, case: &mut Case, changes: &mut Vec<String>) {
    let mut rng = Rng::new(seed ^ 0x0063_6861_6e67_6573);
    if rng.chance(25) && !case.clusters.is_empty() {
        let index = rng.below(case.clusters.len() as u64) as usize;
        let cluster = &mut case.clusters[index];
        let tier = if cluster["metadata"]["labels"]["tier"] == "gold" {
            "silver"
        } else {
            "gold"
        };
        cluster["metadata"]["labels"]["tier"] = json!(tier);
        changes.push(format!(
            "cluster {} relabelled tier={tier}",
            cluster["metadata"]["name"].as_str().unwrap_or_default()
        ));
    }
    if rng.chance(20) && !case.clusters.is_empty() {
        let index = rng.below(case.clusters.len() as u64) as usize;
        let cluster = &mut case.clusters[index];
        let taint = json!({"key": "drain", "value": "soon", "effect": "NoSchedule"});
        match cluster["spec"]["taints"].as_array_mut() {
            Some(taints) => taints.push(taint),
            None => cluster["spec"]["taints"] = json!([taint]),
        }
        changes.push(format!(
            "cluster {} tainted drain=soon:NoSchedule",
            cluster["metadata"]["name"].as_str().unwrap_or_default()
        ));
    }
    if rng.chance(30) {
        for policy in &mut case.overrides {
            let text = policy.to_string();
            let edited = text
                .replace("\"from-override\"", "\"from-override-2\"")
                .replace("\"mirror.example\"", "\"mirror-2.example\"")
                .replace("\"renamed\"", "\"renamed-2\"");
            if edited != text {
                if let Ok(value) = serde_json::from_str(&edited) {
                    *policy = value;
                    changes.push(format!(
                        "override {} edited",
                        policy["metadata"]["name"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
    }
    policy_lifecycle(seed, case, changes);
    template_lifecycle(seed, case, changes);
}

/// A template leaves the repository: Karmada deletes its binding and
/// Works (and detaches the dependencies it took along); garrison stops
/// rendering it.
fn template_lifecycle(seed: u64, case: &mut Case, changes: &mut Vec<String>) {
    let mut rng = Rng::new(seed ^ 0x0074_656d_706c_6174);
    if rng.chance(20) && case.templates.len() > 1 {
        let index = rng.below(case.templates.len() as u64) as usize;
        let gone = case.templates.remove(index);
        changes.push(format!(
            "template {} {} deleted",
            gone["kind"].as_str().unwrap_or_default(),
            gone["metadata"]["name"].as_str().unwrap_or_default()
        ));
    }
}

/// A policy goes from one render to the next, or stops selecting one of
/// its resources: the templates it claimed then go to the best policy that
/// still selects them, or to none (Karmada's detector removes the claim
/// from the binding and the template and leaves the binding as it is).
fn policy_lifecycle(seed: u64, case: &mut Case, changes: &mut Vec<String>) {
    let mut rng = Rng::new(seed ^ 0x006c_6966_6563_7963);
    let name = |policy: &Value| {
        policy["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    if rng.chance(15) && case.policies.len() > 1 {
        let index = rng.below(case.policies.len() as u64) as usize;
        let gone = case.policies.remove(index);
        changes.push(format!("policy {} deleted", name(&gone)));
    }
    let propagating: Vec<usize> = (0..case.policies.len())
        .filter(|&i| {
            let spec = &case.policies[i]["spec"];
            spec["propagateDeps"] == true && spec["failover"].is_null()
        })
        .collect();
    if rng.chance(20) && !propagating.is_empty() {
        let policy = &mut case.policies[*rng.pick(&propagating)];
        policy["spec"]["propagateDeps"] = json!(false);
        changes.push(format!(
            "policy {} stopped propagating dependencies",
            name(policy)
        ));
    }
    if rng.chance(15) && !case.policies.is_empty() {
        let index = rng.below(case.policies.len() as u64) as usize;
        let policy = &mut case.policies[index];
        let named = name(policy);
        if let Some(selectors) = policy["spec"]["resourceSelectors"].as_array_mut() {
            if selectors.len() > 1 {
                let dropped = selectors.remove(rng.below(selectors.len() as u64) as usize);
                changes.push(format!(
                    "policy {named} stopped selecting {} {}",
                    dropped["kind"].as_str().unwrap_or_default(),
                    dropped["name"].as_str().unwrap_or("by label")
                ));
            }
        }
    }
}

/// Clusters added up to 60 in all, labelled and placed like the others;
/// the policies reach them by label, field and catch-all.
fn large_fleet(rng: &mut Rng, clusters: &mut Vec<Value>) {
    let Some(model) = clusters.first().cloned() else {
        return;
    };
    let total = 20 + rng.below(41);
    for index in clusters.len() as u64..total {
        let mut cluster = model.clone();
        cluster["metadata"]["name"] = json!(format!("m{index}"));
        cluster["metadata"]["labels"] = json!({
            "env": rng.pick(&["prod", "test"]),
            "tier": rng.pick(&["gold", "silver"]),
        });
        let region = *rng.pick(&["eu", "us", "ap"]);
        cluster["spec"] =
            json!({"syncMode": "Push", "provider": rng.pick(&["aws", "gcp"]), "region": region});
        if rng.chance(50) {
            cluster["spec"]["zones"] = json!([format!("{region}-a")]);
        }
        let cpu = 4 + 4 * rng.below(4);
        cluster["status"]["resourceSummary"]["allocatable"]["cpu"] = json!(cpu.to_string());
        cluster["status"]["resourceSummary"]["allocated"]["cpu"] =
            json!(rng.below(cpu).to_string());
        clusters.push(cluster);
    }
}

/// A second taint, `NoExecute`, which the policies tolerate for a while
/// (`tolerationSeconds`: Karmada's filter tolerates it as any other).
fn second_taint(rng: &mut Rng, cluster: &mut Value) {
    let taint = json!({"key": "maintenance", "value": rng.pick(&["planned", "urgent"]), "effect": "NoExecute"});
    match cluster["spec"]["taints"].as_array_mut() {
        Some(taints) => taints.push(taint),
        None => cluster["spec"]["taints"] = json!([taint]),
    }
}

/// Tolerations with `tolerationSeconds`, a spread by cluster that needs
/// more than one group, a spread by label.
fn placement_extras(rng: &mut Rng, placement: &mut Value, fleet: usize) {
    if rng.chance(20) {
        let toleration = json!({"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60 * (1 + rng.below(10))});
        match placement["clusterTolerations"].as_array_mut() {
            Some(tolerations) => tolerations.push(toleration),
            None => placement["clusterTolerations"] = json!([toleration]),
        }
    }
    if placement.get("spreadConstraints").is_none() && rng.chance(10) {
        let max = 2 + rng.below(fleet.max(2) as u64);
        placement["spreadConstraints"] = match rng.below(2) {
            0 => json!([{"spreadByField": "cluster", "maxGroups": max, "minGroups": 2}]),
            _ => json!([{"spreadByLabel": "tier", "maxGroups": 2, "minGroups": 1}]),
        };
    }
}

/// Now and then a workload without the fields the API server defaults:
/// a Deployment without `replicas`, a Job without `parallelism` or
/// `completions`.
fn unwritten_defaults(rng: &mut Rng, template: &mut Value) {
    let Some(spec) = template.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    match template_kind(spec) {
        _ if !rng.chance(10) => {}
        Some("Job") => {
            spec.remove(*rng.pick(&["parallelism", "completions"]));
        }
        Some("workload") => {
            spec.remove("replicas");
        }
        _ => {}
    }
}

/// `Job`, `workload` (a spec with `replicas`) or nothing, from a spec.
fn template_kind(spec: &serde_json::Map<String, Value>) -> Option<&'static str> {
    if spec.contains_key("parallelism") || spec.contains_key("completions") {
        Some("Job")
    } else if spec.contains_key("replicas") {
        Some("workload")
    } else {
        None
    }
}

/// An OverridePolicy of Deployments only: a plaintext replacement of
/// `/spec/replicas` and image overriders with and without a predicate.
fn deployment_override(rng: &mut Rng, clusters: &[String]) -> Value {
    let mut overriders = json!({
        "imageOverrider": [
            {"predicate": {"path": "/spec/template/spec/containers/0/image"}, "component": "Registry", "operator": "replace", "value": "mirror.example"},
            {"component": "Tag", "operator": "replace", "value": "1.1"},
        ],
    });
    if rng.chance(60) {
        overriders["plaintext"] =
            json!([{"path": "/spec/replicas", "operator": "replace", "value": rng.below(5)}]);
    }
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "deployments"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "overrideRules": [{"targetCluster": {"clusterNames": rng.some(clusters)}, "overriders": overriders}],
        },
    })
}

/// Now and then the fields that tell a control plane how to reach the
/// cluster: valid as Karmada's registry validates them, without effect on
/// what a member receives.
fn connection(rng: &mut Rng, cluster: &mut Value) {
    let name = cluster["metadata"]["name"]
        .as_str()
        .unwrap_or("m")
        .to_string();
    if rng.chance(30) {
        cluster["spec"]["apiEndpoint"] = json!(format!("https://{name}.example:6443"));
        cluster["spec"]["secretRef"] = json!({"namespace": "karmada-cluster", "name": name});
        cluster["spec"]["impersonatorSecretRef"] =
            json!({"namespace": "karmada-cluster", "name": format!("{name}-impersonator")});
        if rng.chance(40) {
            cluster["spec"]["proxyURL"] =
                json!(*rng.pick(&["http://proxy.example:3128", "socks5://proxy.example:1080"]));
        }
        if rng.chance(30) {
            cluster["spec"]["insecureSkipTLSVerification"] = json!(true);
        }
    }
    if rng.chance(20) {
        cluster["spec"]["id"] = json!(format!(
            "00000000-0000-4000-8000-00000000000{}",
            name.len() % 10
        ));
    }
}

const WORKLOADS: [&str; 5] = ["StatefulSet", "DaemonSet", "ReplicaSet", "CronJob", "Pod"];

/// The group and version of one of [`WORKLOADS`], and its resource name.
fn served(kind: &str) -> (&'static str, &'static str) {
    match kind {
        "StatefulSet" => ("apps/v1", "statefulsets"),
        "DaemonSet" => ("apps/v1", "daemonsets"),
        "ReplicaSet" => ("apps/v1", "replicasets"),
        "CronJob" => ("batch/v1", "cronjobs"),
        _ => ("v1", "pods"),
    }
}

/// Most clusters serve `kind` and the kinds its dependencies are; a few
/// do not, and the APIEnablement filter leaves them out.
fn serve(rng: &mut Rng, cluster: &mut Value, kind: &str) {
    if !rng.chance(85) {
        return;
    }
    let (group_version, resource) = served(kind);
    enable(cluster, group_version, resource, kind);
    enable(cluster, "v1", "secrets", "Secret");
    enable(cluster, "v1", "serviceaccounts", "ServiceAccount");
    enable(
        cluster,
        "v1",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
    );
}

/// List `kind` among the cluster's API enablements.
fn enable(cluster: &mut Value, group_version: &str, resource: &str, kind: &str) {
    let Some(enabled) = cluster
        .pointer_mut("/status/apiEnablements")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let entry = json!({"name": resource, "kind": kind});
    match enabled
        .iter_mut()
        .find(|e| e["groupVersion"] == group_version)
    {
        Some(e) => {
            if let Some(resources) = e["resources"].as_array_mut() {
                resources.push(entry);
            }
        }
        None => enabled.push(json!({"groupVersion": group_version, "resources": [entry]})),
    }
}

/// A cluster-scoped template: its binding is a ClusterResourceBinding.
fn cluster_role(rng: &mut Rng) -> Value {
    let mut metadata = json!({"name": "store-reader"});
    if rng.chance(50) {
        metadata["labels"] = json!({"app": "store"});
    }
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": metadata,
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
    })
}

/// The ClusterPropagationPolicy that claims [`cluster_role`].
fn cluster_role_policy(rng: &mut Rng, clusters: &[String]) -> Value {
    let mut placement = json!({"clusterAffinity": {"clusterNames": rng.some(clusters)}});
    if rng.chance(30) {
        placement["clusterTolerations"] = json!([{"key": "dedicated", "operator": "Exists"}]);
    }
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "store-reader"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": "store-reader"}],
            "priority": 5,
            "placement": placement,
        },
    })
}

/// A workload of `kind` named `store` whose pod template references a
/// ConfigMap, a Secret, a ServiceAccount and (but a StatefulSet's own
/// claim templates) a PVC, and the dependencies that exist of those.
fn workload(rng: &mut Rng, kind: &str, namespace: &str) -> (Value, Vec<Value>) {
    let mut container = json!({
        "name": "store",
        "image": "registry.example/store:2.1",
        "envFrom": [{"configMapRef": {"name": "store-config"}}],
        "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "store-token", "key": "token"}}}],
    });
    if rng.chance(60) {
        container["resources"] = json!({"requests": {"cpu": "250m", "memory": "128Mi"}});
    }
    let mut pod = json!({
        "serviceAccountName": "store",
        "containers": [container],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "store-data"}},
            {"name": "tls", "secret": {"secretName": "store-tls"}},
        ],
    });
    if kind == "CronJob" || kind == "Pod" {
        pod["restartPolicy"] = json!("Never");
    }
    let labels = json!({"app": "store"});
    let template = json!({"metadata": {"labels": labels}, "spec": pod});
    let spec = match kind {
        "StatefulSet" => json!({
            "replicas": rng.below(7),
            "serviceName": "store",
            "selector": {"matchLabels": labels},
            "template": template,
            "volumeClaimTemplates": [{
                "metadata": {"name": "cache"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }],
        }),
        "DaemonSet" => json!({"selector": {"matchLabels": labels}, "template": template}),
        "ReplicaSet" => {
            json!({"replicas": rng.below(7), "selector": {"matchLabels": labels}, "template": template})
        }
        "CronJob" => {
            json!({"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template}}})
        }
        _ => pod,
    };
    let workload = json!({
        "apiVersion": served(kind).0,
        "kind": kind,
        "metadata": {"name": "store", "namespace": namespace, "labels": labels},
        "spec": spec,
    });
    // Labelled like the other templates, so the generated overrides'
    // label paths exist on them too.
    let meta =
        |name: &str| json!({"name": name, "namespace": namespace, "labels": {"app": "store"}});
    let candidates = [
        super::generate::config_map(rng, namespace, "store"),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta("store-token"), "type": "Opaque", "data": {"token": "c2VjcmV0"}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta("store-tls"), "type": "Opaque", "data": {"tls.crt": "Y2VydA=="}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta("store")}),
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta("store-data"),
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}}),
    ];
    let dependencies = candidates.into_iter().filter(|_| rng.chance(75)).collect();
    (workload, dependencies)
}

/// A PropagationPolicy for the workload, taking its dependencies along.
fn workload_policy(rng: &mut Rng, kind: &str, namespace: &str, clusters: &[String]) -> Value {
    let mut placement = json!({"clusterAffinity": {"clusterNames": rng.some(clusters)}});
    if kind != "DaemonSet" && kind != "CronJob" && rng.chance(60) {
        placement["replicaScheduling"] = json!({
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
        });
    }
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "store", "namespace": namespace},
        "spec": {
            "resourceSelectors": [{"apiVersion": served(kind).0, "kind": kind, "name": "store"}],
            "propagateDeps": rng.chance(80),
            "priority": 10,
            "placement": placement,
        },
    })
}

/// A second customization, of StatefulSets: Karmada's webhook checks it
/// against the Deployment one (`validateCustomizationRule`), and its
/// scripts read the replicas and their requirements with the `kube`
/// library.
fn stateful_set_customization() -> Value {
    json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "statefulsets"},
        "spec": {
            "target": {"apiVersion": "apps/v1", "kind": "StatefulSet"},
            "customizations": {
                "replicaResource": {"luaScript": "local kube = require(\"kube\")\nfunction GetReplicas(obj)\n  local replicas = obj.spec.replicas\n  if replicas == nil then replicas = 1 end\n  return replicas, kube.accuratePodRequirements(obj.spec.template)\nend\n"},
                "replicaRevision": {"luaScript": "function ReviseReplica(obj, desiredReplica)\n  obj.spec.replicas = desiredReplica\n  return obj\nend\n"},
            },
        },
    })
}

/// The Deployment customization's scripts written with Karmada's `kube`
/// library: the replica requirements from `accuratePodRequirements`, the
/// dependencies from `getPodDependencies`, and quantities summed with
/// `resourceAdd`.
fn kube_library(rng: &mut Rng, customization: &mut Value) {
    let customizations = &mut customization["spec"]["customizations"];
    customizations["replicaResource"] = json!({"luaScript": "local kube = require(\"kube\")\nfunction GetReplicas(obj)\n  local replicas = obj.spec.replicas\n  if replicas == nil then replicas = 1 end\n  local requirement = kube.accuratePodRequirements(obj.spec.template)\n  return replicas, requirement\nend\n"});
    match rng.below(5) {
        0..=2 => {
            customizations["dependencyInterpretation"] = json!({"luaScript": "local kube = require(\"kube\")\nfunction GetDependencies(desiredObj)\n  return kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)\nend\n"});
        }
        3 => {
            // Dependencies by label, which may match nothing.
            let app = *rng.pick(&["api", "cart", "store", "nothing"]);
            customizations["dependencyInterpretation"] = json!({"luaScript": format!("function GetDependencies(desiredObj)\n  local refs = {{}}\n  refs[1] = {{apiVersion = \"v1\", kind = \"ConfigMap\", namespace = desiredObj.metadata.namespace, labelSelector = {{matchLabels = {{app = \"{app}\"}}}}}}\n  return refs\nend\n")});
        }
        _ => {}
    }
    if rng.chance(30) {
        customizations["replicaRevision"] = json!({"luaScript": "local kube = require(\"kube\")\nfunction ReviseReplica(obj, desiredReplica)\n  obj.spec.replicas = desiredReplica\n  if obj.metadata.annotations == nil then obj.metadata.annotations = {} end\n  obj.metadata.annotations[\"cpu-sum\"] = tostring(kube.resourceAdd(\"100m\", \"1\"))\n  obj.metadata.annotations[\"cpu-cores\"] = tostring(kube.getResourceQuantity(\"1500m\"))\n  return obj\nend\n"});
    }
}
