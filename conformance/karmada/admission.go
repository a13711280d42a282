package main

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/webhook/clusteroverridepolicy"
	"github.com/karmada-io/karmada/pkg/webhook/clusterpropagationpolicy"
	"github.com/karmada-io/karmada/pkg/webhook/clusterresourcebinding"
	"github.com/karmada-io/karmada/pkg/webhook/overridepolicy"
	"github.com/karmada-io/karmada/pkg/webhook/propagationpolicy"
	"github.com/karmada-io/karmada/pkg/webhook/resourcebinding"
	"github.com/karmada-io/karmada/pkg/webhook/resourceinterpretercustomization"
	"github.com/karmada-io/karmada/pkg/webhook/work"
)

// webhooks are karmada-webhook's admission handlers for the kinds a case
// creates, called in-process with the AdmissionRequest the API server would
// send (artifacts/deploy/webhook-configuration.yaml lists which kind has
// which). The RIC validator lists the RICs already admitted, so it needs the
// case's client; it is bound per case in admit.
type webhooks struct {
	decoder admission.Decoder
}

func newWebhooks(scheme *runtime.Scheme) *webhooks {
	return &webhooks{decoder: admission.NewDecoder(scheme)}
}

func (w *webhooks) mutating(kind string) admission.Handler {
	switch kind {
	case "PropagationPolicy":
		return &propagationpolicy.MutatingAdmission{Decoder: w.decoder}
	case "ClusterPropagationPolicy":
		return &clusterpropagationpolicy.MutatingAdmission{Decoder: w.decoder}
	case "OverridePolicy":
		return &overridepolicy.MutatingAdmission{Decoder: w.decoder}
	case "ResourceBinding":
		return &resourcebinding.MutatingAdmission{Decoder: w.decoder}
	case "ClusterResourceBinding":
		return &clusterresourcebinding.MutatingAdmission{Decoder: w.decoder}
	case "Work":
		return &work.MutatingAdmission{Decoder: w.decoder}
	}
	return nil
}

func (w *webhooks) validating(kind string, c client.Client) admission.Handler {
	switch kind {
	case "PropagationPolicy":
		return &propagationpolicy.ValidatingAdmission{Decoder: w.decoder}
	case "ClusterPropagationPolicy":
		return &clusterpropagationpolicy.ValidatingAdmission{Decoder: w.decoder}
	case "OverridePolicy":
		return &overridepolicy.ValidatingAdmission{Decoder: w.decoder}
	case "ClusterOverridePolicy":
		return &clusteroverridepolicy.ValidatingAdmission{Decoder: w.decoder}
	case "ResourceInterpreterCustomization":
		return &resourceinterpretercustomization.ValidatingAdmission{Client: c, Decoder: w.decoder}
	}
	// The ResourceBinding validator is called on the bindings Karmada
	// writes (mutateOnWrite), not on a case's objects.
	return nil
}

// admit runs what the API server does with a create request for one of
// Karmada's own kinds (an update when old, the stored object, is given):
// CRD defaults, the mutating webhook, the permanent-id label made
// deterministic, CRD defaults again (the API server decodes the webhook's
// result with defaulting), then the validating webhook. It returns the
// admitted object, or the validating webhook's reason for refusing it.
func (w *webhooks) admit(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, obj, old map[string]any) (map[string]any, string, error) {
	kind := gvk.Kind
	applyCRDDefaults(kind, obj)
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, "", err
	}
	meta := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID(stableID("admission", kind, namespace, name)),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name:      name,
		Namespace: namespace,
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
	}}
	if old != nil {
		oldRaw, err := json.Marshal(old)
		if err != nil {
			return nil, "", err
		}
		req.Operation = admissionv1.Update
		req.OldObject = runtime.RawExtension{Raw: oldRaw}
	}
	if h := w.mutating(kind); h != nil {
		resp := h.Handle(ctx, req)
		if !resp.Allowed {
			return nil, responseReason(resp), nil
		}
		if raw, err = applyPatches(raw, resp); err != nil {
			return nil, "", fmt.Errorf("%s webhook patch: %w", kind, err)
		}
		obj = map[string]any{}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, "", err
		}
	}
	setPermanentID(kind, obj)
	applyCRDDefaults(kind, obj)
	if raw, err = json.Marshal(obj); err != nil {
		return nil, "", err
	}
	req.Object = runtime.RawExtension{Raw: raw}
	if h := w.validating(kind, c); h != nil {
		resp := h.Handle(ctx, req)
		if !resp.Allowed {
			return nil, responseReason(resp), nil
		}
	}
	return obj, "", nil
}

