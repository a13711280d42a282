package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestMatchIsAGlobWhereTheStarCrossesSlashes(t *testing.T) {
	for _, c := range []struct {
		pattern, key string
		want         bool
	}{
		{"pkg/detector/preemption.go:*", "pkg/detector/preemption.go:ResourceDetector.preemptPropagationPolicy", true},
		{"pkg/resourceinterpreter/*:*.Retain", "pkg/resourceinterpreter/default/native/default.go:DefaultInterpreter.Retain", true},
		{"pkg/resourceinterpreter/*:*.Retain", "pkg/resourceinterpreter/default/native/retain.go:retainPodFields", false},
		{"pkg/detector/detector.go:ResourceDetector.On*", "pkg/detector/detector.go:ResourceDetector.OnUpdate", true},
		{"pkg/detector/detector.go:ResourceDetector.On*", "pkg/detector/detector.go:ResourceDetector.Reconcile", false},
		{"exact.go:F", "exact.go:F", true},
		{"exact.go:F", "exact.go:FG", false},
	} {
		if got := match(c.pattern, c.key); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.key, got, c.want)
		}
	}
}

// A block listed by two runs is covered when either covered it, and its
// statements count once.
func TestReadProfileMergesRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profile.txt")
	text := "mode: set\n" +
		"m/p/a.go:10.2,12.3 2 0\n" +
		"m/p/a.go:10.2,12.3 2 1\n" +
		"m/p/a.go:14.2,15.3 1 0\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, err := readProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := blocks["m/p/a.go"]
	if len(got) != 2 || !got[0].covered || got[0].stmts != 2 || got[1].covered {
		t.Fatalf("blocks = %+v", got)
	}
}

func TestAClassesFileRefusesAnUnknownClass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "classes.txt")
	if err := os.WriteFile(path, []byte("package pkg/x\nsometimes pkg/x/a.go:F why\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readClasses(path); err == nil {
		t.Fatal("an unknown class was accepted")
	}
}

// The block after `if err != nil {` (a profile starts it at the brace) is
// an error branch; the block after another condition is not.
func TestOnErrorFindsTheBodiesOfErrorChecks(t *testing.T) {
	lines := []string{
		"\tif err := get(); err != nil {",
		"\tif ok {",
	}
	if !onError(lines, block{startLine: 1, startCol: 30}) {
		t.Error("the body of `if ...; err != nil {` is an error branch")
	}
	if onError(lines, block{startLine: 2, startCol: 7}) {
		t.Error("the body of `if ok {` is not")
	}
}

// The branches no offline input enters: an API call's error (unless the
// branch answers NotFound), a conflict, a gate off by default, and the
// case clauses an unentered rule names; nothing else.
func TestBranchesShutOnlyWhatNoRenderEnters(t *testing.T) {
	src := `package p

func f() error {
	obj, err := d.Client.Get(ctx, key)
	if err != nil {
		return err
	}
	if err := d.Client.Update(ctx, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if err := parse(obj); err != nil {
		return err
	}
	if apierrors.IsConflict(err) {
		retry()
	}
	if features.FeatureGate.Enabled(features.Off) && obj != nil {
		gated()
	}
	if features.FeatureGate.Enabled(features.On) {
		kept()
	}
	switch op {
	case configv1alpha1.InterpreterOperationRetain:
		return nil
	case configv1alpha1.InterpreterOperationInterpretReplica:
		return nil
	}
	return nil
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &classes{
		failing:   []*failing{{callee: regexp.MustCompile(`^(d\.Client\.(Get|Update))$`), why: "api"}},
		unentered: []*unentered{{class: live, function: "p/p.go:f", clause: regexp.MustCompile(`^(configv1alpha1\.InterpreterOperationRetain)$`), why: "retain"}},
		offGates:  map[string]bool{"Off": true},
	}
	var shut []string
	for _, b := range branches(fset, file, c, func(*ast.FuncDecl) string { return "p/p.go:f" }, nil, nil) {
		if !b.open {
			shut = append(shut, fmt.Sprintf("%d %s", b.start.Line, b.class))
		}
	}
	want := []string{"27 live", "5 live", "17 live", "20 gate"}
	if strings.Join(shut, ",") != strings.Join(want, ",") {
		t.Errorf("shut %v, want %v", shut, want)
	}
}
