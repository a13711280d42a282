// Command karmada-oracle answers, with Karmada's own code, what a Karmada
// control plane does with a set of clusters, policies and resource
// templates: which policy claims each template, where the scheduler puts it
// and with how many replicas, and the manifest each cluster's Work carries.
// See README.md.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	// Our own flag set: importing controller-runtime registers flags
	// (--kubeconfig) on the global one.
	flags := flag.NewFlagSet("karmada-oracle", flag.ExitOnError)
	jsonl := flags.Bool("jsonl", false, "read one case per line on stdin and write one answer per line, until EOF")
	emptyWorkloads := flags.Bool("enable-empty-workload-propagation", false,
		"as karmada-scheduler's flag of that name: a selected cluster whose share of a workload is zero replicas keeps the workload, with 0")
	verbose := flags.Bool("v", false, "let Karmada's logs through to stderr")
	_ = flags.Parse(os.Args[1:])

	quiet(*verbose)
	o, err := newOracle(*emptyWorkloads)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karmada-oracle: %v\n", err)
		os.Exit(2)
	}
	ctx := context.Background()
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)

	if !*jsonl {
		raw, err := io.ReadAll(in)
		if err != nil {
			fmt.Fprintf(os.Stderr, "karmada-oracle: %v\n", err)
			os.Exit(2)
		}
		write(out, o.run(ctx, raw))
		return
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			write(out, o.run(ctx, line))
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "karmada-oracle: %v\n", err)
			os.Exit(2)
		}
	}
}

// write prints one answer on one line and flushes, so that a caller
// waiting for it never deadlocks on a buffer.
func write(out *bufio.Writer, a *answer) {
	data, err := json.Marshal(a)
	if err != nil {
		data, _ = json.Marshal(&answer{Rejected: []rejection{}, Results: []result{}, Error: err.Error()})
	}
	_, _ = out.Write(data)
	_ = out.WriteByte('\n')
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "karmada-oracle: %v\n", err)
		os.Exit(2)
	}
}

// quiet keeps Karmada's and controller-runtime's logs off stdout (which
// carries the answers) and, unless asked, off stderr too: Karmada logs
// every reconcile at level 0.
func quiet(verbose bool) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if verbose {
		_ = fs.Set("logtostderr", "true")
		ctrllog.SetLogger(klog.NewKlogr())
		return
	}
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	ctrllog.SetLogger(logr.Discard())
}
