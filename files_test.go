package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileToolsUseTheFileJudged races a few hundred file tool calls, run
// by the real binary, against a goroutine that swaps the workspace folder
// d for a link to a folder outside, and back, as fast as it can: a call is
// checked while d is a folder and may run while d is the link. No call may
// write outside the workspace or return what is outside.
func TestFileToolsUseTheFileJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("races the binary against a link-flipping goroutine")
	}
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"d/f.txt": "inside\n", "d/e.txt": "a\n"})
	outside := t.TempDir()
	secrets := map[string]string{"f.txt": "SECRET\n", "e.txt": "a\n"}
	for name, text := range secrets {
		writeFile(t, filepath.Join(outside, name), text)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "d.link")); err != nil {
		t.Fatal(err)
	}
	var replies []ScriptedReply
	for i := range 60 {
		calls := []scriptedToolCall{
			{Name: "write_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"d/w%d.txt","content":"written\n"}`, i))},
			{Name: "edit_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"d/e.txt","old_string":"a","new_string":"a%d"}`, i))},
			{Name: "grep_files", Input: json.RawMessage(`{"pattern":"CRET","path":"d"}`)},
		}
		for range 4 {
			calls = append(calls, scriptedToolCall{Name: "read_file", Input: json.RawMessage(`{"path":"d/f.txt"}`)})
		}
		replies = append(replies, ScriptedReply{ToolCalls: calls})
	}
	script, _ := json.Marshal(append(replies, ScriptedReply{Text: "done"}))
	stop, flips := make(chan struct{}), make(chan int)
	go func() { flips <- flipFolder(ws, stop) }()
	r := runMinicode(t, nil, "", "-p", "go", "--mock-script", writeScript(t, string(script)), "--permission-mode", "acceptEdits",
		"--output-format", "stream-json", "--max-turns", "100", "--workspace", ws)
	close(stop)
	t.Logf("%d flips during %d tool calls: %d files created, %d reads done, %d calls met a link", <-flips, 7*len(replies),
		strings.Count(r.stdout, "Created d/w"), strings.Count(r.stdout, "d/f.txt: 1 line"), strings.Count(r.stdout, "is a link now"))
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "SECRET"); n > 0 {
		t.Errorf("%d tool results hold the outside file's content", n)
	}
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		if data, _ := os.ReadFile(filepath.Join(outside, e.Name())); string(data) != secrets[e.Name()] {
			t.Errorf("outside the workspace %s was written: %q", e.Name(), data)
		}
	}
}

// flipFolder swaps ws/d, a folder, with ws/d.link, a link, back and forth
// until stop closes, leaving the folder in place; it returns the flips. A
// folder d that write_file made while d was away is removed.
func flipFolder(ws string, stop <-chan struct{}) int {
	d, parked, link := filepath.Join(ws, "d"), filepath.Join(ws, "d.dir"), filepath.Join(ws, "d.link")
	place := func(from string) {
		for syscall.Rename(from, d) != nil {
			os.RemoveAll(d)
		}
	}
	for n := 0; ; n++ {
		select {
		case <-stop:
			return n
		default:
		}
		syscall.Rename(d, parked)
		place(link)
		syscall.Rename(d, link)
		place(parked)
	}
}
