//! Karmada's names for the Work of an object: the execution namespace of a
//! member cluster, `karmada-es-<cluster>`, and the Work name
//! `<name>-<SafeEncode(FNV-1a-32 of "namespace-name-kind")>`, the same in
//! every cluster namespace (karmada-semantics §e).

use crate::model::meta::ObjectKey;

/// The execution namespace Karmada gives a member cluster.
pub fn execution_namespace(cluster: &str) -> String {
    format!("karmada-es-{cluster}")
}

fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in bytes {
        hash ^= u32::from(*byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// Kubernetes' `rand.SafeEncodeString`: each byte mapped into an alphabet
/// without vowels or look-alike characters.
fn safe_encode(text: &str) -> String {
    const ALPHABET: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";
    text.bytes()
        .map(|b| ALPHABET[(b % 27) as usize] as char)
        .collect()
}

/// Karmada's `names.GenerateWorkName(kind, name, namespace)`.
pub fn work_name(key: &ObjectKey) -> String {
    let name = key.name.replace(':', ".");
    let input = match &key.namespace {
        Some(ns) => format!("{ns}-{name}-{}", key.kind),
        None => format!("{name}-{}", key.kind),
    }
    .to_lowercase();
    format!(
        "{}-{}",
        name.to_lowercase(),
        safe_encode(&fnv1a32(input.as_bytes()).to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: &str, namespace: Option<&str>, name: &str) -> ObjectKey {
        ObjectKey {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            namespace: namespace.map(String::from),
            name: name.into(),
        }
    }

    #[test]
    fn work_name_matches_karmadas_example() {
        // Karmada names the Work of Deployment default/nginx `nginx-687f7fb96f`.
        assert_eq!(
            work_name(&key("Deployment", Some("default"), "nginx")),
            "nginx-687f7fb96f"
        );
    }

    #[test]
    fn work_name_lowercases_and_replaces_colons() {
        let name = work_name(&key("ClusterRole", None, "system:Admin"));
        assert!(name.starts_with("system.admin-"), "{name}");
    }
}
