//! `Cluster.spec.resourceModels` as Karmada's API server stores them, the
//! node grades its general estimator counts replicas on
//! ([`crate::schedule::models`]).
//!
//! With the feature gate CustomizedClusterResourceModeling (beta, on by
//! default) the cluster registry (`pkg/registry/cluster/strategy.go`,
//! `PrepareForCreate`) gives a Cluster without models the default grades
//! (`mutation.SetDefaultClusterResourceModels`) and standardizes given ones
//! (`StandardizeClusterResourceModels`: sorted by grade, the first grade's
//! minimums set to 0, the last grade's maximums to 2^63 − 1), then refuses
//! what `ValidateClusterResourceModels` refuses. garrison stores the same,
//! so a cluster that reports `allocatableModelings` without models is
//! estimated on the default grades, as the live control plane does.

use super::quantity::{go_quantity, quantity_of, Quantity, QuantityError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A grade of Karmada's resource models, as written: the API server's
/// stored form is [`stored`]'s.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceModel {
    pub grade: u64,
    pub ranges: Vec<ResourceModelRange>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceModelRange {
    pub name: String,
    /// Quantities: a string (`"1Gi"`) or a number.
    pub min: Value,
    pub max: Value,
}

/// One grade as the estimator reads it: the minimum of every range, which
/// is the capacity Karmada gives each node of the grade (`buildModelNodes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelGrade {
    pub grade: u64,
    /// Range names with their minimums, in the order the model lists them.
    pub minimums: Vec<(String, Quantity)>,
}

/// Why the API server refuses a Cluster's models.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelFault {
    /// `models[model].ranges[range].{bound}` is not a quantity.
    #[error("`spec.resourceModels[{model}].ranges[{range}].{bound}`: {fault}")]
    Quantity {
        model: usize,
        range: usize,
        bound: &'static str,
        fault: QuantityError,
    },
    /// `ValidateClusterResourceModels`' message, about the sorted models.
    #[error("`spec.resourceModels`: {0}")]
    Invalid(&'static str),
}

/// A range with both bounds parsed, and the Go form of each for
/// `ValidateClusterResourceModels`' struct comparison.
struct Range<'m> {
    name: &'m str,
    min: Quantity,
    max: Quantity,
    go_min: Option<super::quantity::GoQuantity>,
    go_max: Option<super::quantity::GoQuantity>,
}

/// The models Karmada stores for `given` (`None` or empty: the defaults).
pub fn stored(given: Option<&[ResourceModel]>) -> Result<Vec<ModelGrade>, ModelFault> {
    let given = match given {
        Some(models) if !models.is_empty() => models,
        _ => return Ok(defaults()),
    };
    let mut models: Vec<(u64, Vec<Range>)> = Vec::with_capacity(given.len());
    for (m, model) in given.iter().enumerate() {
        let mut ranges = Vec::with_capacity(model.ranges.len());
        for (r, range) in model.ranges.iter().enumerate() {
            let parse = |bound: &'static str, value: &serde_json::Value| {
                quantity_of(value).map_err(|fault| ModelFault::Quantity {
                    model: m,
                    range: r,
                    bound,
                    fault,
                })
            };
            let go = |value: &serde_json::Value| match value {
                serde_json::Value::String(text) => go_quantity(text.trim()),
                serde_json::Value::Number(n) => go_quantity(&n.to_string()),
                _ => None,
            };
            ranges.push(Range {
                name: &range.name,
                min: parse("min", &range.min)?,
                max: parse("max", &range.max)?,
                go_min: go(&range.min),
                go_max: go(&range.max),
            });
        }
        models.push((model.grade, ranges));
    }
    models.sort_by_key(|(grade, _)| *grade);
    if let Some((_, first)) = models.first_mut() {
        for range in first {
            range.min = Quantity::default();
        }
    }
    if let Some((_, last)) = models.last_mut() {
        for range in last {
            range.max = Quantity::from_units(i64::MAX);
        }
    }
    validate(&models)?;
    Ok(models
        .into_iter()
        .map(|(grade, ranges)| ModelGrade {
            grade,
            minimums: ranges
                .into_iter()
                .map(|r| (r.name.to_string(), r.min))
                .collect(),
        })
        .collect())
}

