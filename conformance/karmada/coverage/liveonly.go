package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The transitive rule. A function of the deciding packages fails only live
// when every return statement of it that can return a non-nil error is
//  1. inside a branch no render enters (a failing rule's, a conflict's, a
//     gate's, or one this rule shuts; not an unentered rule's clause);
//  2. `return C(...)` (or `return ..., C(...)`) where C is a failing call
//     whose callbacks, if any return an error, fail only live too, or a
//     function that fails only live, or `retry.RetryOnConflict(b, func()
//     error {...})` whose closure fails only live (it returns nil or the
//     closure's last error), or `errors.NewAggregate` of errors that all
//     fail only live (it returns nil or an aggregate of them);
//  3. `return err` (or `return ..., err`, or a bare return of a named
//     error) where every assignment to err that can reach it is from such
//     a call: the statement right before the return assigns it; or the
//     return sits in the body of `if err != nil` right after `..., err :=
//     C(...)`, and neither the body nor a closure of the function can
//     change err; or every assignment to any err of the function is from
//     such calls (or nil).
//
// Anything else, a literal error, a returned validation error, the result
// of any other call, a parameter, a package-level error, means the
// function can fail. Callees resolve only by a plain name of the same
// package, `pkg.F` of a deciding package, or `r.M` where r is the method's
// receiver and M a method its type declares; anything else (a function
// value, an interface, a field, another variable's method) does not
// resolve and so can fail. The rule is iterated to a fixed point from
// nothing, so only what it proves is shut.
//
// A live-only function's errors are its failing calls' own, NotFound
// included: a caller's branch that answers NotFound or AlreadyExists stays
// counted, as for the failing rules.

// A source is one parsed file of a deciding package.
type source struct {
	pkg     *srcPackage
	name    string // file name
	file    *ast.File
	lines   []string
	imports map[string]string // local name -> import path
}

type srcPackage struct {
	importPath, rel, name string
	files                 []*source
	funcs                 map[string]*ast.FuncDecl            // plain functions by name
	methods               map[string]map[string]*ast.FuncDecl // receiver type -> method -> decl
	top                   map[string]bool                     // package-level names
}

// A liveFn is a function proved to fail only live, with the calls its
// error returns come from.
type liveFn struct {
	key string
	via []reason
}

// A reason is one call a live-only function's error comes from: a failing
// rule's callee, or another live-only function.
type reason struct {
	callee  string
	shut    *branch       // a return inside this branch no render enters, or nil
	rule    *failing      // the failing rule matched, or nil
	target  *ast.FuncDecl // the live-only function called, or nil
	closure []reason      // RetryOnConflict: the closure's own reasons
}

type analysis struct {
	fset   *token.FileSet
	c      *classes
	pkgs   map[string]*srcPackage // by import path
	order  []*srcPackage
	src    map[*ast.FuncDecl]*source
	live   map[*ast.FuncDecl]*liveFn
	shut   map[*source][]branch
	locals map[*ast.FuncDecl]*fnFacts
	busy   map[*ast.FuncLit]bool // closures being checked
}

// fnFacts are what rule 3 needs of one declared function, closures
// included: the names it declares locally, the names parameters take, the
// names whose address it takes.
type fnFacts struct {
	declared, params, addressed map[string]bool
}

func newAnalysis(fset *token.FileSet, c *classes) *analysis {
	return &analysis{fset: fset, c: c, pkgs: map[string]*srcPackage{}, src: map[*ast.FuncDecl]*source{}, live: map[*ast.FuncDecl]*liveFn{}, shut: map[*source][]branch{}, locals: map[*ast.FuncDecl]*fnFacts{}, busy: map[*ast.FuncLit]bool{}}
}

