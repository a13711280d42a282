module garrison.dev/conformance/kubernetes-schemas

go 1.26
