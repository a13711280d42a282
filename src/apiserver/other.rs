//! Every other built-in group a v1.35 kube-apiserver serves by default
//! (`stableAPIGroupVersionsEnabledByDefault`, pkg/controlplane/instance.go):
//! each kind as it is stored, after the defaulters of
//! `pkg/apis/<group>/<version>/defaults.go` and the typed encoding. A
//! group's beta or alpha versions are in Kubernetes' scheme but not served,
//! so they are not known here; neither are the kinds other servers keep
//! (`apiextensions.k8s.io`, `apiregistration.k8s.io`).

use super::{default_to, each, existing, object_at};
use serde_json::{json, Map, Value};

/// The `rbac.authorization.k8s.io` group, which a role reference and a
/// user or group subject name when they name none.
const RBAC: &str = "rbac.authorization.k8s.io";

/// Defaults `object` when `group`/`version` serves `kind`; `false` otherwise.
pub(crate) fn store(
    group: &str,
    version: &str,
    kind: &str,
    object: &mut Map<String, Value>,
) -> bool {
    match (group, version) {
        ("autoscaling", "v1") => autoscaling_v1(kind, object),
        ("autoscaling", "v2") => kind == "HorizontalPodAutoscaler" && hpa_v2(object),
        ("networking.k8s.io", "v1") => networking(kind, object),
        ("policy", "v1") => policy(kind, object),
        ("rbac.authorization.k8s.io", "v1") => rbac(kind, object),
        ("storage.k8s.io", "v1") => storage(kind, object),
        ("scheduling.k8s.io", "v1") => kind == "PriorityClass" && priority_class(object),
        ("discovery.k8s.io", "v1") => kind == "EndpointSlice" && endpoint_slice(object),
        ("node.k8s.io", "v1") => {
            kind == "RuntimeClass" && fields(object, &[("handler", json!(""))])
        }
        ("coordination.k8s.io", "v1") => kind == "Lease" && with_spec(object),
        ("events.k8s.io", "v1") => kind == "Event" && event(object),
        ("admissionregistration.k8s.io", "v1") => admission(kind, object),
        ("certificates.k8s.io", "v1") => {
            kind == "CertificateSigningRequest" && certificate_request(object)
        }
        ("flowcontrol.apiserver.k8s.io", "v1") => flowcontrol(kind, object),
        ("resource.k8s.io", "v1") => resource(kind, object),
        _ => false,
    }
}

/// Sets each field the typed encoding writes even when it is unset (a Go
/// field without `omitempty`, or a struct, which `omitempty` never leaves
/// out) to the zero value it is written with, when it is missing or null.
pub(super) fn written(map: &mut Map<String, Value>, fields: &[(&str, Value)]) {
    for (key, zero) in fields {
        default_to(map, key, zero.clone());
    }
}

/// Removes each of `keys` holding its type's zero value (`false`, `0`,
/// `""`, `[]`, `{}`, null): fields `omitempty` leaves out of the typed
/// encoding when they hold no pointer.
pub(super) fn omitted(map: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        let zero = match map.get(*key) {
            Some(Value::Null | Value::Bool(false)) => true,
            Some(Value::Number(n)) => n.as_f64() == Some(0.0),
            Some(Value::String(s)) => s.is_empty(),
            Some(Value::Array(items)) => items.is_empty(),
            Some(Value::Object(map)) => map.is_empty(),
            _ => false,
        };
        if zero {
            map.remove(*key);
        }
    }
}

/// [`written`] on a top-level object, answering that the kind is known.
fn fields(object: &mut Map<String, Value>, zeros: &[(&str, Value)]) -> bool {
    written(object, zeros);
    true
}

/// The object's `spec`, made when missing: every spec is a struct the
/// typed encoding writes.
fn spec(object: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    object_at(object, "spec")
}

/// A kind whose only encoding artefact is its spec, answering that the
/// kind is known.
fn with_spec(object: &mut Map<String, Value>) -> bool {
    spec(object);
    true
}