// add registers a parsed file of the package importPath (rel: relative to
// Karmada's module).
func (a *analysis) add(importPath, rel, name string, file *ast.File, lines []string) *source {
	p := a.pkgs[importPath]
	if p == nil {
		p = &srcPackage{importPath: importPath, rel: rel, name: file.Name.Name, funcs: map[string]*ast.FuncDecl{}, methods: map[string]map[string]*ast.FuncDecl{}, top: map[string]bool{}}
		a.pkgs[importPath] = p
		a.order = append(a.order, p)
	}
	s := &source{pkg: p, name: name, file: file, lines: lines, imports: map[string]string{}}
	p.files = append(p.files, s)
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			a.src[d] = s
			if d.Recv == nil {
				p.funcs[d.Name.Name] = d
				p.top[d.Name.Name] = true
				continue
			}
			t := recvType(d)
			if p.methods[t] == nil {
				p.methods[t] = map[string]*ast.FuncDecl{}
			}
			p.methods[t][d.Name.Name] = d
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						p.top[n.Name] = true
					}
				case *ast.TypeSpec:
					p.top[sp.Name.Name] = true
				}
			}
		}
	}
	return s
}

// resolveImports names each file's imports once every package is known.
func (a *analysis) resolveImports() {
	for _, p := range a.order {
		for _, s := range p.files {
			for _, imp := range s.file.Imports {
				ip, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					continue
				}
				name := path.Base(ip)
				if q := a.pkgs[ip]; q != nil {
					name = q.name
				}
				if imp.Name != nil {
					name = imp.Name.Name
				}
				if name == "_" || name == "." {
					continue
				}
				s.imports[name] = ip
			}
		}
	}
}

func (a *analysis) key(fn *ast.FuncDecl) string {
	s := a.src[fn]
	return s.pkg.rel + "/" + s.name + ":" + funcName(fn)
}