/// `ValidateClusterResourceModels` on standardized models: the first
/// grade's minimums are 0 and the last grade's maximums 2^63 − 1 by then, so
/// those two rules always hold. Adjacent grades are compared as Go compares
/// the structs (`GoQuantity`), not by value.
fn validate(models: &[(u64, Vec<Range>)]) -> Result<(), ModelFault> {
    for (i, (grade, ranges)) in models.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| &models[p]);
        if let Some((previous_grade, previous_ranges)) = previous {
            if previous_grade == grade {
                return Err(ModelFault::Invalid(
                    "The grade of each models should not be the same",
                ));
            }
            if previous_ranges.len() != ranges.len() {
                return Err(ModelFault::Invalid(
                    "The number of resource types should be the same",
                ));
            }
        }
        for (j, range) in ranges.iter().enumerate() {
            if range.max <= range.min {
                return Err(ModelFault::Invalid(
                    "The max value of each resource must be greater than the min value",
                ));
            }
            let Some((_, previous_ranges)) = previous else {
                continue;
            };
            let below = &previous_ranges[j];
            if below.name != range.name {
                return Err(ModelFault::Invalid(
                    "The resource types of each models should be the same",
                ));
            }
            let same = matches!((&below.go_max, &range.go_min), (Some(a), Some(b)) if a == b && *a != super::quantity::GoQuantity::Big);
            if !same {
                return Err(ModelFault::Invalid(
                    "Model intervals for resources must be contiguous and non-overlapping",
                ));
            }
        }
    }
    Ok(())
}

/// `mutation.SetDefaultClusterResourceModels`: nine grades of CPU (cores)
/// and memory (GiB), each grade's minimums the previous grade's maximums.
fn defaults() -> Vec<ModelGrade> {
    const GIB: i64 = 1 << 30;
    let cpu = [0, 1, 2, 4, 8, 16, 32, 64, 128];
    let memory = [0, 4, 16, 32, 64, 128, 256, 512, 1024];
    (0u64..)
        .zip(cpu.iter().zip(memory))
        .map(|(grade, (cores, gib))| ModelGrade {
            grade,
            minimums: vec![
                ("cpu".to_string(), Quantity::from_units(*cores)),
                ("memory".to_string(), Quantity::from_units(gib * GIB)),
            ],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::ResourceModelRange;
    use crate::model::quantity::parse_quantity;
    use serde_json::json;

    fn model(grade: u64, ranges: &[(&str, &str, &str)]) -> ResourceModel {
        ResourceModel {
            grade,
            ranges: ranges
                .iter()
                .map(|(name, min, max)| ResourceModelRange {
                    name: name.to_string(),
                    min: json!(min),
                    max: json!(max),
                })
                .collect(),
        }
    }

    #[test]
    fn absent_models_are_the_defaults() {
        let models = stored(None).unwrap();
        assert_eq!(models.len(), 9);
        assert_eq!(models, stored(Some(&[])).unwrap());
        assert_eq!(
            models[2].minimums,
            vec![
                ("cpu".to_string(), parse_quantity("2").unwrap()),
                ("memory".to_string(), parse_quantity("16Gi").unwrap())
            ]
        );
    }

    #[test]
    fn given_models_are_sorted_and_the_first_minimum_is_zero() {
        let models = stored(Some(&[
            model(2, &[("cpu", "4", "8")]),
            model(1, &[("cpu", "1", "4")]),
        ]))
        .unwrap();
        assert_eq!(models[0].grade, 1);
        assert_eq!(models[0].minimums[0].1, Quantity::default());
        assert_eq!(models[1].minimums[0].1, parse_quantity("4").unwrap());
    }

    #[test]
    fn the_api_server_refuses_what_karmada_validation_refuses() {
        let refused = |models: &[ResourceModel]| match stored(Some(models)) {
            Err(ModelFault::Invalid(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(refused(&[
            model(1, &[("cpu", "0", "2")]),
            model(1, &[("cpu", "2", "4")])
        ])
        .contains("grade"));
        assert!(refused(&[
            model(0, &[("cpu", "0", "2")]),
            model(1, &[("cpu", "2", "4"), ("memory", "1", "2")])
        ])
        .contains("number"));
        assert!(refused(&[
            model(0, &[("cpu", "0", "2")]),
            model(1, &[("memory", "2", "4")])
        ])
        .contains("types"));
        assert!(refused(&[
            model(0, &[("cpu", "0", "2")]),
            model(1, &[("cpu", "3", "4")])
        ])
        .contains("contiguous"));
        // Same value, other Go form: refused as Karmada refuses it.
        assert!(refused(&[
            model(0, &[("cpu", "0", "2")]),
            model(1, &[("cpu", "2000m", "4")])
        ])
        .contains("contiguous"));
        assert!(refused(&[
            model(0, &[("cpu", "0", "4")]),
            model(1, &[("cpu", "4", "3")]),
            model(2, &[("cpu", "3", "5")])
        ])
        .contains("greater"));
        // Same Go form, other text: accepted.
        assert!(stored(Some(&[
            model(0, &[("memory", "0", "8Gi")]),
            model(1, &[("memory", "8192Mi", "1")])
        ]))
        .is_ok());
        assert!(matches!(
            stored(Some(&[model(0, &[("cpu", "0", "2x")])])),
            Err(ModelFault::Quantity { bound: "max", .. })
        ));
    }
}
