package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadFileReread reads a file once, changes the world the way each case says, and reads it
// again with the first result in the conversation: only when the same lines of the same file,
// unchanged, are asked while the first result is whole does the answer become the note.
func TestReadFileReread(t *testing.T) {
	t.Parallel()
	text := numberedLines(40)
	tests := []struct {
		name     string
		second   string                                        // the second call's input
		change   func(t *testing.T, path string, first *Block) // between the two reads
		wantNote bool
	}{
		{"unchanged", `{"path":"a.txt"}`, nil, true},
		{"other lines", `{"path":"a.txt","offset":2}`, nil, false},
		{"other limit", `{"path":"a.txt","limit":10}`, nil, false},
		{"text changed, size and time kept", `{"path":"a.txt"}`, func(t *testing.T, path string, _ *Block) {
			rewrite(t, path, strings.Replace(text, "line 7\n", "line X\n", 1), true)
		}, false},
		{"time changed, text kept", `{"path":"a.txt"}`, func(t *testing.T, path string, _ *Block) {
			rewrite(t, path, text, false)
		}, false},
		{"another file in its place, same text and time", `{"path":"a.txt"}`, func(t *testing.T, path string, _ *Block) {
			info, _ := os.Stat(path)
			other := path + ".new"
			writeFileAtomic(other, []byte(text), 0o644)
			os.Chtimes(other, info.ModTime(), info.ModTime())
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"first result cleared by micro compact", `{"path":"a.txt"}`, func(t *testing.T, _ string, first *Block) {
			first.Content = microPlaceholderPrefix + `read_file {"path":"a.txt"} cleared to save context; run the tool again if you need it.]`
		}, false},
		{"first result stored on disk", `{"path":"a.txt"}`, func(t *testing.T, _ string, first *Block) {
			first.Content = first.Content[:100] + "\n\n[output of 400 characters was too large and is stored in x.txt]"
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, map[string]string{"a.txt": text})
			env.Reads = &FileReads{}
			reg := newRegistry(readFileTool())
			first := reg.Execute(context.Background(), env, call("toolu_1", "read_file", `{"path":"a.txt"}`))
			msgs := []Message{userText("read a.txt twice"),
				{Role: RoleAssistant, Content: []Block{call("toolu_1", "read_file", `{"path":"a.txt"}`)}},
				{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "toolu_1", Content: first.Text}}},
				{Role: RoleAssistant, Content: []Block{call("toolu_2", "read_file", tc.second)}}}
			if tc.change != nil {
				tc.change(t, filepath.Join(env.Workspace, "a.txt"), &msgs[2].Content[0])
			}
			ctx := context.WithValue(context.Background(), keyHistory, msgs)
			second := reg.Execute(ctx, env, call("toolu_2", "read_file", tc.second))
			note := strings.HasPrefix(second.Text, rereadNotePrefix+"toolu_1 returned it]: a.txt has not changed since")
			if note != tc.wantNote || second.IsError {
				t.Errorf("second read = %q; want the note: %v", cutBytes(second.Text, 300, "..."), tc.wantNote)
			}
			if !tc.wantNote && !strings.Contains(second.Text, "\n2\tline 2\n") {
				t.Errorf("second read = %q; want the file's lines", cutBytes(second.Text, 300, "..."))
			}
		})
	}
}

// rewrite writes content to path, keeping its modification time when keepTime, else moving it on.
func rewrite(t *testing.T, path, content string, keepTime bool) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	when := info.ModTime().Add(time.Second)
	if keepTime {
		when = info.ModTime()
	}
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestLoopRereadNote runs a turn that reads a file three times through the loop: the second and
// third reads are notes pointing at the first, and micro compact keeps the result a newest note
// points to while an old note goes with the result it pointed to.
func TestLoopRereadNote(t *testing.T) {
	t.Parallel()
	read := func(id string) Block { return call(id, "read_file", `{"path":"a.txt"}`) }
	a, p, _ := newTestAgent(t, calls("", read("r1")), calls("", read("r2")), calls("", read("r3")), text("done"))
	a.Tools = newRegistry(readFileTool())
	a.Env = newTestEnv(t, map[string]string{"a.txt": numberedLines(30)})
	a.Env.Reads = &FileReads{}
	res := a.RunTurn(context.Background(), nil, TurnInput{Text: "read a.txt"})
	if res.End != EndFinal || len(p.requests) != 4 {
		t.Fatalf("turn ended %s after %d requests: %s", res.End, len(p.requests), res.Text)
	}
	results := []string{res.Messages[2].Content[0].Content, res.Messages[4].Content[0].Content, res.Messages[6].Content[0].Content}
	if !strings.HasPrefix(results[0], "a.txt: 30 lines\n1\tline 1\n") {
		t.Errorf("first read = %q", cutBytes(results[0], 100, "..."))
	}
	for _, r := range results[1:] {
		if !strings.HasPrefix(r, rereadNotePrefix+"r1 returned it]") || !strings.Contains(r, "it is in that call's result above") {
			t.Errorf("re-read = %q; want the note pointing at r1", r)
		}
	}
	after := applySplices(res.Messages, microCompact(res.Messages, 1, func(string) bool { return true }))
	if got := after[2].Content[0].Content; got != results[0] {
		t.Errorf("micro compact cleared the result the newest note points to: %q", cutBytes(got, 100, "..."))
	}
	if got := after[4].Content[0].Content; !strings.HasPrefix(got, microPlaceholderPrefix) {
		t.Errorf("micro compact kept an old note: %q", got)
	}
	padded := slices.Clone(res.Messages)
	for range keepNewestMessages / 2 {
		padded = append(padded, userText("go on"), Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "going on"}}})
	}
	if protected := protectedMessages(padded); !protected[1] || !protected[2] || protected[3] {
		t.Errorf("snip: protected %v; want the round the notes point to kept, and no other old round", protected[:8])
	}
	cleared := applySplices(res.Messages[:5], microCompact(res.Messages[:5], 0, func(string) bool { return true }))
	for i, m := range cleared[1:] {
		if r := m.ToolResults(); len(r) > 0 && !strings.HasPrefix(r[0].Content, microPlaceholderPrefix) {
			t.Errorf("message %d after clearing everything = %q; want the placeholder", i+1, r[0].Content)
		}
	}
	body, _ := bodyBytes((&Anthropic{}).encode(p.requests[3]))
	if n := strings.Count(string(body), "line 17"); n != 1 {
		t.Errorf("the last request holds the file's text %d times; want once", n)
	}
}
