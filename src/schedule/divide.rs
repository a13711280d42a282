//! Replica division: how a Divided workload's replicas are split across the
//! selected clusters.
//!
//! Reproduces Karmada v1.19 (`pkg/scheduler/core/assignment.go`,
//! `division_algorithm.go`, `pkg/util/helper/binding.go`, `webstermethod.go`):
//!
//! * every division goes through the Webster (Sainte-Laguë) method that Karmada
//!   uses since v1.16 ([`webster`]);
//! * static weights: a cluster's weight is the largest weight of the rules that
//!   match it, weight-0 clusters take no part, and when nothing matched every
//!   cluster weighs 1 ([`static_weights`], [`divide_static`]);
//! * `dynamicWeight: AvailableReplicas` and `Aggregated`, in Karmada's Steady
//!   mode: scale up divides only the extra replicas, by available capacity, on
//!   top of the previous result; scale down re-divides the total by the previous
//!   result ([`divide_dynamic`]);
//! * a Job's `.spec.completions` is divided by the per-cluster replicas
//!   ([`divide_completions`]).
//!
//! Templates in git have no UID, so equal-priority ties always go to the
//! smaller cluster name, which is Karmada's rule for an empty UID.
//!
//! Unlike Karmada, results keep the clusters whose share is 0 (garrison
//! propagates empty workloads, SPEC §2): the caller never has to filter them.

use crate::model::affinity::{ClusterAffinity, ClusterView};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

/// One participant of a Webster apportionment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Party<'a> {
    pub name: &'a str,
    pub weight: u64,
}

/// Webster/Sainte-Laguë apportionment of `total` seats, aligned with `parties`.
///
/// Karmada's rule: seats start at 0 and, `total` times, the next seat goes to
/// the party with the largest `weight / (2·seats + 1)`; on equal quotients the
/// party with fewer seats wins, then the smaller name. Quotients are compared
/// exactly. Zero-weight parties never get a seat; if every weight is 0 nothing
/// is handed out (all zeros), where Karmada also allocates nothing.
///
/// Runs in O(n log n) whatever `total` is (see [`bulk_seats`]).
pub fn webster(total: u64, parties: &[Party<'_>]) -> Vec<u64> {
    let mut seats = bulk_seats(total, parties);
    let given: u64 = seats.iter().sum();
    let mut heap: BinaryHeap<Bid<'_>> = parties
        .iter()
        .enumerate()
        .filter(|(_, p)| p.weight > 0)
        .map(|(index, p)| Bid {
            weight: p.weight,
            seats: seats[index],
            name: p.name,
            index,
        })
        .collect();
    for _ in given..total {
        let Some(mut bid) = heap.pop() else { break };
        bid.seats += 1;
        seats[bid.index] = bid.seats;
        heap.push(bid);
    }
    seats
}

/// Seats that the one-at-a-time procedure is certain to hand out, given in bulk.
///
/// Every party's k-th seat has a "bid" `w/(2k−1)`; the one-at-a-time procedure
/// merges the parties' (decreasing) bid streams, so its result is the top
/// `total` bids in the global order (quotient desc, seats asc, name asc).
/// Starting the heap from any per-party prefix S of bids gives the same result
/// as long as S lies inside that top set.
///
/// With n positive parties of total weight W, take T = total − n and
/// s_p = ⌊T·w_p/W⌋, i.e. s_p ≤ w_p/λ with λ = W/T. Every bid in S is then
/// ≥ P = min w_p/(2s_p−1) > λ/2, and the number of bids ≥ P over all parties
/// is at most Σ ⌊(2w_q/λ + 1)/2⌋ ≤ T + n/2 ≤ total. Those bids form a prefix
/// of the global order that contains S, so S is inside the top `total`. At
/// most about 2n seats are then left for the heap.
fn bulk_seats(total: u64, parties: &[Party<'_>]) -> Vec<u64> {
    let positive = parties.iter().filter(|p| p.weight > 0).count() as u64;
    let weight_sum: u128 = parties.iter().map(|p| u128::from(p.weight)).sum();
    let mut seats = vec![0; parties.len()];
    if weight_sum == 0 || total <= positive {
        return seats;
    }
    let bulk = u128::from(total - positive);
    for (seat, party) in seats.iter_mut().zip(parties) {
        // bulk·w < 2^128 and the quotient is ≤ bulk, so both fit.
        *seat = (bulk * u128::from(party.weight) / weight_sum) as u64;
    }
    seats
}

/// A party's bid for its next seat, ordered so that the heap's maximum is the
/// winner of the next seat.
#[derive(Clone, Copy, Debug)]
struct Bid<'a> {
    weight: u64,
    seats: u64,
    name: &'a str,
    index: usize,
}

/// `w·(2s + 1)` as `(hi, bit)` with value `2·hi + bit`, which orders
/// lexicographically like the product and cannot overflow: `w·s + ⌊w/2⌋ < 2^128`.
fn scaled(weight: u64, seats: u64) -> (u128, u8) {
    let w = u128::from(weight);
    (w * u128::from(seats) + w / 2, (weight & 1) as u8)
}

impl Ord for Bid<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        // w1/(2s1+1) vs w2/(2s2+1)  ⇔  w1·(2s2+1) vs w2·(2s1+1)
        scaled(self.weight, other.seats)
            .cmp(&scaled(other.weight, self.seats))
            .then_with(|| other.seats.cmp(&self.seats))
            .then_with(|| other.name.cmp(self.name))
            .then_with(|| other.index.cmp(&self.index))
    }
}