/// A CertificateSigningRequest's spec, whose request and signer are always
/// written.
fn certificate_request(object: &mut Map<String, Value>) -> bool {
    if let Some(spec) = spec(object) {
        written(spec, &[("request", Value::Null), ("signerName", json!(""))]);
    }
    true
}

/// `autoscaling/v1`: a HorizontalPodAutoscaler (`SetDefaults_HorizontalPodAutoscaler`,
/// and the 80% CPU target the conversion to the internal version gives an
/// autoscaler without one, read back as `targetCPUUtilizationPercentage`)
/// and a Scale.
fn autoscaling_v1(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "HorizontalPodAutoscaler" => {
            if let Some(spec) = spec(object) {
                default_to(spec, "minReplicas", json!(1));
                default_to(spec, "targetCPUUtilizationPercentage", json!(80));
                hpa_target(spec);
            }
        }
        "Scale" => return with_spec(object),
        _ => return false,
    }
    true
}

/// What an autoscaler's spec always has: a target and a maximum.
fn hpa_target(spec: &mut Map<String, Value>) {
    written(spec, &[("maxReplicas", json!(0))]);
    if let Some(target) = object_at(spec, "scaleTargetRef") {
        written(target, &[("kind", json!("")), ("name", json!(""))]);
    }
}

/// `autoscaling/v2`'s `SetDefaults_HorizontalPodAutoscaler`: a minimum of
/// one, an 80% CPU target when no metric is written, and a written
/// `behavior`'s rules completed from the defaults of each direction.
fn hpa_v2(object: &mut Map<String, Value>) -> bool {
    let Some(spec) = spec(object) else {
        return true;
    };
    default_to(spec, "minReplicas", json!(1));
    let no_metrics = spec
        .get("metrics")
        .is_none_or(|m| m.is_null() || m.as_array().is_some_and(Vec::is_empty));
    if no_metrics {
        spec.insert(
            "metrics".into(),
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80}}}]),
        );
    }
    hpa_target(spec);
    for metric in each(spec, "metrics") {
        metric_targets(metric);
    }
    if let Some(behavior) = existing(spec, "behavior") {
        let up = json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15}]});
        let down = json!({"selectPolicy": "Max", "policies": [
            {"type": "Percent", "value": 100, "periodSeconds": 15}]});
        scaling_rules(behavior, "scaleUp", up);
        scaling_rules(behavior, "scaleDown", down);
    }
    true
}

/// A v2 metric's target (under whichever source it names), its
/// quantities in their canonical form.
fn metric_targets(metric: &mut Map<String, Value>) {
    for source in [
        "object",
        "pods",
        "resource",
        "containerResource",
        "external",
    ] {
        if let Some(target) = existing(metric, source).and_then(|s| existing(s, "target")) {
            quantities(target, &["value", "averageValue"]);
        }
    }
}

/// Rewrites each of `keys` holding a whole number without a suffix (a YAML
/// number or a string of digits) as a `resource.Quantity` encodes it:
/// trailing zeros in threes become a decimal SI suffix (`1000` is `1k`,
/// `1500` stays). Other quantities are left as written.
pub(super) fn quantities(map: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(canonical) = map.get(*key).and_then(whole_quantity) {
            map.insert((*key).to_string(), Value::String(canonical));
        }
    }
}

