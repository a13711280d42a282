package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// transitive parses files (import path -> source) as deciding packages,
// runs the transitive rule to its fixed point and returns, for every file,
// the `if err != nil` branches it shuts ("path:line callee") and the ones
// left counted ("path:line open callee").
func transitive(t *testing.T, files map[string]string) (shut, open []string, a *analysis) {
	t.Helper()
	fset := token.NewFileSet()
	c := &classes{
		file: "classes.txt",
		failing: []*failing{
			{line: 1, callee: regexp.MustCompile(`^([a-z]+\.Client\.(Get|List|Create|Update|Patch|Delete))$`), why: "api"},
			{line: 2, callee: regexp.MustCompile(`^(controllerutil\.CreateOrUpdate)$`), why: "write"},
		},
		offGates: map[string]bool{"Off": true},
	}
	a = newAnalysis(fset, c)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var srcs []*source
	for _, p := range paths {
		file, err := parser.ParseFile(fset, p, files[p], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		dir := p[:strings.LastIndex(p, "/")]
		srcs = append(srcs, a.add("m/"+dir, dir, p[len(dir)+1:], file, strings.Split(files[p], "\n")))
	}
	a.run()
	for _, s := range srcs {
		for _, b := range branches(fset, s.file, c, func(fn *ast.FuncDecl) string { return a.key(fn) }, a, s) {
			name := fmt.Sprintf("%s/%s:%d %s", s.pkg.rel, s.name, b.start.Line, b.callee)
			switch {
			case b.open:
				open = append(open, name)
			case b.via != nil:
				if !b.strict {
					t.Errorf("%s: a branch the transitive rule shuts must fail the tool when a run enters it", name)
				}
				shut = append(shut, name)
			}
		}
	}
	sort.Strings(shut)
	sort.Strings(open)
	return shut, open, a
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  got  %q\n  want %q", what, got, want)
	}
}

// Two steps removed: caller checks both, whose errors come from get (a
// failing call, wrapped inside its own shut branch) and from a
// RetryOnConflict whose closure returns update, which returns a failing
// call. A NotFound-aware branch stays counted.
func TestTheTransitiveRuleFollowsChainsOfLiveOnlyCalls(t *testing.T) {
	src := `package p

import (
	"fmt"

	"k8s.io/client-go/util/retry"
)

type D struct{}

func (d *D) get() error {
	if err := d.Client.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("get: %w", err)
	}
	return nil
}

func (d *D) update() error { return d.Client.Update(ctx, obj) }

func (d *D) both() (string, error) {
	if err := d.get(); err != nil {
		return "", err
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return d.update()
	})
	return "done", err
}

func (d *D) caller() {
	if _, err := d.both(); err != nil {
		log(err)
	}
	if _, err := d.both(); err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		log(err)
	}
}
`
	shut, open, a := transitive(t, map[string]string{"pkg/p/p.go": src})
	same(t, "shut", shut, []string{"pkg/p/p.go:21 d.get", "pkg/p/p.go:31 d.both"})
	same(t, "open", open, nil)
	same(t, "live", a.liveList(), []string{"pkg/p/p.go:D.both", "pkg/p/p.go:D.get", "pkg/p/p.go:D.update"})
}

// A literal error, a validation error, another call's error, a package
// error or a parameter means the function can fail: its callers' branches
// stay counted, and so do theirs.
func TestALiteralOrAnyOtherErrorKeepsTheCallersCounted(t *testing.T) {
	src := `package p

import "errors"

var errStale = errors.New("stale")

type D struct{}

func (d *D) literal(bad bool) error {
	if bad {
		return fmt.Errorf("bad input")
	}
	return d.Client.Update(ctx, obj)
}

func (d *D) validated() error {
	if errs := validate(obj); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}

func (d *D) other() error {
	err := parse(obj)
	return err
}

func (d *D) sentinel() error { return errStale }

func (d *D) passed(err error) error { return err }

func (d *D) onTop() error { return d.literal(true) }

func (d *D) caller() {
	if err := d.literal(false); err != nil {
		log(err)
	}
	if err := d.validated(); err != nil {
		log(err)
	}
	if err := d.other(); err != nil {
		log(err)
	}
	if err := d.sentinel(); err != nil {
		log(err)
	}
	if err := d.passed(nil); err != nil {
		log(err)
	}
	if err := d.onTop(); err != nil {
		log(err)
	}
}
`
	shut, open, a := transitive(t, map[string]string{"pkg/p/p.go": src})
	same(t, "shut", shut, nil)
	same(t, "open", open, []string{"pkg/p/p.go:35 d.literal", "pkg/p/p.go:38 d.validated", "pkg/p/p.go:41 d.other",
		"pkg/p/p.go:44 d.sentinel", "pkg/p/p.go:47 d.passed", "pkg/p/p.go:50 d.onTop"})
	same(t, "live", a.liveList(), nil)
}

