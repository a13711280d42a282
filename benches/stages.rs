//! Micro-benchmarks of the render stages on a generated fleet.
//!
//! ```sh
//! FLEET_TEMPLATES=200 FLEET_CLUSTERS=10 cargo bench --bench stages
//! ```
//!
//! Stages: loading (`load::load_repository`), schema validation of the
//! templates alone (`load::templates::check_with`, the part of loading a
//! first render pays for checking), planning (`plan::plan`, first
//! render and against the previous render), division
//! (`schedule::divide::{webster, divide_static}`), overrides
//! (`overrides::apply` of one Deployment for every cluster) and emission
//! (`emit::build_tree`).

mod fleet;

use criterion::{criterion_group, criterion_main, Criterion};
use garrison::emit;
use garrison::load::{self, cache::Cache, LoadOptions};
use garrison::model::layout::Format;
use garrison::model::previous::PreviousRender;
use garrison::overrides::{self, OverridePolicyRef};
use garrison::schedule::divide::{self, Party};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn stages(c: &mut Criterion) {
    let templates = env("FLEET_TEMPLATES", 200);
    let clusters = env("FLEET_CLUSTERS", 10);
    let dir = PathBuf::from(format!("target/bench-fleet/stages-{templates}x{clusters}"));
    fleet::fleet(fleet::Spec::new(templates, clusters))
        .write(&dir)
        .expect("write the fleet");
    let repo = dir.join("garrison");
    let options = LoadOptions::default();
    let (inputs, diagnostics) = load::load_repository(&repo, &options, &Cache::disabled());
    assert!(!diagnostics.has_errors(), "the generated fleet loads");
    let empty = PreviousRender::default();
    let plan = garrison::plan::plan(&inputs, &empty).expect("the generated fleet plans");
    let render = emit::render::Options::default();
    let rendered = emit::render::render(&inputs, &plan, &empty, render).expect("the plan renders");
    let tree = emit::build_tree(
        &plan,
        rendered.clone(),
        &empty,
        Format::Manifests,
        &Default::default(),
    )
    .expect("the plan emits")
    .tree;
    let previous = load::previous::from_tree(tree);

    let mut group = c.benchmark_group(format!("{templates}x{clusters}"));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.warm_up_time(Duration::from_secs(1));

    group.bench_function("load", |b| {
        b.iter(|| load::load_repository(black_box(&repo), &options, &Cache::disabled()))
    });
    let cache_dir = dir.join("parse-cache");
    let warm = Cache::open(&cache_dir);
    load::load_repository(&repo, &options, &warm);
    warm.save().expect("write the parse cache");
    group.bench_function("load/cached", |b| {
        b.iter(|| load::load_repository(black_box(&repo), &options, &Cache::open(&cache_dir)))
    });
    // Schema validation alone: the documents classified once, checked per iteration.
    let mut sources = garrison::diag::Sources::default();
    let mut documents = Vec::new();
    for path in yaml_files(&repo) {
        let text = std::fs::read_to_string(&path).expect("read a fleet file");
        let file = sources.add(path.display().to_string(), text.clone());
        let nodes = load::yaml::parse_stream(&text, &Default::default()).expect("parse");
        documents.extend(nodes.into_iter().map(|n| (file, n)));
    }
    let mut faults = garrison::diag::Diagnostics::default();
    let (mut classified, template_documents) =
        load::classify::classify_documents(documents, &sources, None, &mut faults);
    classified.sources = sources;
    let catalog = load::templates::catalog(
        &classified.config,
        &classified.templates,
        &template_documents,
        &mut faults,
    );
    group.bench_function("validate/templates", |b| {
        b.iter_batched(
            || (classified.clone(), template_documents.clone()),
            |(mut inputs, documents)| {
                let mut diagnostics = garrison::diag::Diagnostics::default();
                load::templates::check_with(
                    &catalog,
                    &mut inputs,
                    documents,
                    &Cache::disabled(),
                    &mut diagnostics,
                );
                black_box(diagnostics.0.len())
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("plan/first", |b| {
        b.iter(|| garrison::plan::plan(black_box(&inputs), &empty).map(|p| p.apps.len()))
    });
    group.bench_function("plan/against-previous", |b| {
        b.iter(|| garrison::plan::plan(black_box(&inputs), &previous).map(|p| p.apps.len()))
    });
    group.bench_function("emit/render", |b| {
        b.iter(|| {
            emit::render::render(&inputs, black_box(&plan), &empty, render)
                .map(|r| r.clusters.len())
        })
    });
    // The tree takes the rendered bytes, so each iteration gets its own copy.
    group.bench_function("emit/build_tree", |b| {
        b.iter_batched(
            || rendered.clone(),
            |rendered| {
                emit::build_tree(
                    black_box(&plan),
                    rendered,
                    &empty,
                    Format::Manifests,
                    &Default::default(),
                )
                .map(|t| t.tree.len())
            },
            criterion::BatchSize::LargeInput,
        )
    });

    // Division: equal weights, as the Divided policy of the fleet.
    let names: Vec<String> = inputs.clusters.iter().map(|c| c.name.clone()).collect();
    let parties: Vec<Party<'_>> = names.iter().map(|n| Party { name: n, weight: 1 }).collect();
    group.bench_function("divide/webster-1000", |b| {
        b.iter(|| divide::webster(black_box(1000), &parties))
    });
    let labels: Vec<_> = inputs.clusters.iter().map(|c| c.labels.clone()).collect();
    let views: Vec<_> = inputs
        .clusters
        .iter()
        .zip(&labels)
        .map(|(c, l)| c.view(l))
        .collect();
    group.bench_function("divide/divide_static-1000", |b| {
        b.iter(|| divide::divide_static(black_box(1000), &views, &[]))
    });

    // Overrides: one Deployment, every cluster.
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(garrison::overrides::OverridePolicyRef::from)
        .collect();
    let deployment = inputs
        .templates
        .iter()
        .find(|t| t.key.kind == "Deployment")
        .expect("a Deployment");
    let applicable: Vec<_> = overrides::applicable(&refs, &deployment.view())
        .into_iter()
        .copied()
        .collect();
    group.bench_function("overrides/apply-deployment-all-clusters", |b| {
        b.iter(|| {
            for view in &views {
                let mut value = deployment.value.clone();
                let applied =
                    overrides::apply_staged(&mut value, &applicable, view).expect("applies");
                black_box((value, applied));
            }
        })
    });
    group.finish();
}

/// Every YAML file under `dir`, sorted.
fn yaml_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the fleet").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

criterion_group!(benches, stages);
criterion_main!(benches);