/// The canonical text of a whole-number quantity; `None` for anything else.
fn whole_quantity(value: &Value) -> Option<String> {
    let number = match value {
        Value::Number(n) => n.as_i64()?,
        Value::String(text) => {
            let digits = text.strip_prefix('-').unwrap_or(text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            text.parse::<i64>().ok()?
        }
        _ => return None,
    };
    if number == 0 {
        return Some("0".into());
    }
    let mut mantissa = number;
    let mut suffix = "";
    for next in ["k", "M", "G", "T", "P", "E"] {
        if mantissa % 1000 != 0 {
            break;
        }
        mantissa /= 1000;
        suffix = next;
    }
    Some(format!("{mantissa}{suffix}"))
}

/// Kubernetes' `copyHPAScalingRules`: the direction's defaults, with each
/// field the user wrote in their place (an empty `policies` too, which the
/// encoding then leaves out).
fn scaling_rules(behavior: &mut Map<String, Value>, key: &str, defaults: Value) {
    let Value::Object(mut rules) = defaults else {
        return;
    };
    if let Some(written) = behavior.get(key).and_then(Value::as_object) {
        for (field, value) in written {
            if !value.is_null() {
                rules.insert(field.clone(), value.clone());
            }
        }
    }
    omitted(&mut rules, &["policies"]);
    quantities(&mut rules, &["tolerance"]);
    behavior.insert(key.into(), Value::Object(rules));
}

/// `networking.k8s.io/v1`: `SetDefaults_NetworkPolicy` (and its ports'
/// protocol), `SetDefaults_IngressClass`, and the kinds without defaults.
fn networking(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "NetworkPolicy" => {
            if let Some(spec) = spec(object) {
                network_policy(spec);
            }
        }
        "Ingress" => {
            if let Some(spec) = spec(object) {
                ingress(spec);
            }
        }
        "IngressClass" => {
            if let Some(parameters) = spec(object).and_then(|s| existing(s, "parameters")) {
                written(parameters, &[("kind", json!("")), ("name", json!(""))]);
                default_to(parameters, "scope", json!("Cluster"));
            }
        }
        "IPAddress" | "ServiceCIDR" => return with_spec(object),
        _ => return false,
    }
    true
}

/// A NetworkPolicy's spec: policy types from the rules written, TCP for
/// each port naming no protocol.
fn network_policy(spec: &mut Map<String, Value>) {
    object_at(spec, "podSelector");
    omitted(spec, &["ingress", "egress"]);
    let untyped = spec
        .get("policyTypes")
        .is_none_or(|t| t.is_null() || t.as_array().is_some_and(Vec::is_empty));
    if untyped {
        let egress = spec
            .get("egress")
            .and_then(Value::as_array)
            .is_some_and(|rules| !rules.is_empty());
        let types = if egress {
            json!(["Ingress", "Egress"])
        } else {
            json!(["Ingress"])
        };
        spec.insert("policyTypes".into(), types);
    }
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for rule in each(spec, direction) {
            omitted(rule, &[peers, "ports"]);
            for port in each(rule, "ports") {
                default_to(port, "protocol", json!("TCP"));
            }
            for peer in each(rule, peers) {
                if let Some(block) = existing(peer, "ipBlock") {
                    written(block, &[("cidr", json!(""))]);
                }
            }
        }
    }
}

/// An Ingress's spec: what its HTTP paths always have.
fn ingress(spec: &mut Map<String, Value>) {
    omitted(spec, &["tls", "rules"]);
    if let Some(backend) = existing(spec, "defaultBackend") {
        service_backend(backend);
    }
    for rule in each(spec, "rules") {
        if let Some(http) = existing(rule, "http") {
            written(http, &[("paths", Value::Null)]);
            for path in each(http, "paths") {
                written(path, &[("pathType", Value::Null)]);
                if let Some(backend) = object_at(path, "backend") {
                    service_backend(backend);
                }
            }
        }
    }
}

/// An Ingress backend's service name, always written.
fn service_backend(backend: &mut Map<String, Value>) {
    if let Some(service) = existing(backend, "service") {
        written(service, &[("name", json!(""))]);
    }
}

/// `policy/v1`: a PodDisruptionBudget's spec is always written; an
/// Eviction has nothing defaulted.
fn policy(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "PodDisruptionBudget" => return with_spec(object),
        "Eviction" => {}
        _ => return false,
    }
    true
}

