//! Comparing garrison's answer with Karmada's, field by field, after the
//! deliberate differences are taken out (those of a manifest by
//! [`comparable`], which `garrison verify` uses too). Each is listed, with its
//! reason, in `conformance/karmada/README.md`; anything else is a
//! divergence.

use garrison::migrate::member::comparable;
use serde_json::Value;

/// What the oracle says of a template Karmada's detector fails to bind
/// (an interpreter script that fails on it): it never reaches a cluster.
const NOT_BOUND: &str = "the resource detector does not bind it: ";

/// garrison's refusals of an object Karmada stores and then fails on when
/// it binds the templates it applies to: a script that does not load, a
/// policy waiting for an override policy that does not exist.
const BIND_TIME: &[&str] = &["error[G0701]", "error[G0206]"];

/// garrison refused a case (`why`, its diagnostics) where Karmada cannot
/// deliver one of the templates it names either: a sync error (an override
/// or interpreter that fails on it), dependencies it fails to distribute (a
/// dependencies script that fails on it: the workload runs without them),
/// a template its detector fails to bind
/// (a script that fails on it; or one of [`BIND_TIME`]), or a policy
/// Karmada's webhook rejects. garrison refuses the whole
/// render where Karmada fails one Work (bad input never leaves a
/// half-written output), so this is agreement.
pub fn karmada_fails_too(why: &str, karmada: &Value) -> bool {
    let rejected = karmada["rejected"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| {
            r["object"]
                .as_str()
                .is_some_and(|object| why.contains(&format!("{object}.yaml")))
        });
    let failed = karmada["results"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| {
            (r["syncError"].is_string() || r["dependenciesError"].is_string())
                && why.contains(&format!("`{}`", template_name(&r["template"])))
        });
    let unbound: Vec<String> = karmada["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| {
            r["skipped"]
                .as_str()
                .is_some_and(|s| s.starts_with(NOT_BOUND))
        })
        .map(|r| template_name(&r["template"]))
        .collect();
    let not_bound = unbound
        .iter()
        .any(|name| why.contains(&format!("`{name}`")))
        || (!unbound.is_empty() && BIND_TIME.iter().any(|code| why.contains(code)));
    rejected || failed || not_bound
}

/// Every difference between the two answers to one case, one line each.
pub fn divergences(garrison: &Value, karmada: &Value) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(error) = karmada["error"].as_str() {
        found.push(format!("the oracle failed on the case: {error}"));
        return found;
    }
    // The generator writes only input Karmada's API server accepts: a
    // refusal is a generator bug, or garrison accepting what Karmada refuses.
    for refused in karmada["rejected"].as_array().into_iter().flatten() {
        found.push(format!(
            "Karmada refuses {}: {}",
            refused["object"].as_str().unwrap_or_default(),
            refused["reason"].as_str().unwrap_or_default()
        ));
    }
    let ours = garrison["results"].as_array().cloned().unwrap_or_default();
    let theirs = karmada["results"].as_array().cloned().unwrap_or_default();
    if ours.len() != theirs.len() {
        found.push(format!(
            "{} results against Karmada's {}",
            ours.len(),
            theirs.len()
        ));
        return found;
    }
    for (o, t) in ours.iter().zip(&theirs) {
        let name = template_name(&t["template"]);
        if t["skipped"].is_string() {
            // Karmada never propagates it (a reserved or skipped namespace, a
            // kind it never watches ...): garrison must not deliver it either.
            if o["works"].as_array().is_some_and(|w| !w.is_empty()) {
                found.push(format!(
                    "{name}: delivered, where Karmada never propagates it ({})",
                    t["skipped"].as_str().unwrap_or_default()
                ));
            }
            continue;
        }
        if let Some(error) = t["syncError"].as_str() {
            found.push(format!("{name}: Karmada cannot write its Works: {error}"));
        }
        if o["policy"] != t["policy"] {
            found.push(format!(
                "{name}: policy {} against Karmada's {}",
                o["policy"], t["policy"]
            ));
            continue;
        }
        let (ours, theirs) = delivered(o, t);
        if ours.0 != theirs.0 {
            found.push(format!(
                "{name}: clusters {} against Karmada's {}",
                Value::Array(ours.0.clone()),
                Value::Array(theirs.0.clone())
            ));
            continue;
        }
        let work_clusters = |works: &[Value]| -> Vec<Value> {
            works.iter().map(|w| w["cluster"].clone()).collect()
        };
        if work_clusters(&ours.1) != work_clusters(&theirs.1) {
            found.push(format!(
                "{name}: Works on {} against Karmada's {}",
                Value::Array(work_clusters(&ours.1)),
                Value::Array(work_clusters(&theirs.1))
            ));
            continue;
        }
        for (ow, tw) in ours.1.iter().zip(&theirs.1) {
            let cluster = tw["cluster"].as_str().unwrap_or_default();
            if ow["name"] != tw["name"] || ow["namespace"] != tw["namespace"] {
                found.push(format!(
                    "{name} on {cluster}: Work {}/{} against Karmada's {}/{}",
                    ow["namespace"], ow["name"], tw["namespace"], tw["name"]
                ));
            }
            // The Work's own fields: whether the member applies it, and
            // whether it keeps the objects when the Work goes.
            for field in ["suspendDispatching", "preserveResourcesOnDeletion"] {
                if ow[field] != tw[field] {
                    found.push(format!(
                        "{name} on {cluster}: Work {field} {} against Karmada's {}",
                        ow[field], tw[field]
                    ));
                }
            }
            let (om, tm) = (comparable(&ow["manifest"]), comparable(&tw["manifest"]));
            if om != tm {
                found.push(format!(
                    "{name} on {cluster}: manifest differs:\n  garrison {}\n  karmada  {}",
                    om, tm
                ));
            }
        }
    }
    found
}

