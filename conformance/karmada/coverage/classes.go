package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// A class says whether an offline render can reach a function and, when it
// cannot, why.
type class string

const (
	// reachable: an offline render walks it; its statements count.
	reachable class = "reachable"
	// live: needs a running control plane or member cluster (informers,
	// event handlers, work queues, leader election, clients of members,
	// metrics, retries on conflicts).
	live class = "live"
	// status: reads or writes status that only a live member reports back
	// (aggregated status, health, conditions, failover).
	status class = "status"
	// gate: behind a feature gate that is off by default.
	gate class = "gate"
	// other: another component's flow, not a render's (descheduler,
	// search, proxy, estimator server side, deprecated entry points).
	other class = "other"
)

var known = map[class]bool{reachable: true, live: true, status: true, gate: true, other: true}

// A rule classifies the functions whose key (`pkg/dir/file.go:Func` or
// `pkg/dir/file.go:Type.Method`, relative to Karmada's module) matches its
// pattern, where `*` stands for any run of characters.
type rule struct {
	line    int
	class   class
	pattern string
	reason  string
	matched int
}

type classes struct {
	file string
	// packages are the deciding packages, relative to the module.
	packages []string
	rules    []*rule
	// failing are the calls whose error branches only a live API server
	// takes; offGates the feature gates off by default (read from
	// Karmada's source by measure).
	failing   []*failing
	unentered []*unentered
	offGates  map[string]bool
}

// readClasses reads classes.txt: `package <dir>` lines name the deciding
// packages, `<class> <pattern> <reason>` lines classify functions,
// `failing <regexp> <reason>` lines name the calls whose `if err != nil`
// branches only a live API server enters; `#` starts a comment. The first rule that matches a function wins; a function no rule
// matches is reachable.
func readClasses(path string) (*classes, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &classes{file: path}
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if fields[0] == "package" {
			if len(fields) != 2 {
				return nil, fmt.Errorf("%s:%d: write `package <dir>`", path, n)
			}
			c.packages = append(c.packages, fields[1])
			continue
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s:%d: write `<class> <pattern> <reason>`", path, n)
		}
		if fields[0] == "failing" {
			re, err := regexp.Compile("^(" + fields[1] + ")$")
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			c.failing = append(c.failing, &failing{line: n, callee: re, why: strings.Join(fields[2:], " ")})
			continue
		}
		if fields[0] == "unentered" {
			if len(fields) < 5 || !known[class(fields[1])] || class(fields[1]) == reachable {
				return nil, fmt.Errorf("%s:%d: write `unentered <class> <function pattern> <clause regexp> <reason>`", path, n)
			}
			re, err := regexp.Compile("^(" + fields[3] + ")$")
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			c.unentered = append(c.unentered, &unentered{line: n, class: class(fields[1]), function: fields[2], clause: re, why: strings.Join(fields[4:], " ")})
			continue
		}
		cl := class(fields[0])
		if !known[cl] || cl == reachable {
			return nil, fmt.Errorf("%s:%d: unknown class %q (live, status, gate or other)", path, n, fields[0])
		}
		c.rules = append(c.rules, &rule{line: n, class: cl, pattern: fields[1], reason: strings.Join(fields[2:], " ")})
	}
	return c, scanner.Err()
}

// classify finds the rule for key, nil when the function is reachable.
func (c *classes) classify(key string) *rule {
	for _, r := range c.rules {
		if match(r.pattern, key) {
			r.matched++
			return r
		}
	}
	return nil
}

// unused fails on rules that match no function, so the file cannot keep
// reasons for code Karmada no longer has.
func (c *classes) unused() error {
	var stale []string
	for _, r := range c.rules {
		if r.matched == 0 {
			stale = append(stale, fmt.Sprintf("%s:%d: %s matches no function of the deciding packages", c.file, r.line, r.pattern))
		}
	}
	for _, u := range c.unentered {
		if u.matched == 0 {
			stale = append(stale, fmt.Sprintf("%s:%d: %s matches no case clause of %s", c.file, u.line, u.clause, u.function))
		}
	}
	for _, f := range c.failing {
		if f.matched == 0 {
			stale = append(stale, fmt.Sprintf("%s:%d: %s matches no call whose error a reachable function checks", c.file, f.line, f.callee))
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s", strings.Join(stale, "\n"))
	}
	return nil
}

// match is glob matching where `*` is any run of characters, `/` included.
func match(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last)
}
