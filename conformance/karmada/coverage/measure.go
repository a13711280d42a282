package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const module = "github.com/karmada-io/karmada"

// A block is one basic block of a coverage profile.
type block struct {
	startLine, startCol int
	stmts               int
	covered             bool
}

// onError tells whether the block is the body of an `if err != nil` (or
// `...; err != nil`) branch: the source of its first line, up to the brace
// the block starts at (a profile's start column is the brace's), ends with
// that condition and the brace.
func onError(lines []string, b block) bool {
	if b.startLine < 1 || b.startLine > len(lines) {
		return false
	}
	line := lines[b.startLine-1]
	if b.startCol <= len(line) {
		line = line[:b.startCol]
	}
	return strings.HasSuffix(strings.TrimSpace(line), "err != nil {")
}

// readProfile reads a textfmt profile into blocks by file (import path and
// file name). A block listed twice (several runs merged) is covered when
// any run covered it.
func readProfile(path string) (map[string][]block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type pos struct {
		file       string
		line, col  int
		end, stmts string
	}
	seen := map[pos]int{}
	out := map[string][]block{}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if n == 1 && strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// file.go:L.C,L.C stmts count
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: not a coverage block: %q", path, n, line)
		}
		file := line[:colon]
		start, end, _ := strings.Cut(fields[0], ",")
		sl, sc, _ := strings.Cut(start, ".")
		b := block{}
		var errs [4]error
		b.startLine, errs[0] = strconv.Atoi(sl)
		b.startCol, errs[1] = strconv.Atoi(sc)
		b.stmts, errs[2] = strconv.Atoi(fields[1])
		count, e := strconv.Atoi(fields[2])
		errs[3] = e
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, e)
			}
		}
		b.covered = count > 0
		key := pos{file, b.startLine, b.startCol, end, fields[1]}
		if i, ok := seen[key]; ok {
			out[file][i].covered = out[file][i].covered || b.covered
			continue
		}
		seen[key] = len(out[file])
		out[file] = append(out[file], b)
	}
	return out, scanner.Err()
}

// A function of a deciding package, with its class and coverage.
type function struct {
	pkg     string // relative to the module
	key     string // pkg/file.go:Type.Method
	rule    *rule  // nil: reachable
	stmts   int
	covered int
	// onError and onErrorCovered count the statements of `if err != nil`
	// branches, and of those the covered ones.
	onError, onErrorCovered int
	// gaps are the blocks no run covered: where to widen the cases.
	gaps []gap
	// unenterable counts the uncovered statements of branches no input
	// enters offline (see branches.go), by class; they count in neither
	// stmts nor covered. enteredAnyway counts covered statements of such
	// branches of the live class, which stay counted: a run took them.
	unenterable   map[class]int
	enteredAnyway int
	// openChecks are the uncovered blocks of `if err != nil` branches no
	// failing rule shuts, with the call they check.
	openChecks []openCheck
	// transitive are the branches the transitive rule shuts, with the
	// uncovered statements each leaves out and the chain that shuts it.
	transitive []shutCheck
}

type shutCheck struct {
	line, stmts int
	via         reason
}

type openCheck struct {
	callee string
	stmts  int
}

// A gap is one uncovered block of a function: its first line and source.
type gap struct {
	line, stmts int
	onError     bool
	source      string
}

func (f *function) class() class {
	if f.rule == nil {
		return reachable
	}
	return f.rule.class
}

