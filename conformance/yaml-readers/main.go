// Command yaml-readers reads YAML documents with the Go readers that consume
// garrison's output, and prints what each read as JSON.
//
//   - "kubectl": sigs.k8s.io/yaml's YAMLToJSON, the YAML 1.1 reader kubectl,
//     the API machinery and Argo CD use (go-yaml v2 underneath);
//   - "v2": gopkg.in/yaml.v2, the original go-yaml v2 (YAML 1.1), which older
//     kubectl builds and many operators read with;
//   - "v3": gopkg.in/yaml.v3 (YAML 1.2, mostly), the parser kustomize's kyaml
//     is built on.
//
// Input on stdin: one JSON array of YAML documents (strings). Output on
// stdout: one JSON array with, for each document in order, an object with a
// key per reader: {"value": <what it read>} or {"error": "<message>"}. A
// mapping key that is not a string is an error: garrison writes only string
// keys, so a reader that reads another type has misread one.
//
// One process answers every case, so a test pays Go's start-up once.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	yamlv2 "gopkg.in/yaml.v2"
	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

type answer struct {
	Value any    `json:"value"`
	Error string `json:"error,omitempty"`
}

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	var documents []string
	if err := json.Unmarshal(input, &documents); err != nil {
		fail("stdin is not a JSON array of strings: %v", err)
	}
	answers := make([]map[string]answer, 0, len(documents))
	for _, document := range documents {
		answers = append(answers, map[string]answer{
			"kubectl": readKubectl(document),
			"v2":      readWith(document, yamlv2.Unmarshal),
			"v3":      readWith(document, yamlv3.Unmarshal),
		})
	}
	out, err := json.Marshal(answers)
	if err != nil {
		fail("writing the answers: %v", err)
	}
	os.Stdout.Write(append(out, '\n'))
}

func readKubectl(document string) answer {
	text, err := yaml.YAMLToJSON([]byte(document))
	if err != nil {
		return answer{Error: err.Error()}
	}
	var value any
	if err := json.Unmarshal(text, &value); err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Value: value}
}

func readWith(document string, unmarshal func([]byte, any) error) answer {
	var value any
	if err := unmarshal([]byte(document), &value); err != nil {
		return answer{Error: err.Error()}
	}
	plain, err := jsonable(value)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Value: plain}
}

// jsonable turns go-yaml's maps (map[interface{}]interface{} in v2) into
// JSON objects, refusing any key that is not a string.
func jsonable(value any) (any, error) {
	switch v := value.(type) {
	case map[any]any:
		out := make(map[string]any, len(v))
		for key, item := range v {
			name, ok := key.(string)
			if !ok {
				return nil, fmt.Errorf("mapping key %#v read as %T, not a string", key, key)
			}
			converted, err := jsonable(item)
			if err != nil {
				return nil, err
			}
			out[name] = converted
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for name, item := range v {
			converted, err := jsonable(item)
			if err != nil {
				return nil, err
			}
			out[name] = converted
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			converted, err := jsonable(item)
			if err != nil {
				return nil, err
			}
			out[i] = converted
		}
		return out, nil
	case string, bool, int, int64, uint64, float64, nil:
		return v, nil
	default:
		return nil, fmt.Errorf("value %#v read as %T", v, v)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "yaml-readers: "+format+"\n", args...)
	os.Exit(1)
}
