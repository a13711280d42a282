//! `imageOverrider`: parse an image reference, change one component, render it back.
//!
//! Reproduces Karmada's `imageoverride.go` and `imageparser`: references are
//! validated with the distribution/reference grammar but *not* normalised
//! (no `docker.io/library/`); the registry is the first path segment only if
//! it contains `.` or `:` or is `localhost`. A reference with both a tag and
//! a digest keeps only the tag. Removing the repository renders `host/:tag`.
//! Tag `add`/`replace` only take effect when the result is a valid tag or
//! digest. Without a predicate, the `image` of every `containers` entry (not
//! init or ephemeral containers) of a Pod, ReplicaSet, Deployment, DaemonSet,
//! StatefulSet or Job is targeted; other kinds are left alone.
//!
//! Without a predicate, Karmada v1.19
//! (`pkg/util/overridemanager/imageoverride.go`) first converts the object
//! to its typed kind (`helper.ConvertToTypedObject`) and reads the typed
//! pod spec. The conversion turns a `null` into the zero value, so
//! a missing or `null` `spec`, `template` or `containers`, and an empty
//! list, all mean there is no image to change; a `containers` that is not a
//! list, or a map on the way that is not a map, fails the conversion. The
//! command and args overriders read the same list differently: `null`
//! `containers` is an error there (see `command.rs`). A container that is
//! not a map is an error here; Karmada turns a `null` one into an empty
//! container, whose empty image then fails to parse.

use crate::model::override_policy::{ImageComponent, ImageOverrider, Operator};
use serde_json::Value;

/// Why an image reference does not parse, in distribution/reference's
/// words (Karmada passes them on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error("repository name must have at least one component")]
    Empty,
    #[error("repository name must be lowercase")]
    Uppercase,
    #[error("invalid reference format")]
    InvalidFormat,
    #[error("repository name must not be more than 255 characters")]
    NameTooLong,
    #[error("invalid checksum digest format")]
    DigestFormat,
    #[error("unsupported digest algorithm")]
    DigestAlgorithm,
    #[error("invalid checksum digest length")]
    DigestLength,
}

/// Why the image overrider cannot read or change an object's images. The
/// reason of a variant that has one is part of its message (these end up
/// as one-line diagnostics), so it is a field, not a `source`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("cannot parse image `{image}`: {reason}")]
    Parse {
        image: String,
        reason: ReferenceError,
    },
    /// `spec` or `template` on the way to the containers is not a map.
    #[error("cannot read `{kind}`: `{field}` is not an object")]
    FieldNotAnObject { kind: String, field: &'static str },
    #[error("cannot read `{kind}`: `containers` is not a list")]
    ContainersNotAList { kind: String },
    #[error("cannot read `{kind}`: `containers[{index}]` is not an object")]
    ContainerNotAnObject { kind: String, index: usize },
    #[error("cannot read `{kind}`: `containers[{index}].image` is not a string")]
    ImageNotAString { kind: String, index: usize },
    #[error("cannot read the image at `{path}`: {reason}")]
    PredicateUnreadable {
        path: String,
        reason: PredicateError,
    },
    #[error("predicate path `{path}` must start with `/`")]
    PredicateNotAbsolute { path: String },
}

/// Why a predicate path does not lead to an image string (Karmada's
/// `obtainImageValue`); `segment` is the path segment at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PredicateError {
    #[error("the object is not a map")]
    ObjectNotAMap,
    #[error("`{segment}` is not an index of `{list}`")]
    NotAnIndex { segment: String, list: String },
    #[error("item `{segment}` of `{list}` is not a map")]
    ItemNotAMap { segment: String, list: String },
    #[error("`{segment}` is not a map or a list")]
    NotAContainer { segment: String },
    #[error("`{segment}` is not a string")]
    NotAString { segment: String },
}

/// Parsed image: `host/repository[:tag|@digest]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    pub host: String,
    pub repository: String,
    pub tag: String,
    pub digest: String,
}

