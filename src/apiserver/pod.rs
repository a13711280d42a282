//! A pod spec's defaults (`k8s.io/kubernetes/pkg/apis/core/v1`,
//! `SetDefaults_PodSpec` and the defaulters `zz_generated.defaults.go` runs
//! on what a pod spec holds): shared by a Pod and every pod template. What
//! Kubernetes sets on a Pod alone (`SetDefaults_Pod`) is [`pod`], so a
//! workload's template is not given requests or service links it never
//! had.

use super::{core, default_to, each, existing, object_at};
use serde_json::{json, Map, Value};

/// The annotations a pod (template) loses on its way through the internal
/// version: the pre-1.6 init containers, which Kubernetes' conversions
/// (`dropInitContainerAnnotations`) drop so old kubelets cannot act on them.
const INIT_CONTAINER_ANNOTATIONS: [&str; 4] = [
    "pod.beta.kubernetes.io/init-containers",
    "pod.alpha.kubernetes.io/init-containers",
    "pod.beta.kubernetes.io/init-container-statuses",
    "pod.alpha.kubernetes.io/init-container-statuses",
];

/// A pod template (`spec.template` of a workload, a PodTemplate's
/// `template`): its metadata map and its spec defaulted. Both are structs,
/// not pointers, in Go's `PodTemplateSpec`, so they are written even when
/// the user wrote neither.
pub(crate) fn template(template: &mut Map<String, Value>) {
    if let Some(metadata) = object_at(template, "metadata") {
        drop_init_container_annotations(metadata);
        core::object_meta(metadata);
    }
    if let Some(pod_spec) = object_at(template, "spec") {
        spec(pod_spec);
    }
    template.retain(|key, _| key == "metadata" || key == "spec");
    core::encoded(template);
}

/// A Pod object (`kind: Pod`): `SetDefaults_Pod` before everything a pod
/// spec gets, and the conversion rules that hold for a Pod alone.
pub(crate) fn pod(object: &mut Map<String, Value>) {
    if let Some(metadata) = existing(object, "metadata") {
        drop_init_container_annotations(metadata);
    }
    let Some(pod_spec) = object_at(object, "spec") else {
        return;
    };
    for key in ["containers", "initContainers"] {
        each(pod_spec, key).for_each(requests_from_limits);
    }
    default_to(pod_spec, "enableServiceLinks", Value::Bool(true));
    if pod_spec.get("hostNetwork") == Some(&Value::Bool(true)) {
        for key in ["containers", "initContainers"] {
            for container in each(pod_spec, key) {
                each(container, "ports").for_each(|port| {
                    let container_port = port.get("containerPort").cloned();
                    if let Some(container_port) = container_port {
                        if is_unset_number(port.get("hostPort")) {
                            port.insert("hostPort".into(), container_port);
                        }
                    }
                });
            }
        }
    }
    // A negative grace period is stored as 1 on a Pod (Kubernetes'
    // `Convert_v1_Pod_To_core_Pod`), not on a template.
    if pod_spec
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|seconds| seconds < 0)
    {
        pod_spec.insert("terminationGracePeriodSeconds".into(), json!(1));
    }
    spec(pod_spec);
}

/// A pod spec, defaulted in place.
pub(crate) fn spec(spec: &mut Map<String, Value>) {
    default_to(spec, "dnsPolicy", json!("ClusterFirst"));
    default_to(spec, "restartPolicy", json!("Always"));
    object_at(spec, "securityContext");
    default_to(spec, "terminationGracePeriodSeconds", json!(30));
    default_to(spec, "schedulerName", json!("default-scheduler"));
    // The internal version has one field for both names; reading it back
    // writes the deprecated alias from the new one (`Convert_*_PodSpec_*`).
    let account = match spec.get("serviceAccountName").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => Some(name.to_string()),
        _ => spec
            .get("serviceAccount")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    match account {
        Some(name) if !name.is_empty() => {
            spec.insert("serviceAccountName".into(), json!(name));
            spec.insert("serviceAccount".into(), json!(name));
        }
        _ => {
            spec.remove("serviceAccountName");
            spec.remove("serviceAccount");
        }
    }
    each(spec, "volumes").for_each(volume);
    for key in ["initContainers", "containers", "ephemeralContainers"] {
        each(spec, key).for_each(container);
    }
    core::resource_list(spec, "overhead");
    if let Some(resources) = existing(spec, "resources") {
        core::resource_list(resources, "limits");
        core::resource_list(resources, "requests");
    }
    core::encoded(spec);
}

