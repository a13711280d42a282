//! Available-replica estimation from `Cluster.status.resourceSummary`, the
//! input of dynamic-weight and Aggregated division.
//!
//! Reproduces Karmada v1.19's general estimator
//! (`pkg/estimator/client/general.go`): allowed pods = allocatable − allocated
//! − allocating pods; then, for every requested resource, ⌊available /
//! request⌋ (CPU in milli-units, everything else in whole units, both rounded
//! up the way `resource.Quantity` does); the minimum of all, never negative. A
//! cluster without a resource summary can take nothing.
//!
//! Also owns the per-replica requirements of a pod template
//! (`helper.GenerateReplicaRequirements`) and an exact Kubernetes `Quantity`
//! parser (`k8s.io/apimachinery/pkg/api/resource`).
//!
//! Not reproduced: the resource-model estimate Karmada uses instead when the
//! cluster reports `allocatableModelings` (and `spec.resourceModels`); garrison
//! accepts the field and always uses the summary. Assumed in-flight workloads
//! do not exist offline.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Nanos per unit.
const NANO: i128 = 1_000_000_000;
/// Kubernetes caps a quantity at 2^63 − 1 units.
const MAX_NANOS: i128 = (i64::MAX as i128) * NANO;

/// An exact Kubernetes quantity, held in nano-units.
///
/// Parsing rounds any finer precision up (away from zero) to 1n and caps the
/// magnitude at 2^63 − 1 units, as `resource.ParseQuantity` does; the format
/// (DecimalSI, BinarySI, exponent) is not kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity {
    nanos: i128,
}

impl Quantity {
    /// A quantity of `units` whole units.
    pub fn from_units(units: i64) -> Self {
        Quantity {
            nanos: i128::from(units) * NANO,
        }
    }

    /// A quantity of `millis` thousandths.
    pub fn from_millis(millis: i64) -> Self {
        Quantity {
            nanos: i128::from(millis) * 1_000_000,
        }
    }

    /// The exact value in nano-units.
    pub fn nanos(self) -> i128 {
        self.nanos
    }

    /// `Quantity.Value()`: whole units, rounded away from zero.
    pub fn value(self) -> i128 {
        ceil_div(self.nanos, NANO)
    }

    /// `Quantity.MilliValue()`: thousandths, rounded away from zero.
    pub fn milli_value(self) -> i128 {
        ceil_div(self.nanos, 1_000_000)
    }

    fn minus(self, other: Quantity) -> Quantity {
        Quantity {
            nanos: self.nanos - other.nanos,
        }
    }
}

/// Division rounding away from zero (for a positive divisor).
fn ceil_div(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d == 0 {
        q
    } else if n > 0 {
        q + 1
    } else {
        q - 1
    }
}

/// A value that is not a Kubernetes quantity. The text is quoted as Rust
/// quotes strings (`"10x"`), the way these messages have always shown it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QuantityError {
    #[error("invalid quantity \"\": empty")]
    Empty,
    /// Digits followed by something that is not a suffix or an exponent.
    #[error("invalid quantity {text:?}: unknown suffix")]
    UnknownSuffix { text: String },
    /// A YAML or JSON value that is neither a string nor a number.
    #[error("invalid quantity {value}: not a string or number")]
    NotAStringOrNumber { value: Box<serde_json::Value> },
}