impl Image {
    /// `distribution/reference.Parse` followed by Karmada's host split.
    pub fn parse(reference: &str) -> Result<Image, ReferenceError> {
        let Some((name, tag, digest)) = split_reference(reference) else {
            if reference.is_empty() {
                return Err(ReferenceError::Empty);
            }
            if split_reference(&reference.to_lowercase()).is_some() {
                return Err(ReferenceError::Uppercase);
            }
            return Err(ReferenceError::InvalidFormat);
        };
        if name.len() > 255 {
            return Err(ReferenceError::NameTooLong);
        }
        if let Some(d) = digest {
            validate_digest(d)?;
        }
        let (host, repository) = split_host(name);
        Ok(Image {
            host: host.to_string(),
            repository: repository.to_string(),
            tag: tag.unwrap_or_default().to_string(),
            digest: if tag.is_some() {
                String::new()
            } else {
                digest.unwrap_or_default().to_string()
            },
        })
    }

    fn full_repository(&self) -> String {
        if self.host.is_empty() {
            self.repository.clone()
        } else {
            format!("{}/{}", self.host, self.repository)
        }
    }

    fn tag_or_digest(&self) -> &str {
        if self.tag.is_empty() {
            &self.digest
        } else {
            &self.tag
        }
    }

    /// Sets a tag if `input` is one, else a digest if it is one, else nothing.
    fn set_tag_or_digest(&mut self, input: &str) {
        if is_tag(input) {
            self.tag = input.to_string();
            self.digest.clear();
        } else if is_digest_syntax(input) {
            self.digest = input.to_string();
            self.tag.clear();
        }
    }

    /// Applies one overrider (Karmada's `overrideImage`).
    pub fn apply(&mut self, component: ImageComponent, operator: Operator, value: &str) {
        match (component, operator) {
            (ImageComponent::Registry, Operator::Add) => self.host.push_str(value),
            (ImageComponent::Registry, Operator::Replace) => self.host = value.to_string(),
            (ImageComponent::Registry, Operator::Remove) => self.host.clear(),
            (ImageComponent::Repository, Operator::Add) => self.repository.push_str(value),
            (ImageComponent::Repository, Operator::Replace) => self.repository = value.to_string(),
            (ImageComponent::Repository, Operator::Remove) => self.repository.clear(),
            (ImageComponent::Tag, Operator::Add) => {
                let joined = format!("{}{}", self.tag_or_digest(), value);
                self.set_tag_or_digest(&joined);
            }
            (ImageComponent::Tag, Operator::Replace) => self.set_tag_or_digest(value),
            (ImageComponent::Tag, Operator::Remove) => {
                if self.tag.is_empty() {
                    self.digest.clear();
                } else {
                    self.tag.clear();
                }
            }
        }
    }
}

impl std::fmt::Display for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let repo = self.full_repository();
        if !self.tag.is_empty() {
            write!(f, "{repo}:{}", self.tag)
        } else if !self.digest.is_empty() {
            write!(f, "{repo}@{}", self.digest)
        } else {
            f.write_str(&repo)
        }
    }
}

/// The overridden image string.
pub fn override_image(current: &str, overrider: &ImageOverrider) -> Result<String, ImageError> {
    let mut image = Image::parse(current).map_err(|reason| ImageError::Parse {
        image: current.to_string(),
        reason,
    })?;
    image.apply(overrider.component, overrider.operator, &overrider.value);
    Ok(image.to_string())
}

/// `(name, tag, digest)` if `reference` matches distribution's reference
/// grammar (digest syntax only; its algorithm and length are checked later).
fn split_reference(reference: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    let (rest, digest) = match reference.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (reference, None),
    };
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i + 1..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    (name_ok(name) && tag.is_none_or(is_tag) && digest.is_none_or(is_digest_syntax))
        .then_some((name, tag, digest))
}

/// Karmada's `SplitHostname`.
fn split_host(name: &str) -> (&str, &str) {
    match name.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => (first, rest),
        _ => ("", name),
    }
}

fn name_ok(name: &str) -> bool {
    let segments: Vec<&str> = name.split('/').collect();
    match segments.split_first() {
        Some((first, rest)) if !rest.is_empty() => {
            (is_domain(first) || is_path_component(first))
                && rest.iter().all(|s| is_path_component(s))
        }
        Some((only, _)) => is_path_component(only),
        None => false,
    }
}