// run iterates the closure to its fixed point.
func (a *analysis) run() {
	a.resolveImports()
	for {
		for _, p := range a.order {
			for _, s := range p.files {
				a.shut[s] = branches(a.fset, s.file, a.c, func(fn *ast.FuncDecl) string { return a.key(fn) }, a, s)
			}
		}
		changed := false
		for _, p := range a.order {
			for _, s := range p.files {
				for _, decl := range s.file.Decls {
					fn, ok := decl.(*ast.FuncDecl)
					if !ok || fn.Body == nil || a.live[fn] != nil {
						continue
					}
					if via, ok := a.failsOnlyLive(fn, fn.Type, fn.Body); ok {
						a.live[fn] = &liveFn{key: a.key(fn), via: via}
						changed = true
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	// The fixed point's rounds counted matches; measure counts them again.
	for _, f := range a.c.failing {
		f.matched = 0
	}
	for _, u := range a.c.unentered {
		u.matched = 0
	}
}

// errorResult returns how many results ft has and the name of the last
// when it is a named `error`; ok is false when the last result is no
// `error`.
func errorResult(ft *ast.FuncType) (n int, named string, ok bool) {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return 0, "", false
	}
	for _, f := range ft.Results.List {
		if len(f.Names) == 0 {
			n++
		} else {
			n += len(f.Names)
		}
	}
	last := ft.Results.List[len(ft.Results.List)-1]
	if id, isIdent := last.Type.(*ast.Ident); !isIdent || id.Name != "error" {
		return n, "", false
	}
	if len(last.Names) > 0 {
		named = last.Names[len(last.Names)-1].Name
	}
	return n, named, true
}

// failsOnlyLive checks the return statements of one function body (a
// declared function, or a closure inside decl) against rules 1-3.
func (a *analysis) failsOnlyLive(decl *ast.FuncDecl, ft *ast.FuncType, body *ast.BlockStmt) ([]reason, bool) {
	n, named, ok := errorResult(ft)
	if !ok {
		return nil, false
	}
	if named != "" && closureAssigns(body, named) {
		return nil, false // a deferred closure may change what is returned
	}
	var via []reason
	good := true
	// parents holds the statements enclosing the current one, for rule 3's
	// `if err != nil` shape.
	var walk func(node ast.Node, parents []ast.Node)
	walk = func(node ast.Node, parents []ast.Node) {
		ast.Inspect(node, func(m ast.Node) bool {
			if !good {
				return false
			}
			if m == node {
				return true
			}
			switch x := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if b := a.inShut(decl, x.Pos()); b != nil {
					if !isNil(x) {
						via = append(via, reason{callee: fmt.Sprintf("return at line %d", a.fset.Position(x.Pos()).Line), shut: b})
					}
					return false
				}
				var last ast.Expr
				switch {
				case len(x.Results) == 0:
					if named == "" {
						good = false
						return false
					}
					last = ast.NewIdent(named)
				case len(x.Results) == n:
					last = x.Results[n-1]
				case len(x.Results) == 1:
					last = x.Results[0] // return f(), f multi-valued
					if _, isCall := last.(*ast.CallExpr); !isCall {
						good = false
						return false
					}
				default:
					good = false
					return false
				}
				r, ok := a.errorValue(decl, last, append(append([]ast.Node(nil), parents...), x))
				if !ok {
					good = false
					return false
				}
				via = append(via, r...)
				return false
			case ast.Stmt:
				walk(x, append(append([]ast.Node(nil), parents...), x))
				return false
			}
			return true
		})
	}
	walk(body, []ast.Node{body})
	if !good {
		return nil, false
	}
	return dedupe(via), true
}

func dedupe(rs []reason) []reason {
	seen := map[string]bool{}
	var out []reason
	for _, r := range rs {
		if !seen[r.callee] {
			seen[r.callee] = true
			out = append(out, r)
		}
	}
	return out
}

// errorValue checks one returned error expression: nil, a live-only call,
// or a variable every reaching assignment of which is one.
func (a *analysis) errorValue(decl *ast.FuncDecl, e ast.Expr, parents []ast.Node) ([]reason, bool) {
	if p, ok := e.(*ast.ParenExpr); ok {
		return a.errorValue(decl, p.X, parents)
	}
	switch x := e.(type) {
	case *ast.Ident:
		if x.Name == "nil" {
			return nil, true
		}
		return a.variable(decl, x.Name, parents)
	case *ast.CallExpr:
		if r, ok := a.aggregate(decl, x, parents); ok {
			return r, true
		}
		r, ok := a.liveCall(decl, x)
		if !ok {
			return nil, false
		}
		return []reason{r}, true
	}
	return nil, false
}

// aggregateErrors is the import path of NewAggregate, which returns nil
// for no errors and otherwise an aggregate of the errors it is given.
const aggregateErrors = "k8s.io/apimachinery/pkg/util/errors"

// aggregate recognises `errors.NewAggregate([]error{e1, e2})` whose every
// element fails only live, and `errors.NewAggregate(errs)` where errs is a
// local slice only appended to (`errs = append(errs, e)`) with errors that
// fail only live, outside branches no render enters, and otherwise only
// read by len.
func (a *analysis) aggregate(decl *ast.FuncDecl, call *ast.CallExpr, parents []ast.Node) ([]reason, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "NewAggregate" || len(call.Args) != 1 || call.Ellipsis.IsValid() || decl == nil {
		return nil, false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || a.src[decl].imports[pkg.Name] != aggregateErrors || a.facts(decl).declared[pkg.Name] || a.facts(decl).params[pkg.Name] {
		return nil, false
	}
	switch arg := call.Args[0].(type) {
	case *ast.CompositeLit:
		if !errorSlice(arg.Type) {
			return nil, false
		}
		var via []reason
		for _, e := range arg.Elts {
			r, ok := a.errorValue(decl, e, parents)
			if !ok {
				return nil, false
			}
			via = append(via, r...)
		}
		return via, true
	case *ast.Ident:
		return a.errList(decl, arg.Name, call)
	}
	return nil, false
}

// errorSlice tells whether t is `[]error`.
func errorSlice(t ast.Expr) bool {
	at, ok := t.(*ast.ArrayType)
	if !ok || at.Len != nil {
		return false
	}
	id, ok := at.Elt.(*ast.Ident)
	return ok && id.Name == "error"
}

// emptyErrors tells whether e is nil, `[]error{}` or `make([]error, n)`.
func emptyErrors(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "nil"
	case *ast.CompositeLit:
		return errorSlice(x.Type) && len(x.Elts) == 0
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		return ok && id.Name == "make" && len(x.Args) >= 1 && errorSlice(x.Args[0])
	}
	return false
}

// errList checks the slice v a NewAggregate call (agg) reads: every use
// of a v in decl, outside branches no render enters, must be its
// declaration empty, `v = append(v, e...)` with live-only errors, len(v),
// or agg itself.
func (a *analysis) errList(decl *ast.FuncDecl, v string, agg *ast.CallExpr) ([]reason, bool) {
	f := a.facts(decl)
	if !f.declared[v] || f.params[v] || f.addressed[v] || a.src[decl].pkg.top[v] {
		return nil, false
	}
	allowed := map[*ast.Ident]bool{}
	if id, ok := agg.Args[0].(*ast.Ident); ok {
		allowed[id] = true
	}
	var via []reason
	good := true
	var walk func(n ast.Node, parents []ast.Node)
	walk = func(n ast.Node, parents []ast.Node) {
		ast.Inspect(n, func(m ast.Node) bool {
			if !good {
				return false
			}
			if m == n {
				return true
			}
			switch x := m.(type) {
			case *ast.BlockStmt:
				if b := a.shutBranch(decl, x); b != nil {
					if mentions(x, v) {
						via = append(via, reason{callee: fmt.Sprintf("use of %s at line %d", v, a.fset.Position(x.Pos()).Line), shut: b})
					}
					return false // never runs
				}
			case *ast.ValueSpec:
				for i, nm := range x.Names {
					if nm.Name == v && (len(x.Values) == 0 || len(x.Values) == len(x.Names) && emptyErrors(x.Values[i])) {
						allowed[nm] = true
					}
				}
			case *ast.AssignStmt:
				if len(x.Lhs) == 1 && len(x.Rhs) == 1 && (x.Tok == token.ASSIGN || x.Tok == token.DEFINE) {
					if id, ok := x.Lhs[0].(*ast.Ident); ok && id.Name == v {
						if emptyErrors(x.Rhs[0]) {
							allowed[id] = true
						} else if app, ok := x.Rhs[0].(*ast.CallExpr); ok && isAppendTo(app, v) {
							at := append(append([]ast.Node(nil), parents...), x)
							for _, e := range app.Args[1:] {
								r, ok := a.errorValue(decl, e, at)
								if !ok {
									good = false
									return false
								}
								via = append(via, r...)
							}
							allowed[id] = true
							allowed[app.Args[0].(*ast.Ident)] = true
						}
					}
				}
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "len" && len(x.Args) == 1 {
					if arg, ok := x.Args[0].(*ast.Ident); ok && arg.Name == v {
						allowed[arg] = true
					}
				}
			case *ast.Ident:
				if x.Name == v && !allowed[x] {
					good = false
					return false
				}
			}
			if st, ok := m.(ast.Stmt); ok {
				walk(st, append(append([]ast.Node(nil), parents...), st))
				return false
			}
			return true
		})
	}
	walk(decl.Body, []ast.Node{decl.Body})
	if !good {
		return nil, false
	}
	return dedupe(via), true
}

// isAppendTo tells whether call is `append(v, e1, ..., en)`.
func isAppendTo(call *ast.CallExpr, v string) bool {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Name != "append" || len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return false
	}
	first, ok := call.Args[0].(*ast.Ident)
	return ok && first.Name == v
}

// facts collects, once per declared function, the names it declares, the
// names of every parameter of it and its closures, and the names whose
// address it takes.
func (a *analysis) facts(decl *ast.FuncDecl) *fnFacts {
	if f := a.locals[decl]; f != nil {
		return f
	}
	f := &fnFacts{declared: map[string]bool{}, params: map[string]bool{}, addressed: map[string]bool{}}
	fields := func(fl *ast.FieldList, into map[string]bool) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			for _, nm := range fd.Names {
				into[nm.Name] = true
			}
		}
	}
	fields(decl.Recv, f.params)
	fields(decl.Type.Params, f.params)
	fields(decl.Type.Results, f.declared)
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			fields(x.Type.Params, f.params)
			fields(x.Type.Results, f.declared)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						f.declared[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, nm := range x.Names {
				f.declared[nm.Name] = true
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok && x.Tok == token.DEFINE {
					f.declared[id.Name] = true
				}
			}
		case *ast.UnaryExpr:
			if id, ok := x.X.(*ast.Ident); ok && x.Op == token.AND {
				f.addressed[id.Name] = true
			}
		}
		return true
	})
	a.locals[decl] = f
	return f
}