// measure lists every function of the deciding packages (their non-test
// files, as `go list` selects them for this platform) with the statements
// the profile covers in it.
func measure(c *classes, blocks map[string][]block) ([]*function, *analysis, error) {
	args := []string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}"}
	for _, p := range c.packages {
		args = append(args, module+"/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	listed, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list the deciding packages: %v", err)
	}
	fset := token.NewFileSet()
	if err := readGates(c, fset); err != nil {
		return nil, nil, err
	}
	// Every file is parsed first: the transitive rule needs every function
	// of the deciding packages before any branch is shut.
	type listedPkg struct {
		importPath, pkg string
		files           []*source
	}
	var pkgs []listedPkg
	a := newAnalysis(fset, c)
	for _, line := range strings.Split(strings.TrimSpace(string(listed)), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			return nil, nil, fmt.Errorf("go list printed %q", line)
		}
		importPath, dir := parts[0], parts[1]
		lp := listedPkg{importPath: importPath, pkg: strings.TrimPrefix(importPath, module+"/")}
		for _, name := range strings.Fields(parts[2]) {
			source, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, nil, err
			}
			file, err := parser.ParseFile(fset, filepath.Join(dir, name), source, parser.SkipObjectResolution)
			if err != nil {
				return nil, nil, err
			}
			lp.files = append(lp.files, a.add(importPath, lp.pkg, name, file, strings.Split(string(source), "\n")))
		}
		pkgs = append(pkgs, lp)
	}
	a.run()
	var funcs []*function
	for _, lp := range pkgs {
		importPath, pkg := lp.importPath, lp.pkg
		inProfile := false
		for _, src := range lp.files {
			name, file, lines := src.name, src.file, src.lines
			fileBlocks, ok := blocks[importPath+"/"+name]
			inProfile = inProfile || ok
			shut := branches(fset, file, c, func(fn *ast.FuncDecl) string { return pkg + "/" + name + ":" + funcName(fn) }, a, src)
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				f := &function{pkg: pkg, key: pkg + "/" + name + ":" + funcName(fn), unenterable: map[class]int{}}
				start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
				byBranch := map[*branch]int{}
				for _, b := range fileBlocks {
					if after(b.startLine, b.startCol, start) && !after(b.startLine, b.startCol, end) {
						if br := enclosing(shut, b); br != nil && br.open {
							if !b.covered {
								f.openChecks = append(f.openChecks, openCheck{br.callee, b.stmts})
							}
						} else if br != nil {
							if !b.covered {
								f.unenterable[br.class] += b.stmts
								if br.via != nil {
									byBranch[br] += b.stmts
								}
								continue
							}
							if br.via != nil {
								return nil, nil, fmt.Errorf("%s:%d: a run entered a branch the transitive rule shuts (%s): `-shut FILE` gives the chain; correct the failing rule it rests on", f.key, b.startLine, br.why)
							}
							if br.strict {
								return nil, nil, fmt.Errorf("%s:%d: a run entered a branch classes.txt says no render enters (%s): correct the rule", f.key, b.startLine, br.why)
							}
							f.enteredAnyway += b.stmts
						}
						f.stmts += b.stmts
						if b.covered {
							f.covered += b.stmts
						} else {
							f.gaps = append(f.gaps, gap{line: b.startLine, stmts: b.stmts, onError: onError(lines, b),
								source: strings.TrimSpace(lines[b.startLine-1])})
						}
						if onError(lines, b) {
							f.onError += b.stmts
							if b.covered {
								f.onErrorCovered += b.stmts
							}
						}
					}
				}
				for i := range shut {
					if br := &shut[i]; br.via != nil {
						if stmts, ok := byBranch[br]; ok {
							f.transitive = append(f.transitive, shutCheck{line: br.start.Line, stmts: stmts, via: *br.via})
						}
					}
				}
				if f.stmts == 0 {
					continue
				}
				f.rule = c.classify(f.key)
				funcs = append(funcs, f)
			}
		}
		if !inProfile {
			return nil, nil, fmt.Errorf("%s is not in the profile: build the oracle with -coverpkg naming it", importPath)
		}
	}
	return funcs, a, nil
}

// enclosing returns the innermost branch holding block b, or nil.
func enclosing(shut []branch, b block) *branch {
	var in *branch
	for i := range shut {
		if shut[i].holds(b.startLine, b.startCol) && (in == nil || after(shut[i].start.Line, shut[i].start.Column, in.start)) {
			in = &shut[i]
		}
	}
	return in
}

// readGates reads which feature gates are off by default from the source
// of Karmada's features package, as this module pins it.
func readGates(c *classes, fset *token.FileSet) error {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", module+"/pkg/features")
	cmd.Stderr = os.Stderr
	dir, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list Karmada's features package: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(dir)), "features.go")
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	c.offGates, err = featureDefaults(file)
	return err
}

func after(line, col int, p token.Position) bool {
	return line > p.Line || line == p.Line && col >= p.Column
}

// funcName is `Name`, or `Type.Name` for a method (pointer and type
// parameters left out).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}
