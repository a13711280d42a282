package main

import (
	"fmt"
	"go/ast"
	"sort"
	"strings"
)

type tally struct {
	funcs, stmts, covered, onError, onErrorCovered int
	// shutLive and shutGate are the statements of branches no offline
	// input enters: a live API server's failures and conflicts, gates off.
	shutLive, shutGate, shutStatus, shutOther int
}

func (t *tally) add(f *function) {
	t.shutLive += f.unenterable[live]
	t.shutGate += f.unenterable[gate]
	t.shutStatus += f.unenterable[status]
	t.shutOther += f.unenterable[other]
	t.funcs++
	t.stmts += f.stmts
	t.covered += f.covered
	t.onError += f.onError
	t.onErrorCovered += f.onErrorCovered
}

// besidesErrors is the share covered of the statements outside `if err !=
// nil` branches.
func (t tally) besidesErrors() float64 {
	stmts := t.stmts - t.onError
	if stmts == 0 {
		return 100
	}
	return 100 * float64(t.covered-t.onErrorCovered) / float64(stmts)
}

func (t tally) shut() int { return t.shutLive + t.shutGate + t.shutStatus + t.shutOther }

func (t tally) percent() float64 {
	if t.stmts == 0 {
		return 100
	}
	return 100 * float64(t.covered) / float64(t.stmts)
}

type report struct {
	packages []string
	// byPackage holds each package's tally per class.
	byPackage map[string]map[class]*tally
	total     map[class]*tally
	rules     []*rule
	ruleTally map[*rule]*tally
	funcs     []*function
}

func summarise(c *classes, funcs []*function) *report {
	r := &report{byPackage: map[string]map[class]*tally{}, total: map[class]*tally{}, rules: c.rules, ruleTally: map[*rule]*tally{}, funcs: funcs}
	get := func(m map[class]*tally, cl class) *tally {
		if m[cl] == nil {
			m[cl] = &tally{}
		}
		return m[cl]
	}
	for _, f := range funcs {
		if r.byPackage[f.pkg] == nil {
			r.byPackage[f.pkg] = map[class]*tally{}
			r.packages = append(r.packages, f.pkg)
		}
		get(r.byPackage[f.pkg], f.class()).add(f)
		get(r.total, f.class()).add(f)
		if f.rule != nil {
			if r.ruleTally[f.rule] == nil {
				r.ruleTally[f.rule] = &tally{}
			}
			r.ruleTally[f.rule].add(f)
		}
	}
	sort.Strings(r.packages)
	for _, cl := range []class{reachable, live, status, gate, other} {
		get(r.total, cl)
	}
	return r
}

func (r *report) percent() float64 { return r.total[reachable].percent() }

func (r *report) all() tally {
	var t tally
	for _, x := range r.total {
		t.funcs += x.funcs
		t.stmts += x.stmts
		t.covered += x.covered
	}
	return t
}

func (r *report) text() string {
	all := r.all()
	re := r.total[reachable]
	return fmt.Sprintf("karmada-coverage: %d functions, %d statements in %d deciding packages, %.1f %% covered; reachable offline: %d functions, %d statements, %.1f %% covered (%d statements in `if err != nil` branches, %d of them covered; the others %.1f %% covered); left out of the reachable functions: %d statements of branches only a live API server enters, %d behind gates off by default, %d and %d of clauses only status or other components reach\n",
		all.funcs, all.stmts, len(r.packages), all.percent(), re.funcs, re.stmts, r.percent(), re.onError, re.onErrorCovered, re.besidesErrors(), re.shutLive, re.shutGate, re.shutStatus, re.shutOther)
}

// leastCovered lists the reachable functions with the most statements no
// case walks outside `if err != nil` branches: where the generator should
// go next.
func (r *report) leastCovered(n int) string {
	open := func(f *function) int {
		return (f.stmts - f.onError) - (f.covered - f.onErrorCovered)
	}
	var gaps []*function
	for _, f := range r.funcs {
		if f.class() == reachable && open(f) > 0 {
			gaps = append(gaps, f)
		}
	}
	sort.SliceStable(gaps, func(i, j int) bool { return open(gaps[i]) > open(gaps[j]) })
	var b strings.Builder
	b.WriteString("reachable statements no case walks outside `if err != nil` branches, most first:\n")
	for i, f := range gaps {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %4d of %4d  %s\n", open(f), f.stmts-f.onError, f.key)
	}
	return b.String()
}