// variable checks `return v` for rule 3.
func (a *analysis) variable(decl *ast.FuncDecl, v string, parents []ast.Node) ([]reason, bool) {
	f := a.facts(decl)
	s := a.src[decl]
	if !f.declared[v] || f.params[v] || f.addressed[v] || s.pkg.top[v] {
		return nil, false
	}
	// The shape `..., v = C(...)` right before `return v`: nothing runs
	// between the assignment and the return.
	if len(parents) >= 2 {
		if use, ok := parents[len(parents)-1].(ast.Stmt); ok {
			if call, last := assignedCall(previous(parents[len(parents)-2], use), v); call != nil && last {
				if r, ok := a.liveCall(decl, call); ok {
					return []reason{r}, true
				}
				return nil, false
			}
		}
	}
	// The shape `..., v := C(...)` (or `v = C(...)`) then `if v != nil {
	// ... return v }`, nothing in the body assigning v and no closure of
	// the function assigning any v: C's error is the one returned.
	if r, ok := a.checkedRightAfter(decl, v, parents); ok {
		return r, true
	}
	// Otherwise every assignment to any v of the function must be from a
	// live-only call, or nil.
	var via []reason
	good := true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if !good {
			return false
		}
		if blk, ok := n.(*ast.BlockStmt); ok && a.shutBody(decl, blk) {
			return false // an assignment there never runs
		}
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name != v {
					continue
				}
				r, ok := a.assignedValue(decl, x.Lhs, x.Rhs, i, x.Tok)
				if !ok {
					good = false
					return false
				}
				via = append(via, r...)
			}
		case *ast.ValueSpec:
			for i, nm := range x.Names {
				if nm.Name != v || len(x.Values) == 0 {
					continue
				}
				lhs := make([]ast.Expr, len(x.Names))
				for j, n := range x.Names {
					lhs[j] = n
				}
				r, ok := a.assignedValue(decl, lhs, x.Values, i, token.DEFINE)
				if !ok {
					good = false
					return false
				}
				via = append(via, r...)
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok && id.Name == v {
					good = false
					return false
				}
			}
		}
		return true
	})
	if !good {
		return nil, false
	}
	return via, true
}

