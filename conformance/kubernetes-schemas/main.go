// Command kubernetes-schemas writes the built-in Kubernetes schemas garrison
// validates templates against (src/schema/kubernetes/v1.NN.json).
//
// For each Kubernetes release it reads the OpenAPI v3 documents Kubernetes
// publishes in its source tree (api/openapi-spec/v3, taken from the
// k8s.io/kubernetes module through the Go module proxy) and keeps what
// validation needs:
//
//   - every kind a client can create (a POST on a collection path that is
//     not a subresource), with its group, version and scope (namespaced when
//     the path has {namespace});
//   - the definitions those kinds reach, stripped to type, format,
//     properties, items, additionalProperties, required and $ref
//     (descriptions, defaults and patch hints dropped);
//   - `required`, except for properties whose zero value the API server
//     takes when they are absent (see zeroIsValid): booleans and numbers (a
//     CRD version's `storage`), and objects with no required field of their
//     own (a CSIDriver's `spec`); a missing string (a container's `name`) or
//     an object with required fields (a RoleBinding's `roleRef`) is refused;
//   - an object with neither properties nor additionalProperties (RawExtension,
//     FieldsV1) and a schema with no type at all (apiextensions JSON) are
//     free-form: `x-kubernetes-preserve-unknown-fields: true`;
//   - IntOrString (`format: int-or-string`) becomes
//     `x-kubernetes-int-or-string: true`, as CustomResourceDefinitions write it.
//
// Output is deterministic (sorted keys, sorted kinds).
//
// Usage: go run . -out ../../src/schema/kubernetes v1.33.13 v1.34.4 ...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type kind struct {
	Group      string `json:"group"`
	Version    string `json:"version"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
	Schema     string `json:"schema"`
}

type output struct {
	Kubernetes  string                    `json:"kubernetes"`
	Kinds       []kind                    `json:"kinds"`
	Definitions map[string]map[string]any `json:"definitions"`
}

const refPrefix = "#/components/schemas/"

// all holds every definition of the release being read.
var all map[string]map[string]any

func main() {
	out := flag.String("out", "", "directory to write v<major>.<minor>.json into")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: kubernetes-schemas -out DIR VERSION...")
		os.Exit(2)
	}
	for _, version := range flag.Args() {
		if err := generate(version, *out); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", version, err)
			os.Exit(1)
		}
	}
}

// moduleDir downloads k8s.io/kubernetes at version and returns its directory.
func moduleDir(version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+version)
	cmd.Stderr = os.Stderr
	text, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download: %w", err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(text, &info); err != nil {
		return "", err
	}
	return info.Dir, nil
}

func generate(version, outDir string) error {
	dir, err := moduleDir(version)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "api", "openapi-spec", "v3", "*.json"))
	if err != nil {
		return err
	}
	all = map[string]map[string]any{}
	kinds := map[string]kind{}
	for _, file := range files {
		var doc struct {
			Paths      map[string]map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		for name, schema := range doc.Components.Schemas {
			all[name] = schema
		}
		for path, operations := range doc.Paths {
			post, ok := operations["post"].(map[string]any)
			if !ok || post["x-kubernetes-action"] != "post" || isSubresource(path) {
				continue
			}
			gvk, ok := post["x-kubernetes-group-version-kind"].(map[string]any)
			if !ok {
				continue
			}
			ref := requestRef(post)
			if ref == "" {
				continue
			}
			k := kind{
				Group:      fmt.Sprint(gvk["group"]),
				Version:    fmt.Sprint(gvk["version"]),
				Kind:       fmt.Sprint(gvk["kind"]),
				Namespaced: strings.Contains(path, "{namespace}"),
				Schema:     ref,
			}
			id := k.Group + "/" + k.Version + "/" + k.Kind
			if previous, seen := kinds[id]; seen && previous.Namespaced != k.Namespaced {
				// A kind created both per namespace and cluster-wide would be
				// ambiguous; Kubernetes has none.
				return fmt.Errorf("kind %s has both scopes", id)
			}
			kinds[id] = k
		}
	}
	result := output{Kubernetes: version, Definitions: map[string]map[string]any{}}
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := result.Definitions[name]; done {
			return nil
		}
		schema, ok := all[name]
		if !ok {
			return fmt.Errorf("definition %s is referenced but not published", name)
		}
		refs := map[string]bool{}
		result.Definitions[name] = compact(schema, refs)
		names := make([]string, 0, len(refs))
		for ref := range refs {
			names = append(names, ref)
		}
		sort.Strings(names)
		for _, ref := range names {
			if err := visit(ref); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range kinds {
		result.Kinds = append(result.Kinds, k)
		if err := visit(k.Schema); err != nil {
			return err
		}
	}
	sort.Slice(result.Kinds, func(i, j int) bool {
		a, b := result.Kinds[i], result.Kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	text, err := json.Marshal(result)
	if err != nil {
		return err
	}
	minor := strings.Join(strings.Split(strings.TrimPrefix(version, "v"), ".")[:2], ".")
	target := filepath.Join(outDir, "v"+minor+".json")
	return os.WriteFile(target, append(text, '\n'), 0o644)
}

// isSubresource reports a path below an object's name (/status, /scale, /eviction).
func isSubresource(path string) bool {
	i := strings.LastIndex(path, "{name}")
	return i >= 0 && len(path) > i+len("{name}")
}

func requestRef(post map[string]any) string {
	body, _ := post["requestBody"].(map[string]any)
	content, _ := body["content"].(map[string]any)
	media, _ := content["*/*"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	ref, _ := schema["$ref"].(string)
	return strings.TrimPrefix(ref, refPrefix)
}

// zeroIsValid reports a required property whose zero value the API server
// takes when it is absent: a boolean or a number (it decodes as false or 0),
// or an object none of whose own fields is required (it decodes as the
// empty struct, which the server then defaults: a CSIDriver's `spec`).
func zeroIsValid(property map[string]any, all map[string]map[string]any) bool {
	switch property["default"].(type) {
	case bool, float64:
		return true
	case map[string]any:
		target := property
		if allOf, ok := property["allOf"].([]any); ok && len(allOf) == 1 {
			target, _ = allOf[0].(map[string]any)
		}
		if ref, ok := target["$ref"].(string); ok {
			target = all[strings.TrimPrefix(ref, refPrefix)]
		}
		required, _ := target["required"].([]any)
		return len(required) == 0
	}
	return false
}

// compact keeps what validation reads, recording the definitions it refers to.
func compact(schema map[string]any, refs map[string]bool) map[string]any {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, refPrefix)
		refs[name] = true
		return map[string]any{"$ref": name}
	}
	if allOf, ok := schema["allOf"].([]any); ok && len(allOf) == 1 {
		if inner, ok := allOf[0].(map[string]any); ok {
			return compact(inner, refs)
		}
	}
	result := map[string]any{}
	if schema["format"] == "int-or-string" {
		result["x-kubernetes-int-or-string"] = true
		return result
	}
	if oneOf, ok := schema["oneOf"].([]any); ok {
		var branches []any
		for _, branch := range oneOf {
			if b, ok := branch.(map[string]any); ok {
				branches = append(branches, compact(b, refs))
			}
		}
		result["oneOf"] = branches
		return result
	}
	for _, key := range []string{"type", "format"} {
		if value, ok := schema[key]; ok {
			result[key] = value
		}
	}
	properties, hasProperties := schema["properties"].(map[string]any)
	if hasProperties {
		compacted := map[string]any{}
		for name, property := range properties {
			if p, ok := property.(map[string]any); ok {
				compacted[name] = compact(p, refs)
			}
		}
		result["properties"] = compacted
		if required, ok := schema["required"].([]any); ok {
			var kept []any
			for _, name := range required {
				p, _ := properties[fmt.Sprint(name)].(map[string]any)
				if zeroIsValid(p, all) {
					continue
				}
				kept = append(kept, name)
			}
			if len(kept) > 0 {
				result["required"] = kept
			}
		}
	}
	additional, hasAdditional := schema["additionalProperties"]
	switch a := additional.(type) {
	case map[string]any:
		result["additionalProperties"] = compact(a, refs)
	case bool:
		result["additionalProperties"] = a
	}
	if items, ok := schema["items"].(map[string]any); ok {
		result["items"] = compact(items, refs)
	}
	_, typed := schema["type"]
	if (schema["type"] == "object" && !hasProperties && !hasAdditional) || (!typed && len(result) == 0) {
		result["x-kubernetes-preserve-unknown-fields"] = true
	}
	return result
}
