package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
)

// A branch is the body of an `if` inside a reachable function that an
// offline render cannot enter, whatever its input: the API server failing
// a call, a write losing a race with another writer, a feature gate that is
// off by default. Its blocks count apart, so the headline measures what
// cases can reach.
type branch struct {
	start, end token.Position // the body's braces
	class      class
	why        string
	// callee is the call whose error an `if err != nil` branch checks;
	// open marks such a branch no failing rule shuts.
	callee string
	open   bool
	// strict marks a branch no run can enter (a gate off, a clause no
	// caller reaches, a call proved to fail only live): a run that does
	// proves the rule wrong.
	strict bool
	// lbrace and rbrace are the body's braces as positions of the file
	// set; clause marks an unentered rule's case clause.
	lbrace, rbrace token.Pos
	clause         bool
	// via, for a branch the transitive rule shuts, is why its call fails
	// only live.
	via *reason
	// call and decl, for a branch a failing rule shuts, are the checked
	// call and the function holding it.
	call *ast.CallExpr
	decl *ast.FuncDecl
}

func (b branch) holds(line, col int) bool {
	return after(line, col, b.start) && !after(line, col, b.end)
}

// A failing rule names the calls whose error only a live API server
// returns: `failing <regexp of the callee as written> <why>`.
type failing struct {
	line    int
	callee  *regexp.Regexp
	why     string
	matched int
}

// An unentered rule names the `case` clauses of a function no offline
// render enters: `unentered <function pattern> <regexp of the clause's
// expressions as written, comma-separated> <why>`.
type unentered struct {
	line     int
	class    class
	function string
	clause   *regexp.Regexp
	why      string
	matched  int
}

// branches lists the branches of a file an offline render cannot take.
// offGates holds the feature gates off by default, by constant name; key
// gives a function's key for the unentered rules. a, when not nil, holds
// the functions proved to fail only live (liveonly.go), and s is the file
// as a knows it.
func branches(fset *token.FileSet, file *ast.File, c *classes, key func(*ast.FuncDecl) string, a *analysis, s *source) []branch {
	rules, offGates := c.failing, c.offGates
	var out []branch
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		var applies []*unentered
		for _, u := range c.unentered {
			if match(u.function, key(fn)) {
				applies = append(applies, u)
			}
		}
		if len(applies) == 0 {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok || len(cc.List) == 0 {
				return true
			}
			exprs := make([]string, len(cc.List))
			for i, e := range cc.List {
				exprs[i] = types.ExprString(e)
			}
			for _, u := range applies {
				if u.clause.MatchString(strings.Join(exprs, ", ")) {
					u.matched++
					out = append(out, branch{start: fset.Position(cc.Colon), end: fset.Position(cc.End()), class: u.class, why: u.why, strict: true,
						lbrace: cc.Colon, rbrace: cc.End(), clause: true})
					break
				}
			}
			return true
		})
	}
	add := func(body *ast.BlockStmt, cl class, why string) {
		out = append(out, branch{start: fset.Position(body.Lbrace), end: fset.Position(body.Rbrace), class: cl, why: why,
			lbrace: body.Lbrace, rbrace: body.Rbrace})
	}
	var decl *ast.FuncDecl // the function visited, for the transitive rule
	visit := func(list []ast.Stmt) {
		for i, s := range list {
			is, ok := s.(*ast.IfStmt)
			if !ok {
				continue
			}
			if g := offGate(is.Cond, offGates); g != "" {
				add(is.Body, gate, "feature gate "+g+" is off by default")
				out[len(out)-1].strict = true
				continue
			}
			if conflict(is.Cond) {
				add(is.Body, live, "a conflict only another writer causes")
				continue
			}
			name := errCheck(is.Cond)
			if name == "" || mentions(is.Body, "IsNotFound") || mentions(is.Body, "IsAlreadyExists") {
				continue
			}
			var origin ast.Stmt
			if is.Init != nil {
				origin = is.Init
			} else if i > 0 {
				origin = list[i-1]
			}
			call, last := assignedCall(origin, name)
			if call == nil {
				continue
			}
			callee := types.ExprString(call.Fun)
			shut := false
			for _, r := range rules {
				if r.callee.MatchString(callee) {
					r.matched++
					if a != nil {
						// The rule names the call, not a callback it
						// returns the error of (CreateOrUpdate's mutate
						// function): one that can fail keeps it counted.
						if _, ok := a.callbacks(decl, call); !ok {
							break
						}
					}
					add(is.Body, live, r.why)
					out[len(out)-1].call, out[len(out)-1].decl = call, decl
					shut = true
					break
				}
			}
			if !shut && a != nil && last {
				if r, ok := a.liveCall(decl, call); ok {
					why := "fails only live (transitive rule): " + callee
					if a.neverFails(r) {
						why = "never returns an error but nil (transitive rule): " + callee
					}
					add(is.Body, live, why)
					out[len(out)-1].strict = true
					out[len(out)-1].via = &r
					shut = true
				}
			}
			if !shut {
				add(is.Body, reachable, "")
				out[len(out)-1].open = true
			}
			out[len(out)-1].callee = callee
		}
	}
	inspect := func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BlockStmt:
			visit(x.List)
		case *ast.CaseClause:
			visit(x.Body)
		case *ast.CommClause:
			visit(x.Body)
		}
		return true
	}
	for _, d := range file.Decls {
		decl, _ = d.(*ast.FuncDecl)
		if a != nil && s != nil && decl != nil && a.src[decl] != s {
			decl = nil
		}
		ast.Inspect(d, inspect)
	}
	return out
}