/// Parses a Kubernetes quantity: `[+-]digits[.digits]` followed by a decimal
/// suffix (`n u m "" k M G T P E`), a binary suffix (`Ki Mi Gi Ti Pi Ei`) or a
/// decimal exponent (`e3`, `E-2`), following `resource.ParseQuantity`'s grammar.
pub fn parse_quantity(text: &str) -> Result<Quantity, QuantityError> {
    if text.is_empty() {
        return Err(QuantityError::Empty);
    }
    let bytes = text.as_bytes();
    let mut pos = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            pos = 1;
            true
        }
        Some(b'+') => {
            pos = 1;
            false
        }
        _ => false,
    };
    let digits_from = |start: usize| {
        start
            + bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
    };
    let int_end = digits_from(pos);
    let integer = &text[pos..int_end];
    pos = int_end;
    let mut fraction = "";
    if bytes.get(pos) == Some(&b'.') {
        let frac_end = digits_from(pos + 1);
        fraction = &text[pos + 1..frac_end];
        pos = frac_end;
    }
    let suffix = &text[pos..];
    let (base, exponent) =
        interpret_suffix(suffix).ok_or_else(|| QuantityError::UnknownSuffix {
            text: text.to_string(),
        })?;

    // value = D · 10^(−|fraction|) · base^exponent, wanted in nanos.
    let mut digits = Digits::default();
    for b in integer.bytes().chain(fraction.bytes()) {
        digits.push(b - b'0');
    }
    if digits.is_zero() {
        return Ok(Quantity::default());
    }
    let mut ten_exponent: i64 = 9 - fraction.len() as i64;
    match base {
        Base::Ten => ten_exponent = ten_exponent.saturating_add(exponent),
        Base::Two => digits.shift_left(exponent as u32),
    }
    let magnitude = if ten_exponent >= 0 {
        if ten_exponent > 40 {
            MAX_NANOS
        } else {
            for _ in 0..ten_exponent {
                digits.mul_small(10);
            }
            digits.to_i128().map_or(MAX_NANOS, |n| n.min(MAX_NANOS))
        }
    } else {
        let places = ten_exponent.unsigned_abs();
        // D · 2^60 < 10^(len + 19): far enough right, a nonzero value rounds up to 1n.
        if places > digits.decimal_len() + 20 {
            1
        } else {
            let mut inexact = false;
            for _ in 0..places {
                inexact |= digits.div_small(10) != 0;
            }
            let whole = digits.to_i128().map_or(MAX_NANOS, |n| n.min(MAX_NANOS));
            if inexact {
                (whole + 1).min(MAX_NANOS)
            } else {
                whole
            }
        }
    };
    Ok(Quantity {
        nanos: if negative { -magnitude } else { magnitude },
    })
}

enum Base {
    Ten,
    Two,
}

fn interpret_suffix(suffix: &str) -> Option<(Base, i64)> {
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(exponent) = decimal {
        return Some((Base::Ten, exponent));
    }
    let binary = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(exponent) = binary {
        return Some((Base::Two, exponent));
    }
    let rest = suffix.strip_prefix(['e', 'E'])?;
    let unsigned = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Go parses the exponent as an int64; beyond that it is a syntax error.
    rest.parse::<i64>().ok().map(|e| (Base::Ten, e))
}

/// A small unsigned big integer (little-endian base-2^32 limbs), enough to
/// parse arbitrarily long digit strings exactly.
#[derive(Default)]
struct Digits {
    limbs: Vec<u32>,
    decimal_len: u64,
}

impl Digits {
    fn push(&mut self, digit: u8) {
        if self.decimal_len > 0 || digit != 0 {
            self.decimal_len += 1;
        }
        self.mul_small(10);
        let mut carry = u64::from(digit);
        for limb in &mut self.limbs {
            let sum = u64::from(*limb) + carry;
            *limb = sum as u32;
            carry = sum >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn shift_left(&mut self, bits: u32) {
        for _ in 0..bits {
            self.mul_small(2);
        }
    }

    /// Divides in place and returns the remainder.
    fn div_small(&mut self, divisor: u32) -> u32 {
        let mut remainder = 0u64;
        for limb in self.limbs.iter_mut().rev() {
            let current = (remainder << 32) | u64::from(*limb);
            *limb = (current / u64::from(divisor)) as u32;
            remainder = current % u64::from(divisor);
        }
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        remainder as u32
    }

    fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }

    fn decimal_len(&self) -> u64 {
        self.decimal_len
    }

    /// The value if it fits in an `i128`.
    fn to_i128(&self) -> Option<i128> {
        let mut value: u128 = 0;
        for (i, &limb) in self.limbs.iter().enumerate() {
            if limb == 0 {
                continue;
            }
            if i >= 4 {
                return None;
            }
            value |= u128::from(limb) << (32 * i);
        }
        i128::try_from(value).ok()
    }
}

/// A JSON/YAML quantity: a string, or a number taken by its text (as
/// `Quantity.UnmarshalJSON` does). `null` is zero.
fn quantity_of(value: &serde_json::Value) -> Result<Quantity, QuantityError> {
    match value {
        serde_json::Value::String(s) => parse_quantity(s.trim()),
        serde_json::Value::Number(n) => parse_quantity(&n.to_string()),
        serde_json::Value::Null => Ok(Quantity::default()),
        other => Err(QuantityError::NotAStringOrNumber {
            value: Box::new(other.clone()),
        }),
    }
}

/// `Cluster.status.resourceSummary`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSummary {
    #[serde(default)]
    pub allocatable: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub allocating: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub allocated: BTreeMap<String, serde_json::Value>,
    /// Accepted and carried; the resource-model estimate is not reproduced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocatable_modelings: Option<Vec<AllocatableModeling>>,
}

