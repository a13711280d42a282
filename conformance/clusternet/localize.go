package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
	jsoniterator "github.com/json-iterator/go"
	"helm.sh/helm/v3/pkg/chartutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// Override types and field formats (pkg/apis/apps/v1alpha1/localization.go).
const (
	helmType            = "Helm"
	jsonPatchType       = "JSONPatch"
	mergePatchType      = "MergePatch"
	fieldJSONPatchType  = "FieldJSONPatch"
	fieldMergePatchType = "FieldMergePatch"
	yamlFormat          = "YAML"
	jsonFormat          = "JSON"

	// maxJSONPatchOperations is patch.go's limit.
	maxJSONPatchOperations = 10000
	// fieldIndent is how a field patch re-serializes JSON.
	fieldIndent = "    "
)

// builtinOverrides end every list of overrides: the localizer removes
// these fields from whatever it produces (localizer.go,
// defaultOverrideConfigs).
var builtinOverrides = []overrideConfig{
	{Name: "ignore-metadata-managedFields", Value: `[{"path":"/metadata/managedFields","op":"remove"}]`, Type: jsonPatchType},
	{Name: "ignore-metadata-uid", Value: `[{"path":"/metadata/uid","op":"remove"}]`, Type: jsonPatchType},
	{Name: "ignore-status", Value: `[{"path":"/status","op":"remove"}]`, Type: jsonPatchType},
}

// overridesFor lists the overrides for one object of a Description in the
// dedicated namespace ns, in the order the localizer applies them
// (localizer.go, getOverrides): the Globalizations of the object's feed
// (those with a cluster affinity only if some ManagedCluster of ns
// matches it), by priority; then the Localizations of the feed in ns, by
// priority; then the division's, last (see divisionOverrides).
//
// A Localization or Globalization is "of the feed" when the controller
// labelled it with the object's Manifest: its own feed selects that
// Manifest. Clusternet breaks equal priorities by the seconds of the
// creation time over the lister's order; the oracle by name (decision P13).
func (c *caseState) overridesFor(ns string, m *manifest, extra []overrideConfig) ([]overrideConfig, error) {
	var globs []*override
	for _, g := range c.globalizations {
		if !c.selects(g.Spec.Feed, m) {
			continue
		}
		if g.Spec.ClusterAffinity != nil {
			selector, err := metav1.LabelSelectorAsSelector(g.Spec.ClusterAffinity)
			if err != nil {
				return nil, err
			}
			matched := false
			for _, mc := range c.clusters {
				if mc.Namespace == ns && selector.Matches(labels.Set(mc.Labels)) {
					matched = true
					break
				}
			}
			if !matched {
				continue
			}
		}
		globs = append(globs, g)
	}
	var locs []*override
	for _, l := range c.localizations {
		if l.Namespace == ns && c.selects(l.Spec.Feed, m) {
			locs = append(locs, l)
		}
	}
	byPriority := func(list []*override) {
		sort.SliceStable(list, func(i, j int) bool {
			if *list[i].Spec.Priority == *list[j].Spec.Priority {
				return list[i].Name < list[j].Name
			}
			return *list[i].Spec.Priority < *list[j].Spec.Priority
		})
	}
	byPriority(globs)
	byPriority(locs)

	var all []overrideConfig
	for _, list := range [][]*override{globs, locs} {
		for _, o := range list {
			if o.DeletionTimestamp != nil {
				continue
			}
			all = append(all, o.Spec.Overrides...)
		}
	}
	return append(all, extra...), nil
}

// selects tells whether the controllers label an override of feed f with
// the Manifest the localizer looks up for m: the first Manifest that m's
// own feed selects.
func (c *caseState) selects(f feed, m *manifest) bool {
	own, err := c.manifestsFor(feed{APIVersion: apiVersion(m.group, m.version), Kind: m.kind, Namespace: m.namespace, Name: m.name})
	if err != nil || len(own) == 0 {
		return false
	}
	target := own[0]
	ms, err := c.manifestsFor(f)
	if err != nil {
		return false
	}
	for _, x := range ms {
		if x == target {
			return true
		}
	}
	return false
}

