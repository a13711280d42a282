package apiserver

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
)

// CreateJob returns obj, a batch Job, as kube-apiserver creates it under
// uid, or its refusal: the selector and pod labels the Job strategy
// generates on create unless the Job picks its selector by hand, then
// Kubernetes' own validation of a new Job (ValidateJob, with the options
// the strategy gives a create: prefixed labels required). The generation
// is restated from generateSelector (pkg/registry/batch/job/strategy.go),
// which is not exported: each of the two job-name and two controller-uid
// labels is added to the pod template unless it is there, and the
// selector gets batch.kubernetes.io/controller-uid unless it has it.
func CreateJob(obj map[string]any, uid string) (map[string]any, error) {
	gvk := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	if apiVersion, _ := obj["apiVersion"].(string); apiVersion != "batch/v1" {
		return nil, fmt.Errorf("CreateJob: %s is not a batch/v1 Job", apiVersion)
	}
	typed, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gvk, err)
	}
	scheme.Default(typed)
	internal, err := scheme.ConvertToVersion(typed, schema.GroupVersion{Group: "batch", Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, err
	}
	job, ok := internal.(*batch.Job)
	if !ok {
		return nil, fmt.Errorf("CreateJob: the internal version is %T", internal)
	}
	job.UID = types.UID(uid)
	if job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector {
		if job.Spec.Template.Labels == nil {
			job.Spec.Template.Labels = map[string]string{}
		}
		for label, value := range map[string]string{
			batch.LegacyJobNameLabel:       job.Name,
			batch.JobNameLabel:             job.Name,
			batch.LegacyControllerUidLabel: uid,
			batch.ControllerUidLabel:       uid,
		} {
			if _, found := job.Spec.Template.Labels[label]; !found {
				job.Spec.Template.Labels[label] = value
			}
		}
		if job.Spec.Selector == nil {
			job.Spec.Selector = &metav1.LabelSelector{}
		}
		if job.Spec.Selector.MatchLabels == nil {
			job.Spec.Selector.MatchLabels = map[string]string{}
		}
		if _, found := job.Spec.Selector.MatchLabels[batch.ControllerUidLabel]; !found {
			job.Spec.Selector.MatchLabels[batch.ControllerUidLabel] = uid
		}
	}
	opts := batchvalidation.JobValidationOptions{
		PodValidationOptions:  podutil.GetValidationOptionsFromPodTemplate(&job.Spec.Template, nil),
		RequirePrefixedLabels: true,
	}
	if errs := batchvalidation.ValidateJob(job, opts); len(errs) > 0 {
		return nil, fmt.Errorf("Job.batch %q is invalid: %v", job.Name, errs.ToAggregate())
	}
	back, err := scheme.ConvertToVersion(job, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	back.GetObjectKind().SetGroupVersionKind(gvk)
	out, err := json.Marshal(back)
	if err != nil {
		return nil, err
	}
	var result map[string]any
	if err := json.Unmarshal(out, &result); err != nil {
		return nil, err
	}
	return result, nil
}