/// How many nodes of a resource-model grade a cluster has: carried without effect.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllocatableModeling {
    pub grade: u32,
    pub count: i64,
}

impl ResourceSummary {
    /// Messages for every value that is not a valid quantity, as
    /// `allocatable.cpu: invalid quantity ...`. Estimation treats such a value
    /// as absent (Karmada would fail to decode the Cluster), so callers should
    /// report these as bad input.
    pub fn invalid_quantities(&self) -> Vec<String> {
        let sections = [
            ("allocatable", &self.allocatable),
            ("allocating", &self.allocating),
            ("allocated", &self.allocated),
        ];
        let mut out = Vec::new();
        for (section, map) in sections {
            for (name, value) in map {
                if let Err(e) = quantity_of(value) {
                    out.push(format!("{section}.{name}: {e}"));
                }
            }
        }
        out
    }

    fn get(map: &BTreeMap<String, serde_json::Value>, name: &str) -> Option<Quantity> {
        map.get(name).and_then(|v| quantity_of(v).ok())
    }
}

/// What one replica asks of a cluster: `ReplicaRequirements.resourceRequest`.
/// CPU is held exactly in milli-units, everything else in whole units, as
/// Karmada's `util.Resource` rounds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaRequirements {
    pub resource_request: BTreeMap<String, Quantity>,
}

/// Per-replica requirements of a pod spec, or `None` when Karmada's
/// `GenerateReplicaRequirements` returns nil: no positive resource request and
/// no node claim (`nodeSelector`, tolerations, or required node affinity).
///
/// Effective requests as Karmada computes them (`AddPodTemplateRequest`): a
/// container's limit stands in for a missing request; regular containers are
/// summed, each init container raises a resource to at least its own request
/// (max, not sum; sidecar init containers get no special treatment), and
/// `overhead` is added. CPU counts in milli-units and the rest in whole units,
/// each value rounded up. Only cpu, memory, ephemeral-storage, pods and
/// scalar resources (extended `vendor/name`, `hugepages-*`,
/// `attachable-volumes-*`, `*kubernetes.io/*`) count; other names and values
/// that are not valid quantities are ignored.
pub fn requirements_from_pod_spec(pod_spec: &serde_json::Value) -> Option<ReplicaRequirements> {
    let mut totals: BTreeMap<String, i128> = BTreeMap::new();
    for container in list(pod_spec, "containers") {
        for (name, amount) in container_requests(container) {
            *totals.entry(name).or_default() += amount;
        }
    }
    for container in list(pod_spec, "initContainers") {
        for (name, amount) in container_requests(container) {
            let total = totals.entry(name).or_default();
            *total = (*total).max(amount);
        }
    }
    if let Some(overhead) = pod_spec.get("overhead").and_then(|o| o.as_object()) {
        for (name, value) in overhead {
            if let Some(amount) = resource_amount(name, value) {
                *totals.entry(name.clone()).or_default() += amount;
            }
        }
    }
    let resource_request: BTreeMap<String, Quantity> = totals
        .into_iter()
        .filter(|(_, amount)| *amount > 0)
        .map(|(name, amount)| {
            let amount = i64::try_from(amount).unwrap_or(i64::MAX);
            let quantity = if name == "cpu" {
                Quantity::from_millis(amount)
            } else {
                Quantity::from_units(amount)
            };
            (name, quantity)
        })
        .collect();

    let has_node_selector = pod_spec.get("nodeSelector").is_some_and(|v| !v.is_null());
    let has_tolerations = !list(pod_spec, "tolerations").is_empty();
    let has_required_affinity = pod_spec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
        .is_some_and(|v| !v.is_null());
    if resource_request.is_empty()
        && !has_node_selector
        && !has_tolerations
        && !has_required_affinity
    {
        return None;
    }
    Some(ReplicaRequirements { resource_request })
}

fn list<'a>(value: &'a serde_json::Value, key: &str) -> &'a [serde_json::Value] {
    value
        .get(key)
        .and_then(|v| v.as_array())
        .map_or(&[], Vec::as_slice)
}

