use super::*;
use crate::diag::{Diagnostics, FileId};
use crate::load::yaml::{parse_stream, Limits};
use crate::node::Node;

fn node(text: &str) -> Node {
    match parse_stream(text, &Limits::default()) {
        Ok(mut nodes) if !nodes.is_empty() => nodes.remove(0),
        other => panic!("{other:?}"),
    }
}

fn builtin() -> &'static builtin::Builtin {
    match builtin::load(builtin::DEFAULT_VERSION) {
        Some(b) => b,
        None => panic!("the default version does not load"),
    }
}

fn catalog_with(crds: &[&str]) -> (Catalog, Diagnostics) {
    let nodes: Vec<Node> = crds.iter().map(|t| node(t)).collect();
    let refs: Vec<(FileId, &Node)> = nodes.iter().map(|n| (FileId(0), n)).collect();
    let mut diagnostics = Diagnostics::default();
    let catalog = crd::catalog(builtin(), &refs, &mut diagnostics);
    (catalog, diagnostics)
}

/// The faults of one object, as `path: message` lines.
fn faults(catalog: &Catalog, text: &str) -> Vec<String> {
    let object = node(text);
    let value = object.to_value();
    let api_version = value["apiVersion"].as_str().unwrap_or("");
    let kind = value["kind"].as_str().unwrap_or("");
    let Lookup::Known(found) = catalog.lookup(api_version, kind) else {
        panic!("{api_version} {kind} is not known");
    };
    validate(catalog.schemas(), found.root, &object)
        .into_iter()
        .map(|f| {
            let path = crate::node::display_path(&f.path);
            match f.kind {
                FaultKind::UnknownField { field, .. } => {
                    format!("{}:{} {path}: unknown `{field}`", f.pos.line, f.pos.column)
                }
                FaultKind::Invalid(message) => {
                    format!("{}:{} {path}: {message}", f.pos.line, f.pos.column)
                }
            }
        })
        .collect()
}