impl PartialOrd for Bid<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Bid<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Bid<'_> {}

/// One `staticWeightList` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StaticWeightRule {
    pub target: ClusterAffinity,
    pub weight: u64,
}

/// Each candidate's static weight, aligned with `candidates`: the largest
/// weight among the rules whose target matches it (0 when none does). When
/// every weight is 0 (no rule matched, or no rules) every candidate weighs 1.
pub fn static_weights(candidates: &[ClusterView<'_>], rules: &[StaticWeightRule]) -> Vec<u64> {
    let weights: Vec<u64> = candidates
        .iter()
        .map(|cluster| {
            rules
                .iter()
                .filter(|rule| rule.target.matches(cluster))
                .map(|rule| rule.weight)
                .max()
                .unwrap_or(0)
        })
        .collect();
    if weights.iter().all(|&w| w == 0) {
        return vec![1; candidates.len()];
    }
    weights
}

/// Static-weight division of `total` replicas, sorted by cluster name.
///
/// Clusters whose weight is 0 take no part and are absent; clusters that take
/// part but receive 0 replicas are present with 0.
pub fn divide_static(
    total: u64,
    candidates: &[ClusterView<'_>],
    rules: &[StaticWeightRule],
) -> Vec<(String, u64)> {
    let weights = static_weights(candidates, rules);
    let parties: Vec<Party<'_>> = candidates
        .iter()
        .zip(&weights)
        .filter(|(_, &weight)| weight > 0)
        .map(|(cluster, &weight)| Party {
            name: cluster.name,
            weight,
        })
        .collect();
    by_name(&parties, &webster(total, &parties))
}

/// A cluster offered to a dynamic division, with its estimated available
/// replicas (see `estimate::available_replicas`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub available: u64,
}

/// Which dynamic division applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicMode {
    /// `Weighted` with `dynamicWeight: AvailableReplicas`.
    Weighted,
    /// `replicaDivisionPreference: Aggregated`: as few clusters as possible.
    Aggregated,
}

