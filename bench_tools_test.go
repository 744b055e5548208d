package main

import (
	"context"
	"path/filepath"
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