func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// applyOverrides applies overrides to an object as the localizer's
// applyOverrides does for a generic (non-chart) object (patch.go), the
// built-in removals last.
func applyOverrides(original []byte, overrides []overrideConfig) ([]byte, error) {
	overrides = append(append([]overrideConfig{}, overrides...), builtinOverrides...)
	result := original
	var chartResult []byte
	for _, o := range overrides {
		if strings.TrimSpace(o.Value) == "" {
			continue
		}
		patch, err := yaml.YAMLToJSON([]byte(o.Value))
		if err != nil {
			return nil, fmt.Errorf("failed to convert patch %s to JSON: %v", o.Value, err)
		}
		if o.OverrideChart {
			// Meant for a HelmChart: on a generic object, the first one
			// becomes the (unused) chart result, and a later one would
			// merge into it.
			if strings.TrimSpace(string(chartResult)) == "" {
				chartResult = patch
				continue
			}
		} else if strings.TrimSpace(string(result)) == "" && o.Type != jsonPatchType {
			result = patch
			continue
		}
		switch o.Type {
		case helmType:
			if !o.OverrideChart {
				if result, err = applyHelmValuesOverride(result, patch); err != nil {
					return nil, fmt.Errorf("failed to apply OverrideConfig %s: %v", o.Name, err)
				}
				break
			}
			if chartResult, err = jsonpatch.MergePatch(chartResult, patch); err != nil {
				return nil, fmt.Errorf("failed to apply OverrideConfig %s: %v", o.Name, err)
			}
		case jsonPatchType:
			if result, err = applyJSONPatch(result, patch, ""); err != nil {
				return nil, fmt.Errorf("failed to apply OverrideConfig %s: %v", o.Name, err)
			}
		case mergePatchType:
			if result, err = jsonpatch.MergePatch(result, patch); err != nil {
				return nil, fmt.Errorf("failed to apply OverrideConfig %s: %v", o.Name, err)
			}
		case fieldJSONPatchType, fieldMergePatchType:
			if result, err = applyFieldPatch(result, o, patch); err != nil {
				return nil, fmt.Errorf("failed to apply OverrideConfig %s: %v", o.Name, err)
			}
		default:
			return nil, fmt.Errorf("unsupported OverrideType %s", o.Type)
		}
	}
	return result, nil
}

// jsoniter is Clusternet's JSON (pkg/utils/json.go).
var jsoniter = jsoniterator.ConfigCompatibleWithStandardLibrary

// applyHelmValuesOverride is the localizer's applyHelmValuesOverride
// (v0.18.0, patch.go): the object and the override read as maps by
// Clusternet's JSON functions (json-iterator, compatible with the standard
// library), coalesced as Helm coalesces values (chartutil.CoalesceTables,
// Helm v3.15.2, the override first: it wins), written again.
func applyHelmValuesOverride(current, override []byte) ([]byte, error) {
	object := map[string]interface{}{}
	if err := jsoniter.Unmarshal(current, &object); err != nil {
		return nil, err
	}
	var values map[string]interface{}
	if err := jsoniter.Unmarshal(override, &values); err != nil {
		return nil, err
	}
	return jsoniter.Marshal(chartutil.CoalesceTables(values, object))
}

