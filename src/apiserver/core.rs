//! The core group's (`apiVersion: v1`) kinds as a kube-apiserver stores
//! them: Kubernetes' defaulters (`pkg/apis/core/v1/defaults.go` and the
//! generated `zz_generated.defaults.go`), the rules its conversions to the
//! internal version and back carry (`conversion.go`), and the empty structs
//! the typed encoding writes (`spec: {}`).

use super::{default_to, each, existing, object_at, pod};
use crate::model::quantity::parse_quantity;
use serde_json::{json, Map, Value};

/// The kinds kube-apiserver serves as objects in `v1`, lists and
/// subresource options left out.
const SERVED: [&str; 17] = [
    "Binding",
    "ComponentStatus",
    "ConfigMap",
    "Endpoints",
    "Event",
    "LimitRange",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodTemplate",
    "ReplicationController",
    "ResourceQuota",
    "Secret",
    "Service",
    "ServiceAccount",
];

/// Defaults `object` when the core group's `version` serves `kind`;
/// `false` otherwise.
pub(crate) fn store(version: &str, kind: &str, object: &mut Map<String, Value>) -> bool {
    if version != "v1" || !SERVED.contains(&kind) {
        return false;
    }
    match kind {
        "Pod" => pod::pod(object),
        "PodTemplate" => {
            if let Some(template) = object_at(object, "template") {
                pod::template(template);
            }
        }
        "ReplicationController" => replication_controller(object),
        "Service" => {
            if let Some(spec) = object_at(object, "spec") {
                service(spec);
            }
        }
        "Namespace" => namespace(object),
        "Secret" => secret(object),
        "PersistentVolumeClaim" => {
            if let Some(spec) = object_at(object, "spec") {
                claim_spec(spec);
            }
        }
        "PersistentVolume" => {
            if let Some(spec) = object_at(object, "spec") {
                persistent_volume(spec);
            }
        }
        "Endpoints" => {
            for subset in each(object, "subsets") {
                each(subset, "ports").for_each(|port| default_to(port, "protocol", json!("TCP")));
            }
        }
        "LimitRange" => {
            if let Some(spec) = object_at(object, "spec") {
                default_to(spec, "limits", Value::Null);
                each(spec, "limits").for_each(limit_range_item);
            }
        }
        "Node" => {
            if let Some(spec) = object_at(object, "spec") {
                node_spec(spec);
            }
        }
        "ResourceQuota" => {
            if let Some(spec) = object_at(object, "spec") {
                resource_list(spec, "hard");
            }
        }
        "Event" => {
            object_at(object, "involvedObject");
            object_at(object, "source");
            for key in ["firstTimestamp", "lastTimestamp", "eventTime"] {
                default_to(object, key, Value::Null);
            }
        }
        "Binding" => {
            object_at(object, "target");
        }
        "ConfigMap" => {
            if let Some(data) = existing(object, "data") {
                data.values_mut()
                    .filter(|v| v.is_null())
                    .for_each(|v| *v = json!(""));
            }
        }
        _ => {}
    }
    object.retain(|key, _| {
        matches!(key.as_str(), "apiVersion" | "kind" | "metadata" | "status")
            || fields(kind).contains(&key.as_str())
    });
    if let Some(metadata) = existing(object, "metadata") {
        object_meta(metadata);
    }
    for key in ["data", "binaryData", "stringData"] {
        if object
            .get(key)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
        {
            object.remove(key);
        }
    }
    encoded(object);
    true
}

/// The top-level fields `kind`'s Go type has besides its type and object
/// metadata and status: any other is unknown and dropped in decoding.
fn fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "PodTemplate" => &["template"],
        "Secret" => &["data", "stringData", "type", "immutable"],
        "ConfigMap" => &["data", "binaryData", "immutable"],
        "Endpoints" => &["subsets"],
        "ServiceAccount" => &[
            "secrets",
            "imagePullSecrets",
            "automountServiceAccountToken",
        ],
        "Event" => &[
            "involvedObject",
            "reason",
            "message",
            "source",
            "firstTimestamp",
            "lastTimestamp",
            "count",
            "type",
            "eventTime",
            "series",
            "action",
            "related",
            "reportingComponent",
            "reportingInstance",
        ],
        "Binding" => &["target"],
        "ComponentStatus" => &["conditions"],
        _ => &["spec"],
    }
}

/// An object's metadata as Go's `ObjectMeta` decodes it: unknown fields
/// dropped.
pub(crate) fn object_meta(metadata: &mut Map<String, Value>) {
    const FIELDS: [&str; 15] = [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    ];
    metadata.retain(|key, _| FIELDS.contains(&key.as_str()));
}