fn template_name(template: &Value) -> String {
    let text = |k: &str| template[k].as_str().unwrap_or_default().to_string();
    match template["namespace"].as_str() {
        Some(ns) => format!("{}/{ns}/{}", text("kind"), text("name")),
        None => format!("{}/{}", text("kind"), text("name")),
    }
}

/// One side's clusters, sorted by name, and its Works, sorted by cluster.
type Delivered = (Vec<Value>, Vec<Value>);

/// Both sides' clusters by name, and their Works by cluster.
///
/// garrison delivers a workload to every selected cluster whose share is
/// zero replicas, with 0 (SPEC §2), and the oracle runs karmada-scheduler
/// with `--enable-empty-workload-propagation`, which does the same (see
/// `oracle.rs`), so those clusters and their manifests are compared like
/// any other.
fn delivered(ours: &Value, theirs: &Value) -> (Delivered, Delivered) {
    let sorted = |result: &Value| {
        let mut clusters: Vec<Value> = result["clusters"].as_array().cloned().unwrap_or_default();
        clusters.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        let mut works: Vec<Value> = result["works"].as_array().cloned().unwrap_or_default();
        works.sort_by(|a, b| a["cluster"].as_str().cmp(&b["cluster"].as_str()));
        (clusters, works)
    };
    let ours = sorted(ours);
    let (mut clusters, mut works) = sorted(theirs);
    // A Work Karmada writes with `suspendDispatching` (the policy's
    // `suspension` names its cluster) is one its execution controller does
    // not apply: the member receives nothing from it. garrison schedules
    // nothing new onto a cluster a policy suspends (SPEC §5), so where it
    // writes nothing there, neither side delivers anything, and the
    // cluster and its Work are taken out of Karmada's answer. Where garrison
    // holds an earlier file there, both are compared as usual.
    let held = |cluster: &Value| ours.1.iter().any(|w| w["cluster"] == *cluster);
    let suspended: Vec<Value> = works
        .iter()
        .filter(|w| w["suspendDispatching"] == Value::Bool(true) && !held(&w["cluster"]))
        .map(|w| w["cluster"].clone())
        .collect();
    works.retain(|w| !suspended.contains(&w["cluster"]));
    clusters.retain(|c| !suspended.contains(&c["name"]));
    // A template other workloads depend on (propagateDeps) is written to
    // their clusters too: garrison lists them with the others, the oracle
    // apart (`requiredBy`, as Karmada keeps them in the binding). Karmada
    // gives them the depending workload's replicas, which only count for a
    // workload (ReviseReplica); for anything else they are 0, as garrison
    // has them.
    let workload = theirs["workload"].as_bool() == Some(true);
    for required in theirs["requiredBy"].as_array().into_iter().flatten() {
        let mut cluster = required.clone();
        if !workload {
            cluster["replicas"] = Value::from(0);
        }
        clusters.push(cluster);
    }
    clusters.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    (ours, (clusters, works))
}

/// [`divergences`] of a second schedule, the one on top of a previous
/// schedule (Karmada's `bindings`, garrison's previous render), with one
/// difference let through.
///
/// garrison's rendered binding lists its clusters by name, whatever the
/// scheduling type (SPEC §9, "Binding order"), and that binding is its
/// scheduler's memory (SPEC §2); Karmada's binding keeps the order its
/// scheduler wrote (the order of the selected clusters), and its next
/// schedule reads that order where replicas tie: scaling down divides by
/// the previous replicas sorted by count, equal counts in binding order,
/// and Aggregated then fills the first of them (`dynamicScaleDown` in
/// `pkg/scheduler/core/assignment.go`). So garrison remembers the same
/// schedule in another order. `by_name` is Karmada's answer to the same
/// case from the same previous schedule with each binding's clusters in
/// name order, asked for only when there is a difference: a template
/// whose answer differs from Karmada's but not from that one agrees.
/// Nothing else is let through (`conformance/karmada/DIVERGENCES.md`).
/// Karmada's answer without the clusters that left the fleet: when a
/// reschedule fails, Karmada keeps the last schedule whole, a cluster that
/// left included, and fails to write that cluster's Work until the cluster
/// object is gone; garrison's binding keeps only clusters of the fleet, as a
/// cluster that left has no output to render. The other clusters' Works are
/// compared as usual. (SPEC §2: the previous render is the memory, over the
/// fleet of this render.)
pub fn without_clusters_that_left(karmada: &Value, fleet: &[&str]) -> Value {
    let mut karmada = karmada.clone();
    let in_fleet = |c: &Value| c["name"].as_str().is_some_and(|n| fleet.contains(&n));
    for result in karmada["results"].as_array_mut().into_iter().flatten() {
        let Some(clusters) = result["clusters"].as_array_mut() else {
            continue;
        };
        let before = clusters.len();
        clusters.retain(in_fleet);
        let left = before != clusters.len();
        let missing_cluster = result["syncError"]
            .as_str()
            .is_some_and(|e| e.contains("clusters.cluster.karmada.io") && e.contains("not found"));
        if left && missing_cluster {
            result["syncError"] = Value::Null;
        }
    }
    karmada
}

