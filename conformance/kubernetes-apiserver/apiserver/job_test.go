package apiserver

import (
	"strings"
	"testing"
)

const job = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi","namespace":"d"},
	"spec":{"template":{"metadata":{"labels":{"app":"pi"}},
	"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"perl"}]}}}}`

// A Job created under one uid is selected by it; created again under
// another (a member cluster creating what a hub's dry run answered) it is
// refused, as Kubernetes refuses a selector it did not generate.
func TestCreateJobGeneratesTheSelectorOfItsUID(t *testing.T) {
	created, err := CreateJob(decode(t, job), "uid-1")
	if err != nil {
		t.Fatal(err)
	}
	labels := at(created, "spec", "template", "metadata", "labels").(map[string]any)
	for _, key := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
		if labels[key] != "uid-1" {
			t.Errorf("%s: %v", key, labels[key])
		}
	}
	if got := at(created, "spec", "selector", "matchLabels", "batch.kubernetes.io/controller-uid"); got != "uid-1" {
		t.Errorf("selector %v", got)
	}
	_, err = CreateJob(created, "uid-2")
	if err == nil || !strings.Contains(err.Error(), "`selector` not auto-generated") {
		t.Errorf("created again under another uid: %v", err)
	}
}

// A Job that picks its selector by hand gets none generated.
func TestCreateJobLeavesAManualSelector(t *testing.T) {
	manual := strings.Replace(job, `"spec":{"template"`, `"spec":{"manualSelector":true,"selector":{"matchLabels":{"app":"pi"}},"template"`, 1)
	created, err := CreateJob(decode(t, manual), "uid-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateJob(created, "uid-2"); err != nil {
		t.Errorf("created again: %v", err)
	}
	if got := at(created, "spec", "template", "metadata", "labels", "controller-uid"); got != nil {
		t.Errorf("generated label %v", got)
	}
}
