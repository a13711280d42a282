//! FederatedHPAs acting on the templates they scale (SPEC §10, the API
//! server stage): Karmada's autoscaler writes a template's replicas on the
//! control plane, through its scale subresource, and the scheduler divides
//! what it wrote. So the template a render plans from is the scaled one.
//!
//! A render has no metrics. Karmada's controller (`pkg/controllers/
//! federatedhpa`, `reconcileAutoscaler`) decides one thing without them:
//! replicas above `maxReplicas` become `maxReplicas`, below `minReplicas`
//! become `minReplicas` ([`autoscaling::bounded`]); inside the bounds the
//! metrics decide, and the render keeps what the template says. Each
//! FederatedHPA gets a warning saying what it was given and that scaling by
//! metrics needs a live control plane.
//!
//! The scale subresource is known for Deployments, ReplicaSets,
//! StatefulSets and ReplicationControllers (`spec.replicas`, 1 when absent,
//! as the API server defaults it) and for custom resources whose
//! CustomResourceDefinition in the repository declares one (its
//! `specReplicasPath`, read only when set, as the API server reads it).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::autoscaling::{self, FederatedHpa};
use crate::model::inputs::{Inputs, Template};
use crate::model::meta::{group_of, ObjectKey};
use serde_json::Value;
use std::collections::BTreeMap;

/// Scale the target of every FederatedHPA of `inputs` within its bounds.
pub fn apply(inputs: &mut Inputs, diagnostics: &mut Diagnostics) {
    let mut by_target: BTreeMap<ObjectKey, Vec<usize>> = BTreeMap::new();
    for (i, hpa) in inputs.autoscalers.iter().enumerate() {
        by_target.entry(target_key(hpa)).or_default().push(i);
    }
    let mut scaled: Vec<(ObjectKey, String, u64)> = Vec::new();
    for (key, hpas) in &by_target {
        if let [one, two, ..] = hpas.as_slice() {
            let (first, second) = (&inputs.autoscalers[*one], &inputs.autoscalers[*two]);
            diagnostics.push(
                Diagnostic::error(
                    Code::ClaimedTwice,
                    format!(
                        "`{key}` is scaled by {} and {}: Karmada's autoscalers would fight over its replicas",
                        first.display(),
                        second.display()
                    ),
                )
                .at(second.doc.at(&["spec", "scaleTargetRef"]))
                .help("keep one FederatedHPA for each workload"),
            );
            continue;
        }
        let hpa = &inputs.autoscalers[hpas[0]];
        match outcome(inputs, hpa, key) {
            Ok(scaling) => {
                diagnostics.push(scaling.warning(hpa, key));
                if let Some(to) = scaling.write {
                    scaled.push((key.clone(), scaling.pointer, to));
                }
            }
            Err(diagnostic) => diagnostics.push(*diagnostic),
        }
    }
    for (key, pointer, replicas) in scaled {
        if let Ok(i) = inputs.templates.binary_search_by(|t| t.key.cmp(&key)) {
            set_replicas(&mut inputs.templates[i], &pointer, replicas);
        }
    }
}

/// The template a FederatedHPA names, in its own namespace.
fn target_key(hpa: &FederatedHpa) -> ObjectKey {
    let target = &hpa.spec.scale_target_ref;
    ObjectKey {
        api_version: target.api_version.clone(),
        kind: target.kind.clone(),
        namespace: Some(hpa.namespace.clone()),
        name: target.name.clone(),
    }
}

/// What a FederatedHPA does to its target offline.
#[derive(Debug, PartialEq, Eq)]
struct Scaling {
    /// Where the template keeps its replicas (a JSON pointer).
    pointer: String,
    /// The template's replicas, as the API server holds them.
    current: u64,
    min: u64,
    max: u64,
    /// The replicas written into the template, when they change.
    write: Option<u64>,
}

