//! Reuse: a re-render keeps an object's previous file instead of rendering
//! it again when nothing the file is made from has changed.
//!
//! Every application gets a render digest: SHA-256 over everything its
//! per-cluster objects are computed from: the garrison version and output
//! format, the template, the propagating policy, the override policies that
//! select the template, every resource interpreter customization, the
//! binding (clusters, replicas, holds), the fort, and the fields of each of
//! its clusters that rendering reads (name, namespace, labels, provider,
//! region, zones); for an application a Subscription feeds, the
//! Subscriptions, the Globalizations and Localizations of its feed, and the
//! clusters a division gave a share. The digest is recorded on the application's binding; when the
//! next render computes the same digest, the files of the application's
//! unheld clusters are taken from the previous render unread by the
//! renderer. A change anywhere in those inputs changes the digest and the
//! application is rendered again on all its clusters.
//!
//! The previous files are trusted to be what garrison wrote. `garrison
//! check` and `render --rebuild` render everything and compare every byte,
//! so a hand-edited output is still found and repaired.

use crate::model::cluster::Cluster;
use crate::model::inputs::{Document, Inputs, OverridePolicy, PropagationPolicy, Template};
use crate::model::layout::Format;
use crate::plan::{App, Source};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;

/// Bumped whenever rendering changes in a way the version number does not
/// capture, so no digest of an older renderer is ever trusted.
const RENDER_SCHEMA: &str = "garrison-render-4";

type Hash = [u8; 32];

/// The digests of the inputs shared between applications, computed once.
pub struct Digests {
    common: Hash,
    clusters: BTreeMap<String, Hash>,
    overrides: BTreeMap<(Option<String>, String), Hash>,
    policies: BTreeMap<(Option<String>, String), Hash>,
    /// Clusternet's Subscriptions (by `Subscription/ns/name`), and its
    /// Globalizations and Localizations (by index).
    subscriptions: BTreeMap<String, Hash>,
    globalizations: Vec<Hash>,
    localizations: Vec<Hash>,
}

/// A hasher that frames every field with its length, so two different
/// field sequences can never feed the same bytes.
struct Hasher(Sha256);

impl Hasher {
    fn new(domain: &str) -> Hasher {
        let mut h = Hasher(Sha256::new());
        h.text(domain);
        h
    }
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }
    fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }
    fn opt(&mut self, text: Option<&str>) {
        match text {
            Some(t) => {
                self.0.update([1]);
                self.text(t);
            }
            None => self.0.update([0]),
        }
    }
    fn value(&mut self, value: &Value) {
        // serde_json keeps key order (preserve_order), so the same document
        // always serialises to the same bytes.
        self.bytes(&serde_json::to_vec(value).unwrap_or_default());
    }
    fn finish(self) -> Hash {
        self.0.finalize().into()
    }
}

impl Digests {
    pub fn new(inputs: &Inputs, format: Format) -> Digests {
        let mut common = Hasher::new(RENDER_SCHEMA);
        common.text(env!("CARGO_PKG_VERSION"));
        common.text(match format {
            Format::Manifests => "manifests",
            Format::Work => "work",
        });
        for customization in &inputs.customizations {
            common.value(&customization.doc.node.to_value());
        }
        let clusters = inputs
            .clusters
            .iter()
            .map(|c| (c.name.clone(), cluster_digest(c)))
            .collect();
        let overrides = documents(
            "override",
            inputs
                .override_policies
                .iter()
                .map(|p| (&p.namespace, &p.name, &p.doc)),
        );
        let policies = documents(
            "policy",
            inputs
                .propagation_policies
                .iter()
                .map(|p| (&p.namespace, &p.name, &p.doc)),
        );
        let digest = |domain: &str, doc: &Document| {
            let mut h = Hasher::new(domain);
            h.value(&doc.node.to_value());
            h.finish()
        };
        Digests {
            common: common.finish(),
            clusters,
            overrides,
            policies,
            subscriptions: inputs
                .subscriptions
                .iter()
                .map(|s| (s.display(), digest("subscription", &s.doc)))
                .collect(),
            globalizations: inputs
                .globalizations
                .iter()
                .map(|g| digest("globalization", &g.doc))
                .collect(),
            localizations: inputs
                .localizations
                .iter()
                .map(|l| digest("localization", &l.doc))
                .collect(),
        }
    }