// errCheck returns the name X of a condition `X != nil` where X names an
// error (ends in "err" or "Err").
func errCheck(cond ast.Expr) string {
	bin, ok := cond.(*ast.BinaryExpr)
	if !ok || bin.Op != token.NEQ {
		return ""
	}
	id, ok := bin.X.(*ast.Ident)
	if nilIdent, isNil := bin.Y.(*ast.Ident); !ok || !isNil || nilIdent.Name != "nil" {
		return ""
	}
	if !strings.HasSuffix(strings.ToLower(id.Name), "err") {
		return ""
	}
	return id.Name
}

// assignedCall returns the call that statement s assigns name from (`a,
// err := c.Get(...)`, `var x, err = f()`, `err = f()`), or nil; last tells
// whether name takes the call's last result, where an error is.
func assignedCall(s ast.Stmt, name string) (call *ast.CallExpr, last bool) {
	var lhs []ast.Expr
	var rhs []ast.Expr
	switch x := s.(type) {
	case *ast.AssignStmt:
		lhs, rhs = x.Lhs, x.Rhs
	case *ast.DeclStmt:
		gd, ok := x.Decl.(*ast.GenDecl)
		if !ok || len(gd.Specs) != 1 {
			return nil, false
		}
		vs, ok := gd.Specs[0].(*ast.ValueSpec)
		if !ok {
			return nil, false
		}
		for _, n := range vs.Names {
			lhs = append(lhs, n)
		}
		rhs = vs.Values
	default:
		return nil, false
	}
	assigns := false
	for i, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == name {
			assigns = true
			last = i == len(lhs)-1
		}
	}
	if !assigns || len(rhs) != 1 {
		return nil, false
	}
	call, ok := rhs[0].(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	return call, last
}

// conflict tells whether cond is, or is an `&&` chain holding, a call of
// apierrors.IsConflict.
func conflict(cond ast.Expr) bool {
	for _, c := range conjuncts(cond) {
		if call, ok := c.(*ast.CallExpr); ok && strings.HasSuffix(types.ExprString(call.Fun), ".IsConflict") {
			return true
		}
	}
	return false
}

// offGate returns the gate when cond is, or is an `&&` chain holding,
// `features.FeatureGate.Enabled(features.G)` for a gate G off by default.
func offGate(cond ast.Expr, offGates map[string]bool) string {
	for _, c := range conjuncts(cond) {
		call, ok := c.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || types.ExprString(call.Fun) != "features.FeatureGate.Enabled" {
			continue
		}
		sel, ok := call.Args[0].(*ast.SelectorExpr)
		if ok && offGates[sel.Sel.Name] {
			return sel.Sel.Name
		}
	}
	return ""
}

func conjuncts(e ast.Expr) []ast.Expr {
	if p, ok := e.(*ast.ParenExpr); ok {
		return conjuncts(p.X)
	}
	if bin, ok := e.(*ast.BinaryExpr); ok && bin.Op == token.LAND {
		return append(conjuncts(bin.X), conjuncts(bin.Y)...)
	}
	return []ast.Expr{e}
}

// mentions tells whether an identifier or selector named name occurs in n.
func mentions(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// featureDefaults reads the feature gates' constants and defaults from the
// source of Karmada's features package: `Name featuregate.Feature = "Name"`
// constants and the `Name: {Default: false, ...}` entries of its default
// map. It returns the constant names of the gates off by default.
func featureDefaults(file *ast.File) (map[string]bool, error) {
	off := map[string]bool{}
	constants := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			if sel, ok := x.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Feature" {
				for _, name := range x.Names {
					constants[name.Name] = true
				}
			}
		case *ast.KeyValueExpr:
			key, ok := x.Key.(*ast.Ident)
			if !ok || !constants[key.Name] {
				return true
			}
			spec, ok := x.Value.(*ast.CompositeLit)
			if !ok {
				return true
			}
			for _, elt := range spec.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Default" {
					if v, ok := kv.Value.(*ast.Ident); ok {
						on, err := strconv.ParseBool(v.Name)
						if err == nil && !on {
							off[key.Name] = true
						}
					}
				}
			}
		}
		return true
	})
	if len(constants) == 0 {
		return nil, fmt.Errorf("no feature gate constants found in Karmada's features package")
	}
	return off, nil
}