/// `SetDefaults_Pod`'s requests: every limit a container has no request
/// for becomes its request too.
fn requests_from_limits(container: &mut Map<String, Value>) {
    let Some(resources) = existing(container, "resources") else {
        return;
    };
    let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    let Some(requests) = object_at(resources, "requests") else {
        return;
    };
    for (name, quantity) in limits {
        requests.entry(name).or_insert(quantity);
    }
}

/// A container (regular, init or ephemeral): `SetDefaults_Container` and
/// the generated defaults of its ports, env, probes and lifecycle hooks.
fn container(container: &mut Map<String, Value>) {
    if container
        .get("imagePullPolicy")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        let image = container
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or_default();
        container.insert("imagePullPolicy".into(), json!(pull_policy(image)));
    }
    default_to(
        container,
        "terminationMessagePath",
        json!("/dev/termination-log"),
    );
    default_to(container, "terminationMessagePolicy", json!("File"));
    for port in each(container, "ports") {
        default_to(port, "protocol", json!("TCP"));
        if port.get("hostPort").and_then(Value::as_f64) == Some(0.0) {
            port.remove("hostPort");
        }
    }
    for variable in each(container, "env") {
        // `value` is an optional string: the typed encoding leaves out "".
        if variable.get("value").is_some_and(|v| v == "") {
            variable.remove("value");
        }
        let Some(from) = existing(variable, "valueFrom") else {
            continue;
        };
        if let Some(field) = existing(from, "fieldRef") {
            field_selector(field);
        }
        if let Some(file) = existing(from, "fileKeyRef") {
            default_to(file, "optional", Value::Bool(false));
        }
        if let Some(field) = existing(from, "resourceFieldRef") {
            divisor(field);
        }
    }
    if let Some(resources) = object_at(container, "resources") {
        core::resource_list(resources, "limits");
        core::resource_list(resources, "requests");
    }
    for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(found) = existing(container, key) {
            probe(found);
        }
    }
    if let Some(lifecycle) = existing(container, "lifecycle") {
        for key in ["postStart", "preStop"] {
            if let Some(get) = existing(lifecycle, key).and_then(|h| existing(h, "httpGet")) {
                http_get(get);
            }
        }
    }
}

/// `SetDefaults_Probe`, and the defaults of its HTTP and gRPC handlers.
fn probe(probe: &mut Map<String, Value>) {
    for (key, default) in [
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ] {
        if is_unset_number(probe.get(key)) {
            probe.insert(key.into(), json!(default));
        }
    }
    if probe.get("initialDelaySeconds").and_then(Value::as_f64) == Some(0.0) {
        probe.remove("initialDelaySeconds");
    }
    if let Some(get) = existing(probe, "httpGet") {
        http_get(get);
    }
    if let Some(grpc) = existing(probe, "grpc") {
        default_to(grpc, "service", json!(""));
    }
}

/// `SetDefaults_HTTPGetAction`.
fn http_get(get: &mut Map<String, Value>) {
    default_to(get, "path", json!("/"));
    default_to(get, "scheme", json!("HTTP"));
}

/// `SetDefaults_ObjectFieldSelector`.
fn field_selector(field: &mut Map<String, Value>) {
    default_to(field, "apiVersion", json!("v1"));
}

