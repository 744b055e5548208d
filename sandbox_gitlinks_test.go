package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIndexGitlinks builds real indexes with git, in each format it
// writes (versions 2, 3 with extended flags, 4 with compressed paths,
// SHA-256, a split index), with files beside and between the gitlinks
// and a long path, and reads back exactly the gitlinks; a damaged index
// gives what precedes the damage and an error.
func TestIndexGitlinks(t *testing.T) {
	long := strings.Repeat("deep/", 40) + "mod"
	for _, tc := range []struct {
		name string
		init []string
		then [][]string
	}{
		{"version 2", nil, [][]string{{"update-index", "--index-version", "2"}}},
		{"version 3", nil, [][]string{{"update-index", "--index-version", "3"}, {"update-index", "--skip-worktree", "a.txt"}}},
		{"version 4", nil, [][]string{{"update-index", "--index-version", "4"}}},
		{"sha256", []string{"--object-format=sha256"}, nil},
		{"split index", nil, [][]string{{"update-index", "--split-index"}, {"update-index", "--add", "--cacheinfo", "160000,HEAD,z/late"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			runGit(t, ws, append([]string{"init", "-q"}, tc.init...)...)
			writeTree(t, ws, map[string]string{"a.txt": "a\n", "lib/b.go": "package b\n", long + ".txt": "x\n", "zz.txt": "z\n"})
			runGit(t, ws, "add", ".")
			runGit(t, ws, "commit", "-qm", "files")
			head := strings.TrimSpace(runGit(t, ws, "rev-parse", "HEAD"))
			for _, link := range []string{"lib/sub", long, "m"} {
				runGit(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+head+","+link)
			}
			want := []string{long, "lib/sub", "m"}
			for _, args := range tc.then {
				if i := slices.Index(args, "160000,HEAD,z/late"); i >= 0 {
					args[i] = "160000," + head + ",z/late"
					want = append(want, "z/late")
				}
				runGit(t, ws, args...)
			}
			got := gitlinks(filepath.Join(ws, ".git"))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("gitlinks = %q, want %q", got, want)
			}
		})
	}
	ws := t.TempDir()
	runGit(t, ws, "init", "-q")
	writeTree(t, ws, map[string]string{"a.txt": "a\n", "z.txt": "z\n"})
	runGit(t, ws, "add", ".")
	runGit(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",b")
	data, err := os.ReadFile(filepath.Join(ws, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if links, err := indexGitlinks(data, 20); err != nil || !slices.Equal(links, []string{"b"}) {
		t.Fatalf("whole index: %q, %v", links, err)
	}
	cut := data[:12+2*64+40] // a.txt and b whole, z.txt cut in its stat data
	if links, err := indexGitlinks(cut, 20); err == nil || !slices.Equal(links, []string{"b"}) {
		t.Errorf("cut index: %q, %v; want [b] and an error", links, err)
	}
	for _, bad := range [][]byte{nil, []byte("DIRC"), []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01")} {
		if links, err := indexGitlinks(bad, 20); err == nil || links != nil {
			t.Errorf("%q: %q, %v; want an error", bad, links, err)
		}
	}
}

// TestIndexVarint reads the numbers of a version 4 index, and refuses
// one cut short.
func TestIndexVarint(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		want, n int
	}{
		{[]byte{0}, 0, 1}, {[]byte{127, 5}, 127, 1}, {[]byte{0x80, 0}, 128, 2}, {[]byte{0x81, 0x7f}, 383, 2}, {[]byte{0xff, 0x7f}, 16511, 2}, {[]byte{0x80}, 0, 0}, {nil, 0, 0},
	} {
		if got, n := indexVarint(tc.in); got != tc.want || n != tc.n {
			t.Errorf("indexVarint(%x) = %d, %d; want %d, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}