// A callee resolves only to one declared function: `r.M` for the method's
// own receiver, a plain name of the package no local shadows, `pkg.F` of a
// deciding package. Another variable's method (two types declare it), a
// local closure and a method the receiver's type does not declare stay
// counted.
func TestANameThatDoesNotResolveToOneFunctionStaysCounted(t *testing.T) {
	p := `package p

import "m/pkg/q"

type A struct{}
type B struct{}
type C struct{}

func (a *A) fetch() error { return a.Client.Get(ctx, key, obj) }
func (b *B) fetch() error { return b.Client.Get(ctx, key, obj) }

func load() error { return c.Client.List(ctx, list) }

func use(x *A) {
	if err := x.fetch(); err != nil {
		log(err)
	}
	if err := q.Store(); err != nil {
		log(err)
	}
	if err := load(); err != nil {
		log(err)
	}
}

func shadowed() {
	load := func() error { return errors.New("local") }
	if err := load(); err != nil {
		log(err)
	}
}

func (c *C) use() {
	if err := c.fetch(); err != nil {
		log(err)
	}
}

func (a *A) use() {
	if err := a.fetch(); err != nil {
		log(err)
	}
}
`
	q := `package q

func Store() error { return s.Client.Create(ctx, obj) }
`
	shut, open, _ := transitive(t, map[string]string{"pkg/p/p.go": p, "pkg/q/q.go": q})
	same(t, "shut", shut, []string{"pkg/p/p.go:18 q.Store", "pkg/p/p.go:21 load", "pkg/p/p.go:40 a.fetch"})
	same(t, "open", open, []string{"pkg/p/p.go:15 x.fetch", "pkg/p/p.go:28 load", "pkg/p/p.go:34 c.fetch"})
}

// retry.RetryOnConflict returns nil or its closure's last error, so it
// fails only live when the closure does; a callback a failing call takes
// (controllerutil.CreateOrUpdate's mutate function) must too.
func TestRetryOnConflictAndCallbacksFailOnlyLiveWhenTheirClosuresDo(t *testing.T) {
	src := `package p

import "k8s.io/client-go/util/retry"

type D struct{}

func (d *D) caller() {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() (err error) {
		_, err = d.Client.Get(ctx, key, obj)
		return err
	})
	if err != nil {
		log(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if obj.Owner != me {
			return fmt.Errorf("owned by another")
		}
		return d.Client.Update(ctx, obj)
	})
	if err != nil {
		log(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := controllerutil.CreateOrUpdate(ctx, d.Client, obj, func() error {
			if obj.Owner != me {
				return fmt.Errorf("owned by another")
			}
			return nil
		})
		return err
	})
	if err != nil {
		log(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := controllerutil.CreateOrUpdate(ctx, d.Client, obj, func() error {
			obj.Spec = spec
			return nil
		})
		return err
	})
	if err != nil {
		log(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() (err error) {
		_, err = controllerutil.CreateOrUpdate(ctx, d.Client, obj, func() error {
			return fmt.Errorf("owned by another")
		})
		if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		log(err)
	}
}
`
	shut, open, _ := transitive(t, map[string]string{"pkg/p/p.go": src})
	same(t, "shut", shut, []string{"pkg/p/p.go:12 retry.RetryOnConflict", "pkg/p/p.go:43 retry.RetryOnConflict"})
	// The last: the mutate function returns an error of its own, so the
	// failing rule does not shut even the closure's own check of
	// CreateOrUpdate, and nothing above it follows.
	same(t, "open", open, []string{"pkg/p/p.go:21 retry.RetryOnConflict", "pkg/p/p.go:33 retry.RetryOnConflict",
		"pkg/p/p.go:50 controllerutil.CreateOrUpdate", "pkg/p/p.go:55 retry.RetryOnConflict"})
}