/// Karmada's second answer without what it keeps delivering for
/// templates that lost their policy: when a policy is deleted, or stops
/// selecting a template, and no other policy claims it, Karmada's detector
/// removes the claim from the template and its binding and leaves the
/// binding as it is, so its clusters keep their Works (and a workload's
/// dependencies stay attached to them). garrison stops delivering such a
/// template, and a render that does so is refused (G0604) unless the user
/// allows it (SPEC §10, "An application does not vanish by accident"); the
/// in-process render here is the allowed one. Taken out: the clusters of
/// each template Karmada bound in `first` and binds to no policy now where
/// garrison does not deliver it, and the clusters a dependency is required
/// on that only such templates explain (one of theirs where garrison does
/// not deliver it). The rest is
/// compared as usual. Returns the answer and how many templates it let go.
pub fn without_bindings_karmada_keeps(
    first: &Value,
    karmada: &Value,
    garrison: &Value,
) -> (Value, usize) {
    let mut karmada = karmada.clone();
    let results = |answer: &Value| answer["results"].as_array().cloned().unwrap_or_default();
    let (before, ours) = (results(first), results(garrison));
    let Some(now) = karmada["results"].as_array_mut() else {
        return (karmada, 0);
    };
    let unclaimed = |r: &Value| r["policy"].is_null() && r["skipped"].is_null();
    // By template: a template deleted since `first` shifts the others.
    let claimed_before: std::collections::BTreeSet<String> = before
        .iter()
        .filter(|b| !b["policy"].is_null())
        .map(|b| template_name(&b["template"]))
        .collect();
    let kept: Vec<usize> = (0..now.len())
        .filter(|&i| {
            claimed_before.contains(&template_name(&now[i]["template"])) && unclaimed(&now[i])
        })
        .filter(|&i| now[i]["clusters"].as_array().is_some_and(|c| !c.is_empty()))
        .collect();
    let stale: std::collections::BTreeSet<String> = kept
        .iter()
        .flat_map(|&i| now[i]["clusters"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect();
    let delivered_by_garrison = |i: usize, cluster: &str| {
        ours.get(i).is_some_and(|o| {
            o["works"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| w["cluster"] == cluster)
        })
    };
    // A kept template's cluster where garrison delivers it too stays: the
    // oracle lists a cluster a dependency is also required on under
    // `clusters` only, so it may be a live parent's.
    for &i in &kept {
        if let Some(clusters) = now[i]["clusters"].as_array_mut() {
            clusters.retain(|c| {
                c["name"]
                    .as_str()
                    .is_some_and(|n| delivered_by_garrison(i, n))
            });
        }
    }
    for (i, result) in now.iter_mut().enumerate() {
        let delivered_by_garrison = |cluster: &str| delivered_by_garrison(i, cluster);
        let explained = |cluster: &Value| {
            cluster
                .as_str()
                .is_some_and(|c| stale.contains(c) && !delivered_by_garrison(c))
        };
        if let Some(required) = result["requiredBy"].as_array_mut() {
            required.retain(|c| !explained(&c["name"]));
        }
        let listed: Vec<Value> = ["clusters", "requiredBy"]
            .iter()
            .flat_map(|f| result[*f].as_array().cloned().unwrap_or_default())
            .map(|c| c["name"].clone())
            .collect();
        if let Some(works) = result["works"].as_array_mut() {
            works.retain(|w| listed.contains(&w["cluster"]) || !explained(&w["cluster"]));
        }
    }
    (karmada, kept.len())
}

pub fn divergences_after(
    garrison: &Value,
    karmada: &Value,
    by_name: impl FnOnce() -> Value,
) -> Vec<String> {
    let found = divergences(garrison, karmada);
    if found.is_empty() {
        return found;
    }
    let names: Vec<String> = karmada["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| template_name(&r["template"]))
        .collect();
    // The template a divergence is about, if any (every line of one starts
    // with its name).
    let about = |line: &str| -> Option<String> {
        names
            .iter()
            .find(|n| {
                line.strip_prefix(n.as_str())
                    .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(" on "))
            })
            .cloned()
    };
    let again = divergences(garrison, &by_name());
    let still: std::collections::BTreeSet<Option<String>> =
        again.iter().map(|line| about(line)).collect();
    found
        .into_iter()
        .filter(|line| match about(line) {
            Some(template) => still.contains(&Some(template)),
            None => true,
        })
        .collect()
}
