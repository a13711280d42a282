//! Kubernetes quantities (`k8s.io/apimachinery/pkg/api/resource`, exactly)
//! and the resource summary a cluster reports, which scheduling divides
//! replicas by ([`crate::schedule::estimate`]).

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

    pub fn minus(self, other: Quantity) -> Quantity {
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
    let parts = Parts::split(text);
    let (base, exponent) =
        interpret_suffix(parts.suffix).ok_or_else(|| QuantityError::UnknownSuffix {
            text: text.to_string(),
        })?;

    // value = D · 10^(−|fraction|) · base^exponent, wanted in nanos.
    let mut digits = Digits::default();
    for b in parts.integer.bytes().chain(parts.fraction.bytes()) {
        digits.push(b - b'0');
    }
    if digits.is_zero() {
        return Ok(Quantity::default());
    }
    let mut ten_exponent: i64 = 9 - parts.fraction.len() as i64;
    match base {
        Base::Ten => ten_exponent = ten_exponent.saturating_add(exponent),
        Base::Two => digits.shift_left(exponent as u32),
    }
    let magnitude = if ten_exponent >= 0 {
        scale_up(digits, ten_exponent.unsigned_abs())
    } else {
        scale_down(digits, ten_exponent.unsigned_abs())
    };
    Ok(Quantity {
        nanos: if parts.negative {
            -magnitude
        } else {
            magnitude
        },
    })
}

/// How Go holds a parsed quantity, where two texts of one value can differ:
/// Karmada's Cluster validation compares quantities with `!=` on the Go
/// struct (`ValidateClusterResourceModels`), so "1" and "1000m" differ while
/// "8Gi" and "8192Mi" do not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoQuantity {
    /// `resource.ParseQuantity`'s fast path: an `int64Amount` (value and
    /// decimal scale), the format, and the text when it was kept as
    /// canonical.
    Scaled {
        value: i64,
        scale: i32,
        format: GoFormat,
        text: Option<String>,
    },
    /// Held as an `inf.Dec` pointer: equal to no other parsed quantity.
    Big,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoFormat {
    DecimalSi,
    BinarySi,
    DecimalExponent,
}

/// The Go form of a text `parse_quantity` accepts (`None` for one it
/// refuses), following `resource.ParseQuantity` (apimachinery v0.35).
pub fn go_quantity(text: &str) -> Option<GoQuantity> {
    parse_quantity(text).ok()?;
    if text == "0" {
        return Some(GoQuantity::Scaled {
            value: 0,
            scale: 0,
            format: GoFormat::DecimalSi,
            text: Some(text.to_string()),
        });
    }
    let parts = Parts::split(text);
    let stripped = parts.integer.trim_start_matches('0');
    let num = if stripped.is_empty() { "0" } else { stripped };
    let denom = parts.fraction;
    let (base, exponent) = interpret_suffix(parts.suffix)?;
    let format = match base {
        Base::Two => GoFormat::BinarySi,
        Base::Ten if parts.suffix.starts_with(['e', 'E']) => GoFormat::DecimalExponent,
        Base::Ten => GoFormat::DecimalSi,
    };
    let digits = (num.len() + denom.len()) as i64;
    let (mut scale, precision, mantissa) = match format {
        GoFormat::BinarySi if denom.is_empty() => (
            0,
            15 - num.len() as i64 - exponent * 3 / 10 - 1,
            1_i64 << exponent,
        ),
        GoFormat::BinarySi => (0, -1, 1),
        _ => (exponent, 18 - digits, 1),
    };
    if precision < 0 {
        return Some(GoQuantity::Big);
    }
    scale -= denom.len() as i64;
    if scale < -9 {
        return Some(GoQuantity::Big);
    }
    let shifted = format!("{num}{denom}");
    let Ok(value) = shifted.parse::<i64>() else {
        return Some(GoQuantity::Big);
    };
    let Some(magnitude) = value.checked_mul(mantissa) else {
        return Some(GoQuantity::Big);
    };
    let canonical = match format {
        GoFormat::BinarySi => exponent % 10 == 0 && value & 0x07 != 0,
        _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
    };
    let Ok(scale) = i32::try_from(scale) else {
        return Some(GoQuantity::Big);
    };
    Some(GoQuantity::Scaled {
        value: if parts.negative {
            -magnitude
        } else {
            magnitude
        },
        scale,
        format,
        text: canonical.then(|| text.to_string()),
    })
}

/// `Quantity.AsApproximateFloat64()` of a text `parse_quantity` accepts:
/// the Go form's value times `math.Pow10` of its scale, so a quantity whose
/// exponent runs past float64's range is infinite as in Go (`1e400`), and
/// the rounding is Go's. A quantity Go holds as a big decimal is its value
/// in nanos (capped as Go caps it) over 10⁹.
pub fn approximate_float64(text: &str) -> Option<f64> {
    match go_quantity(text)? {
        GoQuantity::Scaled { value, scale, .. } => Some(if scale == 0 {
            value as f64
        } else {
            value as f64 * go_pow10(scale)
        }),
        GoQuantity::Big => Some(parse_quantity(text).ok()?.nanos() as f64 / 1e9),
    }
}