/// A container's effective requests (limits fill in missing requests), as
/// Karmada-rounded amounts.
fn container_requests(container: &serde_json::Value) -> Vec<(String, i128)> {
    let resources = container.get("resources");
    let section = |key: &str| {
        resources
            .and_then(|r| r.get(key))
            .and_then(|v| v.as_object())
    };
    let mut effective: BTreeMap<&String, &serde_json::Value> = BTreeMap::new();
    if let Some(limits) = section("limits") {
        effective.extend(limits);
    }
    if let Some(requests) = section("requests") {
        effective.extend(requests);
    }
    effective
        .into_iter()
        .filter_map(|(name, value)| {
            resource_amount(name, value).map(|amount| (name.clone(), amount))
        })
        .collect()
}

/// Karmada's `util.Resource.Add` for one entry: milli-CPU, whole units for the
/// rest, `None` for names it drops or values that do not parse.
fn resource_amount(name: &str, value: &serde_json::Value) -> Option<i128> {
    let quantity = quantity_of(value).ok()?;
    match name {
        "cpu" => Some(quantity.milli_value()),
        "memory" | "ephemeral-storage" | "pods" => Some(quantity.value()),
        _ if is_scalar_resource(name) => Some(quantity.value()),
        _ => None,
    }
}

/// Kubernetes' `IsScalarResourceName`.
fn is_scalar_resource(name: &str) -> bool {
    is_extended_resource(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `IsExtendedResourceName`: outside the kubernetes.io namespace, not
/// `requests.*`, and `requests.<name>` is a qualified name.
fn is_extended_resource(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    if native || name.starts_with("requests.") {
        return false;
    }
    let quota_name = format!("requests.{name}");
    let (prefix, local) = match quota_name.split_once('/') {
        Some((prefix, local)) => (Some(prefix), local),
        None => (None, quota_name.as_str()),
    };
    let local_ok = !local.is_empty()
        && local.len() <= 63
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && local
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && local
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            })
    });
    local_ok && prefix_ok
}