// assignedValue checks what lhs[i] receives: nil, or the error of a
// live-only call (the call's last result).
func (a *analysis) assignedValue(decl *ast.FuncDecl, lhs, rhs []ast.Expr, i int, tok token.Token) ([]reason, bool) {
	if tok != token.DEFINE && tok != token.ASSIGN {
		return nil, false
	}
	var e ast.Expr
	switch {
	case len(lhs) == len(rhs):
		e = rhs[i]
	case len(rhs) == 1 && i == len(lhs)-1:
		e = rhs[0]
		if _, isCall := e.(*ast.CallExpr); !isCall {
			return nil, false // v, ok := x.(T), <-ch, m[k]
		}
	default:
		return nil, false
	}
	switch x := e.(type) {
	case *ast.Ident:
		if x.Name == "nil" {
			return nil, true
		}
	case *ast.CallExpr:
		r, ok := a.liveCall(decl, x)
		if ok {
			return []reason{r}, true
		}
	}
	return nil, false // another variable, a literal error, any other call
}

// checkedRightAfter recognises `return v` inside the body of `if v != nil`
// whose init, or the statement right before it, assigns v from a
// live-only call, where neither the body nor any closure of the function
// assigns v.
func (a *analysis) checkedRightAfter(decl *ast.FuncDecl, v string, parents []ast.Node) ([]reason, bool) {
	if closureAssigns(decl.Body, v) {
		return nil, false
	}
	for i := len(parents) - 1; i >= 1; i-- {
		is, ok := parents[i].(*ast.IfStmt)
		if !ok || errCheck(is.Cond) != v {
			continue
		}
		// The return must be in the if's body, not its else.
		if i+1 >= len(parents) || parents[i+1] != ast.Node(is.Body) {
			return nil, false
		}
		if assigns(is.Body, v) {
			return nil, false
		}
		origin := is.Init
		if origin == nil {
			origin = previous(parents[i-1], is)
		}
		call, last := assignedCall(origin, v)
		if call == nil || !last {
			return nil, false
		}
		r, ok := a.liveCall(decl, call)
		if !ok {
			return nil, false
		}
		return []reason{r}, true
	}
	return nil, false
}