impl Scaling {
    /// The warning every FederatedHPA gets: what the render gave its
    /// target, and that its metrics are not followed.
    fn warning(&self, hpa: &FederatedHpa, key: &ObjectKey) -> Diagnostic {
        let Scaling {
            current, min, max, ..
        } = self;
        let given = match self.write {
            Some(to) => format!(
                "keeps `{key}` within {min}..{max} replicas: the render gives it {to} (the template has {current})"
            ),
            None if *current == 0 => format!(
                "leaves `{key}` at 0 replicas, which Karmada's autoscaler does not scale"
            ),
            None => format!(
                "leaves `{key}` at {current} replicas, within {min}..{max}"
            ),
        };
        let at = if hpa.spec.metrics.is_some() {
            hpa.doc.at(&["spec", "metrics"])
        } else {
            hpa.doc.at(&["spec", "maxReplicas"])
        };
        Diagnostic::warning(
            Code::IgnoredField,
            format!(
                "{} {given}; scaling by its metrics needs a live Karmada control plane",
                hpa.display()
            ),
        )
        .at(at)
        .help("to scale by metrics, deliver a HorizontalPodAutoscaler with the workload to each cluster; to keep the FederatedHPA knowingly under `--strict`, relax `ignored-field` for its file")
    }
}

/// What `hpa` does to the template of `key`, or why it does nothing.
fn outcome(
    inputs: &Inputs,
    hpa: &FederatedHpa,
    key: &ObjectKey,
) -> Result<Scaling, Box<Diagnostic>> {
    let at_target = hpa.doc.at(&["spec", "scaleTargetRef"]);
    let no_effect = |why: String, help: &str| {
        Box::new(
            Diagnostic::warning(
                Code::IgnoredField,
                format!("{} has no effect: {why}", hpa.display()),
            )
            .at(at_target)
            .help(help.to_string()),
        )
    };
    if key.api_version.is_empty() {
        return Err(no_effect(
            "`spec.scaleTargetRef` has no `apiVersion`, without which Karmada's autoscaler cannot find its target".into(),
            "add the target's `apiVersion`, such as `apps/v1`",
        ));
    }
    let Some(template) = inputs.template(key) else {
        return Err(Box::new(
            Diagnostic::warning(
                Code::PolicyMatchesNothing,
                format!(
                    "{} scales nothing: no template is `{key}` ({})",
                    hpa.display(),
                    key.api_version
                ),
            )
            .at(at_target)
            .help("check `spec.scaleTargetRef` (apiVersion, kind and name) against the template, which must be in the FederatedHPA's namespace"),
        ));
    };
    if let Some(subscription) = inputs
        .subscriptions
        .iter()
        .find(|s| s.spec.feeds.iter().any(|f| f.names(key)))
    {
        return Err(no_effect(
            format!(
                "`{key}` is fed by {}, and Karmada's autoscaler scales only what Karmada propagates",
                subscription.display()
            ),
            "remove the FederatedHPA, or propagate the workload with a Karmada policy",
        ));
    }
    let Some((pointer, default)) = scale_subresource(inputs, key) else {
        return Err(no_effect(
            format!(
                "garrison knows no scale subresource of `{}` (`{}`), so the template is left as it is",
                key.kind, key.api_version
            ),
            "Deployments, ReplicaSets, StatefulSets, ReplicationControllers and custom resources whose CustomResourceDefinition in the repository declares `subresources.scale` can be scaled",
        ));
    };
    let current = match template.value.pointer(&pointer) {
        Some(value) => value.as_u64(),
        None => default,
    };
    let Some(current) = current else {
        return Err(no_effect(
            format!("`{key}` has no `{pointer}`, so its scale cannot be read"),
            "set the replicas the scale subresource reads",
        ));
    };
    let to = autoscaling::bounded(current, &hpa.spec);
    Ok(Scaling {
        pointer,
        current,
        min: hpa.spec.min(),
        max: hpa.spec.max(),
        write: (to != current).then_some(to),
    })
}

/// Where the scale subresource of `key`'s kind reads and writes replicas,
/// as a JSON pointer, and the replicas it reads when the field is absent.
fn scale_subresource(inputs: &Inputs, key: &ObjectKey) -> Option<(String, Option<u64>)> {
    let built_in = matches!(
        (key.api_version.as_str(), key.kind.as_str()),
        ("apps/v1", "Deployment" | "ReplicaSet" | "StatefulSet") | ("v1", "ReplicationController")
    );
    if built_in {
        // Kubernetes' defaulters (`SetDefaults_Deployment` and the others)
        // set a missing `spec.replicas` to 1.
        return Some(("/spec/replicas".into(), Some(1)));
    }
    let (group, version) = key.api_version.rsplit_once('/')?;
    let path = inputs
        .templates
        .iter()
        .filter(|t| is_crd_of(t, group, &key.kind))
        .flat_map(|t| t.value.pointer("/spec/versions").and_then(Value::as_array))
        .flatten()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(version))?
        .pointer("/subresources/scale/specReplicasPath")?
        .as_str()?;
    Some((json_path_pointer(path)?, None))
}

