//! Kubernetes' name rules for what a repository declares: a template's
//! name and namespace (DNS subdomains for built-in groups, path segments
//! for the rest, as the API server checks them), and a policy's.

use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::inputs::Document;
use crate::model::meta::{dns_label_fault, dns_subdomain_fault, group_of, path_segment_fault};

/// A name for a message: escaped, and cut short when very long.
fn shown_name(name: &str) -> String {
    let escaped = name.escape_debug().to_string();
    if escaped.chars().count() > 64 {
        format!("{}…", escaped.chars().take(40).collect::<String>())
    } else {
        escaped
    }
}

/// Built-in API groups whose object names must be DNS subdomains. RBAC and
/// custom kinds allow the looser path-segment names (`system:controller`).
fn strict_names(group: &str) -> bool {
    matches!(
        group,
        "" | "apps"
            | "batch"
            | "networking.k8s.io"
            | "policy"
            | "autoscaling"
            | "storage.k8s.io"
            | "scheduling.k8s.io"
    )
}

pub(super) fn check_template_name(
    doc: &Document,
    api_version: &str,
    name: &str,
    namespace: Option<&str>,
    diagnostics: &mut Diagnostics,
) -> bool {
    let fault = if strict_names(group_of(api_version)) {
        dns_subdomain_fault(name)
    } else {
        path_segment_fault(name)
    };
    if let Some(fault) = fault {
        diagnostics.push(
            Diagnostic::error(Code::InvalidName, format!("object name `{}` {fault}", shown_name(name)))
                .at(doc.at(&["metadata", "name"]))
                .help("Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters"),
        );
        return false;
    }
    if let Some(ns) = namespace {
        if let Some(fault) = dns_label_fault(ns) {
            diagnostics.push(
                Diagnostic::error(Code::InvalidName, format!("namespace `{}` {fault}", shown_name(ns)))
                    .at(doc.at(&["metadata", "namespace"]))
                    .help("namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters"),
            );
            return false;
        }
    }
    true
}

pub(super) fn check_policy_name(
    doc: &Document,
    kind: &str,
    name: &str,
    namespace: Option<&str>,
    cluster_scoped: bool,
    diagnostics: &mut Diagnostics,
) -> bool {
    if let Some(fault) = dns_subdomain_fault(name) {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidName,
                format!("{kind} name `{}` {fault}", shown_name(name)),
            )
            .at(doc.at(&["metadata", "name"]))
            .help("Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters"),
        );
        return false;
    }
    if !cluster_scoped {
        match namespace {
            None => {
                diagnostics.push(
                    Diagnostic::error(
                        Code::MissingNamespace,
                        format!("{kind} `{name}` is namespaced but has no `metadata.namespace`"),
                    )
                    .at(Origin {
                        file: doc.file,
                        pos: doc.node.locate_key(&["metadata"]),
                    })
                    .help("give it the namespace of the templates it selects, or set `defaultNamespace` in garrison.yaml"),
                );
                return false;
            }
            Some(ns) => {
                if let Some(fault) = dns_label_fault(ns) {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::InvalidName,
                            format!("namespace `{}` {fault}", shown_name(ns)),
                        )
                        .at(doc.at(&["metadata", "namespace"]))
                        .help("namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters"),
                    );
                    return false;
                }
            }
        }
    }
    true
}
