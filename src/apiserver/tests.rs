use super::*;
use serde_json::json;

#[test]
fn a_custom_resource_is_stored_as_written() {
    let mut value =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let written = value.clone();
    assert!(!store(&mut value));
    assert_eq!(value, written);
}

mod core_defaults {
    use super::super::{core, pod};
    use super::store;
    use serde_json::{json, Value};

    #[test]
    fn an_image_is_pulled_always_only_for_latest_or_no_tag() {
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        for (image, policy) in [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            ("localhost:5000/app", "Always"),
            ("registry.example.com:5000/team/app:1.2", "IfNotPresent"),
            (&format!("nginx@{digest}"), "IfNotPresent"),
            (&format!("nginx:latest@{digest}"), "Always"),
            ("nginx@sha256:short", "IfNotPresent"),
            ("Nginx:latest", "IfNotPresent"),
            ("", "IfNotPresent"),
        ] {
            assert_eq!(pod::pull_policy(image), policy, "{image}");
        }
    }

    #[test]
    fn a_service_port_targets_its_own_port_unless_it_names_one() {
        let mut service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"ports": [{"port": 80}, {"port": 53, "targetPort": "dns"}, {"port": 8, "targetPort": 0}]}});
        assert!(store(&mut service));
        let ports = &service["spec"]["ports"];
        assert_eq!(
            ports[0],
            json!({"port": 80, "protocol": "TCP", "targetPort": 80})
        );
        assert_eq!(ports[1]["targetPort"], json!("dns"));
        assert_eq!(ports[2]["targetPort"], json!(8));
        assert_eq!(service["spec"]["type"], json!("ClusterIP"));
        assert_eq!(service["spec"]["internalTrafficPolicy"], json!("Cluster"));
        assert!(service["spec"].get("externalTrafficPolicy").is_none());
    }

    #[test]
    fn a_replication_controller_takes_its_selector_and_labels_from_the_template() {
        let mut rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "r"},
            "spec": {"template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": []}}}});
        assert!(store(&mut rc));
        assert_eq!(rc["spec"]["selector"], json!({"app": "a"}));
        assert_eq!(rc["metadata"]["labels"], json!({"app": "a"}));
        assert_eq!(rc["spec"]["replicas"], json!(1));

        let mut written = json!({"apiVersion": "v1", "kind": "ReplicationController",
            "metadata": {"name": "r", "labels": {"owner": "me"}},
            "spec": {"selector": {"app": "b"}, "template": {"metadata": {"labels": {"app": "a"}}}}});
        assert!(store(&mut written));
        assert_eq!(written["spec"]["selector"], json!({"app": "b"}));
        assert_eq!(written["metadata"]["labels"], json!({"owner": "me"}));
    }

    #[test]
    fn quantities_are_written_canonically() {
        for (written, rounded, stored) in [
            (json!("0.5"), true, "500m"),
            (json!(0.1), true, "100m"),
            (json!(2), true, "2"),
            (json!("1024Mi"), true, "1Gi"),
            (json!("1000Mi"), true, "1000Mi"),
            (json!("0.5Ki"), true, "512"),
            (json!("1e3"), true, "1e3"),
            (json!("1500m"), true, "1500m"),
            (json!("0.1n"), true, "1m"),
            (json!("0.1n"), false, "1n"),
            (Value::Null, true, "0"),
        ] {
            assert_eq!(
                core::canonical_quantity(&written, rounded).as_deref(),
                Some(stored),
                "{written}"
            );
        }
        assert_eq!(core::canonical_quantity(&json!("ten"), true), None);
    }

    #[test]
    fn only_a_pod_gets_requests_from_its_limits() {
        let container = json!({"name": "c", "image": "i:1", "resources": {"limits": {"cpu": "1"}}});
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [container.clone()]}});
        assert!(store(&mut pod));
        assert_eq!(
            pod["spec"]["containers"][0]["resources"]["requests"],
            json!({"cpu": "1"})
        );
        assert_eq!(pod["spec"]["enableServiceLinks"], json!(true));

        let mut template = json!({"spec": {"containers": [container]}});
        if let Some(map) = template.as_object_mut() {
            pod::template(map);
        }
        assert!(template["spec"]["containers"][0]["resources"]
            .get("requests")
            .is_none());
        assert!(template["spec"].get("enableServiceLinks").is_none());
        assert_eq!(template["metadata"], json!({}));
        assert_eq!(template["spec"]["securityContext"], json!({}));
    }

    #[test]
    fn a_list_kind_is_not_stored() {
        let mut list = json!({"apiVersion": "v1", "kind": "PodList", "items": []});
        assert!(!store(&mut list));
    }
}