    /// The render digest of `app`, as lowercase hex. `applicable` are the
    /// override policies that select the template, in the order they apply.
    pub fn app(
        &self,
        app: &App,
        template: &Template,
        policy: Option<&PropagationPolicy>,
        applicable: &[&OverridePolicy],
    ) -> String {
        let mut h = Hasher::new("app");
        h.bytes(&self.common);
        h.value(&template.value);
        match &app.source {
            Source::Policy { .. } => h.text("policy"),
            Source::Pinned { .. } => h.text("pinned"),
            Source::Dependency { .. } => h.text("dependency"),
            Source::NamespaceAutoPropagation => h.text("namespace"),
            Source::Subscription { subscriptions } => {
                h.text("subscription");
                for s in subscriptions {
                    h.text(s);
                    h.bytes(self.subscriptions.get(s).map_or(&[][..], |d| &d[..]));
                }
            }
        }
        let localizing = &app.localizing;
        for (domain, indices, digests) in [
            (
                "globalizations",
                &localizing.globalizations,
                &self.globalizations,
            ),
            (
                "localizations",
                &localizing.localizations,
                &self.localizations,
            ),
        ] {
            h.text(domain);
            for &i in indices {
                h.bytes(digests.get(i).map_or(&[][..], |d| &d[..]));
            }
        }
        h.text("divided");
        for cluster in &localizing.divided {
            h.text(cluster);
        }
        match policy.and_then(|p| self.policies.get(&(p.namespace.clone(), p.name.clone()))) {
            Some(digest) => h.bytes(digest),
            None => h.opt(None),
        }
        for p in applicable {
            let key = (p.namespace.clone(), p.name.clone());
            h.text(&p.name);
            h.opt(p.namespace.as_deref());
            h.bytes(self.overrides.get(&key).map_or(&[][..], |d| &d[..]));
        }
        h.text("binding");
        h.bytes(&[
            u8::from(app.binding.revise),
            u8::from(app.binding.divide_completions),
            u8::from(app.binding.workload),
        ]);
        h.bytes(&app.binding.desired.to_le_bytes());
        for a in &app.binding.clusters {
            h.text(&a.cluster);
            h.bytes(&a.replicas.to_le_bytes());
            h.bytes(&[u8::from(a.held)]);
            h.bytes(self.clusters.get(&a.cluster).map_or(&[][..], |d| &d[..]));
        }
        h.opt(app.fort.as_ref().map(|f| f.cluster.as_str()));
        hex(&h.finish()[..16])
    }
}

/// The digest of each policy document, by (namespace, name).
fn documents<'a>(
    domain: &str,
    docs: impl Iterator<Item = (&'a Option<String>, &'a String, &'a Document)>,
) -> BTreeMap<(Option<String>, String), Hash> {
    docs.map(|(namespace, name, doc)| {
        let mut h = Hasher::new(domain);
        h.value(&doc.node.to_value());
        ((namespace.clone(), name.clone()), h.finish())
    })
    .collect()
}

/// What rendering reads of a cluster (`Cluster::view` and the hooks).
fn cluster_digest(cluster: &Cluster) -> Hash {
    let mut h = Hasher::new("cluster");
    h.text(&cluster.name);
    // A ManagedCluster's namespace decides which Localizations reach it.
    h.opt(cluster.namespace.as_deref());
    for (k, v) in &cluster.labels {
        h.text(k);
        h.text(v);
    }
    h.text("");
    h.opt(cluster.provider.as_deref());
    h.opt(cluster.region.as_deref());
    for zone in &cluster.zones {
        h.text(zone);
    }
    h.finish()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selector::Labels;

    fn framed(fields: &[&str]) -> Hash {
        let mut h = Hasher::new("test");
        for f in fields {
            h.text(f);
        }
        h.finish()
    }

    #[test]
    fn fields_are_framed_so_their_boundaries_count() {
        assert_ne!(framed(&["ab", "c"]), framed(&["a", "bc"]));
        assert_ne!(framed(&["", "x"]), framed(&["x"]));
        assert_eq!(framed(&["a", "b"]), framed(&["a", "b"]));
    }

    fn cluster(labels: &[(&str, &str)], region: Option<&str>) -> Cluster {
        Cluster {
            name: "member".into(),
            namespace: None,
            managed: false,
            labels: labels
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect::<Labels>(),
            provider: None,
            region: region.map(str::to_string),
            zones: Vec::new(),
            taints: Vec::new(),
            tainted_by: Vec::new(),
            conditions: Vec::new(),
            paused: false,
            api_enablements: None,
            resource_summary: None,
            resource_models: Vec::new(),
            origin: crate::diag::Origin {
                file: crate::diag::FileId(0),
                pos: crate::node::Pos { line: 1, column: 1 },
            },
        }
    }

    #[test]
    fn a_cluster_digest_covers_what_rendering_reads_and_nothing_else() {
        let base = cluster(&[("tier", "gold")], Some("eu"));
        assert_ne!(
            cluster_digest(&base),
            cluster_digest(&cluster(&[("tier", "silver")], Some("eu")))
        );
        assert_ne!(
            cluster_digest(&base),
            cluster_digest(&cluster(&[("tier", "gold")], Some("us")))
        );
        // Pausing is a scheduling fact (the binding's holds), not a rendering input.
        let mut paused = base.clone();
        paused.paused = true;
        assert_eq!(cluster_digest(&base), cluster_digest(&paused));
    }

    #[test]
    fn digests_are_lowercase_hex() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
    }
}