/// `rbac.authorization.k8s.io/v1`: a binding's role reference and
/// subjects' API group (`SetDefaults_RoleBinding`, `SetDefaults_Subject`),
/// a role's rules always written.
fn rbac(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "Role" | "ClusterRole" => {
            written(object, &[("rules", Value::Null)]);
            for rule in each(object, "rules") {
                written(rule, &[("verbs", Value::Null)]);
                omitted(
                    rule,
                    &["apiGroups", "resources", "resourceNames", "nonResourceURLs"],
                );
            }
        }
        "RoleBinding" | "ClusterRoleBinding" => {
            if let Some(role) = object_at(object, "roleRef") {
                written(role, &[("kind", json!("")), ("name", json!(""))]);
                default_to(role, "apiGroup", json!(RBAC));
            }
            omitted(object, &["subjects"]);
            for subject in each(object, "subjects") {
                written(subject, &[("kind", json!("")), ("name", json!(""))]);
                let group = match subject.get("kind").and_then(Value::as_str) {
                    Some("User" | "Group") => RBAC,
                    _ => "",
                };
                default_to(subject, "apiGroup", json!(group));
                omitted(subject, &["apiGroup"]);
            }
        }
        _ => return false,
    }
    true
}

/// `storage.k8s.io/v1`: `SetDefaults_StorageClass`, `SetDefaults_CSIDriver`
/// (with `SELinuxMountReadWriteOncePod` on, its v1.35 default), and the
/// required fields of the kinds without defaults.
fn storage(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "StorageClass" => {
            written(object, &[("provisioner", json!(""))]);
            omitted(object, &["parameters", "mountOptions", "allowedTopologies"]);
            default_to(object, "reclaimPolicy", json!("Delete"));
            default_to(object, "volumeBindingMode", json!("Immediate"));
        }
        "CSIDriver" => {
            if let Some(spec) = spec(object) {
                csi_driver(spec);
            }
        }
        "VolumeAttachment" => {
            if let Some(spec) = spec(object) {
                written(
                    spec,
                    &[
                        ("attacher", json!("")),
                        ("nodeName", json!("")),
                        ("source", json!({})),
                    ],
                );
            }
        }
        "CSINode" => {
            if let Some(spec) = spec(object) {
                written(spec, &[("drivers", Value::Null)]);
                for driver in each(spec, "drivers") {
                    written(
                        driver,
                        &[
                            ("name", json!("")),
                            ("nodeID", json!("")),
                            ("topologyKeys", Value::Null),
                        ],
                    );
                }
            }
        }
        "CSIStorageCapacity" => {
            written(object, &[("storageClassName", json!(""))]);
            quantities(object, &["capacity", "maximumVolumeSize"]);
        }
        "VolumeAttributesClass" => written(object, &[("driverName", json!(""))]),
        _ => return false,
    }
    true
}

/// A CSIDriver's spec.
fn csi_driver(spec: &mut Map<String, Value>) {
    default_to(spec, "attachRequired", json!(true));
    default_to(spec, "podInfoOnMount", json!(false));
    default_to(spec, "storageCapacity", json!(false));
    default_to(spec, "fsGroupPolicy", json!("ReadWriteOnceWithFSType"));
    let no_modes = spec
        .get("volumeLifecycleModes")
        .is_none_or(|m| m.is_null() || m.as_array().is_some_and(Vec::is_empty));
    if no_modes {
        spec.insert("volumeLifecycleModes".into(), json!(["Persistent"]));
    }
    default_to(spec, "requiresRepublish", json!(false));
    default_to(spec, "seLinuxMount", json!(false));
}

/// `SetDefaults_PriorityClass`.
fn priority_class(object: &mut Map<String, Value>) -> bool {
    written(object, &[("value", json!(0))]);
    default_to(object, "preemptionPolicy", json!("PreemptLowerPriority"));
    omitted(object, &["globalDefault", "description"]);
    true
}

