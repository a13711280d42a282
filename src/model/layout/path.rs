//! File names for rendered objects: deterministic, collision-free, readable,
//! and unable to leave the output directory.
//!
//! An object lives at `<namespace or _cluster>/<kind>[.<group>]_<name>.yaml`.
//! Every character outside `[a-z0-9.-]` is percent-encoded (upper case too,
//! so case-insensitive file systems cannot merge two names), so `/`, `..`
//! and NUL never reach the file system, and `_` only ever separates type
//! from name. Names too long for a file name are cut and suffixed with a hash
//! of the whole name.

use crate::model::meta::ObjectKey;

/// Longest file name written; most file systems allow 255 bytes.
const MAX_FILE_NAME: usize = 200;

/// Directory for cluster-scoped objects; no namespace can be named so.
pub const CLUSTER_SCOPED_DIR: &str = "_cluster";

/// Percent-encode everything but lower-case letters, digits, `-` and `.`,
/// and a leading `.` (so no name is hidden, `.` or `..`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, byte) in text.bytes().enumerate() {
        let keep = byte.is_ascii_lowercase()
            || byte.is_ascii_digit()
            || byte == b'-'
            || (byte == b'.' && i > 0);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The path of `key`, relative to the directory of its cluster (or bindings).
pub fn object_path(key: &ObjectKey) -> String {
    let dir = match &key.namespace {
        Some(ns) => escape(ns),
        None => CLUSTER_SCOPED_DIR.to_string(),
    };
    let kind = key.kind.to_lowercase();
    let group = key.group();
    // A kind never contains `.`; escaping it keeps kind and group apart.
    let kind = escape(&kind).replace('.', "%2E");
    let type_part = if group.is_empty() {
        kind
    } else {
        format!("{kind}.{}", escape(group))
    };
    let name = escape(&key.name);
    let mut file = format!("{type_part}_{name}.yaml");
    if file.len() > MAX_FILE_NAME {
        let hash = fnv1a64(key.name.as_bytes());
        let keep = MAX_FILE_NAME.saturating_sub(type_part.len() + 1 + 17 + 5);
        let mut cut = name.chars().take(keep).collect::<String>();
        // Never cut inside a %XX escape.
        while let Some(i) = cut.rfind('%') {
            if cut.len() - i < 3 {
                cut.truncate(i);
            } else {
                break;
            }
        }
        file = format!("{type_part}_{cut}-{hash:016x}.yaml");
    }
    format!("{dir}/{file}")
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ObjectKey {
        ObjectKey {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: namespace.map(String::from),
            name: name.into(),
        }
    }

    #[test]
    fn readable_paths() {
        assert_eq!(
            object_path(&key("apps/v1", "Deployment", Some("web"), "nginx")),
            "web/deployment.apps_nginx.yaml"
        );
        assert_eq!(
            object_path(&key("v1", "ConfigMap", Some("web"), "cfg.v2")),
            "web/configmap_cfg.v2.yaml"
        );
        assert_eq!(
            object_path(&key(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                None,
                "system:view"
            )),
            "_cluster/clusterrole.rbac.authorization.k8s.io_system%3Aview.yaml"
        );
    }

    #[test]
    fn hostile_names_stay_inside() {
        let path = object_path(&key("x/v1", "../K", Some("ns"), "../../etc/passwd"));
        assert!(!path.split('/').any(|s| s == ".." || s == "."), "{path}");
        assert_eq!(path.matches('/').count(), 1);
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let long = "a".repeat(253);
        let path = object_path(&key("v1", "ConfigMap", Some("ns"), &long));
        let file = path.rsplit('/').next().unwrap_or("");
        assert!(file.len() <= MAX_FILE_NAME, "{}", file.len());
        assert_ne!(
            path,
            object_path(&key("v1", "ConfigMap", Some("ns"), &"a".repeat(252)))
        );
    }

    proptest! {
        #[test]
        fn distinct_keys_get_distinct_paths(a in "[a-zA-Z0-9:._%/-]{1,40}", b in "[a-zA-Z0-9:._%/-]{1,40}", kind_a in "[A-Za-z.]{1,8}", kind_b in "[A-Za-z.]{1,8}") {
            let ka = key("g/v1", &kind_a, Some("ns"), &a);
            let kb = key("g/v1", &kind_b, Some("ns"), &b);
            if ka.kind.to_lowercase() != kb.kind.to_lowercase() || a != b {
                prop_assert_ne!(object_path(&ka), object_path(&kb));
            }
        }

        #[test]
        fn no_path_escapes(name in "\\PC{1,300}", kind in "\\PC{1,20}") {
            let path = object_path(&key("g/v1", &kind, None, &name));
            prop_assert!(path.starts_with("_cluster/"));
            prop_assert_eq!(path.matches('/').count(), 1);
            prop_assert!(!path.split('/').any(|s| s == ".." || s == "." || s.is_empty()));
        }
    }
}