/// Go's `math.Pow10`: a product (or quotient) of two table entries, which
/// is not always the correctly rounded power, so it is rebuilt as Go
/// builds it.
fn go_pow10(n: i32) -> f64 {
    const SMALL: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POSITIVE: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEGATIVE: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        return POSITIVE[n / 32] * SMALL[n % 32];
    }
    if (-323..=0).contains(&n) {
        let n = n.unsigned_abs() as usize;
        return NEGATIVE[n / 32] / SMALL[n % 32];
    }
    if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// A quantity's text cut where `resource.ParseQuantity` cuts it: sign,
/// integer digits, fraction digits, and whatever follows (the suffix).
struct Parts<'t> {
    negative: bool,
    integer: &'t str,
    fraction: &'t str,
    suffix: &'t str,
}

impl<'t> Parts<'t> {
    /// Cuts at the first byte that does not fit; the suffix is judged apart.
    fn split(text: &'t str) -> Self {
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
        Parts {
            negative,
            integer,
            fraction,
            suffix: &text[pos..],
        }
    }
}

/// Nanos for `digits` · 10^`places`, capped at 2^63 − 1 units.
fn scale_up(mut digits: Digits, places: u64) -> i128 {
    // 10^41 nanos is past the cap whatever the (nonzero) digits.
    if places > 40 {
        return MAX_NANOS;
    }
    for _ in 0..places {
        digits.mul_small(10);
    }
    digits.to_i128().map_or(MAX_NANOS, |n| n.min(MAX_NANOS))
}

/// Nanos for `digits` / 10^`places`, any remainder rounded up to the next
/// nano (away from zero, as `resource.ParseQuantity` rounds).
fn scale_down(mut digits: Digits, places: u64) -> i128 {
    // D · 2^60 < 10^(len + 19): far enough right, a nonzero value rounds up to 1n.
    if places > digits.decimal_len() + 20 {
        return 1;
    }
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
pub fn quantity_of(value: &serde_json::Value) -> Result<Quantity, QuantityError> {
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
    /// How many nodes of each resource-model grade the cluster has: with
    /// them the estimator counts replicas on modelled nodes
    /// ([`crate::schedule::models`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocatable_modelings: Option<Vec<AllocatableModeling>>,
}

/// How many nodes of a resource-model grade a cluster has.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllocatableModeling {
    pub grade: u64,
    pub count: i64,
}

/// The most allowed pods whose estimates Karmada holds as they are: its
/// general estimator returns its count as an int32
/// (`GeneralEstimator.maxAvailableReplicas`, `int32(maximumReplicas)`),
/// which wraps past 2147483647 (2³² + 10 pods estimate 10, 2³¹ a negative
/// count that fails the division). A Karmada Cluster allowing more is
/// refused when it is read.
pub const MAX_ALLOWED_PODS: i128 = i32::MAX as i128;

impl ResourceSummary {
    /// Allocatable − allocated − allocating `pods` (a missing one counts
    /// 0), before the general estimator floors a negative count at 0
    /// (`getAllowedPodNumber`). Every estimate is bounded by it.
    pub fn allowed_pods(&self) -> i128 {
        let pods = |map| ResourceSummary::get(map, "pods").map_or(0, Quantity::value);
        pods(&self.allocatable) - pods(&self.allocated) - pods(&self.allocating)
    }

    /// Every value that is not a valid quantity, by section and resource
    /// name. The API server refuses such a Cluster, so loading reports
    /// them; estimation would take them as absent.
    pub fn invalid_quantities(&self) -> Vec<(&'static str, &str, QuantityError)> {
        let sections = [
            ("allocatable", &self.allocatable),
            ("allocating", &self.allocating),
            ("allocated", &self.allocated),
        ];
        let mut out = Vec::new();
        for (section, map) in sections {
            for (name, value) in map {
                if let Err(e) = quantity_of(value) {
                    out.push((section, name.as_str(), e));
                }
            }
        }
        out
    }

    /// The quantity `name` of one section, when it is one.
    pub fn get(map: &BTreeMap<String, serde_json::Value>, name: &str) -> Option<Quantity> {
        map.get(name).and_then(|v| quantity_of(v).ok())
    }
}

#[cfg(test)]
mod tests {
    /// `AsApproximateFloat64` as Go computes it: the Go form's value times
    /// `math.Pow10(scale)`; past float64's range it is infinite.
    #[test]
    fn approximate_float_follows_go() {
        assert_eq!(approximate_float64("1500m"), Some(1500.0 * 0.001));
        assert_eq!(approximate_float64("2Ki"), Some(2048.0));
        assert_eq!(approximate_float64("100E"), Some(1e20));
        assert_eq!(approximate_float64("1e400"), Some(f64::INFINITY));
        assert_eq!(approximate_float64("-3"), Some(-3.0));
        assert_eq!(go_pow10(-324), 0.0);
        assert_eq!(go_pow10(23), 1e23);
        assert_eq!(approximate_float64("x"), None);
    }

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
        let faults: Vec<String> = bad
            .invalid_quantities()
            .into_iter()
            .map(|(section, name, e)| format!("{section}.{name}: {e}"))
            .collect();
        assert_eq!(
            faults,
            vec![
                r#"allocatable.cpu: invalid quantity "lots": unknown suffix"#,
                "allocated.pods: invalid quantity true: not a string or number",
            ]
        );
    }
}
