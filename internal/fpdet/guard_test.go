package fpdet_test

// The guard: TestNoFusableMultiplyAdd and TestNoArchDependentCalls type-check
// every non-test file of the module (go list ./..., the host's build) and fail
// on the floating-point code that can round differently on another
// architecture, naming file and line. See doc.go, "Keeping it so".

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// exemptMark on the line of a finding (or the line above) exempts it; the
// comment must say why the result cannot differ, e.g. that the product is
// exact.
const exemptMark = "fpdet:exact"

type listedPkg struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	DepOnly    bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

type modulePkg struct {
	pkg   *types.Package
	path  string
	files []*ast.File
	info  *types.Info
}

type moduleInfo struct {
	fset    *token.FileSet
	modPath string
	root    string
	pkgs    []*modulePkg
}

var (
	loadOnce sync.Once
	loaded   *moduleInfo
	loadErr  error
)

// loadModule type-checks the module's packages from source, importing their
// dependencies from the export data that go list -export builds (cached by
// the go command, so this costs a few seconds after the first build).
//
// Under the race detector the guard skips: it is a static analysis, which
// the detector cannot check and slows tenfold (40 s under README's
// `go test -race ./...`); `go test ./internal/fpdet` and .ci/xarch run it.
func loadModule(t *testing.T) *moduleInfo {
	t.Helper()
	if raceEnabled {
		t.Skip("the guard is a static analysis: it runs without -race (go test ./internal/fpdet; .ci/xarch)")
	}
	loadOnce.Do(func() { loaded, loadErr = load() })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func load() (*moduleInfo, error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-e", "-export", "-deps",
		"-json=ImportPath,Dir,Export,GoFiles,DepOnly,Module,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	var targets []listedPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			targets = append(targets, p)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("go list ./... in %s listed no package", root)
	}
	m := &moduleInfo{fset: token.NewFileSet(), root: root, modPath: targets[0].Module.Path}
	imp := importer.ForCompiler(m.fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	for _, p := range targets {
		mp := &modulePkg{path: p.ImportPath, info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{},
			Defs:  map[*ast.Ident]types.Object{},
			Uses:  map[*ast.Ident]types.Object{},
		}}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(m.fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			mp.files = append(mp.files, f)
		}
		conf := types.Config{Importer: imp}
		if mp.pkg, err = conf.Check(p.ImportPath, m.fset, mp.files, mp.info); err != nil {
			return nil, fmt.Errorf("type-checking %s: %v", p.ImportPath, err)
		}
		m.pkgs = append(m.pkgs, mp)
	}
	return m, nil
}

// pending are files not yet converted, skipped by both guard tests until
// their owner converts them (go test ./internal/fpdet -run
// TestNoFusableMultiplyAdd -args -fix, then fpdet.X for the calls) and
// removes them from this list. Each test logs what it skipped.
var pending = map[string]string{}

// skipPending reports whether a finding falls in a pending file, counting
// it in skipped.
func (m *moduleInfo) skipPending(f finding, skipped map[string]int) bool {
	rel, err := filepath.Rel(m.root, f.pos.Filename)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if _, ok := pending[rel]; ok {
		skipped[rel]++
		return true
	}
	return false
}

// finding is one flagged place.
type finding struct {
	pos token.Position
	msg string
}

// exempt reports whether the line of pos, or the line above, carries the
// exemption mark in a comment.
func exempt(fset *token.FileSet, f *ast.File, pos token.Pos) bool {
	line := fset.Position(pos).Line
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			l := fset.Position(c.Slash).Line
			if (l == line || l == line-1) && strings.Contains(c.Text, exemptMark) {
				return true
			}
		}
	}
	return false
}

