//! Fort placement (SPEC §3): the one cluster of an application's binding
//! that receives a release first.
//!
//! Candidates are the binding's clusters that are not held. A pin on the
//! template wins (and must name a candidate); otherwise a fort recorded by
//! the previous render stays while its cluster is still in the binding (even
//! when that cluster is now paused: it is frozen there); otherwise the
//! highest weight wins — the static weight when the policy divides by static
//! weights, else the assigned replicas — and ties go to the first cluster in
//! binding order. Zero replicas is an ordinary case. Never changes replicas
//! or clusters.

use crate::model::meta::FORT_CLUSTER_ANNOTATION;
use crate::schedule::Binding;

pub use crate::model::domain::{FORT_ENABLED, FORT_LABEL};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fort {
    pub cluster: String,
    pub reason: FortReason,
    /// The previous render's fort, when it was elsewhere.
    pub moved_from: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FortReason {
    Pinned,
    Kept,
    HighestWeight { weight: u64, tied: usize },
}

impl Fort {
    /// One line for `explain` and the move report.
    pub fn describe(&self) -> String {
        let why = match &self.reason {
            FortReason::Pinned => {
                format!("pinned by the template's `{FORT_CLUSTER_ANNOTATION}` annotation")
            }
            FortReason::Kept => "kept where the previous render placed it".to_string(),
            FortReason::HighestWeight { weight, tied: 0 } => format!("highest weight ({weight})"),
            FortReason::HighestWeight { weight, tied } => {
                format!("highest weight ({weight}), tied with {tied} other cluster(s); first in binding order")
            }
        };
        match &self.moved_from {
            Some(from) => format!("`{}` (moved from `{from}`: {why})", self.cluster),
            None => format!("`{}` ({why})", self.cluster),
        }
    }
}

/// Why no fort could be placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FortError {
    /// The pin names a cluster that is not a candidate.
    PinNotCandidate {
        pin: String,
        candidates: Vec<String>,
    },
}

