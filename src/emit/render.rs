//! Making every cluster's files from a plan: each delivered object made by
//! [`crate::plan::materialise`] and serialised at once, in parallel, so a
//! render of hundreds of thousands of objects never holds them all as JSON
//! trees; or, when nothing it is made from changed, the previous render's
//! file kept unread ([`crate::reuse`]).

use super::memo::Memo;
use super::{namespace_file, object_file};
use crate::diag::{Diagnostic, Diagnostics};
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, Template};
use crate::model::layout::{self, Format, Layout};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::plan::materialise::Materialiser;
use crate::plan::{App, ClusterPlan, Delivery, Plan};
use crate::reuse;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// How the files are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub format: Format,
    /// Keep the previous files of applications whose render digest did
    /// not change.
    pub reuse: bool,
}

/// One object for one cluster, as the file that holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub key: ObjectKey,
    /// Path in the cluster directory.
    pub path: String,
    /// `None`: the previous render's file, kept in place without being read.
    pub bytes: Option<Vec<u8>>,
}

/// One cluster's object files, sorted by key: what it receives, and what
/// its held applications would give it without their holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterFiles {
    pub objects: Vec<File>,
    pub shadow: Vec<File>,
}

/// Every cluster's files, in the order of [`Plan::clusters`], and each
/// application's render digest, in the order of [`Plan::apps`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rendered {
    pub clusters: Vec<ClusterFiles>,
    pub digests: Vec<Option<String>>,
}

/// One object to make: the cluster (an index into [`Plan::clusters`]),
/// what it receives, and whether it is only counted (a held cluster's
/// would-be object).
struct Job<'a> {
    cluster: usize,
    target: &'a Cluster,
    delivery: Delivery,
    shadow: bool,
}

/// What the jobs share.
struct Context<'a> {
    plan: &'a Plan,
    previous: &'a PreviousRender,
    options: Options,
    materialiser: Materialiser<'a>,
    /// Per application: whether it keeps its previous files.
    reusable: Vec<bool>,
}

