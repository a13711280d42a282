// Command kubernetes-apiserver answers, one JSON line per request, what a
// kube-apiserver stores for each object of the request (package apiserver):
//
//	{"store": [object...]}      -> {"objects": [object...], "known": [bool...]}
//	{"roundTrip": [object...]}  -> the same, typed encoding only
//
// An object the request cannot be answered for gives {"error": "..."}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"garrison.dev/conformance/kubernetes-apiserver/apiserver"
)

type request struct {
	Store     []map[string]any `json:"store"`
	RoundTrip []map[string]any `json:"roundTrip"`
}

type response struct {
	Objects []map[string]any `json:"objects,omitempty"`
	Known   []bool           `json:"known,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func answer(line []byte) response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: err.Error()}
	}
	pass, objects := apiserver.Store, req.Store
	if req.RoundTrip != nil {
		pass, objects = apiserver.RoundTrip, req.RoundTrip
	}
	resp := response{Objects: []map[string]any{}, Known: []bool{}}
	for i, obj := range objects {
		out, known, err := pass(obj)
		if err != nil {
			return response{Error: fmt.Sprintf("object %d: %v", i, err)}
		}
		resp.Objects = append(resp.Objects, out)
		resp.Known = append(resp.Known, known)
	}
	return resp
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		if err := enc.Encode(answer(in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