#[test]
fn every_supported_version_reads_cleanly() {
    for version in builtin::versions() {
        let Some(loaded) = builtin::load(version) else {
            panic!("{version} does not load");
        };
        assert!(
            loaded.kubernetes.starts_with(&format!("v{version}.")),
            "{version}: {}",
            loaded.kubernetes
        );
        assert!(loaded.kinds.len() > 80, "{version}: {}", loaded.kinds.len());
        assert!(loaded.object_meta.is_some());
    }
    assert!(builtin::load("1.20").is_none());
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations:
  creationTimestamp: null
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
        resources:
          requests: {cpu: 1, memory: 1e9}
          limits: {cpu: 500m, memory: 1Gi}
        livenessProbe:
          httpGet: {path: /, port: http}
      volumes:
      - name: config
        configMap: {name: web, defaultMode: 0644}
status: {}
";

#[test]
fn a_valid_deployment_has_no_fault() {
    let (catalog, _) = catalog_with(&[]);
    assert_eq!(faults(&catalog, DEPLOYMENT), Vec::<String>::new());
}

#[test]
fn misspelt_fields_wrong_types_and_ranges_are_faults_at_their_position() {
    let (catalog, _) = catalog_with(&[]);
    let text = DEPLOYMENT
        .replace("  replicas: 3\n", "  replica: 3\n")
        .replace(
            "image: nginx:1.27",
            "image: nginx:1.27\n        imagePullPolicy: [Always]",
        )
        .replace("defaultMode: 0644", "defaultMode: 99999999999");
    insta::assert_snapshot!(faults(&catalog, &text).join("\n"), @r"
    10:3 spec: unknown `replica`
    22:26 spec.template.spec.containers[0].imagePullPolicy: expected a string, found a list
    31:45 spec.template.spec.volumes[0].configMap.defaultMode: 99999999999 is out of range for int32 (-2147483648 to 2147483647)
    ");
}

#[test]
fn replicas_are_strings_negative_or_too_large_are_refused() {
    let (catalog, _) = catalog_with(&[]);
    for (replicas, expected) in [
        ("\"3\"", "10:13 spec.replicas: expected an integer, found the string `3`"),
        ("-5", "10:13 spec.replicas: -5 must be at least 0"),
        ("99999999999999999999", "10:13 spec.replicas: 100000000000000000000 is out of range for int32 (-2147483648 to 2147483647)"),
    ] {
        let text = DEPLOYMENT.replace("replicas: 3", &format!("replicas: {replicas}"));
        assert_eq!(faults(&catalog, &text), vec![expected.to_string()], "{replicas}");
    }
}

#[test]
fn labels_are_strings_and_secret_data_is_base64() {
    let (catalog, _) = catalog_with(&[]);
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  labels: {enabled: yes}\ndata:\n  ok: aGVsbG8=\n  bad: hello world\nstringData:\n  plain: hello world\n";
    insta::assert_snapshot!(faults(&catalog, secret).join("\n"), @r"
    5:21 metadata.labels.enabled: expected a string, found the boolean `true`; quote it: YAML reads `yes`, `no`, `on`, `off`, `y`, `n` as booleans and `0777`, `1e3` as numbers
    8:8 data.bad: is not base64; a Secret's `data` holds base64 (put plain text in `stringData`)
    ");
}

#[test]
fn a_missing_required_field_is_a_fault() {
    let (catalog, _) = catalog_with(&[]);
    let text = DEPLOYMENT.replace("  selector:\n    matchLabels: {app: web}\n", "");
    assert_eq!(
        faults(&catalog, &text),
        vec!["9:1 spec: missing required field `selector`".to_string()]
    );
}

#[test]
fn versions_and_kinds_that_are_not_served_are_named() {
    let (catalog, _) = catalog_with(&[]);
    assert_eq!(
        catalog.lookup("apps/v1", "deployment"),
        Lookup::NotServed {
            reason: format!(
                "the apps API group of Kubernetes {} has no kind `deployment`",
                catalog.kubernetes
            ),
            help: "did you mean `Deployment`?".into(),
            field: "kind",
        }
    );
    assert_eq!(
        catalog.lookup("apps/v1beta1", "Deployment"),
        Lookup::NotServed {
            reason: format!(
                "`Deployment` is not served as `apps/v1beta1` by Kubernetes {}",
                catalog.kubernetes
            ),
            help: "use `apiVersion: apps/v1`".into(),
            field: "apiVersion",
        }
    );
    assert_eq!(catalog.lookup("example.com/v1", "Widget"), Lookup::Unknown);
    assert!(matches!(
        catalog.lookup("v1", "ConfigMap"),
        Lookup::Known(Kind {
            namespaced: true,
            ..
        })
    ));
    assert!(matches!(
        catalog.lookup("rbac.authorization.k8s.io/v1", "ClusterRole"),
        Lookup::Known(Kind {
            namespaced: false,
            ..
        })
    ));
}

#[test]
fn a_group_one_letter_from_a_served_group_with_the_kind_is_a_misspelling() {
    let (catalog, _) = catalog_with(&[CRD]);
    let kubernetes = catalog.kubernetes;
    assert_eq!(
        catalog.lookup("app/v1", "Deployment"),
        Lookup::NotServed {
            reason: format!("no API group `app` is served, by Kubernetes {kubernetes} or by a CustomResourceDefinition of the repository; the `apps` group of Kubernetes {kubernetes} one letter away has `Deployment`"),
            help: "did you mean `apiVersion: apps/v1`?".into(),
            field: "apiVersion",
        }
    );
    assert!(
        matches!(
            catalog.lookup("bacth/v2", "CronJob"),
            Lookup::NotServed { ref help, .. } if help == "did you mean `apiVersion: batch/v1`?"
        ),
        "a swap is one edit; the served versions when the written one is not"
    );
    assert!(
        matches!(
            catalog.lookup("example.co/v1", "Widget"),
            Lookup::NotServed { ref reason, ref help, .. } if help == "did you mean `apiVersion: example.com/v1`?"
                && reason.ends_with("the `example.com` group of the CustomResourceDefinition in the repository one letter away has `Widget`")
        ),
        "a group of the repository's CRDs"
    );
    assert_eq!(
        catalog.lookup("app/v1", "Widget"),
        Lookup::Unknown,
        "the near group lacks the kind"
    );
    assert_eq!(
        catalog.lookup("ap/v1", "Deployment"),
        Lookup::Unknown,
        "two edits away"
    );
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata: {type: object}
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, format: int32, minimum: 1}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              mode: {type: string, enum: [fast, slow]}
              name: {type: string, pattern: '^[a-z]+$', maxLength: 8}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
  - name: v0
    served: false
    storage: false
";

#[test]
fn a_custom_resource_is_checked_against_its_crd() {
    let (catalog, diagnostics) = catalog_with(&[CRD]);
    assert!(diagnostics.0.is_empty(), "{diagnostics:?}");
    let good = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: x}\nspec:\n  size: 2\n  port: http\n  mode: fast\n  name: abc\n  tags: [a, b]\n  extra: {anything: [1, 2]}\n  template: {apiVersion: v1, kind: ConfigMap, data: {a: b}}\n";
    assert_eq!(faults(&catalog, good), Vec::<String>::new());
    let bad = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: x, label: {}}\nspec:\n  size: 0\n  port: 1.5\n  mode: fats\n  name: ABCDEFGHIJ\n  tags: [a, a]\n  colour: red\n  template: {data: {}}\n";
    insta::assert_snapshot!(faults(&catalog, bad).join("\n"), @r"
    3:35 metadata: unknown `label`
    5:9 spec.size: 0 must be at least 1
    6:9 spec.port: expected a string or an integer, found the number `1.5`; quote it: YAML reads `yes`, `no`, `on`, `off`, `y`, `n` as booleans and `0777`, `1e3` as numbers
    7:9 spec.mode: `fats` is not one of `fast`, `slow`; did you mean `fast`?
    8:9 spec.name: is 10 characters long; at most 8 are allowed
    8:9 spec.name: `ABCDEFGHIJ` does not match the pattern `^[a-z]+$`
    9:13 spec.tags: `a` is listed twice; the items of this list are a set
    10:3 spec: unknown `colour`
    11:3 spec.template: missing `apiVersion`: an embedded object says what it is
    11:3 spec.template: missing `kind`: an embedded object says what it is
    ");
    assert!(matches!(
        catalog.lookup("example.com/v0", "Widget"),
        Lookup::NotServed { ref help, .. } if help == "use `apiVersion: example.com/v1`"
    ));
}

#[test]
fn a_crd_garrison_cannot_use_is_an_error_at_the_keyword() {
    let broken = CRD
        .replace("pattern: '^[a-z]+$'", "pattern: '^[a-z+$'")
        .replace("name: widgets.example.com", "name: widget.example.com");
    let (catalog, diagnostics) = catalog_with(&[&broken]);
    let messages: Vec<(u32, String)> = diagnostics
        .0
        .iter()
        .map(|d| (d.origin.map_or(0, |o| o.pos.line), d.message.clone()))
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0].0, 4);
    assert!(
        messages[0]
            .1
            .contains("must be named `<spec.names.plural>.<spec.group>`"),
        "{messages:?}"
    );
    assert_eq!(messages[1].0, 25);
    assert!(
        messages[1]
            .1
            .contains("`pattern` is not a regular expression"),
        "{messages:?}"
    );
    assert_eq!(catalog.lookup("example.com/v1", "Widget"), Lookup::Unknown);
}

