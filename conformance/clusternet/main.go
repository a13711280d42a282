// Command clusternet-oracle answers what a Clusternet hub delivers for a
// set of ManagedClusters, Subscriptions, Localizations, Globalizations and
// feed objects: which clusters each Subscription binds, with how many
// replicas per feed, and the objects each cluster receives after
// overrides. See README.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	flags := flag.NewFlagSet("clusternet-oracle", flag.ExitOnError)
	jsonl := flags.Bool("jsonl", false, "read one case per line on stdin and write one answer per line, until EOF")
	flags.BoolVar(&fieldPatches, "field-patches", false,
		"the FieldJSONPatch and FieldMergePatch override types of Clusternet after v0.18.1 (v0.18.0 refuses them)")
	_ = flags.Parse(os.Args[1:])

	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	if !*jsonl {
		raw, err := io.ReadAll(in)
		if err != nil {
			fmt.Fprintf(os.Stderr, "clusternet-oracle: %v\n", err)
			os.Exit(2)
		}
		write(out, run(raw))
		return
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			write(out, run(line))
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "clusternet-oracle: %v\n", err)
			os.Exit(2)
		}
	}
}

// write prints one answer on one line and flushes, so that a caller
// waiting for it never deadlocks on a buffer.
func write(out *bufio.Writer, a *answer) {
	data, err := json.Marshal(a)
	if err != nil {
		data, _ = json.Marshal(failed(a.Name, err.Error()))
	}
	_, _ = out.Write(data)
	_ = out.WriteByte('\n')
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "clusternet-oracle: %v\n", err)
		os.Exit(2)
	}
}
