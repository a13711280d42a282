//! A template as a Clusternet hub keeps it as a feed (clusternet-semantics
//! §1): labelled `clusternet.io/created-by` and then stored by its API
//! server's dry run ([`crate::apiserver::store`]), or as written, labelled,
//! when the template skips the dry run
//! (`apps.clusternet.io/skip-validating: "true"`). The label comes first:
//! a Job written without labels takes its pod template's only when it has
//! none (Kubernetes' `SetDefaults_Job`).

use crate::model::clusternet::{CREATED_BY_LABEL, HUB_NAME, SKIP_VALIDATING};
use crate::model::inputs::Template;
use serde_json::{Map, Value};

/// Whether `template` skips the hub's dry run
/// (`apps.clusternet.io/skip-validating: "true"`): stored as written.
pub fn skips_dry_run(template: &Template) -> bool {
    template
        .annotations
        .get(SKIP_VALIDATING)
        .is_some_and(|v| v == "true")
}

/// The feed of `template`, made once, when a Subscription first reads it.
pub fn fed(template: &Template) -> &Value {
    template.fed.get_or_init(|| feed(&template.written))
}

fn feed(written: &Value) -> Value {
    let mut fed = written.clone();
    let skips = written
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(SKIP_VALIDATING))
        .is_some_and(|v| v == "true");
    let labels = fed
        .as_object_mut()
        .and_then(|o| {
            o.entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
        })
        .and_then(|m| {
            let labels = m
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if labels.is_null() {
                *labels = Value::Object(Map::new());
            }
            labels.as_object_mut()
        });
    if let Some(labels) = labels {
        labels.insert(CREATED_BY_LABEL.into(), Value::from(HUB_NAME));
    }
    if !skips {
        crate::apiserver::store(&mut fed);
    }
    fed
}