/// Choose the fort for one opted-in application. `Ok(None)` when the binding
/// has no candidate cluster (every cluster held, or nothing scheduled).
pub fn choose_fort(
    binding: &Binding,
    pin: Option<&str>,
    previous: Option<&str>,
) -> Result<Option<Fort>, FortError> {
    let in_binding = |c: &str| binding.clusters.iter().any(|a| a.cluster == c);
    let candidates: Vec<&crate::schedule::Assignment> =
        binding.clusters.iter().filter(|a| !a.held).collect();
    let moved = |cluster: &str| previous.filter(|p| *p != cluster).map(str::to_string);
    if let Some(pin) = pin {
        if !candidates.iter().any(|a| a.cluster == pin) {
            return Err(FortError::PinNotCandidate {
                pin: pin.to_string(),
                candidates: candidates.iter().map(|a| a.cluster.clone()).collect(),
            });
        }
        return Ok(Some(Fort {
            cluster: pin.to_string(),
            reason: FortReason::Pinned,
            moved_from: moved(pin),
        }));
    }
    if let Some(previous) = previous.filter(|p| in_binding(p)) {
        return Ok(Some(Fort {
            cluster: previous.to_string(),
            reason: FortReason::Kept,
            moved_from: None,
        }));
    }
    let weight = |cluster: &str, replicas: u64| -> u64 {
        match &binding.static_weights {
            Some(weights) => weights.get(cluster).copied().unwrap_or(0),
            None => replicas,
        }
    };
    let best = candidates
        .iter()
        .map(|a| weight(&a.cluster, a.replicas))
        .max();
    let Some(best) = best else { return Ok(None) };
    let mut winners = candidates
        .iter()
        .filter(|a| weight(&a.cluster, a.replicas) == best);
    let Some(first) = winners.next() else {
        return Ok(None);
    };
    let tied = winners.count();
    Ok(Some(Fort {
        cluster: first.cluster.clone(),
        reason: FortReason::HighestWeight { weight: best, tied },
        moved_from: moved(&first.cluster),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Assignment, Decision};
    use std::collections::BTreeMap;

    fn binding(clusters: &[(&str, u64, bool)], weights: Option<&[(&str, u64)]>) -> Binding {
        Binding {
            clusters: clusters
                .iter()
                .map(|(c, r, h)| Assignment {
                    cluster: c.to_string(),
                    replicas: *r,
                    held: *h,
                })
                .collect(),
            desired: clusters.iter().map(|c| c.1).sum(),
            workload: true,
            revise: true,
            divide_completions: true,
            affinity_name: None,
            decision: Decision::Pinned,
            static_weights: weights.map(|w| {
                w.iter()
                    .map(|(c, w)| (c.to_string(), *w))
                    .collect::<BTreeMap<_, _>>()
            }),
            notes: vec![],
            would_be: None,
            withheld: Default::default(),
            remembered: false,
            applied: None,
        }
    }

    fn fort_of(b: &Binding, pin: Option<&str>, previous: Option<&str>) -> Option<String> {
        choose_fort(b, pin, previous)
            .ok()
            .flatten()
            .map(|f| f.cluster)
    }

    #[test]
    fn highest_static_weight_wins_over_replicas() {
        let b = binding(
            &[("a", 3, false), ("b", 1, false)],
            Some(&[("a", 1), ("b", 2)]),
        );
        assert_eq!(fort_of(&b, None, None).as_deref(), Some("b"));
    }

    #[test]
    fn without_static_weights_the_most_replicas_win() {
        let b = binding(&[("a", 1, false), ("b", 3, false)], None);
        assert_eq!(fort_of(&b, None, None).as_deref(), Some("b"));
    }

    #[test]
    fn ties_go_to_the_first_cluster_in_binding_order() {
        let b = binding(&[("z", 2, false), ("x", 2, false)], None);
        assert_eq!(fort_of(&b, None, None).as_deref(), Some("z"));
    }

    #[test]
    fn zero_replicas_still_get_a_fort() {
        let b = binding(&[("a", 0, false), ("b", 0, false)], None);
        assert_eq!(fort_of(&b, None, None).as_deref(), Some("a"));
    }

    #[test]
    fn the_previous_fort_is_sticky_even_when_weights_change() {
        let b = binding(&[("a", 1, false), ("b", 9, false)], None);
        assert_eq!(fort_of(&b, None, Some("a")).as_deref(), Some("a"));
    }

    #[test]
    fn a_paused_fort_stays_but_a_new_fort_never_goes_to_a_paused_cluster() {
        let b = binding(&[("a", 1, true), ("b", 1, false)], None);
        assert_eq!(fort_of(&b, None, Some("a")).as_deref(), Some("a"));
        let b = binding(&[("a", 5, true), ("b", 1, false)], None);
        assert_eq!(fort_of(&b, None, None).as_deref(), Some("b"));
    }

    #[test]
    fn a_fort_whose_cluster_left_moves_and_says_so() {
        let b = binding(&[("b", 1, false)], None);
        let fort = choose_fort(&b, None, Some("a")).ok().flatten();
        assert_eq!(
            fort.map(|f| (f.cluster, f.moved_from)),
            Some(("b".to_string(), Some("a".to_string())))
        );
    }

    #[test]
    fn a_pin_wins_over_stickiness_and_must_be_a_candidate() {
        let b = binding(&[("a", 1, false), ("b", 1, true)], None);
        assert_eq!(fort_of(&b, Some("a"), Some("b")).as_deref(), Some("a"));
        assert!(matches!(
            choose_fort(&b, Some("b"), None),
            Err(FortError::PinNotCandidate { .. })
        ));
        assert!(matches!(
            choose_fort(&b, Some("nowhere"), None),
            Err(FortError::PinNotCandidate { .. })
        ));
    }

    #[test]
    fn no_candidates_means_no_fort() {
        let b = binding(&[("a", 1, true)], None);
        assert_eq!(fort_of(&b, None, None), None);
    }
}