// previous returns the statement before s in the block (or clause) that
// holds it, or nil.
func previous(holder ast.Node, s ast.Stmt) ast.Stmt {
	var list []ast.Stmt
	switch h := holder.(type) {
	case *ast.BlockStmt:
		list = h.List
	case *ast.CaseClause:
		list = h.Body
	case *ast.CommClause:
		list = h.Body
	}
	for i, x := range list {
		if x == s && i > 0 {
			return list[i-1]
		}
	}
	return nil
}

// assigns tells whether n assigns or declares v anywhere.
func assigns(n ast.Node, v string) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch x := m.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == v {
					found = true
				}
			}
		case *ast.ValueSpec:
			for _, nm := range x.Names {
				if nm.Name == v {
					found = true
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok && id.Name == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// closureAssigns tells whether a closure inside n may assign a v of n's:
// it assigns a v and takes no parameter or result named v of its own
// (which every v inside it would then name).
func closureAssigns(n ast.Node, v string) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if fl, ok := m.(*ast.FuncLit); ok && assigns(fl.Body, v) && !declares(fl.Type, v) {
			found = true
		}
		return !found
	})
	return found
}

// declares tells whether a function type names a parameter or result v.
func declares(ft *ast.FuncType, v string) bool {
	for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, fd := range fl.List {
			for _, nm := range fd.Names {
				if nm.Name == v {
					return true
				}
			}
		}
	}
	return false
}

// shutBody tells whether blk is the body of a branch no render enters.
func (a *analysis) shutBody(decl *ast.FuncDecl, blk *ast.BlockStmt) bool {
	return a.shutBranch(decl, blk) != nil
}

// shutBranch returns the branch no render enters whose body blk is, or nil.
func (a *analysis) shutBranch(decl *ast.FuncDecl, blk *ast.BlockStmt) *branch {
	shut := a.shut[a.src[decl]]
	for i := range shut {
		if shut[i].lbrace == blk.Lbrace && a.sound(&shut[i]) {
			return &shut[i]
		}
	}
	return nil
}

// inShut returns the innermost branch of decl's file no render enters that
// holds pos, or nil.
func (a *analysis) inShut(decl *ast.FuncDecl, pos token.Pos) *branch {
	s := a.src[decl]
	if s == nil {
		return nil
	}
	var in *branch
	for i, b := range a.shut[s] {
		if pos > b.lbrace && pos < b.rbrace && a.sound(&a.shut[s][i]) && (in == nil || b.lbrace > in.lbrace) {
			in = &a.shut[s][i]
		}
	}
	return in
}