/// How many more replicas the cluster can take (Karmada's general estimator).
///
/// No summary ⇒ 0. Allowed pods = allocatable − allocated − allocating `pods`
/// (missing ⇒ 0), and 0 when that is not positive. Without requirements that
/// is the answer. Otherwise every requested resource with a positive request
/// bounds it by ⌊(allocatable − allocated − allocating) / request⌋, CPU in
/// milli-units and the rest in whole units rounded up; a requested resource the
/// cluster does not list as allocatable, or has none of left, gives 0.
pub fn available_replicas(
    summary: Option<&ResourceSummary>,
    requirements: Option<&ReplicaRequirements>,
) -> u64 {
    let Some(summary) = summary else { return 0 };
    let pods = |map| ResourceSummary::get(map, "pods").map_or(0, Quantity::value);
    let allowed = pods(&summary.allocatable) - pods(&summary.allocated) - pods(&summary.allocating);
    if allowed <= 0 {
        return 0;
    }
    let mut maximum = allowed;
    for (name, request) in requirements.map_or(&BTreeMap::new(), |r| &r.resource_request) {
        if request.value() <= 0 {
            continue;
        }
        let Some(allocatable) = ResourceSummary::get(&summary.allocatable, name) else {
            return 0;
        };
        let used = |map| ResourceSummary::get(map, name).unwrap_or_default();
        let left = allocatable
            .minus(used(&summary.allocated))
            .minus(used(&summary.allocating));
        if left.value() <= 0 {
            return 0;
        }
        let fits = if name == "cpu" {
            left.milli_value() / request.milli_value()
        } else {
            left.value() / request.value()
        };
        maximum = maximum.min(fits);
    }
    u64::try_from(maximum).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(s: &str) -> Quantity {
        parse_quantity(s).unwrap()
    }

    #[test]
    fn decimal_and_binary_suffixes() {
        assert_eq!(q("500m").milli_value(), 500);
        assert_eq!(q("1").nanos(), NANO);
        assert_eq!(q("1k").value(), 1000);
        assert_eq!(q("2M").value(), 2_000_000);
        assert_eq!(q("1G").value(), 1_000_000_000);
        assert_eq!(q("1T").value(), 1_000_000_000_000);
        assert_eq!(q("1P").value(), 1_000_000_000_000_000);
        assert_eq!(q("1E").value(), 1_000_000_000_000_000_000);
        assert_eq!(q("1Ki").value(), 1024);
        assert_eq!(q("1Mi").value(), 1 << 20);
        assert_eq!(q("1.5Gi").value(), 3 << 29);
        assert_eq!(q("1Ti").value(), 1 << 40);
        assert_eq!(q("1Pi").value(), 1 << 50);
        assert_eq!(q("3Ei").value(), 3 << 60);
        assert_eq!(q("8Ei").value(), i128::from(i64::MAX), "capped at 2^63-1");
        assert_eq!(q("10u").nanos(), 10_000);
        assert_eq!(q("7n").nanos(), 7);
    }

    #[test]
    fn exponents_signs_and_fractions() {
        assert_eq!(q("1e3").value(), 1000);
        assert_eq!(q("1E3").value(), 1000);
        assert_eq!(q("1.5e+3").value(), 1500);
        assert_eq!(q("25e-2").milli_value(), 250);
        assert_eq!(q("-2").value(), -2);
        assert_eq!(q("+2").value(), 2);
        assert_eq!(q(".5").milli_value(), 500);
        assert_eq!(q("0.1").milli_value(), 100);
        assert_eq!(q("0").nanos(), 0);
        assert_eq!(q("000").nanos(), 0);
        assert_eq!(q("1e100").value(), i128::from(i64::MAX));
    }

    #[test]
    fn finer_than_nano_rounds_up_away_from_zero() {
        assert_eq!(q("0.0000000001").nanos(), 1);
        assert_eq!(q("1e-300").nanos(), 1);
        assert_eq!(q("-1.0000000001").nanos(), -NANO - 1);
        assert_eq!(q("0.0000000001Ki").nanos(), 103);
        assert_eq!(
            q("1234567890.1234567891").nanos(),
            1_234_567_890_123_456_790
        );
        assert_eq!(q("1234567890.1234567891").value(), 1_234_567_891);
    }

    #[test]
    fn value_and_milli_value_round_up() {
        assert_eq!(q("100m").value(), 1);
        assert_eq!(q("1500m").value(), 2);
        assert_eq!(q("-1500m").value(), -2);
        assert_eq!(q("1n").milli_value(), 1);
        assert_eq!(q("1.0001").milli_value(), 1001);
    }

    #[test]
    fn malformed_quantities_are_rejected() {
        for bad in [
            "",
            "1K",
            "1e",
            "1 Gi",
            "1Gib",
            "1..5",
            "1mi",
            "abc",
            "1e3.5",
            "1e99999999999999999999",
        ] {
            assert!(parse_quantity(bad).is_err(), "{bad:?} should be rejected");
        }
        assert_eq!(parse_quantity(""), Err(QuantityError::Empty));
        assert_eq!(
            parse_quantity("1K").map_err(|e| e.to_string()),
            Err(r#"invalid quantity "1K": unknown suffix"#.to_string())
        );
        assert_eq!(
            quantity_of(&json!(true)).map_err(|e| e.to_string()),
            Err("invalid quantity true: not a string or number".to_string())
        );
    }

    fn summary(value: serde_json::Value) -> ResourceSummary {
        serde_json::from_value(value).unwrap()
    }

    fn requests(pairs: &[(&str, &str)]) -> ReplicaRequirements {
        ReplicaRequirements {
            resource_request: pairs.iter().map(|(n, v)| (n.to_string(), q(v))).collect(),
        }
    }

    #[test]
    fn summary_accepts_strings_numbers_and_unknown_fields() {
        let s = summary(json!({
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": 110},
            "allocated": {"cpu": 1.5},
            "allocatableModelings": [{"grade": 0, "count": 2}],
        }));
        assert_eq!(ResourceSummary::get(&s.allocated, "cpu"), Some(q("1500m")));
        assert_eq!(ResourceSummary::get(&s.allocatable, "pods"), Some(q("110")));
        assert!(s.allocating.is_empty());
        assert!(s.allocatable_modelings.is_some());
        assert!(s.invalid_quantities().is_empty());
        let bad = summary(json!({"allocatable": {"cpu": "lots"}, "allocated": {"pods": true}}));
        assert_eq!(bad.invalid_quantities().len(), 2);
    }

    #[test]
    fn no_summary_means_no_capacity() {
        assert_eq!(available_replicas(None, None), 0);
        assert_eq!(
            available_replicas(None, Some(&requests(&[("cpu", "1")]))),
            0
        );
    }

    #[test]
    fn allowed_pods_bound_the_estimate() {
        let s = summary(json!({
            "allocatable": {"pods": "110", "cpu": "100"},
            "allocated": {"pods": "50"},
            "allocating": {"pods": "10"},
        }));
        assert_eq!(available_replicas(Some(&s), None), 50);
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("cpu", "100m")]))),
            50
        );
        let full = summary(json!({"allocatable": {"pods": "10"}, "allocated": {"pods": "12"}}));
        assert_eq!(available_replicas(Some(&full), None), 0);
        assert_eq!(available_replicas(Some(&summary(json!({}))), None), 0);
    }

    #[test]
    fn each_request_divides_what_is_left() {
        let s = summary(json!({
            "allocatable": {"pods": "1000", "cpu": "10", "memory": "16Gi", "nvidia.com/gpu": "4"},
            "allocated": {"cpu": "2500m", "memory": "4Gi"},
            "allocating": {"cpu": "500m", "nvidia.com/gpu": "1"},
        }));
        // 7000m / 300m = 23; 12Gi / 1Gi = 12.
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("cpu", "300m")]))),
            23
        );
        assert_eq!(
            available_replicas(
                Some(&s),
                Some(&requests(&[("cpu", "300m"), ("memory", "1Gi")]))
            ),
            12
        );
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("nvidia.com/gpu", "2")]))),
            1
        );
        // Not allocatable at all ⇒ nothing fits.
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("example.com/fpga", "1")]))),
            0
        );
        // Zero requests are skipped.
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("memory", "0")]))),
            1000
        );
    }

    #[test]
    fn non_cpu_resources_are_compared_in_rounded_up_units() {
        let s = summary(json!({"allocatable": {"pods": "100", "memory": "2500m"}}));
        // Value(): 2500m → 3 units, 500m → 1 unit (Karmada's rounding, not 5).
        assert_eq!(
            available_replicas(Some(&s), Some(&requests(&[("memory", "500m")]))),
            3
        );
        let exhausted =
            summary(json!({"allocatable": {"pods": "100", "cpu": "1"}, "allocated": {"cpu": "1"}}));
        assert_eq!(
            available_replicas(Some(&exhausted), Some(&requests(&[("cpu", "1m")]))),
            0
        );
    }

    #[test]
    fn requirements_sum_containers_and_take_init_maximum() {
        let spec = json!({
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                {"name": "b", "resources": {"requests": {"cpu": "0.5"}, "limits": {"cpu": "1", "memory": "128Mi"}}},
            ],
            "initContainers": [
                {"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Mi"}}},
            ],
            "overhead": {"memory": "10Mi"},
        });
        let req = requirements_from_pod_spec(&spec).unwrap();
        assert_eq!(req.resource_request["cpu"], q("2"));
        assert_eq!(req.resource_request["memory"], q("202Mi"));
        assert_eq!(req.resource_request.len(), 2);
    }

    #[test]
    fn requirements_keep_known_and_scalar_resources_only() {
        let spec = json!({"containers": [{"resources": {"requests": {
            "cpu": "1m", "nvidia.com/gpu": 1, "hugepages-2Mi": "2Mi", "storage": "1Gi",
            "memory": "1.5", "example.com/bad name": "1", "kubernetes.io/batch": "2"
        }}}]});
        let req = requirements_from_pod_spec(&spec).unwrap();
        let names: Vec<&str> = req.resource_request.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "cpu",
                "hugepages-2Mi",
                "kubernetes.io/batch",
                "memory",
                "nvidia.com/gpu"
            ]
        );
        assert_eq!(
            req.resource_request["memory"],
            q("2"),
            "rounded up to whole units"
        );
        assert_eq!(req.resource_request["cpu"], q("1m"));
    }

    #[test]
    fn requirements_are_absent_without_requests_or_node_claims() {
        assert_eq!(
            requirements_from_pod_spec(&json!({"containers": [{"name": "a"}]})),
            None
        );
        let zero = json!({"containers": [{"resources": {"requests": {"cpu": "0"}}}]});
        assert_eq!(requirements_from_pod_spec(&zero), None);
        for claim in [
            json!({"nodeSelector": {}}),
            json!({"tolerations": [{"key": "k", "operator": "Exists"}]}),
            json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}),
        ] {
            let req = requirements_from_pod_spec(&claim).unwrap();
            assert!(req.resource_request.is_empty());
        }
        let preferred_only = json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}, "tolerations": []});
        assert_eq!(requirements_from_pod_spec(&preferred_only), None);
    }

    #[test]
    fn node_claim_without_requests_estimates_by_pods() {
        let s = summary(json!({"allocatable": {"pods": "7"}}));
        let req = requirements_from_pod_spec(&json!({"nodeSelector": {"a": "b"}}));
        assert_eq!(available_replicas(Some(&s), req.as_ref()), 7);
    }
}