func (m *moduleInfo) report(t *testing.T, what string, fs []finding) {
	t.Helper()
	skipped := map[string]int{}
	kept := fs[:0]
	for _, f := range fs {
		if !m.skipPending(f, skipped) {
			kept = append(kept, f)
		}
	}
	fs = kept
	for name, n := range skipped {
		t.Logf("pending (%s): %d %s in %s not checked", pending[name], n, what, name)
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i].pos, fs[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	var b strings.Builder
	for _, f := range fs {
		name, err := filepath.Rel(m.root, f.pos.Filename)
		if err != nil {
			name = f.pos.Filename
		}
		fmt.Fprintf(&b, "\n\t%s:%d: %s", name, f.pos.Line, f.msg)
	}
	if len(fs) > 0 {
		t.Errorf("%d %s:%s", len(fs), what, b.String())
	}
}

// isFloat reports whether t is a float32 or float64 type (or a type
// parameter all of whose types are).
func isFloat(t types.Type) bool {
	if t == nil {
		return false
	}
	if tp, ok := t.(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		if !ok || iface.NumEmbeddeds() == 0 {
			return false
		}
		for i := range iface.NumEmbeddeds() {
			switch e := iface.EmbeddedType(i).(type) {
			case *types.Union:
				for j := range e.Len() {
					if !isFloat(e.Term(j).Type()) {
						return false
					}
				}
			default:
				if !isFloat(e) {
					return false
				}
			}
		}
		return true
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsFloat != 0
}

// fmaChecker finds, in one function body (closures included), the float
// products that may be fused with an addition. Go's spec allows fusing
// x*y + z across statements, and SSA does so whatever the product's
// path: through variables, returns of inlined functions, arguments of
// inlined calls and stores the compiler forwards to loads. So a product
// (or a variable holding one) is flagged where it can reach an addition:
// as an operand of + or -, the right side of += or -=, a return value,
// an argument of a call into this module (which may be inlined) or of a
// function value, a composite-literal element, a channel send, and an
// operand of ++ or --. A variable, field or element assigned a product in
// the function counts as one (the compiler forwards such stores). A
// product that is multiplied, divided, compared, converted or handed to a
// function outside the module stays unflagged; float64(x*y) is the cure.
type fmaChecker struct {
	fset    *token.FileSet
	file    *ast.File
	info    *types.Info
	modPath string
	tainted map[types.Object]bool
	places  map[string]bool // source text of x.f, x[i], *p assigned a product
	sources map[any][]ast.Node
	pkg     *types.Package
	edits   *[]edit
	out     *[]finding
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (c *fmaChecker) floatExpr(e ast.Expr) bool {
	tv, ok := c.info.Types[e]
	return ok && tv.Value == nil && isFloat(tv.Type)
}

// product reports whether e is a non-constant float product (x*y, or x/c
// for a constant power of two c, which the compiler turns into x*(1/c)),
// possibly parenthesised or negated, or a variable or place (x.f, x[i],
// *p) assigned one in this function.
func (c *fmaChecker) product(e ast.Expr) bool {
	e = unparen(e)
	switch x := e.(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.MUL:
			return c.floatExpr(x)
		case token.QUO:
			return c.floatExpr(x) && c.powerOfTwo(x.Y)
		}
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD) && c.product(x.X)
	case *ast.Ident:
		if o := c.info.Uses[x]; o != nil && c.tainted[o] {
			return c.floatExpr(x)
		}
	case *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
		return c.places[types.ExprString(x)] && c.floatExpr(x)
	}
	return false
}

// powerOfTwo reports whether e is a constant ±2^k (whose reciprocal is
// exact, so that dividing by it compiles to a multiplication).
func (c *fmaChecker) powerOfTwo(e ast.Expr) bool {
	tv, ok := c.info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	v, _ := constant.Float64Val(constant.ToFloat(tv.Value))
	if v == 0 || math.IsInf(v, 0) {
		return false
	}
	f, _ := math.Frexp(math.Abs(v))
	return f == 0.5
}

func (c *fmaChecker) flag(e ast.Expr, why string) {
	if exempt(c.fset, c.file, e.Pos()) {
		return
	}
	*c.out = append(*c.out, finding{c.fset.Position(e.Pos()), fmt.Sprintf("%s %s: write float64(…) (or float32(…)) around the product", types.ExprString(e), why)})
	if *fix {
		c.fixExpr(e, map[any]bool{})
	}
}

// fixExpr records the edits that round e: a conversion around a product,
// or, for a variable or place holding one, around the products assigned
// to it (x *= y becomes x = T(x * y)).
func (c *fmaChecker) fixExpr(e ast.Expr, seen map[any]bool) {
	e = unparen(e)
	switch x := e.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
		k := c.key(x)
		if k == nil || seen[k] {
			return
		}
		seen[k] = true
		for _, src := range c.sources[k] {
			switch s := src.(type) {
			case *ast.AssignStmt: // x *= y or x /= 2ᵏ
				op := "*"
				if s.Tok == token.QUO_ASSIGN {
					op = "/"
				}
				l, r := c.text(s.Lhs[0]), c.text(s.Rhs[0])
				switch unparen(s.Rhs[0]).(type) {
				case *ast.BinaryExpr, *ast.UnaryExpr:
					r = "(" + r + ")"
				}
				c.edit(s.Pos(), s.End(), fmt.Sprintf("%s = %s(%s %s %s)", l, c.typeName(s.Lhs[0]), l, op, r))
			case ast.Expr:
				c.fixExpr(s, seen)
			}
		}
	case *ast.UnaryExpr:
		if _, ok := x.X.(*ast.BinaryExpr); !ok {
			c.fixExpr(x.X, seen) // −x for a variable x: round what x is assigned
			return
		}
		c.edit(e.Pos(), e.End(), c.typeName(e)+"("+c.text(e)+")")
	default:
		c.edit(e.Pos(), e.End(), c.typeName(e)+"("+c.text(e)+")")
	}
}

