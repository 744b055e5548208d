package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestInputHistoryIsPerWorkspaceAndDeduplicated(t *testing.T) {
	home := t.TempDir()
	a, _ := openHistory(home, "/work/a")
	b, _ := openHistory(home, "/work/b")
	for _, add := range []struct {
		h     *InputHistory
		input string
	}{{a, "list files"}, {b, "in b"}, {a, "read main.go"}, {a, "list files"}, {a, "  "}, {a, "two\nlines"}} {
		if err := add.h.Add(add.input); err != nil {
			t.Fatal(err)
		}
	}
	_, got := openHistory(home, "/work/a")
	want := []string{"read main.go", "list files", "two\nlines"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history of a: got %q, want %q", got, want)
	}
	if _, got := openHistory(home, "/work/b"); fmt.Sprint(got) != fmt.Sprint([]string{"in b"}) {
		t.Errorf("history of b: got %q, want [in b]", got)
	}
}

func TestInputHistoryIsCapped(t *testing.T) {
	home := t.TempDir()
	h, _ := openHistory(home, "/ws")
	for i := 0; i <= historyFileCap; i++ {
		if err := h.Add(fmt.Sprintf("task %d", i%(historyFileCap-100))); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(home, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != (historyFileCap+1)-(historyFileCap+1)/2 {
		t.Errorf("the file holds %d entries after trimming, want its newest half", n)
	}
	_, got := openHistory(home, "/ws")
	if len(got) != historyPerWorkspace || got[len(got)-1] != fmt.Sprintf("task %d", historyFileCap%(historyFileCap-100)) {
		t.Errorf("got %d entries ending %q, want %d ending with the newest", len(got), got[len(got)-1], historyPerWorkspace)
	}
}

func TestInputHistorySkipsBadLines(t *testing.T) {
	home := t.TempDir()
	content := `{"display":"good","timestamp":1,"project":"/ws"}` + "\nnot json\n" + `{"display":"torn`
	if err := os.WriteFile(filepath.Join(home, "history.jsonl"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	h, got := openHistory(home, "/ws")
	if fmt.Sprint(got) != "[good]" {
		t.Errorf("got %q, want [good]", got)
	}
	if err := h.Add("after the crash"); err != nil {
		t.Fatal(err)
	}
	if _, got := openHistory(home, "/ws"); fmt.Sprint(got) != "[good after the crash]" {
		t.Errorf("after an input following the torn line: got %q, want [good after the crash]", got)
	}
}

func TestLineModeRecordsInputHistory(t *testing.T) {
	ws := t.TempDir()
	app := testApp(t, ws, Options{})
	app.lines = newLineReader(strings.NewReader("help\n/status\n"))
	if err := app.runLineMode(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, got := openHistory(app.Home, app.Workspace); fmt.Sprint(got) != "[help /status]" {
		t.Errorf("got %q, want [help /status]", got)
	}
}

// TestInputHistoryTrimKeepsConcurrentAppends trims the file while other
// histories of it append: none of their entries may be lost.
func TestInputHistoryTrimKeepsConcurrentAppends(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	var appenders []*InputHistory
	for range 4 {
		h, _ := openHistory(home, "/ws") // opened empty, so they never trim
		appenders = append(appenders, h)
	}
	var full strings.Builder
	for i := range historyFileCap {
		fmt.Fprintf(&full, "{\"display\":\"old %d\",\"timestamp\":1,\"project\":\"/ws\"}\n", i)
	}
	if err := os.WriteFile(filepath.Join(home, "history.jsonl"), []byte(full.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	trimmer, _ := openHistory(home, "/ws")
	trimmed := make(chan struct{})
	go func() {
		defer close(trimmed)
		if err := trimmer.Add("trim now"); err != nil {
			t.Error(err)
		}
	}()
	var wg sync.WaitGroup
	counts := make([]int, len(appenders))
	for a, h := range appenders {
		wg.Go(func() {
			for done := false; !done && counts[a] < 200; counts[a]++ { // one more after the trim; 800 at most fit its newest half
				select {
				case <-trimmed:
					done = true
				default:
				}
				if err := h.Add(fmt.Sprintf("appender %d entry %d", a, counts[a])); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	<-trimmed
	data, err := os.ReadFile(filepath.Join(home, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		var e HistoryEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil || !strings.HasSuffix(line, "\n") {
			t.Fatalf("line %q of the trimmed file is no entry: %v", line, err)
		}
		present[e.Display] = true
	}
	if len(present) > historyFileCap {
		t.Errorf("the file holds %d entries, want it trimmed", len(present))
	}
	var lost []string
	for a, n := range counts {
		for i := range n {
			if want := fmt.Sprintf("appender %d entry %d", a, i); !present[want] {
				lost = append(lost, want)
			}
		}
	}
	if lost != nil {
		t.Errorf("%d appended entries were lost, such as %q", len(lost), lost[0])
	}
}