#[test]
fn defaults_are_filled_in_before_one_of_is_decided() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gates.example.com}
spec:
  group: example.com
  names: {kind: Gate, plural: gates}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              address:
                type: object
                required: [value]
                properties:
                  type: {type: string, default: IPAddress}
                  value: {type: string}
                oneOf:
                - properties: {type: {enum: [IPAddress]}}
                - properties: {type: {enum: [Hostname]}}
";
    let (catalog, diagnostics) = catalog_with(&[crd]);
    assert!(diagnostics.0.is_empty(), "{diagnostics:?}");
    let gate = "apiVersion: example.com/v1\nkind: Gate\nmetadata: {name: g}\nspec:\n  address: {value: 10.0.0.1}\n";
    assert_eq!(faults(&catalog, gate), Vec::<String>::new());
    let other = gate.replace("{value: 10.0.0.1}", "{type: Other, value: x}");
    assert_eq!(
        faults(&catalog, &other),
        vec![
            "5:12 spec.address: must match exactly one of the schemas `oneOf` lists, but matches 0"
                .to_string()
        ]
    );
}

#[test]
fn an_override_path_resolves_to_the_schema_it_writes() {
    let (catalog, _) = catalog_with(&[CRD]);
    let Lookup::Known(deployment) = catalog.lookup("apps/v1", "Deployment") else {
        panic!("no Deployment")
    };
    let schemas = catalog.schemas();
    let types_at = |pointer: &str| match resolve(schemas, deployment.root, pointer) {
        Ok(Some(id)) => Ok(schemas.get(id).types.describe()),
        Ok(None) => Ok("free-form".to_string()),
        Err(fault) => Err(fault),
    };
    assert_eq!(types_at("/spec/replicas"), Ok("an integer".into()));
    assert_eq!(
        types_at("/metadata/labels/app.kubernetes.io~1name"),
        Ok("a string".into())
    );
    assert_eq!(
        types_at("/spec/template/spec/containers/0/env/-"),
        Ok("a mapping".into())
    );
    assert!(matches!(
        types_at("/spec/replica"),
        Err(PathFault::UnknownField { ref field, ref known }) if field == "replica" && known.contains(&"replicas".to_string())
    ));
    assert_eq!(
        types_at("/spec/replicas/x"),
        Err(PathFault::NotAContainer {
            at: "/spec/replicas".into(),
            types: "an integer".into()
        })
    );
    let Lookup::Known(widget) = catalog.lookup("example.com/v1", "Widget") else {
        panic!("no Widget")
    };
    assert_eq!(
        resolve(schemas, widget.root, "/spec/extra/anything/deep"),
        Ok(None)
    );
}
