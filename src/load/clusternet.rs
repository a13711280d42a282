//! Reading Clusternet's propagation API (clusternet-semantics §1, §6 P1–P19):
//! what Clusternet's CRDs and hub would refuse is refused here, and what
//! means nothing offline is warned about, at the field that says it.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::clusternet::{
    DividingType, Feed, OverrideConfig, OverrideType, SchedulingStrategy, SubscriptionSpec,
    HELM_CHART_KIND,
};
use crate::model::inputs::Document;

/// Subscription faults Clusternet's scheduler stops on (P9) or its CRD
/// refuses; `false` after an error. Warns about what an offline render
/// cannot act on (P10, P11, P19).
pub fn check_subscription(
    doc: &Document,
    spec: &SubscriptionSpec,
    diagnostics: &mut Diagnostics,
) -> bool {
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut refuse = |path: &[&str], message: String, help: &str| {
        errors.push(
            Diagnostic::error(Code::InvalidPlacement, message)
                .at(doc.at(path))
                .help(help.to_string()),
        );
    };
    if spec.subscribers.is_empty() {
        refuse(
            &["spec", "subscribers"],
            "`spec.subscribers` is empty: the Subscription selects no cluster".into(),
            "add a subscriber with a `clusterAffinity` (`{}` selects every cluster)",
        );
    }
    if spec.feeds.is_empty() {
        refuse(
            &["spec", "feeds"],
            "`spec.feeds` is empty: the Subscription delivers nothing".into(),
            "list the objects to deliver, each by `apiVersion`, `kind`, `namespace` and `name`",
        );
    }
    for (i, subscriber) in spec.subscribers.iter().enumerate() {
        let index = i.to_string();
        match &subscriber.cluster_affinity {
            None => refuse(
                &["spec", "subscribers", &index],
                format!("`spec.subscribers[{i}]` has no `clusterAffinity`: Clusternet matches no cluster for it"),
                "write `clusterAffinity: {}` to select every cluster, or a label selector",
            ),
            Some(selector) => {
                if let Some(fault) = selector.fault() {
                    refuse(
                        &["spec", "subscribers", &index, "clusterAffinity"],
                        format!("`spec.subscribers[{i}].clusterAffinity`: {fault}"),
                        "fix the selector; Kubernetes refuses it",
                    );
                }
            }
        }
        if subscriber.weight.is_some_and(|w| w < 0) {
            refuse(
                &["spec", "subscribers", &index, "weight"],
                format!("`spec.subscribers[{i}].weight` is negative"),
                "weights are 0 or more",
            );
        }
    }
    let dividing = spec.strategy() == SchedulingStrategy::Dividing;
    match (&spec.dividing_scheduling, dividing) {
        (None, true) => refuse(
            &["spec", "schedulingStrategy"],
            "`spec.schedulingStrategy: Dividing` without `spec.dividingScheduling`: Clusternet's assigners skip it and nothing is deployed".into(),
            "add `dividingScheduling: {type: Static}` and give the subscribers weights",
        ),
        (Some(scheduling), true) if scheduling.kind == Some(DividingType::Dynamic) => refuse(
            &["spec", "dividingScheduling", "type"],
            "`spec.dividingScheduling.type: Dynamic` divides by each cluster's live capacity, which an offline render cannot know".into(),
            "use `type: Static` with subscriber weights",
        ),
        (Some(_), false) => diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                "`spec.dividingScheduling` has no effect: `schedulingStrategy` is `Replication`",
            )
            .at(doc.at(&["spec", "dividingScheduling"]))
            .help("set `schedulingStrategy: Dividing`, or remove it"),
        ),
        _ => {}
    }
    if let Some(scheduling) = &spec.dividing_scheduling {
        if scheduling.dynamic_dividing.is_some() && scheduling.kind != Some(DividingType::Dynamic) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::IgnoredField,
                    "`spec.dividingScheduling.dynamicDividing` has no effect: the division is Static",
                )
                .at(doc.at(&["spec", "dividingScheduling", "dynamicDividing"])),
            );
        }
    }
    if let Some(name) = spec.scheduler_name.as_deref().filter(|n| *n != "default") {
        diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                format!("`spec.schedulerName: {name}`: garrison schedules as Clusternet's default scheduler does"),
            )
            .at(doc.at(&["spec", "schedulerName"])),
        );
    }
    if spec.by_sub_group() {
        diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                "`spec.schedulingBySubGroup`: Clusternet picks each subscriber's first `minClusters` clusters in score order, and where clusters of equal score tie at the cut, the pick follows its cluster cache's order; garrison picks them by `namespace/name` there (and past 12 clusters throughout)",
            )
            .at(doc.at(&["spec", "schedulingBySubGroup"]))
            .help("pin the clusters with narrower subscribers if the pick matters"),
        );
    }
    for (i, feed) in spec.feeds.iter().enumerate() {
        check_feed(doc, &["spec", "feeds", &i.to_string()], feed, diagnostics);
        if dividing && feed.kind == HELM_CHART_KIND {
            refuse(
                &["spec", "feeds", &i.to_string()],
                "a Dividing Subscription with a HelmChart feed: Clusternet never takes stock of its replicas, so it never schedules it".into(),
                "feed the chart from a Replication Subscription",
            );
        }
    }
    if spec.by_sub_group() {
        for (i, subscriber) in spec.subscribers.iter().enumerate() {
            if let Some(min) = subscriber
                .sub_group_strategy
                .as_ref()
                .and_then(|g| g.min_clusters)
                .filter(|m| *m < 0)
            {
                refuse(
                    &["spec", "subscribers", &i.to_string(), "subGroupStrategy", "minClusters"],
                    format!("`spec.subscribers[{i}].subGroupStrategy.minClusters` is {min}; Clusternet's CRD allows 0 or more"),
                    "write the number of clusters to pick from this subscriber's matches",
                );
            }
            if subscriber.sub_group_strategy.is_none() {
                refuse(
                    &["spec", "subscribers", &i.to_string()],
                    format!("`spec.subscribers[{i}]` has no `subGroupStrategy`, which `schedulingBySubGroup` needs: Clusternet fails to schedule it"),
                    "add `subGroupStrategy: {minClusters: N}`",
                );
            }
        }
    }
    let ok = errors.is_empty();
    for error in errors {
        diagnostics.push(error);
    }
    ok
}