/// An EndpointSlice: its ports' name and protocol (`SetDefaults_EndpointPort`)
/// and the lists always written.
fn endpoint_slice(object: &mut Map<String, Value>) -> bool {
    written(
        object,
        &[
            ("addressType", json!("")),
            ("endpoints", Value::Null),
            ("ports", Value::Null),
        ],
    );
    for endpoint in each(object, "endpoints") {
        written(
            endpoint,
            &[("addresses", Value::Null), ("conditions", json!({}))],
        );
    }
    for port in each(object, "ports") {
        default_to(port, "name", json!(""));
        default_to(port, "protocol", json!("TCP"));
    }
    true
}

/// An `events.k8s.io` Event: its times (null when unset) and the structs
/// its encoding always writes.
fn event(object: &mut Map<String, Value>) -> bool {
    written(
        object,
        &[
            ("eventTime", Value::Null),
            ("deprecatedFirstTimestamp", Value::Null),
            ("deprecatedLastTimestamp", Value::Null),
            ("deprecatedSource", json!({})),
            ("regarding", json!({})),
        ],
    );
    true
}

/// `admissionregistration.k8s.io/v1`: webhooks (`SetDefaults_ValidatingWebhook`,
/// `SetDefaults_MutatingWebhook`, their services' port and rules' scope)
/// and validating admission policies and bindings.
fn admission(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
            let mutating = kind == "MutatingWebhookConfiguration";
            for webhook in each(object, "webhooks") {
                webhook_defaults(webhook, mutating);
            }
        }
        "ValidatingAdmissionPolicy" => {
            if let Some(spec) = spec(object) {
                default_to(spec, "failurePolicy", json!("Fail"));
                if let Some(resources) = existing(spec, "matchConstraints") {
                    match_resources(resources);
                }
            }
        }
        "ValidatingAdmissionPolicyBinding" => {
            if let Some(resources) = spec(object).and_then(|s| existing(s, "matchResources")) {
                match_resources(resources);
            }
        }
        _ => return false,
    }
    true
}

/// A webhook of either kind.
fn webhook_defaults(webhook: &mut Map<String, Value>, mutating: bool) {
    written(
        webhook,
        &[
            ("name", json!("")),
            ("sideEffects", Value::Null),
            ("admissionReviewVersions", Value::Null),
        ],
    );
    default_to(webhook, "failurePolicy", json!("Fail"));
    default_to(webhook, "matchPolicy", json!("Equivalent"));
    object_at(webhook, "namespaceSelector");
    object_at(webhook, "objectSelector");
    default_to(webhook, "timeoutSeconds", json!(10));
    if mutating {
        default_to(webhook, "reinvocationPolicy", json!("Never"));
    }
    if let Some(service) =
        object_at(webhook, "clientConfig").and_then(|config| existing(config, "service"))
    {
        written(service, &[("namespace", json!("")), ("name", json!(""))]);
        default_to(service, "port", json!(443));
    }
    omitted(webhook, &["rules", "matchConditions"]);
    for rule in each(webhook, "rules") {
        default_to(rule, "scope", json!("*"));
    }
}

/// `SetDefaults_MatchResources` and its rules' scope.
fn match_resources(resources: &mut Map<String, Value>) {
    default_to(resources, "matchPolicy", json!("Equivalent"));
    object_at(resources, "namespaceSelector");
    object_at(resources, "objectSelector");
    for key in ["resourceRules", "excludeResourceRules"] {
        for rule in each(resources, key) {
            default_to(rule, "scope", json!("*"));
        }
    }
}

/// `flowcontrol.apiserver.k8s.io/v1`: `SetDefaults_FlowSchemaSpec` and the
/// priority levels' shares, lending and queuing.
fn flowcontrol(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "FlowSchema" => {
            if let Some(spec) = spec(object) {
                let unset = spec
                    .get("matchingPrecedence")
                    .is_none_or(|p| p.is_null() || p.as_f64() == Some(0.0));
                if unset {
                    spec.insert("matchingPrecedence".into(), json!(1000));
                }
                if let Some(level) = object_at(spec, "priorityLevelConfiguration") {
                    written(level, &[("name", json!(""))]);
                }
            }
        }
        "PriorityLevelConfiguration" => {
            if let Some(spec) = spec(object) {
                priority_level(spec);
            }
        }
        _ => return false,
    }
    true
}