/// `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
fn is_path_component(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && alnum(b[i]) {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i == b.len() {
            return true;
        }
        let sep_start = i;
        while i < b.len() && !alnum(b[i]) {
            i += 1;
        }
        let sep = &s[sep_start..i];
        if !(sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|c| c == b'-')) {
            return false;
        }
    }
}

/// `host[:port]` where host is a domain name or a bracketed IPv6 address.
fn is_domain(s: &str) -> bool {
    let (host, port) = if let Some(inner) = s.strip_prefix('[') {
        let Some(end) = inner.find(']') else {
            return false;
        };
        let addr = &inner[..end];
        if addr.is_empty() || !addr.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
            return false;
        }
        (None, &inner[end + 1..])
    } else {
        match s.find(':') {
            Some(i) => (Some(&s[..i]), &s[i..]),
            None => (Some(s), ""),
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
    let host_ok = host.is_none_or(|h| {
        !h.is_empty()
            && h.split('.').all(|c| {
                let b = c.as_bytes();
                !b.is_empty()
                    && b[0].is_ascii_alphanumeric()
                    && b[b.len() - 1].is_ascii_alphanumeric()
                    && b.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
            })
    });
    port_ok && host_ok
}

/// `^[\w][\w.-]{0,127}$`
fn is_tag(s: &str) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && word(b[0])
        && b[1..].iter().all(|&c| word(c) || c == b'.' || c == b'-')
}

/// `^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}$`
fn is_digest_syntax(s: &str) -> bool {
    let Some((algorithm, hex)) = s.split_once(':') else {
        return false;
    };
    let algorithm_ok = algorithm.split(['-', '_', '+', '.']).all(|c| {
        let b = c.as_bytes();
        !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric)
    });
    algorithm_ok && hex.len() >= 32 && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

/// `go-digest` validation for the algorithms Karmada links in.
fn validate_digest(d: &str) -> Result<(), ReferenceError> {
    let Some((algorithm, hex)) = d.split_once(':') else {
        return Err(ReferenceError::DigestFormat);
    };
    let size = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return Err(ReferenceError::DigestAlgorithm),
    };
    if hex.len() != size {
        return Err(ReferenceError::DigestLength);
    }
    if !hex
        .bytes()
        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        return Err(ReferenceError::DigestFormat);
    }
    Ok(())
}

/// The JSON pointer prefix of the pod spec whose `containers` Karmada's
/// built-in overriders target, by kind (apiVersion is not consulted).
pub fn pod_spec_prefix(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec"),
        "ReplicaSet" | "Deployment" | "DaemonSet" | "StatefulSet" | "Job" => {
            Some("/spec/template/spec")
        }
        _ => None,
    }
}

/// `(pointer, image)` for every container image the default (no predicate)
/// overrider touches. Missing `spec`, `template` or `containers` means none;
/// a field of the wrong type is an error, as Karmada's typed conversion fails.
pub fn default_targets(object: &Value) -> Result<Vec<(String, String)>, ImageError> {
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(prefix) = pod_spec_prefix(kind) else {
        return Ok(Vec::new());
    };
    let mut current = object;
    for key in prefix.split('/').skip(1) {
        current = match current.get(key) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => {
                return Err(ImageError::FieldNotAnObject {
                    kind: kind.to_string(),
                    field: key,
                })
            }
        };
    }
    let containers = match current.get("containers") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(ImageError::ContainersNotAList {
                kind: kind.to_string(),
            })
        }
    };
    containers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let image = match c {
                Value::Object(map) => match map.get("image") {
                    None | Some(Value::Null) => "",
                    Some(Value::String(s)) => s.as_str(),
                    Some(_) => {
                        return Err(ImageError::ImageNotAString {
                            kind: kind.to_string(),
                            index: i,
                        })
                    }
                },
                _ => {
                    return Err(ImageError::ContainerNotAnObject {
                        kind: kind.to_string(),
                        index: i,
                    })
                }
            };
            Ok((format!("{prefix}/containers/{i}/image"), image.to_string()))
        })
        .collect()
}

