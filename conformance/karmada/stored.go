package main

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"garrison.dev/conformance/kubernetes-apiserver/apiserver"
)

// storeTemplate is what karmada-apiserver, a kube-apiserver, keeps of a
// template a user creates (SPEC §10, "The API server stage"), before any
// Karmada controller reads it: a built-in kind decoded into its served
// version's Go type, defaulted by Kubernetes' own defaulters, converted
// and encoded again (package apiserver of ../kubernetes-apiserver). A
// custom resource is kept as written (its CRD, with its defaults and
// schema, is not part of a case). The result is read back as a dynamic
// informer reads it (integers stay int64).
//
// An error is a template the API server cannot decode (a field of the
// wrong type): the create is refused.
func storeTemplate(t *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	stored, known, err := apiserver.Store(t.Object)
	if err != nil {
		return nil, err
	}
	if !known {
		return t, nil
	}
	raw, err := json.Marshal(stored)
	if err != nil {
		return nil, fmt.Errorf("encoding the stored template: %w", err)
	}
	return decode(raw)
}