/// Make every cluster's files. A fault making a live object is an error;
/// a held cluster's would-be object that cannot be made is left out (its
/// fault surfaces when the hold is lifted).
pub fn render(
    inputs: &Inputs,
    plan: &Plan,
    previous: &PreviousRender,
    options: Options,
) -> Result<Rendered, Diagnostics> {
    let templates: BTreeMap<&ObjectKey, &Template> =
        inputs.templates.iter().map(|t| (&t.key, t)).collect();
    let digests = digests(inputs, plan, &templates, options.format);
    let reusable = plan
        .apps
        .iter()
        .zip(&digests)
        .map(|(app, digest)| {
            let recorded = previous
                .bindings
                .get(&app.key)
                .and_then(|b| b.digest.as_ref());
            options.reuse && digest.is_some() && recorded == digest.as_ref()
        })
        .collect();
    let context = Context {
        plan,
        previous,
        options,
        materialiser: Materialiser::new(inputs),
        reusable,
    };
    let jobs = jobs(inputs, plan);
    // One application's objects on one thread, one cluster after the
    // other, so those that come out the same are finished and serialised
    // once ([`Memo`]); then back in the order of the jobs.
    let mut by_app: Vec<Vec<(usize, &Job<'_>)>> = vec![Vec::new(); plan.apps.len()];
    for (i, job) in jobs.iter().enumerate() {
        if let Some(app) = by_app.get_mut(job.delivery.app) {
            app.push((i, job));
        }
    }
    let mut results: Vec<(usize, &Job<'_>, Result<File, Diagnostic>)> = by_app
        .par_iter()
        .map(|jobs| {
            let mut memo = Memo::default();
            jobs.iter()
                .map(|&(i, job)| (i, job, context.file(job, &mut memo)))
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    results.sort_by_key(|(i, _, _)| *i);
    let mut clusters = vec![ClusterFiles::default(); plan.clusters.len()];
    let mut diagnostics = Diagnostics::default();
    for (_, job, result) in results {
        let (cluster, shadow) = (job.cluster, job.shadow);
        match (result, shadow) {
            (Ok(file), false) => clusters[cluster].objects.push(file),
            (Ok(file), true) => clusters[cluster].shadow.push(file),
            (Err(_), true) => {}
            (Err(d), false) => diagnostics.push(d),
        }
    }
    for (files, cluster) in clusters.iter_mut().zip(&plan.clusters) {
        if let Err(d) = add_namespaces(files, cluster, options.format) {
            diagnostics.push(d);
        }
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(Rendered { clusters, digests })
}

/// Each application's render digest; `None` without a template.
fn digests(
    inputs: &Inputs,
    plan: &Plan,
    templates: &BTreeMap<&ObjectKey, &Template>,
    format: Format,
) -> Vec<Option<String>> {
    let digests = reuse::Digests::new(inputs, format);
    plan.apps
        .iter()
        .map(|app| {
            let template = templates.get(&app.key)?;
            let policy = crate::plan::policy_of(inputs, app);
            let overrides = Plan::override_policies(inputs, app);
            Some(digests.app(app, template, policy, &overrides))
        })
        .collect()
}

/// Every object of every cluster in scope, live and shadow.
fn jobs<'a>(inputs: &'a Inputs, plan: &Plan) -> Vec<Job<'a>> {
    let fleet: BTreeMap<&str, &Cluster> = inputs
        .clusters
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    let mut jobs = Vec::new();
    for (index, cluster) in plan.clusters.iter().enumerate() {
        let Some(target) = fleet.get(cluster.name.as_str()) else {
            continue;
        };
        let live = cluster.objects.iter().map(|d| (d, false));
        let shadow = cluster.shadow.iter().map(|d| (d, true));
        jobs.extend(live.chain(shadow).map(|(delivery, shadow)| Job {
            cluster: index,
            target,
            delivery: *delivery,
            shadow,
        }));
    }
    jobs
}

impl Context<'_> {
    /// The file of one job: kept from the previous render, or made now.
    /// In the manifests format, an object the same as another cluster's
    /// before its last step takes that one's bytes from `memo` (a Work
    /// names its cluster: each is finished and serialised).
    fn file(&self, job: &Job<'_>, memo: &mut Memo) -> Result<File, Diagnostic> {
        let app = &self.plan.apps[job.delivery.app];
        if self.reusable[job.delivery.app] && !job.shadow {
            if let Some(file) = self.kept(app, &job.target.name) {
                return Ok(file);
            }
        }
        let Some(target) = self.plan.target(
            &self.materialiser,
            job.delivery.app,
            job.target,
            job.delivery.replicas,
        ) else {
            return Err(no_template(app));
        };
        let made = self.materialiser.unfinished(&target)?;
        let format = self.options.format;
        let memo = memo.serving(&app.key);
        if format == Format::Manifests {
            if let Some(bytes) = memo.recall(&made.value) {
                return Ok(File {
                    key: app.key.clone(),
                    path: Layout::new(format).object(&app.key, &job.target.name),
                    bytes: Some(bytes.to_vec()),
                });
            }
        }
        let finished = self.materialiser.finish(&target, &made);
        let (path, bytes) = object_file(&app.key, finished, app.work, &job.target.name, format)?;
        if format == Format::Manifests {
            memo.remember(made.value, bytes.clone());
        }
        Ok(File {
            key: app.key.clone(),
            path,
            bytes: Some(bytes),
        })
    }

    /// The previous file of an application that keeps its files, if the
    /// previous render has it. A manifest's path names no cluster.
    fn kept(&self, app: &App, cluster: &str) -> Option<File> {
        let layout = Layout::new(self.options.format);
        let path = match self.options.format {
            Format::Manifests => layout.object(&app.key, ""),
            Format::Work => layout.object(&app.key, cluster),
        };
        let full = layout::in_cluster(cluster, &path);
        let bytes = match self.previous.files.get(&full) {
            Some(bytes) => Some(bytes.clone()),
            None if self.previous.unread.contains(&full) => None,
            None => return None,
        };
        Some(File {
            key: app.key.clone(),
            path,
            bytes,
        })
    }
}

/// A plan only delivers applications made from templates; should one not
/// be, the render stops instead of leaving the object out.
fn no_template(app: &App) -> Diagnostic {
    Diagnostic::error(
        crate::diag::Code::Emit,
        format!("`{}` has no template to make its objects from", app.key),
    )
    .help("this is a fault in garrison, not in the input: report it with the object named here")
}

/// The Namespaces the plan creates on the cluster, as files; a would-be
/// Namespace only for a would-be object that was made. Then both lists
/// sorted by key.
fn add_namespaces(
    files: &mut ClusterFiles,
    cluster: &ClusterPlan,
    format: Format,
) -> Result<(), Diagnostic> {
    for namespace in &cluster.namespaces {
        files
            .objects
            .push(namespace_file(namespace, &cluster.name, format)?);
    }
    for namespace in &cluster.shadow_namespaces {
        let needed = files
            .shadow
            .iter()
            .any(|f| f.key.namespace.as_deref() == Some(namespace.as_str()));
        if needed {
            files
                .shadow
                .push(namespace_file(namespace, &cluster.name, format)?);
        }
    }
    files.objects.sort_by(|a, b| a.key.cmp(&b.key));
    files.shadow.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(())
}