/// A pod volume: `SetDefaults_Volume` (no source at all is an `emptyDir`)
/// and the defaults of each source.
fn volume(volume: &mut Map<String, Value>) {
    let has_source = volume
        .iter()
        .any(|(key, value)| key != "name" && !value.is_null());
    if !has_source {
        volume.insert("emptyDir".into(), json!({}));
    }
    if let Some(empty_dir) = existing(volume, "emptyDir") {
        if let Some(limit) = empty_dir.get("sizeLimit").filter(|limit| !limit.is_null()) {
            if let Some(canonical) = core::canonical_quantity(limit, false) {
                empty_dir.insert("sizeLimit".into(), Value::String(canonical));
            }
        }
    }
    if let Some(host_path) = existing(volume, "hostPath") {
        default_to(host_path, "type", json!(""));
    }
    for key in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(source) = existing(volume, key) {
            default_to(source, "defaultMode", json!(420));
        }
    }
    if let Some(iscsi) = existing(volume, "iscsi") {
        default_to(iscsi, "iscsiInterface", json!("default"));
    }
    if let Some(rbd) = existing(volume, "rbd") {
        rbd_source(rbd);
    }
    if let Some(items) = existing(volume, "downwardAPI") {
        downward_items(items);
    }
    if let Some(azure) = existing(volume, "azureDisk") {
        azure_disk(azure);
    }
    if let Some(projected) = existing(volume, "projected") {
        for source in each(projected, "sources") {
            if let Some(downward) = existing(source, "downwardAPI") {
                downward_items(downward);
            }
            if let Some(token) = existing(source, "serviceAccountToken") {
                default_to(token, "expirationSeconds", json!(3600));
            }
        }
    }
    if let Some(scale_io) = existing(volume, "scaleIO") {
        scale_io_source(scale_io);
    }
    if let Some(image) = existing(volume, "image") {
        if image
            .get("pullPolicy")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            let reference = image
                .get("reference")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let policy = pull_policy(reference);
            image.insert("pullPolicy".into(), json!(policy));
        }
    }
    if let Some(claim) =
        existing(volume, "ephemeral").and_then(|e| existing(e, "volumeClaimTemplate"))
    {
        object_at(claim, "metadata");
        if let Some(claim_spec) = object_at(claim, "spec") {
            super::core::claim_spec(claim_spec);
        }
    }
}

/// The field selectors of a downward API volume's (or projection's) items.
fn downward_items(downward: &mut Map<String, Value>) {
    for item in each(downward, "items") {
        if let Some(field) = existing(item, "fieldRef") {
            field_selector(field);
        }
        if let Some(field) = existing(item, "resourceFieldRef") {
            divisor(field);
        }
    }
}

/// A resource field selector's divisor: a quantity struct, not a pointer,
/// so written (`"0"`) even when missing, and canonically (not rounded: it
/// is no resource list).
fn divisor(field: &mut Map<String, Value>) {
    let written = field.get("divisor").unwrap_or(&Value::Null);
    if let Some(canonical) = core::canonical_quantity(written, false) {
        field.insert("divisor".into(), Value::String(canonical));
    }
}

/// An RBD source's `+default` markers (pod volume and persistent volume).
pub(crate) fn rbd_source(rbd: &mut Map<String, Value>) {
    default_to(rbd, "pool", json!("rbd"));
    default_to(rbd, "user", json!("admin"));
    default_to(rbd, "keyring", json!("/etc/ceph/keyring"));
}

/// An Azure disk source's `+default` markers.
pub(crate) fn azure_disk(azure: &mut Map<String, Value>) {
    default_to(azure, "cachingMode", json!("ReadWrite"));
    default_to(azure, "fsType", json!("ext4"));
    default_to(azure, "readOnly", Value::Bool(false));
    default_to(azure, "kind", json!("Shared"));
}

/// A ScaleIO source's `+default` markers.
pub(crate) fn scale_io_source(scale_io: &mut Map<String, Value>) {
    default_to(scale_io, "storageMode", json!("ThinProvisioned"));
    default_to(scale_io, "fsType", json!("xfs"));
}

