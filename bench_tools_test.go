package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadFileLarge reads 100 lines from the middle of a 100 MB file.
// B/op shows that read_file streams: it allocates a small, fixed amount
// however large the file is.
func BenchmarkReadFileLarge(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a 100 MB file")
	}
	env := &ToolEnv{Workspace: b.TempDir()}
	lines := writeLargeFile(b, filepath.Join(env.Workspace, "big.txt"), 100<<20)
	in := ReadFileInput{Path: "big.txt", Offset: ptr(lines / 2), Limit: ptr(100)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := runReadFile(context.Background(), env, in); err != nil {
			b.Fatal(err)
		}
	}
}

// grepBenchPatterns are the searches BenchmarkGrep times; the same
// patterns work with ripgrep for comparison.
var grepBenchPatterns = []struct{ name, pattern string }{
	{"literal", `errors.New`},
	{"regexp", `func \(\w+ \*\w+\) Close\(`},
	{"rare", `ZZZ_no_such_text_ZZZ`},
}

// BenchmarkGrep searches the Go source tree ($(go env GOROOT)/src). To
// compare with ripgrep on the same machine:
//
//	go test -run '^$' -bench Grep -benchtime 5x
//	time rg -n 'errors.New' "$(go env GOROOT)/src" > /dev/null
//
// and compare the benchmark's ns/op with rg's wall time.
func BenchmarkGrep(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT failed")
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("GOROOT/src not found")
	}
	env := &ToolEnv{Workspace: src}
	for _, p := range grepBenchPatterns {
		b.Run(p.name, func(b *testing.B) {
			in := GrepFilesInput{Pattern: p.pattern, Limit: ptr(5000)}
			for b.Loop() {
				if _, err := runGrepFiles(context.Background(), env, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