func (c *fmaChecker) text(e ast.Node) string {
	f := c.fset.File(e.Pos())
	src, err := os.ReadFile(f.Name())
	if err != nil {
		panic(err)
	}
	return string(src[f.Offset(e.Pos()):f.Offset(e.End())])
}

// typeName is e's type as written in c.file.
func (c *fmaChecker) typeName(e ast.Expr) string {
	return types.TypeString(c.info.TypeOf(e), func(p *types.Package) string {
		if p == c.pkg {
			return ""
		}
		return p.Name()
	})
}

func (c *fmaChecker) edit(pos, end token.Pos, text string) {
	f := c.fset.File(pos)
	*c.edits = append(*c.edits, edit{f.Name(), f.Offset(pos), f.Offset(end), text})
}

// key identifies a variable (its object) or a place (its source text).
func (c *fmaChecker) key(e ast.Expr) any {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		if o := c.info.Defs[x]; o != nil {
			return o
		}
		if o := c.info.Uses[x]; o != nil {
			return o
		}
		return nil
	case *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
		return types.ExprString(x)
	}
	return nil
}

// taint marks the variables assigned a product, to a fixed point (a
// variable assigned a tainted one is tainted).
func (c *fmaChecker) taint(body ast.Node) {
	mark := func(lhs ast.Expr, rhs ast.Expr, op token.Token) bool {
		isProduct := op == token.MUL_ASSIGN || (rhs != nil && c.product(rhs))
		id, ok := unparen(lhs).(*ast.Ident)
		if !ok {
			switch l := unparen(lhs).(type) {
			case *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
				if k := types.ExprString(l); isProduct && !c.places[k] && isFloat(c.info.TypeOf(l)) {
					c.places[k] = true
					return true
				}
			}
			return false
		}
		o := c.info.Defs[id]
		if o == nil {
			o = c.info.Uses[id]
		}
		if o == nil || c.tainted[o] || !isFloat(o.Type()) {
			return false
		}
		if isProduct {
			c.tainted[o] = true
			return true
		}
		return false
	}
	defer func() {
		// Every assignment of a product, or of a tainted variable or place,
		// to a tainted one: where -fix rounds.
		ast.Inspect(body, func(n ast.Node) bool {
			add := func(lhs, rhs ast.Expr, stmt *ast.AssignStmt) {
				k := c.key(lhs)
				if k == nil || !c.isTainted(k) {
					return
				}
				switch {
				case stmt != nil:
					c.sources[k] = append(c.sources[k], stmt)
				case c.product(rhs):
					c.sources[k] = append(c.sources[k], rhs)
				}
			}
			switch s := n.(type) {
			case *ast.AssignStmt:
				switch {
				case s.Tok == token.MUL_ASSIGN || s.Tok == token.QUO_ASSIGN && c.powerOfTwo(s.Rhs[0]):
					add(s.Lhs[0], nil, s)
				case len(s.Lhs) == len(s.Rhs) && (s.Tok == token.ASSIGN || s.Tok == token.DEFINE):
					for i := range s.Lhs {
						add(s.Lhs[i], s.Rhs[i], nil)
					}
				}
			case *ast.ValueSpec:
				if len(s.Names) == len(s.Values) {
					for i := range s.Names {
						add(s.Names[i], s.Values[i], nil)
					}
				}
			}
			return true
		})
	}()
	for changed := true; changed; {
		changed = false
		ast.Inspect(body, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				switch {
				case s.Tok == token.MUL_ASSIGN || s.Tok == token.QUO_ASSIGN && c.powerOfTwo(s.Rhs[0]):
					changed = mark(s.Lhs[0], nil, token.MUL_ASSIGN) || changed
				case len(s.Lhs) == len(s.Rhs) && (s.Tok == token.ASSIGN || s.Tok == token.DEFINE):
					for i := range s.Lhs {
						changed = mark(s.Lhs[i], s.Rhs[i], s.Tok) || changed
					}
				}
			case *ast.ValueSpec:
				if len(s.Names) == len(s.Values) {
					for i := range s.Names {
						changed = mark(s.Names[i], s.Values[i], token.DEFINE) || changed
					}
				}
			}
			return true
		})
	}
}