/// A feed's own faults: a HelmChart feed is warned about and skipped (P19).
fn check_feed(doc: &Document, path: &[&str], feed: &Feed, diagnostics: &mut Diagnostics) {
    if feed.is_helm_chart() {
        diagnostics.push(
            Diagnostic::warning(
                Code::UnsupportedField,
                format!("the HelmChart feed `{}` is skipped: an offline render cannot fetch or render charts", feed.name),
            )
            .at(doc.at(path))
            .help("render the chart into manifests in the repository and feed those"),
        );
    }
}

/// A Globalization's `clusterAffinity` that Kubernetes refuses: Clusternet's
/// localizer fails on it; `false` after the error.
pub fn check_affinity(
    doc: &Document,
    affinity: Option<&crate::model::selector::LabelSelector>,
    diagnostics: &mut Diagnostics,
) -> bool {
    let Some(fault) = affinity.and_then(|a| a.fault()) else {
        return true;
    };
    diagnostics.push(
        Diagnostic::error(
            Code::InvalidOverride,
            format!("`spec.clusterAffinity`: {fault}"),
        )
        .at(doc.at(&["spec", "clusterAffinity"]))
        .help("fix the selector; Kubernetes refuses it, and Clusternet fails every cluster's overrides of the feed"),
    );
    false
}

/// Localization and Globalization faults Clusternet's CRD or localizer
/// refuses (priority out of 0–1000, field patches without a path or
/// format). `false` after an error.
pub fn check_overrides(
    doc: &Document,
    priority: Option<i32>,
    overrides: &[OverrideConfig],
    diagnostics: &mut Diagnostics,
) -> bool {
    let mut ok = true;
    if let Some(p) = priority.filter(|p| !(0..=1000).contains(p)) {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidOverride,
                format!("`spec.priority` is {p}; Clusternet's CRD allows 0 to 1000"),
            )
            .at(doc.at(&["spec", "priority"])),
        );
        ok = false;
    }
    for (i, config) in overrides.iter().enumerate() {
        let index = i.to_string();
        let at = |field: &str| doc.at(&["spec", "overrides", &index, field]);
        match config.kind {
            OverrideType::Helm => {}
            OverrideType::FieldJSONPatch | OverrideType::FieldMergePatch => {
                if config
                    .field_path
                    .as_deref()
                    .is_none_or(|p| !p.starts_with('/'))
                {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::InvalidOverride,
                            format!("`spec.overrides[{i}]` is a field patch without a `fieldPath` that starts with `/`"),
                        )
                        .at(at("type"))
                        .help("name the string field to patch as a JSON pointer, e.g. `/data/config.json`"),
                    );
                    ok = false;
                }
                if config.field_format.is_none() {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::InvalidOverride,
                            format!("`spec.overrides[{i}]` is a field patch without a `fieldFormat`; Clusternet refuses it"),
                        )
                        .at(at("type"))
                        .help("add `fieldFormat: JSON` or `fieldFormat: YAML`: how the field's text is parsed"),
                    );
                    ok = false;
                }
            }
            OverrideType::JSONPatch | OverrideType::MergePatch => {
                for field in ["fieldPath", "fieldFormat"] {
                    let set = match field {
                        "fieldPath" => config.field_path.is_some(),
                        _ => config.field_format.is_some(),
                    };
                    if set {
                        diagnostics.push(
                            Diagnostic::warning(
                                Code::IgnoredField,
                                format!("`spec.overrides[{i}].{field}` has no effect on a {:?} override", config.kind),
                            )
                            .at(at(field)),
                        );
                    }
                }
            }
        }
        if config.override_chart == Some(true) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::UnsupportedField,
                    format!("`spec.overrides[{i}].overrideChart` patches a HelmChart, which garrison does not render"),
                )
                .at(at("overrideChart"))
                .help("Clusternet skips the first such override of a plain object and applies later ones to the object itself; garrison does the same. Remove `overrideChart` unless the feed is a HelmChart"),
            );
        }
    }
    ok
}