/// Go's zero for an integer field: missing, null or 0.
fn is_unset_number(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(number) => number.as_f64() == Some(0.0),
    }
}

fn drop_init_container_annotations(metadata: &mut Map<String, Value>) {
    let Some(annotations) = existing(metadata, "annotations") else {
        return;
    };
    for key in INIT_CONTAINER_ANNOTATIONS {
        annotations.remove(key);
    }
    if annotations.is_empty() {
        metadata.remove("annotations");
    }
}

/// The pull policy Kubernetes gives an image written without one
/// (`SetDefaults_Container`): `Always` when the reference names the tag
/// `latest` or names neither a tag nor a digest, `IfNotPresent` otherwise,
/// including for a reference `parsers.ParseImageName` refuses.
pub(crate) fn pull_policy(image: &str) -> &'static str {
    match image_tag(image) {
        Some(tag) if tag == "latest" => "Always",
        _ => "IfNotPresent",
    }
}

/// The tag of an image reference as Docker's reference grammar reads it
/// (`github.com/distribution/reference`, `ParseNormalizedNamed`): `latest`
/// when neither tag nor digest is written, `""` when only a digest is,
/// `None` for what is no valid reference.
fn image_tag(image: &str) -> Option<String> {
    if image.len() == 64
        && image
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let (named, digest) = match image.split_once('@') {
        Some((named, digest)) => (named, Some(digest)),
        None => (image, None),
    };
    if let Some(digest) = digest {
        if !valid_digest(digest) {
            return None;
        }
    }
    // The first path element is a registry when it is `localhost` or looks
    // like a host (a dot, a port, an upper-case letter).
    let path = match named.split_once('/') {
        Some((first, rest))
            if first == "localhost"
                || first.contains(['.', ':'])
                || first.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            if !valid_domain(first) {
                return None;
            }
            rest
        }
        _ => named,
    };
    let (repository, tag) = match path.split_once(':') {
        Some((repository, tag)) => (repository, Some(tag)),
        None => (path, None),
    };
    if repository.len() > 255 || !repository.split('/').all(valid_path_component) {
        return None;
    }
    match tag {
        Some(tag) if valid_tag(tag) => Some(tag.to_string()),
        Some(_) => None,
        None if digest.is_some() => Some(String::new()),
        None => Some("latest".to_string()),
    }
}

/// `[a-z0-9]+` runs joined by `.`, `_`, `__` or any number of `-`.
fn valid_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if !alnum(first) || !alnum(last) {
        return false;
    }
    let mut separator = String::new();
    for &b in bytes {
        if alnum(b) {
            if !matches!(separator.as_str(), "" | "." | "_" | "__")
                && !separator.bytes().all(|s| s == b'-')
            {
                return false;
            }
            separator.clear();
        } else if matches!(b, b'.' | b'_' | b'-') {
            separator.push(char::from(b));
        } else {
            return false;
        }
    }
    true
}

/// A registry host (DNS labels joined by dots, or a bracketed IPv6
/// address) with an optional numeric port.
fn valid_domain(domain: &str) -> bool {
    let (host, port) = if let Some(rest) = domain.strip_prefix('[') {
        let Some((address, after)) = rest.split_once(']') else {
            return false;
        };
        if address.is_empty() || !address.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
            return false;
        }
        match after.strip_prefix(':') {
            Some(port) => ("", Some(port)),
            None if after.is_empty() => ("", None),
            None => return false,
        }
    } else {
        match domain.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (domain, None),
        }
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let label_ok = |label: &str| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    port_ok && (host.is_empty() && domain.starts_with('[') || host.split('.').all(label_ok))
}

/// `[\w][\w.-]{0,127}`.
fn valid_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    bytes.first().is_some_and(|&b| word(b))
        && bytes.len() <= 128
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

/// A digest Docker's reference parser accepts: a known algorithm and the
/// lower-case hex of that algorithm's length.
fn valid_digest(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let length = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    hex.len() == length && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
