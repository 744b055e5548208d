package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	in := readFileInput{Path: "big.txt", Offset: lines / 2, Limit: 100}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := runReadFile(context.Background(), env, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFile reads a whole 20 KB file, as each step of
// BenchmarkLongSession does: B/op is about the file's size (the read
// buffer) plus the answer.
func BenchmarkReadFile(b *testing.B) {
	env := &ToolEnv{Workspace: longSessionWorkspace(b, 1, 20_000)}
	in := readFileInput{Path: "file0.txt", Offset: 1, Limit: 2000}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runReadFile(context.Background(), env, in); err != nil {
			b.Fatal(err)
		}
	}
}

// grepBenchPatterns are the searches BenchmarkGrep times; the same
// patterns work with ripgrep for comparison.
var grepBenchPatterns = []struct {
	name, pattern string
	ignoreCase    bool
}{
	{"literal", `errors.New`, false},
	{"regexp", `func \(\w+ \*\w+\) Close\(`, false},
	{"ignore_case", `errors\.new`, true},
	{"literal_free", `[A-Z][a-z]+[0-9]{3,}`, false},
}

// BenchmarkGrep searches the Go source tree ($(go env GOROOT)/src) with
// grep_files and, when ripgrep is installed, with rg on the same patterns,
// so one run compares the two side by side:
//
//	go test -run '^$' -bench Grep -benchtime 5x
//
// The rg sub-benchmarks time the whole rg process (start, search, output
// to a pipe), as a tool call would run it. cpu-ms/op is the CPU time of a
// search (this process's for grep_files, rg's own for rg), which a busy
// machine inflates less than the wall time.
func BenchmarkGrep(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT failed")
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("GOROOT/src not found")
	}
	rg, rgErr := exec.LookPath("rg")
	env := &ToolEnv{Workspace: src}
	for _, p := range grepBenchPatterns {
		b.Run(p.name+"/minicode", func(b *testing.B) {
			in := grepFilesInput{Pattern: p.pattern, IgnoreCase: p.ignoreCase, Limit: 5000}
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			for b.Loop() {
				if _, err := runGrepFiles(context.Background(), env, in); err != nil {
					b.Fatal(err)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
		b.Run(p.name+"/rg", func(b *testing.B) {
			if rgErr != nil {
				b.Skip("ripgrep is not installed (apt-get install ripgrep)")
			}
			var cpu time.Duration
			for b.Loop() {
				// rg exits 1 when nothing matches; only a failure to run counts.
				args := []string{"-n", p.pattern, src}
				if p.ignoreCase {
					args = append([]string{"-i"}, args...)
				}
				cmd := exec.Command(rg, args...)
				cmd.Stdout = io.Discard
				var exit *exec.ExitError
				if err := cmd.Run(); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
					b.Fatalf("rg: %v", err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkGlob lists the .go files of a tree of 100,000 files (100 folders of 100 folders of
// 10 files, half of them .go) with glob_files and, when ripgrep is installed, with
// rg --files -g '*.go' on the same tree; cpu-ms/op compares them as BenchmarkGrep does.
// glob_files also reads each match's modification time, to put the newest first.
func BenchmarkGlob(b *testing.B) {
	root := b.TempDir()
	for i := range 100 * 100 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i/100), fmt.Sprintf("e%02d", i%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			name := fmt.Sprintf("f%d.go", j)
			if j%2 == 1 {
				name = fmt.Sprintf("f%d.txt", j)
			}
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	env := &ToolEnv{Workspace: root}
	b.Run("minicode", func(b *testing.B) {
		var before, after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		for b.Loop() {
			if _, err := runGlobFiles(context.Background(), env, globFilesInput{Pattern: "**/*.go", Limit: 200}); err != nil {
				b.Fatal(err)
			}
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
		b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	b.Run("rg", func(b *testing.B) {
		rg, err := exec.LookPath("rg")
		if err != nil {
			b.Skip("ripgrep is not installed (apt-get install ripgrep)")
		}
		var cpu time.Duration
		for b.Loop() {
			cmd := exec.Command(rg, "--files", "-g", "*.go", root)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatalf("rg: %v", err)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	})
}