// applyJSONPatch applies an RFC 6902 patch. A patch that meets a missing
// path leaves the document as it was, silently; any other failure is an
// error.
func applyJSONPatch(doc, patch []byte, indent string) ([]byte, error) {
	if strings.TrimSpace(string(doc)) == "" {
		return doc, nil
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	if len(p) > maxJSONPatchOperations {
		return nil, fmt.Errorf("the allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p))
	}
	out, err := p.ApplyIndent(doc, indent)
	if err == nil {
		return out, nil
	}
	if errors.Is(err, jsonpatch.ErrMissing) {
		return doc, nil
	}
	return nil, err
}

// applyFieldPatch patches a string field that holds a JSON or YAML
// document: the field is read, parsed in its format, patched (JSON patch
// or merge patch), written back in its format, and put in place with a
// JSON patch "replace". An empty field is left alone.
func applyFieldPatch(doc []byte, o overrideConfig, patch []byte) ([]byte, error) {
	value, err := stringField(doc, o.FieldPath)
	if err != nil {
		return nil, err
	}
	if value == "" {
		return doc, nil
	}
	var patched []byte
	switch o.FieldFormat {
	case jsonFormat:
		if o.Type == fieldJSONPatchType {
			patched, err = applyJSONPatch([]byte(value), patch, fieldIndent)
		} else {
			patched, err = mergeAndIndent([]byte(value), patch)
		}
		if err != nil {
			return nil, err
		}
	case yamlFormat:
		asJSON, err := yaml.YAMLToJSON([]byte(value))
		if err != nil {
			return nil, fmt.Errorf("failed to convert patch %s to JSON: %v", doc, err)
		}
		var out []byte
		if o.Type == fieldJSONPatchType {
			out, err = applyJSONPatch(asJSON, patch, fieldIndent)
		} else {
			out, err = jsonpatch.MergePatch(asJSON, patch)
		}
		if err != nil {
			return nil, err
		}
		if patched, err = yaml.JSONToYAML(out); err != nil {
			return nil, fmt.Errorf("failed to convert json %s to yaml, error: %v", string(out), err)
		}
	default:
		return nil, fmt.Errorf("unsupported FieldFormatType %s", o.FieldFormat)
	}
	replace, err := json.Marshal([]map[string]string{{"op": "replace", "path": o.FieldPath, "value": string(patched)}})
	if err != nil {
		return nil, err
	}
	return applyJSONPatch(doc, replace, "")
}

// mergeAndIndent merge-patches a JSON object and writes it again with the
// field indent, through a map (keys sorted, numbers as float64).
func mergeAndIndent(value, patch []byte) ([]byte, error) {
	merged, err := jsonpatch.MergePatch(value, patch)
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(merged, &obj); err != nil {
		return nil, fmt.Errorf("failed to unmarshal %s to json, error: %v", string(merged), err)
	}
	out, err := json.MarshalIndent(obj, "", fieldIndent)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal %v to json, error: %v", obj, err)
	}
	return out, nil
}

// stringField reads the string at a field path: "/"-separated segments,
// taken literally (no "~" escapes), a number indexing an array. Anything
// but a string there is an error.
func stringField(doc []byte, path string) (string, error) {
	var cur interface{}
	var obj map[string]interface{}
	if err := json.Unmarshal(doc, &obj); err != nil {
		return "", fmt.Errorf("failed to unmarshal %s to json, error: %v", doc, err)
	}
	cur = obj
	segments := strings.Split(path, "/")
	if len(segments) < 2 {
		return "", fmt.Errorf("invalid fieldPath %s, should start with /", path)
	}
	for _, s := range segments[1:] {
		switch v := cur.(type) {
		case map[string]interface{}:
			cur = v[s]
		case []interface{}:
			i, err := strconv.Atoi(s)
			if err != nil {
				return "", fmt.Errorf("object is a array, but convert field %s to number, error: %v", s, err)
			}
			if i < 0 || i >= len(v) {
				cur = nil
			} else {
				cur = v[i]
			}
		default:
			return "", fmt.Errorf("object is not a string or array, cannot index by field %s", s)
		}
	}
	str, ok := cur.(string)
	if !ok {
		return "", fmt.Errorf("field value index by path %s is not a string", path)
	}
	return str, nil
}