/// `SetDefaults_ReplicationController`: a selector and labels taken from
/// the template's labels when the user wrote none, one replica.
fn replication_controller(object: &mut Map<String, Value>) {
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    let labels = spec
        .get("template")
        .and_then(|template| template.get("metadata"))
        .and_then(|metadata| metadata.get("labels"))
        .and_then(Value::as_object)
        .cloned();
    super::default_replicas(spec);
    if spec.get("minReadySeconds").and_then(Value::as_f64) == Some(0.0) {
        spec.remove("minReadySeconds");
    }
    if let Some(template) = existing(spec, "template") {
        pod::template(template);
    }
    let Some(labels) = labels else {
        return;
    };
    if is_empty_map(spec.get("selector")) {
        spec.insert("selector".into(), Value::Object(labels.clone()));
    }
    if let Some(metadata) = object_at(object, "metadata") {
        if is_empty_map(metadata.get("labels")) {
            metadata.insert("labels".into(), Value::Object(labels));
        }
    }
}

/// `SetDefaults_Service` and the ports' protocol.
fn service(spec: &mut Map<String, Value>) {
    default_to(spec, "sessionAffinity", json!("None"));
    match spec.get("sessionAffinity").and_then(Value::as_str) {
        Some("None") => {
            spec.remove("sessionAffinityConfig");
        }
        Some("ClientIP") => {
            let timeout = spec
                .get("sessionAffinityConfig")
                .and_then(|config| config.get("clientIP"))
                .and_then(|client| client.get("timeoutSeconds"))
                .is_some_and(|seconds| !seconds.is_null());
            if !timeout {
                spec.insert(
                    "sessionAffinityConfig".into(),
                    json!({"clientIP": {"timeoutSeconds": 10800}}),
                );
            }
        }
        _ => {}
    }
    default_to(spec, "type", json!("ClusterIP"));
    for port in each(spec, "ports") {
        default_to(port, "protocol", json!("TCP"));
        if port.get("nodePort").and_then(Value::as_f64) == Some(0.0) {
            port.remove("nodePort");
        }
        let unset = match port.get("targetPort") {
            None | Some(Value::Null) => true,
            Some(Value::String(name)) => name.is_empty(),
            Some(number) => number.as_f64() == Some(0.0),
        };
        if unset {
            let number = port.get("port").cloned().unwrap_or(json!(0));
            port.insert("targetPort".into(), number);
        }
    }
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|ips| !ips.is_empty());
    let externally_accessible = matches!(kind.as_str(), "LoadBalancer" | "NodePort")
        || (kind == "ClusterIP" && external_ips);
    if externally_accessible {
        default_to(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_to(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default_to(spec, "allocateLoadBalancerNodePorts", Value::Bool(true));
    }
}

/// `SetDefaults_Namespace`: a named namespace carries its name as the
/// `kubernetes.io/metadata.name` label.
fn namespace(object: &mut Map<String, Value>) {
    object_at(object, "spec");
    let Some(metadata) = object_at(object, "metadata") else {
        return;
    };
    let name = metadata
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if name.is_empty() {
        return;
    }
    if let Some(labels) = object_at(metadata, "labels") {
        labels.insert("kubernetes.io/metadata.name".into(), json!(name));
    }
}

/// `SetDefaults_Secret`, and `stringData` folded into `data` as the
/// internal version (which has no `stringData`) does
/// (`Convert_v1_Secret_To_core_Secret`).
fn secret(object: &mut Map<String, Value>) {
    default_to(object, "type", json!("Opaque"));
    let Some(Value::Object(strings)) = object.remove("stringData") else {
        return;
    };
    if strings.is_empty() {
        return;
    }
    let Some(data) = object_at(object, "data") else {
        return;
    };
    for (key, text) in strings {
        let text = text.as_str().unwrap_or_default();
        data.insert(key, json!(base64(text.as_bytes())));
    }
}

/// A persistent volume claim's spec (a PersistentVolumeClaim's, a
/// StatefulSet's `volumeClaimTemplates`, an ephemeral volume's):
/// `SetDefaults_PersistentVolumeClaimSpec` and its `resources` struct.
pub(crate) fn claim_spec(spec: &mut Map<String, Value>) {
    default_to(spec, "volumeMode", json!("Filesystem"));
    if let Some(reference) = existing(spec, "dataSourceRef") {
        default_to(reference, "apiGroup", Value::Null);
    }
    if let Some(resources) = object_at(spec, "resources") {
        resource_list(resources, "limits");
        resource_list(resources, "requests");
    }
}

/// `SetDefaults_PersistentVolume` (not its status) and the sources'
/// `+default` markers.
fn persistent_volume(spec: &mut Map<String, Value>) {
    default_to(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
    default_to(spec, "volumeMode", json!("Filesystem"));
    resource_list(spec, "capacity");
    if let Some(host_path) = existing(spec, "hostPath") {
        default_to(host_path, "type", json!(""));
    }
    if let Some(rbd) = existing(spec, "rbd") {
        pod::rbd_source(rbd);
    }
    if let Some(iscsi) = existing(spec, "iscsi") {
        default_to(iscsi, "iscsiInterface", json!("default"));
    }
    if let Some(azure) = existing(spec, "azureDisk") {
        pod::azure_disk(azure);
    }
    if let Some(scale_io) = existing(spec, "scaleIO") {
        pod::scale_io_source(scale_io);
    }
    if let Some(azure_file) = existing(spec, "azureFile") {
        default_to(azure_file, "secretNamespace", Value::Null);
    }
}

/// `SetDefaults_LimitRangeItem`: a container's default limit from its max,
/// its default request from the default limit, then from its min.
fn limit_range_item(item: &mut Map<String, Value>) {
    default_to(item, "type", json!(""));
    if item.get("type").and_then(Value::as_str) != Some("Container") {
        for key in [
            "max",
            "min",
            "default",
            "defaultRequest",
            "maxLimitRequestRatio",
        ] {
            resource_list(item, key);
        }
        return;
    }
    let of = |item: &Map<String, Value>, key: &str| {
        item.get(key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let mut default = of(item, "default");
    let mut default_request = of(item, "defaultRequest");
    for (name, quantity) in of(item, "max") {
        default.entry(name).or_insert(quantity);
    }
    for (name, quantity) in &default {
        default_request
            .entry(name.clone())
            .or_insert(quantity.clone());
    }
    for (name, quantity) in of(item, "min") {
        default_request.entry(name).or_insert(quantity);
    }
    for (key, map) in [("default", default), ("defaultRequest", default_request)] {
        if map.is_empty() {
            item.remove(key);
        } else {
            item.insert(key.into(), Value::Object(map));
        }
    }
    for key in [
        "max",
        "min",
        "default",
        "defaultRequest",
        "maxLimitRequestRatio",
    ] {
        resource_list(item, key);
    }
}

/// A node's `podCIDR` and `podCIDRs` made to agree, the singular one
/// winning, as the internal version (which keeps only the list) and back
/// leave them (`Convert_*_NodeSpec_*`).
fn node_spec(spec: &mut Map<String, Value>) {
    let single = spec
        .get("podCIDR")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let first = spec
        .get("podCIDRs")
        .and_then(Value::as_array)
        .and_then(|cidrs| cidrs.first())
        .and_then(Value::as_str)
        .map(str::to_string);
    match first {
        Some(first) if single.is_empty() => {
            spec.insert("podCIDR".into(), json!(first));
        }
        Some(first) if first != single => {
            spec.insert("podCIDRs".into(), json!([single]));
        }
        None if !single.is_empty() => {
            spec.insert("podCIDRs".into(), json!([single]));
        }
        _ => {}
    }
}

fn is_empty_map(value: Option<&Value>) -> bool {
    value.and_then(Value::as_object).is_none_or(Map::is_empty)
}

/// Standard base64 with padding, as Go's JSON encoding writes a `[]byte`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A resource list (`limits`, `requests`, `hard`, `capacity` ...) as
/// stored: each quantity rounded up to a thousandth
/// (`SetDefaults_ResourceList`) and written in canonical form.
pub(crate) fn resource_list(map: &mut Map<String, Value>, key: &str) {
    let Some(list) = existing(map, key) else {
        return;
    };
    for quantity in list.values_mut() {
        if let Some(canonical) = canonical_quantity(quantity, true) {
            *quantity = Value::String(canonical);
        }
    }
}

/// A quantity as Go's `Quantity.MarshalJSON` writes it after parsing
/// (`CanonicalizeBytes`): the format its suffix chose (binary `Ki`…,
/// decimal `m`, `k`…, or an exponent), the mantissa stripped of trailing
/// zeros into a multiple-of-three exponent, a binary value below 1Ki or
/// not whole shown in decimal. `round` is the milli rounding (away from
/// zero) resource lists get. `None` for what is no quantity.
pub(crate) fn canonical_quantity(value: &Value, round: bool) -> Option<String> {
    let text = match value {
        Value::String(text) => text.trim().to_string(),
        Value::Number(number) => number.to_string(),
        Value::Null => return Some("0".to_string()),
        _ => return None,
    };
    let mut nanos = parse_quantity(&text).ok()?.nanos();
    if round {
        const MILLI: i128 = 1_000_000;
        let remainder = nanos % MILLI;
        if remainder != 0 {
            nanos += MILLI * remainder.signum() - remainder;
        }
    }
    if nanos == 0 {
        return Some("0".to_string());
    }
    let suffix =
        text.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'));
    let binary = suffix.len() == 2 && suffix.ends_with('i');
    let exponent_form = suffix.len() > 1 && suffix.starts_with(['e', 'E']);
    const NANO: i128 = 1_000_000_000;
    if binary && nanos.abs() >= 1024 * NANO && nanos % NANO == 0 {
        let mut units = nanos / NANO;
        let mut power = 0;
        while units % 1024 == 0 && power < 6 {
            units /= 1024;
            power += 1;
        }
        let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
        return Some(format!("{units}{suffix}"));
    }
    let (mut mantissa, mut exponent) = (nanos, -9i32);
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    while exponent.rem_euclid(3) != 0 {
        mantissa *= 10;
        exponent -= 1;
    }
    let suffix = if exponent_form {
        if exponent == 0 {
            String::new()
        } else {
            format!("e{exponent}")
        }
    } else {
        let index = usize::try_from((exponent + 9) / 3).ok()?;
        ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"]
            .get(index)?
            .to_string()
    };
    Some(format!("{mantissa}{suffix}"))
}

/// The fields of core/v1 types that Go encodes even when empty (no
/// `omitempty`), so an empty list written there stays and a null one is
/// written back as `null`.
const KEPT_WHEN_EMPTY: [&str; 10] = [
    "secretNamespace",
    "monitors",
    "sources",
    "nodeSelectorTerms",
    "values",
    "containers",
    "limits",
    "names",
    "command",
    "apiGroup",
];

/// The string maps of core/v1 types: a `null` value there decodes to `""`.
const STRING_MAPS: [&str; 5] = [
    "labels",
    "annotations",
    "nodeSelector",
    "matchLabels",
    "selector",
];

/// The optional bools core/v1 holds by pointer, whose `false` is written:
/// the fields of these names, and `readOnly` under the sources of
/// [`READ_ONLY_POINTERS`].
const BOOL_POINTERS: [&str; 17] = [
    "allocateLoadBalancerNodePorts",
    "allowPrivilegeEscalation",
    "automountServiceAccountToken",
    "enableServiceLinks",
    "hostProcess",
    "hostUsers",
    "immutable",
    "optional",
    "privileged",
    "readOnlyRootFilesystem",
    "recursiveReadOnlyMounts",
    "runAsNonRoot",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "started",
    "supplementalGroupsPolicy",
    "userNamespaces",
];

/// The volume sources whose `readOnly` is a pointer.
const READ_ONLY_POINTERS: [&str; 2] = ["azureDisk", "csi"];

/// What the typed encoding leaves of a written value, in place: fields
/// whose zero value Go leaves out (`false` of a plain bool, `null`, `[]`,
/// `{}` for a map) are dropped, a `null` in a string map becomes `""`.
pub(crate) fn encoded(map: &mut Map<String, Value>) {
    encode(map, "");
}

fn encode(map: &mut Map<String, Value>, parent: &str) {
    let pointer_read_only = READ_ONLY_POINTERS.contains(&parent);
    map.retain(|key, value| match value {
        Value::Bool(false) => {
            BOOL_POINTERS.contains(&key.as_str()) || (pointer_read_only && key == "readOnly")
        }
        Value::Null => KEPT_WHEN_EMPTY.contains(&key.as_str()),
        Value::Array(items) => !items.is_empty() || KEPT_WHEN_EMPTY.contains(&key.as_str()),
        _ => true,
    });
    for (key, value) in map.iter_mut() {
        match value {
            Value::Object(inner) => {
                if STRING_MAPS.contains(&key.as_str()) {
                    inner
                        .values_mut()
                        .filter(|v| v.is_null())
                        .for_each(|v| *v = json!(""));
                }
                encode(inner, key);
            }
            Value::Array(items) => items
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(|item| encode(item, key)),
            _ => {}
        }
    }
    for key in ["labels", "annotations", "nodeSelector"] {
        if map
            .get(key)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
        {
            map.remove(key);
        }
    }
}