/// The candidates cannot take the replicas that must be placed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", unschedulable_message(*.desired, *.available, *.wrapped_to))]
pub struct Unschedulable {
    /// Replicas this scheduling round had to place (the increase on scale up).
    pub desired: u64,
    /// Sum of the candidates' available replicas.
    pub available: u64,
    /// What Karmada's int32 sum of them came to, when it wrapped around
    /// past 2147483647 (see [`karmada_sum`]).
    pub wrapped_to: Option<i32>,
}

fn unschedulable_message(desired: u64, available: u64, wrapped_to: Option<i32>) -> String {
    match wrapped_to {
        None => format!(
            "not enough capacity: {desired} replica(s) to place but the candidate clusters can take only {available}"
        ),
        Some(sum) => format!(
            "not enough capacity as Karmada counts it: the candidate clusters can take {available} replicas, but Karmada adds them up in an int32, which wraps around past 2147483647 to {sum}, below the {desired} replica(s) to place"
        ),
    }
}

/// The candidates' available replicas added up as Karmada's dynamic
/// division adds them (`util.GetSumOfReplicas` in `dynamicScaleUp`,
/// `pkg/scheduler/core/division_algorithm.go`): in an int32, which wraps
/// past 2147483647, so clusters that can take more than that between them
/// fail as not enough ("Clusters available replicas -4 are not enough to
/// schedule"). Each cluster's count is an int32 already.
pub fn karmada_sum(candidates: &[Candidate]) -> i32 {
    candidates.iter().fold(0i32, |sum, c| {
        sum.wrapping_add(i32::try_from(c.available).unwrap_or(i32::MAX))
    })
}

/// Dynamic division (Karmada's Steady mode), sorted by cluster name.
///
/// `previous` is the last result; only its clusters that are still candidates
/// count (replicas on a vanished cluster are placed again).
/// * previous total = `total`: the previous result, restricted to candidates.
/// * scale up (including the first schedule): the increase is divided with
///   each candidate's `available` as weight and added to the previous result;
///   [`Unschedulable`] when the candidates' availability is below the increase.
/// * scale down: `total` is divided from scratch with the previous replicas as
///   weights.
/// * [`DynamicMode::Aggregated`] first orders the weighted clusters (on scale
///   up: previously used clusters first, then available desc, name asc; on
///   scale down: previous replicas desc, name asc) and keeps the shortest
///   prefix whose weights reach the replicas to place.
///
/// Zero entries: every cluster that took part in the division (all candidates
/// for Weighted scale up, the kept prefix for Aggregated, the previous clusters
/// on scale down) is present, with 0 if it got nothing, as are previous
/// clusters that are still candidates. Other candidates are absent, so with
/// `total = 0` and no previous result the output is empty.
pub fn divide_dynamic(
    total: u64,
    candidates: &[Candidate],
    previous: &[(String, u64)],
    mode: DynamicMode,
) -> Result<Vec<(String, u64)>, Unschedulable> {
    let mut scheduled: BTreeMap<&str, u64> = BTreeMap::new();
    for (name, replicas) in previous {
        if candidates.iter().any(|c| &c.name == name) {
            let entry = scheduled.entry(name.as_str()).or_default();
            *entry = entry.saturating_add(*replicas);
        }
    }
    let assigned = scheduled
        .values()
        .fold(0u64, |sum, r| sum.saturating_add(*r));

    let (target, mut weighted, mut result) = match assigned.cmp(&total) {
        Ordering::Equal => return Ok(into_vec(scheduled)),
        Ordering::Greater => {
            let mut weighted: Vec<(&str, u64)> = scheduled.iter().map(|(n, r)| (*n, *r)).collect();
            weighted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            (total, weighted, BTreeMap::new())
        }
        Ordering::Less => {
            let target = total - assigned;
            let available: u128 = candidates.iter().map(|c| u128::from(c.available)).sum();
            let counted = karmada_sum(candidates);
            if available < u128::from(target) || i128::from(counted) < i128::from(target) {
                return Err(Unschedulable {
                    desired: target,
                    available: u64::try_from(available).unwrap_or(u64::MAX),
                    wrapped_to: (u128::try_from(counted).ok() != Some(available))
                        .then_some(counted),
                });
            }
            // Candidates in Karmada's order: previously used clusters first when
            // aggregating, then available desc; equal availability keeps the
            // order the candidates come in (Karmada's `sort.Sort` of the
            // available clusters is an insertion sort, so stable, up to 12
            // of them), which is the scheduler's (a previous cluster's
            // locality score first, then the smaller name) or the spread
            // constraints' (each chosen region's best cluster first).
            let prior = |name: &str| scheduled.get(name).is_some_and(|&r| r > 0);
            let listed = |name: &str| scheduled.contains_key(name);
            let mut weighted: Vec<(&str, u64)> = candidates
                .iter()
                .map(|c| (c.name.as_str(), c.available))
                .collect();
            // `sort_by` is stable: equal keys keep the candidates' order.
            weighted.sort_by(|a, b| {
                let group = match mode {
                    DynamicMode::Aggregated => prior(b.0).cmp(&prior(a.0)),
                    DynamicMode::Weighted => Ordering::Equal,
                };
                group
                    .then_with(|| b.1.cmp(&a.1))
                    .then_with(|| listed(b.0).cmp(&listed(a.0)))
            });
            (target, weighted, scheduled.clone())
        }
    };

    if mode == DynamicMode::Aggregated {
        let mut sum: u128 = 0;
        if let Some(end) = weighted.iter().position(|(_, w)| {
            sum += u128::from(*w);
            sum >= u128::from(target)
        }) {
            weighted.truncate(end + 1);
        }
    }

    let parties: Vec<Party<'_>> = weighted
        .iter()
        .map(|&(name, weight)| Party { name, weight })
        .collect();
    for (party, seats) in parties.iter().zip(webster(target, &parties)) {
        let entry = result.entry(party.name).or_default();
        *entry = entry.saturating_add(seats);
    }
    Ok(into_vec(result))
}

