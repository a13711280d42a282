// Command karmada-coverage reads the statement coverage the differential
// run left (a `go tool covdata textfmt` profile of the oracle built with
// `go build -cover`) and classifies every function of Karmada's deciding
// packages as an offline render can reach it or not, by the rules of
// classes.txt. It prints, or writes as Markdown, the table of
// docs/conformance.md, and fails when the reachable functions' statements
// are covered below -min percent.
//
//	karmada-coverage -profile cover.txt [-classes coverage/classes.txt]
//	                 [-table out.md] [-functions out.tsv] [-gaps out.txt] [-callees out.txt] [-shut out.txt] [-min 90]
//
// The profile names files by import path; their source is found with
// `go list` in the current module, so run it from conformance/karmada.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	profile := flag.String("profile", "", "the coverage profile (go tool covdata textfmt)")
	classesFile := flag.String("classes", "coverage/classes.txt", "the deciding packages and the rules that classify their functions")
	table := flag.String("table", "", "write the Markdown table here (default: print a summary)")
	functions := flag.String("functions", "", "write every function's class and coverage here, tab-separated")
	gaps := flag.String("gaps", "", "write the uncovered blocks of the reachable functions here, the largest gaps first")
	callees := flag.String("callees", "", "write the calls whose errors uncovered `if err != nil` branches of reachable functions check, with their statements, most first: where `failing` rules may apply")
	shutFile := flag.String("shut", "", "write every branch the transitive rule shuts (an `if err != nil` whose call fails only live), with the chain of calls that proves it, and the functions proved to fail only live")
	min := flag.Float64("min", 0, "fail when the reachable functions' statements are covered below this percentage")
	flag.Parse()
	if *profile == "" {
		fail(fmt.Errorf("-profile is required"))
	}
	classes, err := readClasses(*classesFile)
	if err != nil {
		fail(err)
	}
	blocks, err := readProfile(*profile)
	if err != nil {
		fail(err)
	}
	funcs, an, err := measure(classes, blocks)
	if err != nil {
		fail(err)
	}
	if err := classes.unused(); err != nil {
		fail(err)
	}
	rep := summarise(classes, funcs)
	if *table != "" {
		if err := os.WriteFile(*table, []byte(rep.markdown()), 0o644); err != nil {
			fail(err)
		}
	}
	if *functions != "" {
		if err := os.WriteFile(*functions, []byte(tsv(funcs)), 0o644); err != nil {
			fail(err)
		}
	}
	if *gaps != "" {
		if err := os.WriteFile(*gaps, []byte(gapList(funcs)), 0o644); err != nil {
			fail(err)
		}
	}
	if *callees != "" {
		if err := os.WriteFile(*callees, []byte(calleeList(funcs)), 0o644); err != nil {
			fail(err)
		}
	}
	if *shutFile != "" {
		if err := os.WriteFile(*shutFile, []byte(shutList(an, funcs)), 0o644); err != nil {
			fail(err)
		}
	}
	fmt.Print(rep.text())
	if rep.percent() < *min {
		fmt.Print(rep.leastCovered(40))
		fmt.Fprintf(os.Stderr, "karmada-coverage: the reachable functions' statements are %.1f %% covered, below the %.0f %% required\n", rep.percent(), *min)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "karmada-coverage: %v\n", err)
	os.Exit(2)
}