// external reports whether a call's callee is a conversion, a builtin or a
// function or method declared outside this module.
func (c *fmaChecker) external(call *ast.CallExpr) bool {
	fun := unparen(call.Fun)
	if tv, ok := c.info.Types[fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return true
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr: // generic instantiation
		if s, ok := unparen(f.X).(*ast.SelectorExpr); ok {
			id = s.Sel
		} else if i, ok := unparen(f.X).(*ast.Ident); ok {
			id = i
		}
	}
	if id == nil {
		return false
	}
	fn, ok := c.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return p != c.modPath && !strings.HasPrefix(p, c.modPath+"/")
}

func (c *fmaChecker) isTainted(k any) bool {
	switch k := k.(type) {
	case types.Object:
		return c.tainted[k]
	case string:
		return c.places[k]
	}
	return false
}

func (c *fmaChecker) check(body ast.Node) {
	c.taint(body)
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if (x.Op == token.ADD || x.Op == token.SUB) && c.floatExpr(x) {
				for _, o := range []ast.Expr{x.X, x.Y} {
					if c.product(o) {
						c.flag(o, "is an operand of "+x.Op.String())
					}
				}
			}
		case *ast.AssignStmt:
			switch x.Tok {
			case token.ADD_ASSIGN, token.SUB_ASSIGN:
				if c.product(x.Rhs[0]) {
					c.flag(x.Rhs[0], "is the right side of "+x.Tok.String())
				}
			}
		case *ast.IncDecStmt:
			if c.product(x.X) {
				c.flag(x.X, "is incremented or decremented")
			}
		case *ast.ReturnStmt:
			for _, r := range x.Results {
				if c.product(r) {
					c.flag(r, "is returned (an inlined call may add it)")
				}
			}
		case *ast.CallExpr:
			if !c.external(x) {
				for _, a := range x.Args {
					if c.product(a) {
						c.flag(a, "is an argument of "+types.ExprString(x.Fun)+" (which may be inlined)")
					}
				}
			}
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				if c.product(el) {
					c.flag(el, "is a composite-literal element")
				}
			}
		case *ast.SendStmt:
			if c.product(x.Value) {
				c.flag(x.Value, "is sent on a channel")
			}
		}
		return true
	})
}