/// Whether `template` is the CustomResourceDefinition of `kind` in `group`.
fn is_crd_of(template: &Template, group: &str, kind: &str) -> bool {
    group_of(&template.key.api_version) == "apiextensions.k8s.io"
        && template.key.kind == "CustomResourceDefinition"
        && template
            .value
            .pointer("/spec/group")
            .and_then(Value::as_str)
            == Some(group)
        && template
            .value
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            == Some(kind)
}

/// A `specReplicasPath` (`.spec.replicas`: the API server takes only dotted
/// field names under `.spec`) as a JSON pointer.
fn json_path_pointer(path: &str) -> Option<String> {
    let fields: Vec<&str> = path.strip_prefix('.')?.split('.').collect();
    if fields.first() != Some(&"spec") || fields.iter().any(|f| f.is_empty()) {
        return None;
    }
    Some(
        fields
            .iter()
            .map(|f| format!("/{}", f.replace('~', "~0").replace('/', "~1")))
            .collect(),
    )
}

/// Write `replicas` at `pointer` of the template, creating the last field
/// where it is missing: first in its parent, where the API server's typed
/// encoding puts a workload's `replicas`.
fn set_replicas(template: &mut Template, pointer: &str, replicas: u64) {
    if let Some(slot) = template.value.pointer_mut(pointer) {
        *slot = Value::from(replicas);
        return;
    }
    let Some((parent, field)) = pointer.rsplit_once('/') else {
        return;
    };
    if let Some(map) = template
        .value
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
    {
        map.shift_insert(
            0,
            field.replace("~1", "/").replace("~0", "~"),
            Value::from(replicas),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::{Diagnostics, Sources};
    use crate::load::classify::classify_documents;
    use crate::load::yaml::{parse_stream, Limits};
    use crate::model::inputs::Inputs;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 12, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}\n";

    fn hpa(name: &str, target: &str, bounds: &str) -> String {
        format!("---\napiVersion: autoscaling.karmada.io/v1alpha1\nkind: FederatedHPA\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  scaleTargetRef: {target}\n  {bounds}\n")
    }

    /// Classify `text` and scale: the inputs and the diagnostics, concise.
    fn scale(text: &str) -> (Inputs, Vec<String>) {
        let mut sources = Sources::default();
        let file = sources.add("in.yaml".into(), text.into());
        let documents = match parse_stream(text, &Limits::default()) {
            Ok(nodes) => nodes.into_iter().map(|n| (file, n)).collect(),
            Err(e) => panic!("{e:?}"),
        };
        let mut diagnostics = Diagnostics::default();
        let (mut inputs, _) = classify_documents(documents, &sources, None, &mut diagnostics);
        super::apply(&mut inputs, &mut diagnostics);
        let shown = crate::diag::render(&diagnostics, &sources, crate::diag::Style::Concise);
        (inputs, shown.lines().map(str::to_string).collect())
    }

    fn replicas(inputs: &Inputs) -> Option<u64> {
        inputs.templates[0]
            .value
            .pointer("/spec/replicas")
            .and_then(serde_json::Value::as_u64)
    }

    const TO_WEB: &str = "{apiVersion: apps/v1, kind: Deployment, name: web}";

    #[test]
    fn replicas_above_the_maximum_are_the_maximum() {
        let (inputs, shown) = scale(&format!(
            "{DEPLOYMENT}{}",
            hpa("web", TO_WEB, "minReplicas: 2\n  maxReplicas: 10")
        ));
        assert_eq!(replicas(&inputs), Some(10));
        assert_eq!(shown, ["in.yaml:12:16: warning[G0208]: FederatedHPA `shop/web` keeps `Deployment/shop/web` within 2..10 replicas: the render gives it 10 (the template has 12); scaling by its metrics needs a live Karmada control plane (help: to scale by metrics, deliver a HorizontalPodAutoscaler with the workload to each cluster; to keep the FederatedHPA knowingly under `--strict`, relax `ignored-field` for its file)"]);
    }

    /// A Deployment without `replicas` has 1 (the API server's default),
    /// raised to `minReplicas` and written first in `spec`.
    #[test]
    fn a_missing_replicas_is_one_and_raised_to_the_minimum() {
        let deployment = DEPLOYMENT.replace("replicas: 12, ", "");
        let (inputs, _) = scale(&format!(
            "{deployment}{}",
            hpa("web", TO_WEB, "minReplicas: 3\n  maxReplicas: 10")
        ));
        assert_eq!(replicas(&inputs), Some(3));
        let spec = inputs.templates[0].value["spec"]
            .as_object()
            .map(|s| s.keys().next().cloned());
        assert_eq!(spec, Some(Some("replicas".to_string())));
    }

    #[test]
    fn replicas_within_the_bounds_are_kept() {
        let (inputs, shown) = scale(&format!(
            "{DEPLOYMENT}{}",
            hpa("web", TO_WEB, "maxReplicas: 20\n  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]")
        ));
        assert_eq!(replicas(&inputs), Some(12));
        assert_eq!(shown.len(), 1);
        assert!(
            shown[0].contains("leaves `Deployment/shop/web` at 12 replicas, within 1..20"),
            "{shown:?}"
        );
    }

    #[test]
    fn a_missing_target_scales_nothing() {
        let (_, shown) = scale(&format!(
            "{DEPLOYMENT}{}",
            hpa(
                "api",
                "{apiVersion: apps/v1, kind: Deployment, name: api}",
                "maxReplicas: 2"
            )
        ));
        assert_eq!(shown, ["in.yaml:10:19: warning[G0201]: FederatedHPA `shop/api` scales nothing: no template is `Deployment/shop/api` (apps/v1) (help: check `spec.scaleTargetRef` (apiVersion, kind and name) against the template, which must be in the FederatedHPA's namespace)"]);
    }

    #[test]
    fn two_autoscalers_of_one_workload_are_refused_and_scale_nothing() {
        let (inputs, shown) = scale(&format!(
            "{DEPLOYMENT}{}{}",
            hpa("a", TO_WEB, "maxReplicas: 5"),
            hpa("b", TO_WEB, "maxReplicas: 8")
        ));
        assert_eq!(replicas(&inputs), Some(12));
        assert_eq!(shown, ["in.yaml:17:19: error[G0210]: `Deployment/shop/web` is scaled by FederatedHPA `shop/a` and FederatedHPA `shop/b`: Karmada's autoscalers would fight over its replicas (help: keep one FederatedHPA for each workload)"]);
    }

    /// A custom resource is scaled at its CRD's `specReplicasPath`; a kind
    /// without a known scale subresource is left alone.
    #[test]
    fn a_custom_resource_is_scaled_where_its_crd_says() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: clonesets.apps.kruise.io}\nspec:\n  group: apps.kruise.io\n  names: {kind: CloneSet, plural: clonesets}\n  scope: Namespaced\n  versions:\n  - name: v1alpha1\n    served: true\n    storage: true\n    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n---\n";
        let cloneset = "apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 1}\n";
        let (inputs, _) = scale(&format!(
            "{crd}{cloneset}{}",
            hpa(
                "web",
                "{apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, name: web}",
                "minReplicas: 4\n  maxReplicas: 9"
            )
        ));
        let cloneset = inputs.templates.iter().find(|t| t.key.kind == "CloneSet");
        assert_eq!(
            cloneset.and_then(|t| t.value.pointer("/spec/replicas")),
            Some(&serde_json::json!(4))
        );
        let job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: web, namespace: shop}\nspec: {parallelism: 2, template: {spec: {containers: [{name: a, image: b}], restartPolicy: Never}}}\n";
        let (_, shown) = scale(&format!(
            "{job}{}",
            hpa(
                "web",
                "{apiVersion: batch/v1, kind: Job, name: web}",
                "maxReplicas: 1"
            )
        ));
        assert!(
            shown[0].contains(
                "has no effect: garrison knows no scale subresource of `Job` (`batch/v1`)"
            ),
            "{shown:?}"
        );
    }

    #[test]
    fn spec_replicas_paths_are_pointers_under_spec() {
        assert_eq!(
            super::json_path_pointer(".spec.replicas").as_deref(),
            Some("/spec/replicas")
        );
        assert_eq!(super::json_path_pointer(".status.replicas"), None);
        assert_eq!(super::json_path_pointer("spec.replicas"), None);
    }
}
