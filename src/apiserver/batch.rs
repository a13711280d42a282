//! The `batch/v1` kinds as a kube-apiserver stores them: Kubernetes'
//! defaulters of `pkg/apis/batch/v1` (`SetDefaults_Job`,
//! `SetDefaults_CronJob`, `SetDefaults_PodFailurePolicyOnPodConditionsPattern`)
//! with the `JobPodReplacementPolicy` gate on (GA and locked in v1.35),
//! and what the typed encoding always writes.

use super::other::written;
use super::{default_to, each, existing, object_at, pod};
use serde_json::{json, Map, Value};

/// The backoff limit of a Job that limits its backoff per index: none.
const NO_BACKOFF_LIMIT: i64 = i32::MAX as i64;

/// Defaults `object` when `batch/<version>` serves `kind`; `false` otherwise.
pub(crate) fn store(version: &str, kind: &str, object: &mut Map<String, Value>) -> bool {
    if version != "v1" {
        return false;
    }
    match kind {
        "Job" => job(object),
        "CronJob" => cron_job(object),
        _ => return false,
    }
    true
}

/// `SetDefaults_Job`, which also gives a Job without labels its pod
/// template's.
fn job(object: &mut Map<String, Value>) {
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    let unset = |spec: &Map<String, Value>, key: &str| spec.get(key).is_none_or(Value::is_null);
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec.insert("completions".into(), json!(1));
    }
    default_to(spec, "parallelism", json!(1));
    let backoff = if unset(spec, "backoffLimitPerIndex") {
        6
    } else {
        NO_BACKOFF_LIMIT
    };
    default_to(spec, "backoffLimit", json!(backoff));
    default_to(spec, "completionMode", json!("NonIndexed"));
    default_to(spec, "suspend", json!(false));
    let replacement = if unset(spec, "podFailurePolicy") {
        "TerminatingOrFailed"
    } else {
        "Failed"
    };
    default_to(spec, "podReplacementPolicy", json!(replacement));
    default_to(spec, "manualSelector", json!(false));
    job_spec(spec);
    let template_labels = spec
        .get("template")
        .and_then(|template| template.get("metadata"))
        .and_then(|metadata| metadata.get("labels"))
        .and_then(Value::as_object)
        .filter(|labels| !labels.is_empty())
        .cloned();
    if let (Some(labels), Some(metadata)) = (template_labels, object_at(object, "metadata")) {
        let unlabelled = metadata
            .get("labels")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        if unlabelled {
            metadata.insert("labels".into(), Value::Object(labels));
        }
    }
}

/// What a Job's spec gets wherever it is (a Job's, a CronJob's job
/// template's): its failure and success policies' required fields, a pod
/// condition pattern's status, and the pod template.
fn job_spec(spec: &mut Map<String, Value>) {
    if let Some(policy) = existing(spec, "podFailurePolicy") {
        written(policy, &[("rules", Value::Null)]);
        for rule in each(policy, "rules") {
            written(rule, &[("action", json!(""))]);
            if let Some(codes) = existing(rule, "onExitCodes") {
                written(codes, &[("operator", json!("")), ("values", Value::Null)]);
            }
            for pattern in each(rule, "onPodConditions") {
                written(pattern, &[("type", json!(""))]);
                default_to(pattern, "status", json!("True"));
            }
        }
    }
    if let Some(policy) = existing(spec, "successPolicy") {
        written(policy, &[("rules", Value::Null)]);
    }
    if let Some(template) = object_at(spec, "template") {
        pod::template(template);
    }
}

/// `SetDefaults_CronJob`; its job template's spec gets no Job defaults
/// (Kubernetes registers none for a `JobTemplateSpec`).
fn cron_job(object: &mut Map<String, Value>) {
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    default_to(spec, "concurrencyPolicy", json!("Allow"));
    default_to(spec, "suspend", json!(false));
    default_to(spec, "successfulJobsHistoryLimit", json!(3));
    default_to(spec, "failedJobsHistoryLimit", json!(1));
    written(spec, &[("schedule", json!(""))]);
    if let Some(template) = object_at(spec, "jobTemplate") {
        object_at(template, "metadata");
        if let Some(job) = object_at(template, "spec") {
            job_spec(job);
        }
    }
}