// permanentIDLabels are the labels Karmada's mutating webhooks fill with a
// random UUID (uuid.New()) on create; the oracle replaces that value with
// permanentID(kind, namespace, name).
var permanentIDLabels = map[string]string{
	"PropagationPolicy":        "propagationpolicy.karmada.io/permanent-id",
	"ClusterPropagationPolicy": "clusterpropagationpolicy.karmada.io/permanent-id",
	"ResourceBinding":          workv1alpha2.ResourceBindingPermanentIDLabel,
	"ClusterResourceBinding":   workv1alpha2.ClusterResourceBindingPermanentIDLabel,
	"Work":                     workv1alpha2.WorkPermanentIDLabel,
}

func setPermanentID(kind string, obj map[string]any) {
	key, ok := permanentIDLabels[kind]
	if !ok {
		return
	}
	meta := obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil || labels[key] == nil {
		return // the webhook did not set one (it is not this kind's create path)
	}
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	labels[key] = permanentID(kind, namespace, name)
}

// replaceMintedID replaces the permanent id (label key) a mutating webhook
// minted for the object content of kind with permanentID, and, for a
// Work, the same value wherever the webhook copied it into the labels of
// a manifest (SetLabelsAndAnnotationsForWorkload).
func replaceMintedID(kind, key string, content map[string]any) {
	meta, _ := content["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	minted, _ := labels[key].(string)
	if minted == "" {
		return
	}
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	id := permanentID(kind, namespace, name)
	labels[key] = id
	spec, _ := content["spec"].(map[string]any)
	workload, _ := spec["workload"].(map[string]any)
	manifests, _ := workload["manifests"].([]any)
	for _, manifest := range manifests {
		m, _ := manifest.(map[string]any)
		mmeta, _ := m["metadata"].(map[string]any)
		mlabels, _ := mmeta["labels"].(map[string]any)
		if value, _ := mlabels[key].(string); value == minted {
			mlabels[key] = id
		}
	}
}

func applyPatches(raw []byte, resp admission.Response) ([]byte, error) {
	if len(resp.Patches) == 0 {
		return raw, nil
	}
	ops, err := json.Marshal(resp.Patches)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	return patch.Apply(raw)
}

func responseReason(resp admission.Response) string {
	if resp.Result != nil && resp.Result.Message != "" {
		return resp.Result.Message
	}
	if resp.Result != nil {
		return string(resp.Result.Reason)
	}
	return "denied"
}

// mutateOnWrite runs, inside the case's fake client, the webhooks that
// karmada-webhook registers for objects Karmada's controllers write:
// ResourceBinding and ClusterResourceBinding on create (a permanent-id
// label; a ResourceBinding's create and update, old being the stored one,
// are validated too), Work on create and update (a permanent-id label, pruning, and the
// managed-labels/annotations bookkeeping of the manifest). CRD defaults are
// applied around them as the API server would. A create without a
// permanent id gets the random one the webhook mints, which is then
// replaced with permanentID, in the object and (for a Work) in the
// manifests the webhook copied it into; one already there is kept.
func (w *webhooks) mutateOnWrite(ctx context.Context, obj, old client.Object, gvk schema.GroupVersionKind, create bool) error {
	kind := gvk.Kind
	switch kind {
	case "ResourceBinding", "ClusterResourceBinding":
		if !create {
			if old == nil {
				return nil
			}
			return w.validateBindingUpdate(ctx, obj, old, gvk)
		}
	case "Work":
	default:
		return nil
	}
	key := permanentIDLabels[kind]
	minting := util.GetLabelValue(obj.GetLabels(), key) == ""
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	content["apiVersion"] = gvk.GroupVersion().String()
	content["kind"] = kind
	applyCRDDefaults(kind, content)
	raw, err := json.Marshal(content)
	if err != nil {
		return err
	}
	op := admissionv1.Update
	if create {
		op = admissionv1.Create
	}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID(stableID("admission", kind, obj.GetNamespace(), obj.GetName())),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: kind},
		Name:      obj.GetName(),
		Namespace: obj.GetNamespace(),
		Operation: op,
		Object:    runtime.RawExtension{Raw: raw},
	}}
	resp := w.mutating(kind).Handle(ctx, req)
	if !resp.Allowed {
		return fmt.Errorf("%s webhook denied %s/%s: %s", kind, obj.GetNamespace(), obj.GetName(), responseReason(resp))
	}
	if raw, err = applyPatches(raw, resp); err != nil {
		return err
	}
	content = map[string]any{}
	if err := json.Unmarshal(raw, &content); err != nil {
		return err
	}
	if minting {
		replaceMintedID(kind, key, content)
	}
	applyCRDDefaults(kind, content)
	raw, err = json.Marshal(content)
	if err != nil {
		return err
	}
	// A ResourceBinding's create goes on to karmada-webhook's validator
	// (validate-resourcebinding): the dependencies annotation must be
	// JSON; its quota and components checks are behind gates that are off
	// by default.
	if kind == "ResourceBinding" && create {
		req.Object = runtime.RawExtension{Raw: raw}
		validator := &resourcebinding.ValidatingAdmission{Decoder: w.decoder}
		if resp := validator.Handle(ctx, req); !resp.Allowed {
			return fmt.Errorf("%s webhook denied %s/%s: %s", kind, obj.GetNamespace(), obj.GetName(), responseReason(resp))
		}
	}
	// Decode back into the caller's typed object, as the API server's answer would.
	switch o := obj.(type) {
	case *workv1alpha2.ResourceBinding:
		*o = workv1alpha2.ResourceBinding{}
	case *workv1alpha2.ClusterResourceBinding:
		*o = workv1alpha2.ClusterResourceBinding{}
	case *workv1alpha1.Work:
		*o = workv1alpha1.Work{}
	}
	return json.Unmarshal(raw, obj)
}