/// Divides a Job's `.spec.completions` across its clusters with their replicas
/// as weights, sorted by cluster name, every cluster present.
///
/// Empty when every cluster has 0 replicas: Karmada then leaves the
/// completions untouched.
pub fn divide_completions(completions: u64, per_cluster: &[(String, u64)]) -> Vec<(String, u64)> {
    if per_cluster.iter().all(|(_, replicas)| *replicas == 0) {
        return Vec::new();
    }
    let parties: Vec<Party<'_>> = per_cluster
        .iter()
        .map(|(name, replicas)| Party {
            name,
            weight: *replicas,
        })
        .collect();
    by_name(&parties, &webster(completions, &parties))
}

fn by_name(parties: &[Party<'_>], seats: &[u64]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = parties
        .iter()
        .zip(seats)
        .map(|(party, &seats)| (party.name.to_string(), seats))
        .collect();
    out.sort();
    out
}

fn into_vec(map: BTreeMap<&str, u64>) -> Vec<(String, u64)> {
    map.into_iter()
        .map(|(name, replicas)| (name.to_string(), replicas))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selector::Labels;
    use proptest::prelude::*;

    /// The rule as written: `total` rounds, each seat to the best bid.
    fn naive(total: u64, parties: &[Party<'_>]) -> Vec<u64> {
        let mut seats = vec![0u64; parties.len()];
        for _ in 0..total {
            let best = (0..parties.len())
                .filter(|&i| parties[i].weight > 0)
                .map(|i| Bid {
                    weight: parties[i].weight,
                    seats: seats[i],
                    name: parties[i].name,
                    index: i,
                })
                .max();
            match best {
                Some(bid) => seats[bid.index] += 1,
                None => break,
            }
        }
        seats
    }

    fn split(total: u64, weights: &[(&str, u64)]) -> Vec<u64> {
        let parties: Vec<Party<'_>> = weights
            .iter()
            .map(|&(name, weight)| Party { name, weight })
            .collect();
        webster(total, &parties)
    }

    fn pairs(v: &[(&str, u64)]) -> Vec<(String, u64)> {
        v.iter().map(|(n, r)| (n.to_string(), *r)).collect()
    }

    // Karmada's static-weight examples (assignment_test.go): Webster, not
    // floor + remainder.
    #[test]
    fn upstream_examples_3_2_1() {
        let w = [("A", 3), ("B", 2), ("C", 1)];
        assert_eq!(split(12, &w), [6, 4, 2]);
        assert_eq!(split(13, &w), [7, 4, 2]);
        assert_eq!(split(14, &w), [7, 5, 2]);
    }

    #[test]
    fn fewer_replicas_than_weight_gives_the_best_quotient_first() {
        assert_eq!(split(1, &[("A", 2), ("B", 1)]), [1, 0]);
        // A's second bid 2/3 loses to B's first bid 1/1.
        assert_eq!(split(2, &[("A", 2), ("B", 1)]), [1, 1]);
    }

    #[test]
    fn webster_differs_from_the_old_floor_plus_remainder() {
        // Pre-1.16 Karmada gave 3/2/0 here.
        assert_eq!(split(5, &[("A", 170), ("B", 110), ("C", 60)]), [2, 2, 1]);
        assert_eq!(split(9, &[("A", 1), ("B", 3)]), [2, 7]);
    }

    #[test]
    fn equal_quotients_go_to_the_smaller_name() {
        assert_eq!(split(10, &[("c", 1), ("a", 1), ("b", 1)]), [3, 4, 3]);
        assert_eq!(split(1, &[("z", 5), ("y", 5)]), [0, 1]);
    }

    #[test]
    fn equal_quotients_go_to_fewer_seats_before_names() {
        // After 3 seats: a (w=3, s=1) bids 3/3, b (w=1, s=0) bids 1/1: b wins
        // although "a" is smaller.
        assert_eq!(split(2, &[("a", 3), ("b", 1)]), [1, 1]);
    }

    #[test]
    fn zero_weights_never_get_seats() {
        assert_eq!(split(5, &[("a", 0), ("b", 1)]), [0, 5]);
        assert_eq!(split(5, &[("a", 0), ("b", 0)]), [0, 0]);
        assert_eq!(split(0, &[("a", 1)]), [0]);
        assert_eq!(split(3, &[]), Vec::<u64>::new());
    }

    #[test]
    fn huge_weights_and_totals_do_not_overflow() {
        let w = [("a", u64::MAX), ("b", u64::MAX - 1), ("c", 1)];
        let total = 1_000_000_007;
        let parties: Vec<Party<'_>> = w
            .iter()
            .map(|&(name, weight)| Party { name, weight })
            .collect();
        let got = webster(total, &parties);
        assert_eq!(got.iter().sum::<u64>(), total);
        assert_eq!(split(7, &w), naive(7, &parties));
        let big = split(u64::MAX, &[("a", 1), ("b", 1)]);
        assert_eq!(big, [u64::MAX / 2 + 1, u64::MAX / 2]);
    }

    fn cluster_view<'a>(name: &'a str, labels: &'a Labels) -> ClusterView<'a> {
        ClusterView {
            name,
            labels,
            provider: None,
            region: None,
            zones: &[],
        }
    }

    fn names_rule(names: &[&str], weight: u64) -> StaticWeightRule {
        StaticWeightRule {
            target: ClusterAffinity {
                cluster_names: names.iter().map(|n| n.to_string()).collect(),
                ..Default::default()
            },
            weight,
        }
    }

    #[test]
    fn static_weight_is_the_max_of_matching_rules() {
        let labels = Labels::new();
        let views = [
            cluster_view("m1", &labels),
            cluster_view("m2", &labels),
            cluster_view("m3", &labels),
        ];
        let rules = [
            names_rule(&["m1"], 1),
            names_rule(&["m2"], 1),
            names_rule(&["m1"], 2),
        ];
        assert_eq!(static_weights(&views, &rules), [2, 1, 0]);
        // Karmada's "cluster with multiple weights": 3 @ 2:1.
        assert_eq!(
            divide_static(3, &views, &rules),
            pairs(&[("m1", 2), ("m2", 1)])
        );
    }

    #[test]
    fn static_weight_defaults_to_equal_when_nothing_matches() {
        let labels = Labels::new();
        let views = [
            cluster_view("b", &labels),
            cluster_view("a", &labels),
            cluster_view("c", &labels),
        ];
        assert_eq!(static_weights(&views, &[]), [1, 1, 1]);
        assert_eq!(static_weights(&views, &[names_rule(&["x"], 4)]), [1, 1, 1]);
        assert_eq!(
            divide_static(12, &views, &[]),
            pairs(&[("a", 4), ("b", 4), ("c", 4)])
        );
    }

    #[test]
    fn static_division_drops_unweighted_keeps_empty_and_sorts_by_name() {
        let labels = Labels::new();
        let views = [
            cluster_view("m2", &labels),
            cluster_view("m1", &labels),
            cluster_view("m3", &labels),
        ];
        // "selected cluster without weight should be ignored".
        assert_eq!(
            divide_static(2, &views, &[names_rule(&["m1"], 1)]),
            pairs(&[("m1", 2)])
        );
        // "insufficient replica assignment should get 0 replica": kept with 0.
        let rules = [names_rule(&["m1"], 1), names_rule(&["m2"], 1)];
        assert_eq!(
            divide_static(0, &views, &rules),
            pairs(&[("m1", 0), ("m2", 0)])
        );
        assert_eq!(
            divide_static(1, &views, &rules),
            pairs(&[("m1", 1), ("m2", 0)])
        );
    }

    fn cands(v: &[(&str, u64)]) -> Vec<Candidate> {
        v.iter()
            .map(|(n, a)| Candidate {
                name: n.to_string(),
                available: *a,
            })
            .collect()
    }

    // Cases from Karmada's assignment_test.go / division_algorithm_test.go.
    #[test]
    fn dynamic_first_schedule_divides_by_availability() {
        let c = cands(&[("m1", 18), ("m2", 12), ("m3", 6)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 6), ("m2", 4), ("m3", 2)])));
        let c = cands(&[("m1", 6), ("m2", 8), ("m3", 10)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 3), ("m2", 4), ("m3", 5)])));
        let c = cands(&[("m1", 8), ("m2", 8), ("m3", 10)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 4), ("m2", 4), ("m3", 4)])));
    }

    #[test]
    fn dynamic_scale_up_adds_to_the_previous_result() {
        let prev = pairs(&[("m1", 2), ("m2", 4), ("m3", 6)]);
        let c = cands(&[("m1", 10), ("m2", 10), ("m3", 10)]);
        let got = divide_dynamic(24, &c, &prev, DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 6), ("m2", 8), ("m3", 10)])));
    }

    #[test]
    fn dynamic_scale_up_replaces_replicas_of_vanished_clusters() {
        let prev = pairs(&[("m1", 6), ("m3", 6)]);
        let c = cands(&[("m1", 3), ("m2", 3)]);
        let got = divide_dynamic(12, &c, &prev, DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 9), ("m2", 3)])));
    }

    #[test]
    fn dynamic_scale_up_beyond_capacity_is_unschedulable() {
        let prev = pairs(&[("m1", 2), ("m2", 4), ("m3", 6)]);
        let c = cands(&[("m1", 1), ("m2", 1), ("m3", 1)]);
        let err = divide_dynamic(24, &c, &prev, DynamicMode::Weighted).unwrap_err();
        assert_eq!(
            err,
            Unschedulable {
                desired: 12,
                available: 3,
                wrapped_to: None,
            }
        );
        let message = err.to_string();
        assert!(message.contains("12") && message.contains('3'), "{message}");
        let c = cands(&[("m1", 3), ("m2", 3), ("m3", 3)]);
        assert!(divide_dynamic(12, &c, &[], DynamicMode::Weighted).is_err());
        assert!(divide_dynamic(12, &c, &[], DynamicMode::Aggregated).is_err());
    }

    /// Karmada adds the candidates' available replicas up in an int32
    /// (`GetSumOfReplicas`), which wraps: two clusters that can take
    /// 2147483646 each come to -4, "not enough" for 10 replicas.
    #[test]
    fn available_replicas_past_int32_between_them_are_not_enough_as_karmada_counts() {
        let c = cands(&[("m1", 2_147_483_646), ("m2", 2_147_483_646)]);
        assert_eq!(karmada_sum(&c), -4);
        for mode in [DynamicMode::Weighted, DynamicMode::Aggregated] {
            let err = divide_dynamic(10, &c, &[], mode).unwrap_err();
            assert_eq!(err.wrapped_to, Some(-4));
            assert_eq!(err.available, 4_294_967_292);
            assert!(err.to_string().contains("wraps around"), "{err}");
        }
        let c = cands(&[("m1", 1_000_000_000), ("m2", 1_000_000_000)]);
        assert_eq!(karmada_sum(&c), 2_000_000_000);
        assert!(divide_dynamic(10, &c, &[], DynamicMode::Weighted).is_ok());
    }

    #[test]
    fn dynamic_scale_down_divides_by_the_previous_result() {
        let prev = pairs(&[("m1", 2), ("m2", 4), ("m3", 6)]);
        let c = cands(&[("m1", 1), ("m2", 1), ("m3", 1)]);
        let got = divide_dynamic(6, &c, &prev, DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 1), ("m2", 2), ("m3", 3)])));
    }

    #[test]
    fn dynamic_unchanged_total_keeps_the_previous_result() {
        let prev = pairs(&[("m1", 5), ("m2", 7), ("gone", 3)]);
        let c = cands(&[("m1", 0), ("m2", 0), ("m3", 9)]);
        let got = divide_dynamic(12, &c, &prev, DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 5), ("m2", 7)])));
    }

    #[test]
    fn aggregated_uses_as_few_clusters_as_possible() {
        let c = cands(&[("m1", 6), ("m2", 8), ("m3", 10)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m2", 5), ("m3", 7)])));
        let c = cands(&[("m1", 12), ("m2", 8), ("m3", 10)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m1", 12)])));
        // Equal availability: the candidates' order (the scheduler's, or
        // the spread constraints': each chosen region's best cluster first)
        // forms the prefix, as Karmada's stable sort keeps it.
        let c = cands(&[("m3", 6), ("m2", 6), ("m1", 6)]);
        let got = divide_dynamic(12, &c, &[], DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m2", 6), ("m3", 6)])));
    }

    #[test]
    fn aggregated_scale_up_prefers_previous_clusters() {
        let prev = pairs(&[("m1", 4), ("m2", 8)]);
        let c = cands(&[("m1", 4), ("m2", 6), ("m3", 8)]);
        let got = divide_dynamic(24, &c, &prev, DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m1", 7), ("m2", 12), ("m3", 5)])));
        let c = cands(&[("m1", 6), ("m2", 6), ("m3", 20)]);
        let got = divide_dynamic(24, &c, &prev, DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m1", 10), ("m2", 14)])));
        // m2 vanished, m4 appeared.
        let c = cands(&[("m1", 4), ("m3", 8), ("m4", 12)]);
        let got = divide_dynamic(24, &c, &prev, DynamicMode::Aggregated);
        assert_eq!(got, Ok(pairs(&[("m1", 7), ("m3", 7), ("m4", 10)])));
    }

    #[test]
    fn aggregated_scale_down_keeps_the_largest_previous_clusters() {
        let prev = pairs(&[("m1", 4), ("m2", 8)]);
        let c = cands(&[("m1", 1), ("m2", 1), ("m3", 1)]);
        assert_eq!(
            divide_dynamic(6, &c, &prev, DynamicMode::Aggregated),
            Ok(pairs(&[("m2", 6)]))
        );
        let c = cands(&[("m1", 100), ("m2", 100)]);
        assert_eq!(
            divide_dynamic(8, &c, &prev, DynamicMode::Aggregated),
            Ok(pairs(&[("m2", 8)]))
        );
    }

    #[test]
    fn weighted_scale_up_lists_every_candidate() {
        let c = cands(&[("m1", 0), ("m2", 5)]);
        let got = divide_dynamic(3, &c, &[], DynamicMode::Weighted);
        assert_eq!(got, Ok(pairs(&[("m1", 0), ("m2", 3)])));
        assert_eq!(
            divide_dynamic(0, &c, &[], DynamicMode::Weighted),
            Ok(vec![])
        );
    }

    #[test]
    fn job_completions_follow_the_replicas() {
        let per = pairs(&[("b", 2), ("a", 1), ("c", 0)]);
        assert_eq!(
            divide_completions(10, &per),
            pairs(&[("a", 3), ("b", 7), ("c", 0)])
        );
        assert_eq!(divide_completions(10, &pairs(&[("a", 0)])), vec![]);
    }

    fn named(weights: &[u64]) -> Vec<(String, u64)> {
        weights
            .iter()
            .enumerate()
            .map(|(i, &w)| (format!("c{i:02}"), w))
            .collect()
    }

    fn as_parties(named: &[(String, u64)]) -> Vec<Party<'_>> {
        named
            .iter()
            .map(|(name, weight)| Party {
                name,
                weight: *weight,
            })
            .collect()
    }

    fn weights() -> impl Strategy<Value = Vec<u64>> {
        prop::collection::vec(
            prop_oneof![3 => 0u64..20, 2 => 0u64..2000, 1 => any::<u64>()],
            0..12,
        )
    }

    proptest! {
        #[test]
        fn bulk_path_equals_one_seat_at_a_time(w in weights(), total in 0u64..3000) {
            let named = named(&w);
            let parties = as_parties(&named);
            prop_assert_eq!(webster(total, &parties), naive(total, &parties));
        }

        #[test]
        fn seats_sum_to_total(w in weights(), total in 0u64..1_000_000) {
            let named = named(&w);
            let parties = as_parties(&named);
            let seats = webster(total, &parties);
            if w.iter().any(|&x| x > 0) {
                prop_assert_eq!(seats.iter().sum::<u64>(), total);
            }
            for (s, p) in seats.iter().zip(&parties) {
                prop_assert!(p.weight > 0 || *s == 0);
            }
        }

        #[test]
        fn independent_of_input_order(w in weights(), total in 0u64..500, keys in prop::collection::vec(any::<u32>(), 12)) {
            let named = named(&w);
            let parties = as_parties(&named);
            let seats = webster(total, &parties);
            let mut order: Vec<usize> = (0..parties.len()).collect();
            order.sort_by_key(|&i| keys[i]);
            let shuffled: Vec<Party<'_>> = order.iter().map(|&i| parties[i]).collect();
            let shuffled_seats = webster(total, &shuffled);
            for (k, &i) in order.iter().enumerate() {
                prop_assert_eq!(shuffled_seats[k], seats[i]);
            }
        }

        #[test]
        fn house_monotone(w in weights(), total in 0u64..500) {
            let named = named(&w);
            let parties = as_parties(&named);
            let before = webster(total, &parties);
            let after = webster(total + 1, &parties);
            for (b, a) in before.iter().zip(&after) {
                prop_assert!(a >= b);
            }
        }
    }
}
