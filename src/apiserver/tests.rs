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