func (r *report) markdown() string {
	var b strings.Builder
	cell := func(t *tally) string {
		if t == nil || t.funcs == 0 {
			return ""
		}
		return fmt.Sprintf("%d", t.stmts)
	}
	covered := func(t *tally) string {
		if t == nil || t.funcs == 0 {
			return ""
		}
		return fmt.Sprintf("%d / %d (%.0f %%)", t.covered, t.stmts, t.percent())
	}
	besides := func(t *tally) string {
		if t == nil || t.funcs == 0 {
			return ""
		}
		return fmt.Sprintf("%.0f %%", t.besidesErrors())
	}
	shut := func(t *tally) string {
		if t == nil || t.shut() == 0 {
			return ""
		}
		return fmt.Sprintf("%d", t.shut())
	}
	b.WriteString("| package | reachable: covered / statements | outside `if err != nil` | in branches no render enters | live | status | gate | other |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.packages {
		m := r.byPackage[p]
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", p, covered(m[reachable]), besides(m[reachable]), shut(m[reachable]), cell(m[live]), cell(m[status]), cell(m[gate]), cell(m[other]))
	}
	fmt.Fprintf(&b, "| **all** | **%s** | **%s** | %s | %s | %s | %s | %s |\n\n", covered(r.total[reachable]), besides(r.total[reachable]), shut(r.total[reachable]), cell(r.total[live]), cell(r.total[status]), cell(r.total[gate]), cell(r.total[other]))
	all := r.all()
	fmt.Fprintf(&b, "%d functions with %d statements; %d of them reachable offline, with %d statements. Every function no rule below matches is reachable.\n\n",
		all.funcs, all.stmts, r.total[reachable].funcs, r.total[reachable].stmts)
	b.WriteString("| class | functions | statements | rule | why an offline render does not reach it |\n")
	b.WriteString("|---|---:|---:|---|---|\n")
	for _, rl := range r.rules {
		t := r.ruleTally[rl]
		if t == nil {
			t = &tally{}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | `%s` | %s |\n", rl.class, t.funcs, t.stmts, rl.pattern, rl.reason)
	}
	return b.String()
}

func tsv(funcs []*function) string {
	sorted := append([]*function(nil), funcs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].key < sorted[j].key })
	var b strings.Builder
	b.WriteString("function\tclass\tstatements\tcovered\n")
	for _, f := range sorted {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\n", f.key, f.class(), f.stmts, f.covered)
	}
	return b.String()
}

// gapList lists, for every reachable function with uncovered statements
// (most uncovered first), its uncovered blocks: line, statements, whether
// the block is an `if err != nil` branch, and the line's source.
func gapList(funcs []*function) string {
	var open []*function
	for _, f := range funcs {
		if f.class() == reachable && f.covered < f.stmts {
			open = append(open, f)
		}
	}
	sort.SliceStable(open, func(i, j int) bool {
		return open[i].stmts-open[i].covered > open[j].stmts-open[j].covered
	})
	var b strings.Builder
	for _, f := range open {
		fmt.Fprintf(&b, "%s: %d of %d statements uncovered\n", f.key, f.stmts-f.covered, f.stmts)
		for _, g := range f.gaps {
			mark := ""
			if g.onError {
				mark = " (err)"
			}
			fmt.Fprintf(&b, "  %5d %3d%s  %s\n", g.line, g.stmts, mark, g.source)
		}
	}
	return b.String()
}

// calleeList sums, per checked call, the uncovered statements of the
// `if err != nil` branches of reachable functions no failing rule shuts.
func calleeList(funcs []*function) string {
	sum := map[string]int{}
	where := map[string][]string{}
	for _, f := range funcs {
		if f.class() != reachable {
			continue
		}
		for _, c := range f.openChecks {
			if sum[c.callee] == 0 {
				where[c.callee] = append(where[c.callee], f.key)
			}
			sum[c.callee] += c.stmts
		}
	}
	names := make([]string, 0, len(sum))
	for n := range sum {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if sum[names[i]] != sum[names[j]] {
			return sum[names[i]] > sum[names[j]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%4d  %s  (%s)\n", sum[n], n, where[n][0])
	}
	return b.String()
}

// shutList lists the branches the transitive rule shuts, those of
// reachable functions first (they are what the headline leaves out), the
// most statements first, each with the chain of calls that proves its call
// fails only live; then every function proved to.
func shutList(a *analysis, funcs []*function) string {
	type entry struct {
		f *function
		s shutCheck
	}
	var reach, others []entry
	total := 0
	for _, f := range funcs {
		for _, s := range f.transitive {
			if f.class() == reachable {
				reach = append(reach, entry{f, s})
				total += s.stmts
			} else {
				others = append(others, entry{f, s})
			}
		}
	}
	var b strings.Builder
	write := func(list []entry) {
		sort.SliceStable(list, func(i, j int) bool { return list[i].s.stmts > list[j].s.stmts })
		for _, e := range list {
			fmt.Fprintf(&b, "%s:%d  %d statements\n", e.f.key, e.s.line, e.s.stmts)
			a.chain(&b, e.s.via, 1, map[*ast.FuncDecl]bool{})
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "%d branches of reachable functions the transitive rule shuts, %d uncovered statements:\n\n", len(reach), total)
	write(reach)
	fmt.Fprintf(&b, "%d branches of functions no render reaches (live, status, gate, other), which the headline does not count anyway:\n\n", len(others))
	write(others)
	live := a.liveList()
	fmt.Fprintf(&b, "%d functions of the deciding packages fail only live (or never fail):\n", len(live))
	for _, k := range live {
		fmt.Fprintf(&b, "  %s\n", k)
	}
	return b.String()
}