// sound tells whether the transitive rule may rely on branch b being shut:
// not an unentered rule's clause (those hold only for the callers on a
// render's path), and, for a failing rule's branch, a call whose callbacks
// fail only live too (a failing rule names the call, not the callback
// controllerutil.CreateOrUpdate returns the error of).
func (a *analysis) sound(b *branch) bool {
	if b.open || b.clause {
		return false
	}
	if b.call != nil && b.via == nil {
		_, ok := a.liveCall(b.decl, b.call)
		return ok
	}
	return true
}

// isNil tells whether a return statement returns nil as its error, or
// nothing at all.
func isNil(r *ast.ReturnStmt) bool {
	if len(r.Results) == 0 {
		return false
	}
	id, ok := r.Results[len(r.Results)-1].(*ast.Ident)
	return ok && id.Name == "nil"
}

// liveCall tells whether call fails only live: a failing rule names it, it
// resolves to a function proved to, or it is retry.RetryOnConflict with a
// closure proved to.
func (a *analysis) liveCall(decl *ast.FuncDecl, call *ast.CallExpr) (reason, bool) {
	callee := types.ExprString(call.Fun)
	for _, r := range a.c.failing {
		if r.callee.MatchString(callee) {
			via, ok := a.callbacks(decl, call)
			if !ok {
				return reason{}, false
			}
			return reason{callee: callee, rule: r, closure: via}, true
		}
	}
	if decl == nil {
		return reason{}, false
	}
	s := a.src[decl]
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && len(call.Args) == 2 {
		if x, ok := sel.X.(*ast.Ident); ok && sel.Sel.Name == "RetryOnConflict" && s.imports[x.Name] == "k8s.io/client-go/util/retry" && !a.facts(decl).declared[x.Name] {
			fl, ok := call.Args[1].(*ast.FuncLit)
			if !ok || a.busy[fl] {
				return reason{}, false // a closure whose error feeds itself: not proved
			}
			a.busy[fl] = true
			via, ok := a.failsOnlyLive(decl, fl.Type, fl.Body)
			delete(a.busy, fl)
			if !ok {
				return reason{}, false
			}
			return reason{callee: callee, closure: via}, true
		}
	}
	target := a.resolve(decl, call.Fun)
	if target == nil || a.live[target] == nil {
		return reason{}, false
	}
	return reason{callee: callee, target: target}, true
}

// callbacks checks the closures a failing call takes: one that returns an
// error may return it through the call (controllerutil.CreateOrUpdate
// returns what its mutate function returns), so it must fail only live
// too. A failing rule names the call, not its callbacks.
func (a *analysis) callbacks(decl *ast.FuncDecl, call *ast.CallExpr) ([]reason, bool) {
	var via []reason
	for _, arg := range call.Args {
		fl, ok := arg.(*ast.FuncLit)
		if !ok {
			continue
		}
		if _, _, returnsError := errorResult(fl.Type); !returnsError {
			continue
		}
		if decl == nil || a.busy[fl] {
			return nil, false
		}
		a.busy[fl] = true
		v, ok := a.failsOnlyLive(decl, fl.Type, fl.Body)
		delete(a.busy, fl)
		if !ok {
			return nil, false
		}
		via = append(via, v...)
	}
	return via, true
}

// resolve finds the declared function a call's callee names: a plain name
// of the same package, `pkg.F` of a deciding package, or `r.M` for the
// receiver r of decl and a method M its type declares. A name the
// function declares itself, or anything else, resolves to nothing.
func (a *analysis) resolve(decl *ast.FuncDecl, fun ast.Expr) *ast.FuncDecl {
	s := a.src[decl]
	f := a.facts(decl)
	switch x := fun.(type) {
	case *ast.Ident:
		if f.declared[x.Name] || f.params[x.Name] {
			return nil
		}
		return s.pkg.funcs[x.Name]
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok || f.declared[id.Name] {
			return nil
		}
		if ip, ok := s.imports[id.Name]; ok && !f.params[id.Name] {
			if p := a.pkgs[ip]; p != nil {
				return p.funcs[x.Sel.Name]
			}
			return nil
		}
		recv := receiverName(decl)
		if recv == "" || id.Name != recv || a.closureParam(decl, recv) {
			return nil
		}
		return s.pkg.methods[recvType(decl)][x.Sel.Name]
	}
	return nil
}

