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

mod kind_defaults {
    use super::*;

    fn stored(mut value: Value) -> Value {
        assert!(store(&mut value), "not known: {value}");
        value
    }

    #[test]
    fn a_deployment_gets_a_rolling_update_of_a_quarter() {
        let value = stored(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"}, "spec": {"paused": false}}));
        let spec = &value["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["strategy"]["type"], "RollingUpdate");
        assert_eq!(spec["strategy"]["rollingUpdate"]["maxSurge"], "25%");
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(spec["progressDeadlineSeconds"], 600);
        assert!(spec.get("paused").is_none());
        assert!(spec["selector"].is_null());
    }

    #[test]
    fn a_stateful_set_names_its_claim_templates_kind_and_phase() {
        let value = stored(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "s"},
            "spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}}]}}));
        let spec = &value["spec"];
        assert_eq!(spec["updateStrategy"]["rollingUpdate"]["partition"], 0);
        assert_eq!(spec["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            spec["persistentVolumeClaimRetentionPolicy"]["whenScaled"],
            "Retain"
        );
        let claim = &spec["volumeClaimTemplates"][0];
        assert_eq!(claim["kind"], "PersistentVolumeClaim");
        assert_eq!(claim["status"]["phase"], "Pending");
    }

    #[test]
    fn a_daemon_set_keeps_its_template_generation_in_an_annotation() {
        let value = stored(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "d", "annotations": {"deprecated.daemonset.template.generation": "07"}},
            "spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"maxSurge": 1}}}}));
        assert_eq!(
            value["metadata"]["annotations"]["deprecated.daemonset.template.generation"],
            "7"
        );
        assert_eq!(
            value["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
            0
        );
    }

    #[test]
    fn apps_beta_versions_are_not_served() {
        let mut value = json!({"apiVersion": "apps/v1beta2", "kind": "Deployment"});
        assert!(!store(&mut value));
    }

    #[test]
    fn a_job_with_parallelism_alone_keeps_completions_unset() {
        let value = stored(json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {"parallelism": 3, "backoffLimitPerIndex": 1, "podFailurePolicy": {"rules": []},
                "template": {"metadata": {"labels": {"a": "b"}}}}}));
        let spec = &value["spec"];
        assert!(spec.get("completions").is_none());
        assert_eq!(spec["backoffLimit"], i64::from(i32::MAX));
        assert_eq!(spec["podReplacementPolicy"], "Failed");
        assert_eq!(value["metadata"]["labels"]["a"], "b");
        let bare =
            stored(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}}));
        assert_eq!(bare["spec"]["completions"], 1);
        assert_eq!(bare["spec"]["parallelism"], 1);
        assert_eq!(bare["spec"]["backoffLimit"], 6);
    }

    #[test]
    fn a_cron_job_template_gets_no_job_defaults() {
        let value = stored(json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "c"}, "spec": {"schedule": "@daily"}}));
        assert_eq!(value["spec"]["concurrencyPolicy"], "Allow");
        assert_eq!(value["spec"]["successfulJobsHistoryLimit"], 3);
        assert!(value["spec"]["jobTemplate"]["spec"]
            .get("backoffLimit")
            .is_none());
    }

    #[test]
    fn an_hpa_behavior_is_completed_from_each_directions_defaults() {
        let value = stored(
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "h"},
            "spec": {"behavior": {"scaleUp": {"selectPolicy": "Min"}, "scaleDown": {"policies": []}}}}),
        );
        let behavior = &value["spec"]["behavior"];
        assert_eq!(behavior["scaleUp"]["selectPolicy"], "Min");
        assert_eq!(
            behavior["scaleUp"]["policies"].as_array().map(Vec::len),
            Some(2)
        );
        assert!(behavior["scaleDown"].get("policies").is_none());
        assert_eq!(value["spec"]["metrics"][0]["resource"]["name"], "cpu");
    }

    #[test]
    fn binding_subjects_get_their_api_group_by_kind() {
        let value = stored(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "b"}, "roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "s"}]}),
        );
        assert_eq!(value["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
        assert_eq!(
            value["subjects"][0]["apiGroup"],
            "rbac.authorization.k8s.io"
        );
        assert!(value["subjects"][1].get("apiGroup").is_none());
    }

    #[test]
    fn a_network_policy_with_egress_rules_covers_both_directions() {
        let value = stored(
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "n"}, "spec": {"egress": [{"ports": [{"port": 53}]}]}}),
        );
        assert_eq!(value["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(value["spec"]["egress"][0]["ports"][0]["protocol"], "TCP");
    }

    #[test]
    fn a_webhook_gets_its_policies_selectors_and_timeout() {
        let value = stored(json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration", "metadata": {"name": "m"},
            "webhooks": [{"name": "w", "clientConfig": {"service": {"name": "s", "namespace": "n"}},
                "rules": [{"operations": ["CREATE"]}]}]}));
        let webhook = &value["webhooks"][0];
        assert_eq!(webhook["failurePolicy"], "Fail");
        assert_eq!(webhook["reinvocationPolicy"], "Never");
        assert_eq!(webhook["timeoutSeconds"], 10);
        assert_eq!(webhook["namespaceSelector"], json!({}));
        assert_eq!(webhook["clientConfig"]["service"]["port"], 443);
        assert_eq!(webhook["rules"][0]["scope"], "*");
    }

    #[test]
    fn kinds_other_servers_keep_are_not_known() {
        for (api_version, kind) in [
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
            ("apiregistration.k8s.io/v1", "APIService"),
            ("batch/v1beta1", "CronJob"),
        ] {
            let mut value = json!({"apiVersion": api_version, "kind": kind});
            assert!(!store(&mut value), "{kind}");
        }
    }
}