// Rule 3's shapes: the error of the call right before `if err != nil`
// returned from its body (a NotFound answered there), even when other
// calls assign err elsewhere; a variable every assignment of which is a
// live-only call. A closure that may change err (a deferred one, for a
// named result) keeps it counted.
func TestAReturnedVariableIsLiveOnlyWhenEveryAssignmentThatReachesItIs(t *testing.T) {
	src := `package p

type D struct{}

func (d *D) fetch() (*RB, error) {
	err := parse(obj)
	if err != nil {
		log(err)
	}
	rb, err := d.Client.Get(ctx, key)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return rb, nil
}

func (d *D) named() (err error) {
	if cond {
		err = d.Client.Update(ctx, obj)
	} else {
		err = d.Client.Patch(ctx, obj)
	}
	return
}

func (d *D) changed() error {
	var err error
	change := func() { err = parse(obj) }
	_, err = d.Client.Get(ctx, key)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		change()
		return err
	}
	return nil
}

func (d *D) deferred() (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("wrapped: %w", err)
		}
	}()
	_, err = d.Client.Get(ctx, key)
	return err
}

func (d *D) caller() {
	if err := d.deferred(); err != nil {
		log(err)
	}
	if _, err := d.fetch(); err != nil {
		log(err)
	}
	if err := d.named(); err != nil {
		log(err)
	}
	if err := d.changed(); err != nil {
		log(err)
	}
}
`
	shut, open, _ := transitive(t, map[string]string{"pkg/p/p.go": src})
	same(t, "shut", shut, []string{"pkg/p/p.go:57 d.fetch", "pkg/p/p.go:60 d.named"})
	same(t, "open", open, []string{"pkg/p/p.go:54 d.deferred", "pkg/p/p.go:63 d.changed", "pkg/p/p.go:7 parse"})
}

// The listing names every shut branch with the chain of calls that proves
// it, down to the failing rules.
func TestTheShutListingGivesTheChain(t *testing.T) {
	src := `package p

type D struct{}

func (d *D) inner() error { return d.Client.Update(ctx, obj) }

func (d *D) outer() error {
	if err := d.inner(); err != nil {
		return err
	}
	return nil
}
`
	_, _, a := transitive(t, map[string]string{"pkg/p/p.go": src})
	var outer *ast.FuncDecl
	for fn, lf := range a.live {
		if lf.key == "pkg/p/p.go:D.outer" {
			outer = fn
		}
	}
	if outer == nil {
		t.Fatalf("outer is not live-only: %v", a.liveList())
	}
	var b strings.Builder
	a.chain(&b, reason{callee: "d.outer", target: outer}, 0, map[*ast.FuncDecl]bool{})
	want := "d.outer = pkg/p/p.go:D.outer, whose errors come from:\n" +
		"  d.inner = pkg/p/p.go:D.inner, whose errors come from:\n" +
		"    d.Client.Update  [failing rule classes.txt:1]\n"
	if b.String() != want {
		t.Errorf("chain:\n%s\nwant:\n%s", b.String(), want)
	}
}

// errors.NewAggregate returns nil or the errors it is given: it fails only
// live when every error appended to its slice does (appends in branches no
// render enters never run), or every element of its literal slice does. A
// slice handed to anything else, or a literal error appended, can fail.
func TestNewAggregateFailsOnlyLiveWhenEveryErrorItGathersDoes(t *testing.T) {
	src := `package p

import utilerrors "k8s.io/apimachinery/pkg/util/errors"

type D struct{}

func (d *D) update() error { return d.Client.Update(ctx, obj) }

func (d *D) gathered() error {
	var errs []error
	for _, o := range objs {
		if err := d.Client.Update(ctx, o); err != nil {
			errs = append(errs, fmt.Errorf("update: %w", err))
			continue
		}
		errs = append(errs, d.update())
	}
	if len(errs) > 0 {
		log("failed")
	}
	return utilerrors.NewAggregate(errs)
}

func (d *D) literal() error {
	return utilerrors.NewAggregate([]error{d.update(), d.Client.Delete(ctx, obj)})
}

func (d *D) invented() error {
	errs := []error{}
	for _, o := range objs {
		if o.Bad {
			errs = append(errs, fmt.Errorf("bad %s", o))
		}
	}
	return utilerrors.NewAggregate(errs)
}

func (d *D) handedOn() error {
	var errs []error
	fill(errs)
	return utilerrors.NewAggregate(errs)
}

func (d *D) caller() {
	if err := d.gathered(); err != nil {
		log(err)
	}
	if err := d.literal(); err != nil {
		log(err)
	}
	if err := d.invented(); err != nil {
		log(err)
	}
	if err := d.handedOn(); err != nil {
		log(err)
	}
}
`
	shut, open, _ := transitive(t, map[string]string{"pkg/p/p.go": src})
	same(t, "shut", shut, []string{"pkg/p/p.go:45 d.gathered", "pkg/p/p.go:48 d.literal"})
	same(t, "open", open, []string{"pkg/p/p.go:51 d.invented", "pkg/p/p.go:54 d.handedOn"})
}