// TestNoFusableMultiplyAdd fails on every float product in the module's
// non-test code that the compiler may fuse into a multiply-add (arm64,
// ppc64, s390x, riscv64, amd64 with GOAMD64=v3), which rounds once instead
// of twice and so changes the last bits on those targets only.
func TestNoFusableMultiplyAdd(t *testing.T) {
	m := loadModule(t)
	var fs []finding
	var edits []edit
	for _, p := range m.pkgs {
		for _, f := range p.files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				c := &fmaChecker{fset: m.fset, file: f, info: p.info, modPath: m.modPath,
					tainted: map[types.Object]bool{}, places: map[string]bool{}, out: &fs,
					sources: map[any][]ast.Node{}, pkg: p.pkg, edits: &edits}
				c.check(fd.Body)
			}
			// Package-level initialisers.
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					c := &fmaChecker{fset: m.fset, file: f, info: p.info, modPath: m.modPath,
						tainted: map[types.Object]bool{}, places: map[string]bool{}, out: &fs,
						sources: map[any][]ast.Node{}, pkg: p.pkg, edits: &edits}
					c.check(gd)
				}
			}
		}
	}
	m.report(t, "float products that may be fused into a multiply-add", fs)
	if *fix {
		if err := applyEdits(edits); err != nil {
			t.Fatal(err)
		}
		t.Logf("-fix: %d edits written; run gofmt and this test again", len(edits))
	}
}

// fix rewrites the flagged places instead of only naming them:
// go test ./internal/fpdet -run TestNoFusableMultiplyAdd -args -fix
var fix = flag.Bool("fix", false, "TestNoFusableMultiplyAdd: write the conversions into the files")

type edit struct {
	file       string
	start, end int
	text       string
}

