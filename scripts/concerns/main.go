// Concerns counts the pairs of concerns in minicode's package main that use
// each other both ways. A concern is a file name's prefix before its first
// "_" (permissions_check.go and permissions.go are both "permissions";
// main.go is "main"); test files are left out. Concern A uses concern B when
// a name declared at the top of one of B's files (a function, type, method,
// field, constant or variable) appears in one of A's. A pair that uses each
// other both ways is a cycle a reader must walk around, usually a helper
// filed under the wrong name.
//
// Run it from the repository's root:
//
//	go run ./scripts/concerns        the count and the pairs
//	go run ./scripts/concerns -v     and every cross-concern use, file by file
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// edge is one concern's use of another's names, with the uses counted by where they are.
type edge struct {
	from, to string
	uses     map[string]int // "file.go uses name (in file2.go)" → times
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("concerns: ")
	verbose := flag.Bool("v", false, "list every cross-concern use")
	dir := flag.String("dir", ".", "the folder of the package to measure")
	flag.Parse()
	edges, err := concernUses(*dir)
	if err != nil {
		log.Fatal(err)
	}
	pairs := twoWayPairs(edges)
	fmt.Printf("%d concern pairs use each other both ways\n", len(pairs))
	for _, p := range pairs {
		ab, ba := edges[[2]string{p[0], p[1]}], edges[[2]string{p[1], p[0]}]
		fmt.Printf("  %-12s <-> %-12s %3d uses -> / %3d uses <-\n", p[0], p[1], total(ab), total(ba))
		if *verbose {
			printUses(ab)
			printUses(ba)
		}
	}
}

// concern is the concern a file belongs to: its name's prefix before the first "_".
func concern(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".go")
	before, _, _ := strings.Cut(name, "_")
	return before
}

// concernUses type-checks the package's non-test files that build on this
// machine and returns, per ordered pair of concerns, the uses of one's names
// by the other.
func concernUses(dir string) (map[[2]string]*edge, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %w", dir, err)
	}
	edges := map[[2]string]*edge{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !declaredAtTop(obj) {
			continue
		}
		from, to := fset.Position(id.Pos()).Filename, fset.Position(obj.Pos()).Filename
		a, b := concern(from), concern(to)
		if a == b {
			continue
		}
		e := edges[[2]string{a, b}]
		if e == nil {
			e = &edge{from: a, to: b, uses: map[string]int{}}
			edges[[2]string{a, b}] = e
		}
		e.uses[fmt.Sprintf("%s uses %s (%s)", filepath.Base(from), obj.Name(), filepath.Base(to))]++
	}
	return edges, nil
}

// declaredAtTop reports whether obj is a package-level name, a method or a
// struct field, not a local variable, parameter or label.
func declaredAtTop(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return true
	case *types.Var:
		return o.IsField() || o.Parent() == o.Pkg().Scope()
	case *types.TypeName, *types.Const:
		return o.Parent() == o.Pkg().Scope()
	}
	return false
}

// twoWayPairs lists, sorted, the pairs of concerns that use each other both ways.
func twoWayPairs(edges map[[2]string]*edge) [][2]string {
	var pairs [][2]string
	for k := range edges {
		if k[0] < k[1] && edges[[2]string{k[1], k[0]}] != nil {
			pairs = append(pairs, k)
		}
	}
	slices.SortFunc(pairs, func(x, y [2]string) int { return strings.Compare(x[0]+" "+x[1], y[0]+" "+y[1]) })
	return pairs
}

// total is the number of uses an edge counts.
func total(e *edge) int {
	n := 0
	for _, k := range e.uses {
		n += k
	}
	return n
}

// printUses lists an edge's uses, sorted, with how often each occurs.
func printUses(e *edge) {
	fmt.Printf("    %s -> %s:\n", e.from, e.to)
	for _, u := range slices.Sorted(maps.Keys(e.uses)) {
		fmt.Printf("      %s ×%d\n", u, e.uses[u])
	}
}