// validateBindingUpdate is karmada-webhook's ResourceBinding validator on a
// controller's update (the distributor recording a binding's dependencies
// in its annotation, the scheduler writing its result): the request holds
// the object as written and the one stored.
func (w *webhooks) validateBindingUpdate(ctx context.Context, obj, old client.Object, gvk schema.GroupVersionKind) error {
	raw := func(o client.Object) ([]byte, error) {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, err
		}
		content["apiVersion"] = gvk.GroupVersion().String()
		content["kind"] = gvk.Kind
		applyCRDDefaults(gvk.Kind, content)
		return json.Marshal(content)
	}
	object, err := raw(obj)
	if err != nil {
		return err
	}
	stored, err := raw(old)
	if err != nil {
		return err
	}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID(stableID("admission", gvk.Kind, obj.GetNamespace(), obj.GetName())),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name:      obj.GetName(),
		Namespace: obj.GetNamespace(),
		Operation: admissionv1.Update,
		Object:    runtime.RawExtension{Raw: object},
		OldObject: runtime.RawExtension{Raw: stored},
	}}
	validator := &resourcebinding.ValidatingAdmission{Decoder: w.decoder}
	if resp := validator.Handle(ctx, req); !resp.Allowed {
		return fmt.Errorf("%s webhook denied %s/%s: %s", gvk.Kind, obj.GetNamespace(), obj.GetName(), responseReason(resp))
	}
	return nil
}
