package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// updateDiffGolden rewrites testdata/diff/*.golden from the current
// output: go test -run TestRenderDiff -update-diff.
var updateDiffGolden = flag.Bool("update-diff", false, "rewrite the diff rendering golden files")

// TestRenderDiff renders diffs of before/after pairs and compares them with
// testdata/diff/NAME.golden, each case once plain and once coloured.
func TestRenderDiff(t *testing.T) {
	t.Parallel()
	var longBefore, longAfter strings.Builder
	for i := range 60 {
		longBefore.WriteString("same line\n")
		if i%10 == 0 {
			longAfter.WriteString("changed line\n")
		} else {
			longAfter.WriteString("same line\n")
		}
	}
	tests := []struct {
		name          string
		before, after string
		fold          int
		hidden        int
	}{
		{"edit", "package main\n\nfunc a() {}\n\nfunc b() {}\n", "package main\n\nfunc a() { return }\n\nfunc b() {}\n", 0, 0},
		{"new_file", "", "one\ntwo\n", 0, 0},
		{"no_newline_at_end", "a\nb", "a\nc", 0, 0},
		{"control_characters", "title\n", "\x1b[31mtitle\x1b[0m\r\n\ttabbed\x7f\n", 0, 0},
		{"folded", longBefore.String(), longAfter.String(), 12, 45},
		{"fold_not_needed", "a\n", "b\n", 12, 0},
	}
	for _, tt := range tests {
		diff := unifiedDiff("pkg/file.go", tt.before, tt.after)
		for _, color := range []bool{false, true} {
			name := tt.name
			if color {
				name += "_color"
			}
			got, hidden := renderDiff(diff, color, tt.fold)
			if hidden != tt.hidden {
				t.Errorf("%s: hidden = %d, want %d", name, hidden, tt.hidden)
			}
			checkGolden(t, filepath.Join("testdata", "diff", name+".golden"), got)
		}
	}
}

// TestRenderDiffPlainIsDiff checks that without colour and folding the
// rendering is the diff itself, byte for byte.
func TestRenderDiffPlainIsDiff(t *testing.T) {
	t.Parallel()
	diff := unifiedDiff("x.go", "a\nb\nc\n", "a\nB\nc\nd\n")
	if got, _ := renderDiff(diff, false, 0); got != diff {
		t.Errorf("renderDiff = %q, want %q", got, diff)
	}
	if got, hidden := renderDiff("", true, 5); got != "" || hidden != 0 {
		t.Errorf("renderDiff(\"\") = %q, %d; want nothing", got, hidden)
	}
}

// checkGolden compares got with a golden file, or rewrites the file when
// -update (or -update-diff) is set.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update || *updateDiffGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs\n got %q\nwant %q", path, got, want)
	}
}

// TestKeysReadBeforeTheMenuDoNotAnswerIt: a key read from the terminal before a question opened, and
// handled only after (it waited for the lock the question held), belongs to the input, however long the
// keyboard had rested; a key read once the menu is open, after a rest, answers it.
func TestKeysReadBeforeTheMenuDoNotAnswerIt(t *testing.T) {
	t.Parallel()
	opened := time.Now()
	menu := func() *approvalDialog { return &approvalDialog{opened: opened, quietSince: opened.Add(-time.Hour)} }
	if !menu().typedAhead(opened.Add(time.Millisecond), opened.Add(-time.Millisecond)) {
		t.Error("a key read before the menu opened answered it")
	}
	if menu().typedAhead(opened.Add(time.Second), opened.Add(time.Second)) {
		t.Error("a key read after the menu opened, the keyboard at rest, went to the input")
	}
	if menu().typedAhead(opened.Add(time.Second), time.Time{}) {
		t.Error("a key of no read time, the keyboard at rest, went to the input")
	}
	typing := &approvalDialog{opened: opened, quietSince: opened.Add(-100 * time.Millisecond)}
	if !typing.typedAhead(opened.Add(50*time.Millisecond), opened.Add(50*time.Millisecond)) {
		t.Error("a key typed while the keyboard had not rested answered the menu")
	}
}