// applyEdits writes the edits. A wrap (text = prefix + old + ")") becomes
// two insertions, so that nested wraps compose; a replacement (x *= y)
// must not overlap another edit.
func applyEdits(edits []edit) error {
	type ins struct {
		at, del int // insert text at at, deleting up to del (> at for a replacement)
		text    string
		closing bool
	}
	byFile := map[string][]ins{}
	seen := map[edit]bool{}
	for _, e := range edits {
		if seen[e] {
			continue
		}
		seen[e] = true
		src, err := os.ReadFile(e.file)
		if err != nil {
			return err
		}
		old := string(src[e.start:e.end])
		if strings.HasSuffix(e.text, old+")") {
			byFile[e.file] = append(byFile[e.file],
				ins{at: e.start, del: e.start, text: strings.TrimSuffix(e.text, old+")")},
				ins{at: e.end, del: e.end, text: ")", closing: true})
		} else {
			byFile[e.file] = append(byFile[e.file], ins{at: e.start, del: e.end, text: e.text})
		}
	}
	for name, is := range byFile {
		for _, r := range is {
			for _, o := range is {
				if r.del > r.at && o != r && o.at < r.del && r.at < o.del {
					return fmt.Errorf("%s: overlapping edits at offsets %d and %d", name, r.at, o.at)
				}
			}
		}
		// Back to front; at one offset, closing parentheses before openings.
		sort.SliceStable(is, func(i, j int) bool {
			return is[i].at > is[j].at || is[i].at == is[j].at && is[i].closing && !is[j].closing
		})
		out, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		for _, in := range is {
			out = append(out[:in.at:in.at], append([]byte(in.text), out[in.del:]...)...)
		}
		if err := os.WriteFile(name, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// exactMath are the functions of package math whose results are exact
// (correctly rounded IEEE operations, or no rounding at all) and so the same
// on every architecture; every other math function must come from fpdet.
var exactMath = map[string]bool{
	"Abs": true, "Ceil": true, "Copysign": true, "Dim": true, "FMA": true,
	"Float32bits": true, "Float32frombits": true, "Float64bits": true, "Float64frombits": true,
	"Floor": true, "Frexp": true, "Inf": true, "IsInf": true, "IsNaN": true, "Ldexp": true,
	"Max": true, "Min": true, "Mod": true, "Modf": true, "NaN": true, "Nextafter": true,
	"Nextafter32": true, "Remainder": true, "Round": true, "RoundToEven": true,
	"Signbit": true, "Sqrt": true, "Trunc": true,
}

// exactStats are the functions of github.com/montanaflynn/stats without a
// product to fuse: sums, comparisons, integers.
var exactStats = map[string]bool{"Mean": true, "Median": true, "Min": true, "Max": true, "Ncr": true, "Sum": true}

// gonumAccessors are gonum functions and methods that move numbers without
// arithmetic.
var gonumAccessors = map[string]bool{"NewDense": true, "NewVecDense": true, "Dims": true, "RawMatrix": true,
	"RawVector": true, "IsEmpty": true, "At": true, "Set": true, "SetRow": true, "SetCol": true, "Len": true,
	"AtVec": true, "SetVec": true, "T": true, "Caps": true}

// TestNoArchDependentCalls fails on calls, outside package fpdet, of
// functions whose last bits depend on the architecture: math's
// transcendental functions (assembly on amd64, arm64, s390x; fusable
// pure Go elsewhere), math/rand's NormFloat64 and ExpFloat64 (which call
// math.Exp and math.Log), and the numeric functions of the pure-Go
// libraries montanaflynn/stats and gonum (compiled with fused multiply-adds
// on arm64; gonum also has amd64 assembly).
func TestNoArchDependentCalls(t *testing.T) {
	m := loadModule(t)
	self := m.modPath + "/internal/fpdet"
	var fs []finding
	for _, p := range m.pkgs {
		if p.path == self || strings.HasPrefix(p.path, self+"/") {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				fn, ok := p.info.Uses[sel.Sel].(*types.Func)
				if !ok || fn.Pkg() == nil {
					return true
				}
				var msg string
				switch path, name := fn.Pkg().Path(), fn.Name(); {
				case path == "math" && !exactMath[name]:
					msg = fmt.Sprintf("math.%s differs in the last bits between architectures: use fpdet.%s", name, name)
				case (path == "math/rand/v2" || path == "math/rand") && (name == "NormFloat64" || name == "ExpFloat64"):
					msg = fmt.Sprintf("rand's %s calls math.Exp and math.Log: use fpdet.%s(r)", name, name)
				case path == "github.com/montanaflynn/stats" && !exactStats[name]:
					msg = fmt.Sprintf("stats.%s is pure Go with products that arm64 fuses: round them in a portable copy (cmd/syncbench/portable_stats.go)", name)
				case strings.HasPrefix(path, "gonum.org/v1/gonum/") && !gonumAccessors[name]:
					msg = fmt.Sprintf("gonum's %s.%s computes with assembly on amd64 (unless -tags noasm) and fusable pure Go elsewhere: write the loop here, products rounded", fn.Pkg().Name(), name)
				}
				if msg != "" && !exempt(m.fset, f, sel.Pos()) {
					fs = append(fs, finding{m.fset.Position(sel.Pos()), msg})
				}
				return true
			})
		}
	}
	m.report(t, "calls whose results depend on the architecture", fs)
}
