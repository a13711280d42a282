//! Serialise once, write many. One application's objects, made one
//! cluster after the other, often come out the same: every cluster of a
//! region gets the same labels, most get no override at all. The last step
//! of making an object (leaving out the defaults a member sets back,
//! [`crate::apiserver::slim`]) stores it twice to prove each default comes
//! back, and serialising it is the next largest cost; a [`Memo`] keeps the
//! bytes of each distinct object before that step, so a second cluster
//! whose object comes out of the overrides the same takes the bytes.
//!
//! Distinct means distinct as written: serde_json compares mappings
//! regardless of key order, while the bytes garrison writes follow it, so
//! the memo compares (and fingerprints) keys in order. A fingerprint only
//! finds the candidate; the object itself is compared.

use crate::model::meta::ObjectKey;
use serde_json::Value;
use std::hash::{Hash, Hasher};

/// The bytes of one application's distinct objects so far. A memo
/// serves one application: asked about another, it forgets.
#[derive(Default)]
pub struct Memo {
    app: Option<ObjectKey>,
    seen: Vec<Remembered>,
}

struct Remembered {
    fingerprint: u64,
    before: Value,
    bytes: Vec<u8>,
}

impl Memo {
    /// The memo, emptied unless it serves the application of `key`.
    pub fn serving(&mut self, key: &ObjectKey) -> &mut Memo {
        if self.app.as_ref() != Some(key) {
            self.app = Some(key.clone());
            self.seen.clear();
        }
        self
    }

    /// The bytes of an object that was, before the last step, exactly
    /// `before`, if one was remembered.
    pub fn recall(&self, before: &Value) -> Option<&[u8]> {
        let fingerprint = fingerprint(before);
        self.seen
            .iter()
            .find(|r| r.fingerprint == fingerprint && same(&r.before, before))
            .map(|r| r.bytes.as_slice())
    }

    /// Remember the `bytes` of the object that was `before`.
    pub fn remember(&mut self, before: Value, bytes: Vec<u8>) {
        self.seen.push(Remembered {
            fingerprint: fingerprint(&before),
            before,
            bytes,
        });
    }
}

/// A hash of `value` that follows its keys' order.
fn fingerprint(value: &Value) -> u64 {
    let mut hasher = Quick(0);
    feed(value, &mut hasher);
    hasher.finish()
}

/// A multiply-rotate hash, much cheaper than SipHash: nothing an input
/// chooses can do more than make two objects share a fingerprint, and
/// then they are compared.
struct Quick(u64);

impl Hasher for Quick {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn feed(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => (2u8, u).hash(hasher),
            (None, Some(i)) => (3u8, i).hash(hasher),
            (None, None) => (4u8, n.as_f64().map(f64::to_bits)).hash(hasher),
        },
        Value::String(s) => (5u8, s).hash(hasher),
        Value::Array(items) => {
            (6u8, items.len()).hash(hasher);
            items.iter().for_each(|item| feed(item, hasher));
        }
        Value::Object(entries) => {
            (7u8, entries.len()).hash(hasher);
            for (key, item) in entries {
                key.hash(hasher);
                feed(item, hasher);
            }
        }
    }
}

/// Equal, and with every mapping's keys in the same order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(name: &str) -> ObjectKey {
        ObjectKey {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: Some("shop".into()),
            name: name.into(),
        }
    }

    #[test]
    fn the_same_object_in_another_key_order_is_another_object() {
        let a = json!({"data": {"x": "1", "y": "2"}});
        let b = json!({"data": {"y": "2", "x": "1"}});
        assert_eq!(a, b, "serde_json ignores the order");
        assert!(!same(&a, &b));
        assert!(same(&a, &a.clone()));
        let mut memo = Memo::default();
        let memo = memo.serving(&key("web"));
        memo.remember(a.clone(), b"a".to_vec());
        assert_eq!(memo.recall(&a), Some(&b"a"[..]));
        assert_eq!(memo.recall(&b), None);
        assert_eq!(memo.recall(&json!({"data": {"x": "1", "y": "3"}})), None);
    }

    #[test]
    fn a_memo_forgets_when_it_serves_another_application() {
        let mut memo = Memo::default();
        memo.serving(&key("web")).remember(json!(1), b"1".to_vec());
        assert!(memo.serving(&key("web")).recall(&json!(1)).is_some());
        assert!(memo.serving(&key("api")).recall(&json!(1)).is_none());
    }

    #[test]
    fn numbers_strings_and_nulls_stay_apart() {
        for (a, b) in [
            (json!(1), json!("1")),
            (json!(null), json!(false)),
            (json!([]), json!({})),
            (json!(1.0), json!(1)),
        ] {
            assert!(!same(&a, &b), "{a} {b}");
        }
    }
}