/// A priority level's spec: `SetDefaults_LimitedPriorityLevelConfiguration`,
/// `SetDefaults_QueuingConfiguration` (a zero counts as unset) and
/// `SetDefaults_ExemptPriorityLevelConfiguration`.
fn priority_level(spec: &mut Map<String, Value>) {
    written(spec, &[("type", json!(""))]);
    if let Some(limited) = existing(spec, "limited") {
        written(limited, &[("nominalConcurrencyShares", Value::Null)]);
        if limited
            .get("nominalConcurrencyShares")
            .is_some_and(Value::is_null)
        {
            limited.insert("nominalConcurrencyShares".into(), json!(30));
        }
        default_to(limited, "lendablePercent", json!(0));
        if let Some(response) = object_at(limited, "limitResponse") {
            written(response, &[("type", json!(""))]);
            if let Some(queuing) = existing(response, "queuing") {
                for (key, default) in [("handSize", 8), ("queues", 64), ("queueLengthLimit", 50)] {
                    let unset = queuing
                        .get(key)
                        .is_none_or(|v| v.is_null() || v.as_f64() == Some(0.0));
                    if unset {
                        queuing.insert(key.into(), json!(default));
                    }
                }
            }
        }
    }
    if let Some(exempt) = existing(spec, "exempt") {
        default_to(exempt, "nominalConcurrencyShares", json!(0));
        default_to(exempt, "lendablePercent", json!(0));
    }
}

/// `resource.k8s.io/v1`: a claim's (or a claim template's) device requests
/// (`SetDefaults_ExactDeviceRequest`, `SetDefaults_DeviceSubRequest`, and
/// their tolerations' operator).
fn resource(kind: &str, object: &mut Map<String, Value>) -> bool {
    match kind {
        "ResourceClaim" => {
            if let Some(spec) = spec(object) {
                claim(spec);
            }
        }
        "ResourceClaimTemplate" => {
            if let Some(template) = spec(object) {
                object_at(template, "metadata");
                if let Some(spec) = object_at(template, "spec") {
                    claim(spec);
                }
            }
        }
        "DeviceClass" => return with_spec(object),
        "ResourceSlice" => {
            if let Some(spec) = spec(object) {
                written(spec, &[("driver", json!(""))]);
                if let Some(pool) = object_at(spec, "pool") {
                    written(
                        pool,
                        &[
                            ("name", json!("")),
                            ("generation", json!(0)),
                            ("resourceSliceCount", json!(0)),
                        ],
                    );
                }
            }
        }
        _ => return false,
    }
    true
}

/// A resource claim's spec.
fn claim(spec: &mut Map<String, Value>) {
    let Some(devices) = object_at(spec, "devices") else {
        return;
    };
    written(devices, &[("requests", Value::Null)]);
    for request in each(devices, "requests") {
        written(request, &[("name", json!(""))]);
        if let Some(exactly) = existing(request, "exactly") {
            written(exactly, &[("deviceClassName", json!(""))]);
            device_request(exactly);
        }
        for sub in each(request, "firstAvailable") {
            written(sub, &[("name", json!("")), ("deviceClassName", json!(""))]);
            device_request(sub);
        }
    }
}

/// One device request: exactly one device unless it says otherwise.
fn device_request(request: &mut Map<String, Value>) {
    default_to(request, "allocationMode", json!("ExactCount"));
    let exact = request.get("allocationMode").and_then(Value::as_str) == Some("ExactCount");
    let uncounted = request
        .get("count")
        .is_none_or(|c| c.is_null() || c.as_f64() == Some(0.0));
    if exact && uncounted {
        request.insert("count".into(), json!(1));
    }
    for toleration in each(request, "tolerations") {
        default_to(toleration, "operator", json!("Equal"));
    }
}
