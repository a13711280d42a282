"""Write one document per typed Karmada kind with every field of its API set.

garrison reads Karmada's kinds strictly (an unknown field is an error), so it
must declare every field Karmada's API has, or a valid policy would be
refused. These documents pin that down: `src/load/classify.rs` reads each one
and expects no unknown-field or type error.

Input: Karmada's generated CustomResourceDefinitions (the directory
`charts/karmada/_crds/bases` of a Karmada checkout or module). Every property
of `openAPIV3Schema` is given a value of its type: an enum's first value, the
minimum of a bounded number, one item per list, one entry per map. A few
string fields that garrison reads as enums get a value Karmada documents.

Usage: python3 kitchen_sink.py CRD_DIR OUT_DIR
"""

import pathlib
import sys

import yaml

KINDS = {
    "policy/policy.karmada.io_propagationpolicies.yaml": "propagationpolicy.yaml",
    "policy/policy.karmada.io_clusterpropagationpolicies.yaml": "clusterpropagationpolicy.yaml",
    "policy/policy.karmada.io_overridepolicies.yaml": "overridepolicy.yaml",
    "policy/policy.karmada.io_clusteroverridepolicies.yaml": "clusteroverridepolicy.yaml",
    "policy/policy.karmada.io_clustertaintpolicies.yaml": "clustertaintpolicy.yaml",
    "work/work.karmada.io_resourcebindings.yaml": "resourcebinding.yaml",
    "work/work.karmada.io_clusterresourcebindings.yaml": "clusterresourcebinding.yaml",
    "config/config.karmada.io_resourceinterpretercustomizations.yaml": "resourceinterpretercustomization.yaml",
    "autoscaling/autoscaling.karmada.io_federatedhpas.yaml": "federatedhpa.yaml",
}

# Free strings in the CRD that garrison reads as Kubernetes enums.
SAMPLES = {
    "operator": "Exists",
    "effect": "NoSchedule",
}


def sample(schema, name, path=()):
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties")
        if props:
            return {key: sample(value, key, path + (key,)) for key, value in sorted(props.items())}
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return {"key": sample(extra, "key", path + ("key",))}
        return {}
    if kind == "array":
        return [sample(schema.get("items", {}), name, path)]
    if kind == "integer":
        return max(int(schema.get("minimum", 1)), 1)
    if kind == "number":
        return 1
    if kind == "boolean":
        return True
    if kind == "string":
        if schema.get("format") == "date-time":
            return "2026-01-01T00:00:00Z"
        if name == "operator" and any(p.endswith("Conditions") for p in path):
            # A free string in the CRD; Karmada's controller acts on these two only.
            return "In"
        if name == "key" and "fieldSelector" in path:
            # Karmada's webhook accepts only these keys in a field selector.
            return "provider"
        return SAMPLES.get(name, "x")
    return {}


def main(crd_dir, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for source, target in KINDS.items():
        crd = yaml.safe_load(pathlib.Path(crd_dir, source).read_text())
        version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
        schema = version["schema"]["openAPIV3Schema"]
        document = {
            "apiVersion": f"{crd['spec']['group']}/{version['name']}",
            "kind": crd["spec"]["names"]["kind"],
            "metadata": {"name": "kitchen-sink"},
        }
        if crd["spec"]["scope"] == "Namespaced":
            document["metadata"]["namespace"] = "default"
        for key in ("spec", "status"):
            if key in schema.get("properties", {}):
                document[key] = sample(schema["properties"][key], key)
        header = f"# Every field of {document['kind']} ({document['apiVersion']}), from Karmada's CRD; see conformance/karmada-api.\n"
        (out / target).write_text(header + yaml.safe_dump(document, sort_keys=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