/// Karmada's `obtainImageValue`: walks `/`-separated segments (outer slashes
/// trimmed, no `~` unescaping); a list consumes the next segment as an index
/// and must hold objects; the last segment must name a string.
pub fn predicate_target(object: &Value, path: &str) -> Result<String, PredicateError> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    // `split` yields at least one (maybe empty) segment.
    let last = segments.last().copied().unwrap_or_default();
    let mut current = object.as_object().ok_or(PredicateError::ObjectNotAMap)?;
    let mut i = 0;
    while i + 1 < segments.len() {
        current = match current.get(segments[i]) {
            Some(Value::Object(map)) => map,
            Some(Value::Array(items)) => {
                let index_segment = segments[i + 1];
                let item = index_segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| items.get(n))
                    .ok_or_else(|| PredicateError::NotAnIndex {
                        segment: index_segment.to_string(),
                        list: segments[i].to_string(),
                    })?;
                i += 1;
                item.as_object()
                    .ok_or_else(|| PredicateError::ItemNotAMap {
                        segment: index_segment.to_string(),
                        list: segments[i - 1].to_string(),
                    })?
            }
            _ => {
                return Err(PredicateError::NotAContainer {
                    segment: segments[i].to_string(),
                })
            }
        };
        i += 1;
    }
    match current.get(last) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(PredicateError::NotAString {
            segment: last.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DIGEST: &str = "sha256:50d858e0985ecc7f60418aaf0cc5ab587f42c2570a884095a9e8ccacd0f6545c";

    fn over(component: ImageComponent, operator: Operator, value: &str, image: &str) -> String {
        let o = ImageOverrider {
            predicate: None,
            component,
            operator,
            value: value.to_string(),
        };
        override_image(image, &o).unwrap()
    }

    #[test]
    fn registry_is_the_first_segment_only_with_dot_colon_or_localhost() {
        let p = |s| Image::parse(s).unwrap();
        assert_eq!(p("nginx").host, "");
        assert_eq!(p("library/nginx").host, "");
        assert_eq!(p("library/nginx").repository, "library/nginx");
        assert_eq!(p("registry.k8s.io/kube-apiserver").host, "registry.k8s.io");
        assert_eq!(p("localhost/app").host, "localhost");
        assert_eq!(p("myhost:5000/a/b:v1").host, "myhost:5000");
        assert_eq!(p("myhost:5000/a/b:v1").repository, "a/b");
        assert_eq!(p("localhost:5000").repository, "localhost");
        assert_eq!(p("localhost:5000").tag, "5000");
    }

    #[test]
    fn tag_wins_over_digest() {
        let image = Image::parse(&format!("nginx:1.0@{DIGEST}")).unwrap();
        assert_eq!(image.tag, "1.0");
        assert_eq!(image.digest, "");
        assert_eq!(
            over(
                ImageComponent::Registry,
                Operator::Replace,
                "r.io",
                &format!("nginx:1.0@{DIGEST}")
            ),
            "r.io/nginx:1.0"
        );
    }

    #[test]
    fn invalid_references_are_errors_with_distribution_wording() {
        let cases = [
            (
                String::new(),
                ReferenceError::Empty,
                "repository name must have at least one component",
            ),
            (
                "Nginx".to_string(),
                ReferenceError::Uppercase,
                "repository name must be lowercase",
            ),
            (
                "nginx:".to_string(),
                ReferenceError::InvalidFormat,
                "invalid reference format",
            ),
            (
                "a//b".to_string(),
                ReferenceError::InvalidFormat,
                "invalid reference format",
            ),
            (
                format!("nginx@md5:{}", "a".repeat(32)),
                ReferenceError::DigestAlgorithm,
                "unsupported digest algorithm",
            ),
            (
                format!("nginx@sha256:{}", "a".repeat(40)),
                ReferenceError::DigestLength,
                "invalid checksum digest length",
            ),
        ];
        for (reference, error, wording) in cases {
            assert_eq!(Image::parse(&reference), Err(error), "{reference:?}");
            assert_eq!(error.to_string(), wording, "{reference:?}");
        }
        assert!(Image::parse("Registry.Example.com/app").is_ok());
        assert!(Image::parse("[::1]:5000/app").is_ok());
        assert!(Image::parse("a__b-c.d/e--f").is_ok());
    }

    #[test]
    fn registry_add_concatenates_replace_sets_remove_clears() {
        assert_eq!(
            over(
                ImageComponent::Registry,
                Operator::Add,
                "-mirror",
                "fictional.registry.us/busybox:v1"
            ),
            "fictional.registry.us-mirror/busybox:v1"
        );
        assert_eq!(
            over(ImageComponent::Registry, Operator::Add, "r.io", "busybox"),
            "r.io/busybox"
        );
        assert_eq!(
            over(
                ImageComponent::Registry,
                Operator::Replace,
                "r.cn",
                "fictional.registry.us/busybox"
            ),
            "r.cn/busybox"
        );
        assert_eq!(
            over(
                ImageComponent::Registry,
                Operator::Remove,
                "",
                "fictional.registry.us/busybox:v1"
            ),
            "busybox:v1"
        );
        assert_eq!(
            over(ImageComponent::Registry, Operator::Remove, "", "busybox:v1"),
            "busybox:v1"
        );
    }

    #[test]
    fn repository_ops_including_the_empty_repository_quirk() {
        assert_eq!(
            over(
                ImageComponent::Repository,
                Operator::Add,
                "-x",
                "r.io/busybox:v1"
            ),
            "r.io/busybox-x:v1"
        );
        assert_eq!(
            over(
                ImageComponent::Repository,
                Operator::Replace,
                "app/nginx",
                "r.io/busybox:v1"
            ),
            "r.io/app/nginx:v1"
        );
        assert_eq!(
            over(
                ImageComponent::Repository,
                Operator::Remove,
                "",
                "r.io/busybox:v1"
            ),
            "r.io/:v1"
        );
        assert_eq!(
            over(
                ImageComponent::Repository,
                Operator::Remove,
                "",
                "busybox:v1"
            ),
            ":v1"
        );
    }

    #[test]
    fn tag_ops_validate_the_result() {
        assert_eq!(
            over(ImageComponent::Tag, Operator::Add, "-debug", "busybox:v1"),
            "busybox:v1-debug"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Add, "v2", "busybox"),
            "busybox:v2"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Replace, "v2", "busybox:v1"),
            "busybox:v2"
        );
        assert_eq!(
            over(
                ImageComponent::Tag,
                Operator::Replace,
                "v2",
                &format!("busybox@{DIGEST}")
            ),
            "busybox:v2"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Replace, DIGEST, "busybox:v1"),
            format!("busybox@{DIGEST}")
        );
        // Not a tag, not a digest: left as it was.
        assert_eq!(
            over(
                ImageComponent::Tag,
                Operator::Replace,
                "bad tag",
                "busybox:v1"
            ),
            "busybox:v1"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Add, "/x", "busybox:v1"),
            "busybox:v1"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Remove, "", "busybox:v1"),
            "busybox"
        );
        assert_eq!(
            over(
                ImageComponent::Tag,
                Operator::Remove,
                "",
                &format!("busybox@{DIGEST}")
            ),
            "busybox"
        );
        assert_eq!(
            over(ImageComponent::Tag, Operator::Remove, "", "busybox"),
            "busybox"
        );
    }

    #[test]
    fn tag_add_on_a_digest_appends_to_the_digest() {
        assert_eq!(
            over(
                ImageComponent::Tag,
                Operator::Add,
                "ab",
                &format!("busybox@{DIGEST}")
            ),
            format!("busybox@{DIGEST}ab")
        );
    }

    #[test]
    fn default_paths_per_kind() {
        let template = json!({"spec": {"template": {"spec": {
            "initContainers": [{"name": "i", "image": "init"}],
            "containers": [{"name": "a", "image": "a"}, {"name": "b", "image": "b:1"}]
        }}}});
        for kind in [
            "ReplicaSet",
            "Deployment",
            "DaemonSet",
            "StatefulSet",
            "Job",
        ] {
            let mut object = template.clone();
            object["kind"] = json!(kind);
            assert_eq!(
                default_targets(&object).unwrap(),
                vec![
                    (
                        "/spec/template/spec/containers/0/image".to_string(),
                        "a".to_string()
                    ),
                    (
                        "/spec/template/spec/containers/1/image".to_string(),
                        "b:1".to_string()
                    )
                ]
            );
        }
        let pod = json!({"kind": "Pod", "spec": {"containers": [{"image": "p"}]}});
        assert_eq!(
            default_targets(&pod).unwrap(),
            vec![("/spec/containers/0/image".to_string(), "p".to_string())]
        );
        let cron = json!({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"image": "c"}]}}}}}});
        assert!(default_targets(&cron).unwrap().is_empty());
        assert!(default_targets(&json!({"kind": "Deployment"}))
            .unwrap()
            .is_empty());
        assert!(default_targets(
            &json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": 1}}}})
        )
        .is_err());
    }

    /// Every shape of the containers list, read as Karmada reads it through
    /// the typed pod spec.
    #[test]
    fn containers_are_read_like_the_typed_pod_spec() {
        let deployment = |containers: Value| json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": containers}}}});
        let target = |path: &str, image: &str| Ok(vec![(path.to_string(), image.to_string())]);
        let kind = || "Deployment".to_string();
        type Case = (
            &'static str,
            Value,
            Result<Vec<(String, String)>, ImageError>,
        );
        let cases: Vec<Case> = vec![
            ("no spec", json!({"kind": "Deployment"}), Ok(Vec::new())),
            (
                "no containers",
                json!({"kind": "Deployment", "spec": {"template": {"spec": {}}}}),
                Ok(Vec::new()),
            ),
            (
                "null spec",
                json!({"kind": "Deployment", "spec": null}),
                Ok(Vec::new()),
            ),
            (
                "null template",
                json!({"kind": "Deployment", "spec": {"template": null}}),
                Ok(Vec::new()),
            ),
            (
                "null pod spec",
                json!({"kind": "Deployment", "spec": {"template": {"spec": null}}}),
                Ok(Vec::new()),
            ),
            ("null containers", deployment(Value::Null), Ok(Vec::new())),
            ("empty containers", deployment(json!([])), Ok(Vec::new())),
            (
                "containers is a map",
                deployment(json!({"image": "nginx"})),
                Err(ImageError::ContainersNotAList { kind: kind() }),
            ),
            (
                "containers is a string",
                deployment(json!("nginx")),
                Err(ImageError::ContainersNotAList { kind: kind() }),
            ),
            (
                "template is not a map",
                json!({"kind": "Deployment", "spec": {"template": []}}),
                Err(ImageError::FieldNotAnObject {
                    kind: kind(),
                    field: "template",
                }),
            ),
            (
                "one container",
                deployment(json!([{"name": "nginx", "image": "nginx:1.19"}])),
                target("/spec/template/spec/containers/0/image", "nginx:1.19"),
            ),
            (
                "a null container",
                deployment(json!([null])),
                Err(ImageError::ContainerNotAnObject {
                    kind: kind(),
                    index: 0,
                }),
            ),
            (
                "Pod with null containers",
                json!({"kind": "Pod", "spec": {"containers": null}}),
                Ok(Vec::new()),
            ),
            (
                "Pod with one container",
                json!({"kind": "Pod", "spec": {"containers": [{"image": "p"}]}}),
                target("/spec/containers/0/image", "p"),
            ),
        ];
        for (case, object, expected) in cases {
            assert_eq!(default_targets(&object), expected, "{case}");
        }
    }

    #[test]
    fn predicate_walks_lists_by_index() {
        let object = json!({"spec": {"template": {"spec": {"containers": [{"image": "a"}, {"image": "b"}]}}}});
        assert_eq!(
            predicate_target(&object, "/spec/template/spec/containers/1/image").unwrap(),
            "b"
        );
        assert!(predicate_target(&object, "/spec/template/spec/containers/2/image").is_err());
        assert!(predicate_target(&object, "/spec/template/spec/containers/x/image").is_err());
        assert!(predicate_target(&object, "/spec/template/spec/containers/0").is_err());
        assert!(predicate_target(&object, "/spec/missing/image").is_err());
    }
}