// closureParam tells whether a closure of decl takes a parameter named v
// (which would hide the receiver).
func (a *analysis) closureParam(decl *ast.FuncDecl, v string) bool {
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if fl, ok := n.(*ast.FuncLit); ok {
			for _, fl := range []*ast.FieldList{fl.Type.Params, fl.Type.Results} {
				if fl == nil {
					continue
				}
				for _, fd := range fl.List {
					for _, nm := range fd.Names {
						if nm.Name == v {
							found = true
						}
					}
				}
			}
		}
		return !found
	})
	return found
}

func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 || len(fn.Recv.List[0].Names) == 0 {
		return ""
	}
	return fn.Recv.List[0].Names[0].Name
}

// recvType is the name of a method's receiver type.
func recvType(fn *ast.FuncDecl) string {
	name := funcName(fn)
	if i := strings.LastIndex(name, "."); i >= 0 {
		return name[:i]
	}
	return ""
}

// chain writes why a call fails only live, one callee a line, indented by
// depth; a function already written is referred to, not repeated.
func (a *analysis) chain(b *strings.Builder, r reason, depth int, seen map[*ast.FuncDecl]bool) {
	pad := strings.Repeat("  ", depth)
	switch {
	case r.shut != nil:
		fmt.Fprintf(b, "%sthe %s, inside the branch at line %d: %s\n", pad, r.callee, r.shut.start.Line, r.shut.why)
		if r.shut.via != nil {
			a.chain(b, *r.shut.via, depth+1, seen)
		}
	case r.rule != nil:
		fmt.Fprintf(b, "%s%s  [failing rule %s:%d]\n", pad, r.callee, a.c.file, r.rule.line)
		if len(r.closure) > 0 {
			fmt.Fprintf(b, "%s  and its callback's errors come from:\n", pad)
			for _, v := range r.closure {
				a.chain(b, v, depth+2, seen)
			}
		}
	case r.target != nil:
		lf := a.live[r.target]
		if seen[r.target] {
			fmt.Fprintf(b, "%s%s = %s  (as above)\n", pad, r.callee, lf.key)
			return
		}
		seen[r.target] = true
		if len(lf.via) == 0 {
			fmt.Fprintf(b, "%s%s = %s  (returns no error but nil)\n", pad, r.callee, lf.key)
			return
		}
		fmt.Fprintf(b, "%s%s = %s, whose errors come from:\n", pad, r.callee, lf.key)
		for _, v := range lf.via {
			a.chain(b, v, depth+1, seen)
		}
	default:
		if len(r.closure) == 0 {
			fmt.Fprintf(b, "%s%s(..., func)  (the closure returns no error but nil)\n", pad, r.callee)
			return
		}
		fmt.Fprintf(b, "%s%s(..., func), whose closure's errors come from:\n", pad, r.callee)
		for _, v := range r.closure {
			a.chain(b, v, depth+1, seen)
		}
	}
}

// neverFails tells whether the call r proves live-only returns no error
// but nil at all.
func (a *analysis) neverFails(r reason) bool {
	switch {
	case r.rule != nil || r.shut != nil:
		return false
	case r.target != nil:
		return len(a.live[r.target].via) == 0
	}
	return len(r.closure) == 0
}

// liveList lists every function proved to fail only live, by key.
func (a *analysis) liveList() []string {
	var out []string
	for _, lf := range a.live {
		out = append(out, lf.key)
	}
	sort.Strings(out)
	return out
}
