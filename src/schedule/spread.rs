//! Spread constraints: how many clusters (and regions) a placement may use.
//!
//! As in Karmada v1.19, only `cluster` and `region` constraints narrow the
//! candidates, and not at all for static-weight division. Candidates arrive
//! in Karmada's order (score, available replicas, name); `maxGroups` keeps
//! the first clusters, `minGroups` fails when too few remain. For regions,
//! regions are ranked by their best cluster in that order, at most
//! `maxGroups` regions are used, each gets its best cluster first, and the
//! remaining cluster slots go to the next best clusters of those regions.

use super::Candidate;
use crate::model::policy::{Division, Placement, SpreadField};
use std::collections::{BTreeMap, BTreeSet};

pub fn apply<'a>(
    placement: &Placement,
    division: &Division,
    candidates: Vec<Candidate<'a>>,
    _previous: &BTreeMap<&str, u64>,
) -> Result<Vec<Candidate<'a>>, String> {
    if placement.spread_constraints.is_empty() || matches!(division, Division::StaticWeighted(_)) {
        return Ok(candidates);
    }
    let by = |field: SpreadField| {
        placement
            .spread_constraints
            .iter()
            .find(|c| c.spread_by_field == Some(field))
    };
    let cluster = by(SpreadField::Cluster);
    let region = by(SpreadField::Region);
    let cluster_max = cluster
        .and_then(|c| c.max_groups)
        .filter(|m| *m > 0)
        .map(|m| m as usize);
    let cluster_min = cluster.and_then(|c| c.min_groups).unwrap_or(1) as usize;

    let selected = match region {
        None => {
            let mut list = candidates;
            if let Some(max) = cluster_max {
                list.truncate(max);
            }
            list
        }
        Some(constraint) => {
            let region_max = constraint.max_groups.filter(|m| *m > 0).map(|m| m as usize);
            let region_min = constraint.min_groups.unwrap_or(1) as usize;
            let mut order: Vec<String> = Vec::new();
            for c in &candidates {
                if let Some(r) = &c.cluster.region {
                    if !order.contains(r) {
                        order.push(r.clone());
                    }
                }
            }
            if order.len() < region_min {
                return Err(format!(
                    "the spread constraint needs at least {region_min} regions; the candidates span {}",
                    order.len()
                ));
            }
            if let Some(max) = region_max {
                order.truncate(max);
            }
            let chosen: BTreeSet<&String> = order.iter().collect();
            let mut firsts: Vec<Candidate<'a>> = Vec::new();
            let mut rest: Vec<Candidate<'a>> = Vec::new();
            let mut seen: BTreeSet<String> = BTreeSet::new();
            for c in candidates {
                match &c.cluster.region {
                    Some(r) if chosen.contains(r) => {
                        if seen.insert(r.clone()) {
                            firsts.push(c);
                        } else {
                            rest.push(c);
                        }
                    }
                    _ => {}
                }
            }
            let slots = cluster_max.unwrap_or(usize::MAX).max(firsts.len());
            let mut list = firsts;
            list.extend(rest);
            list.truncate(slots);
            list
        }
    };
    if selected.len() < cluster_min {
        return Err(format!(
            "the spread constraint needs at least {cluster_min} clusters; only {} are candidates",
            selected.len()
        ));
    }
    Ok(selected)
}
