package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExportMarkdown(t *testing.T) {
	got := exportMarkdown("demo", "id-1", []Message{
		userText("read a.txt"),
		toolCallMessage("t1", "read_file", `{"path": "a.txt"}`),
		toolResultMessage("t1", "has ``` inside"),
		assistantText("done"),
	}, []JournalMark{{At: 3, Kind: LayerCompact, Summary: "[minicode context: a summary]"}, {At: 4, Kind: "clear"}})
	want := "# demo\n\nminicode session id-1\n\n## User\n\nread a.txt\n\n## Assistant\n\nLooking.\n\n**Tool call** `read_file`\n\n```\n{\"path\":\"a.txt\"}\n```\n" +
		"\n**Result**\n\n````\nhas ``` inside\n````\n" +
		"\n---\n\n*compaction: the model's view changed here; every message stays in this transcript*\n\n```\n[minicode context: a summary]\n```\n" +
		"\n## Assistant\n\ndone\n" +
		"\n---\n\n*the conversation was cleared: the model's view changed here; every message stays in this transcript*\n"
	if got != want {
		t.Errorf("export =\n%q\nwant\n%q", got, want)
	}
}

// TestNoSessionPersistenceKeepsEverySessionInMemory: with --no-session-persistence no session
// the run starts is written, /new's and /fork's included, nor the fork of a resumed one; the
// same run without the flag writes one journal for each, so the count can tell.
func TestNoSessionPersistenceKeepsEverySessionInMemory(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	journals := func() []string {
		found, _ := filepath.Glob(filepath.Join(projectDir(home, ws), "*.jsonl"))
		return found
	}
	run := func(stdin string, args ...string) {
		t.Helper()
		res := runMinicode(t, []string{"MINICODE_HOME=" + home}, stdin, append([]string{"--workspace", ws}, args...)...)
		if res.code != 0 {
			t.Fatalf("minicode %v: exit %d, stderr %q", args, res.code, res.stderr)
		}
	}
	steps := "list files\n/new\nlist files\n/fork\nlist files\n"
	run(steps, "--no-session-persistence")
	if found := journals(); len(found) != 0 {
		t.Fatalf("journals %q written with --no-session-persistence", found)
	}
	run(steps)
	saved := journals()
	if len(saved) != 3 {
		t.Fatalf("journals %q without the flag, want one for the first session, /new's and the fork", saved)
	}
	id := strings.TrimSuffix(filepath.Base(saved[0]), ".jsonl")
	run("list files\n", "--resume", id, "--fork-session", "--no-session-persistence")
	if found := journals(); len(found) != 3 {
		t.Errorf("journals %q after forking %s with --no-session-persistence, want the three there were", found, id)
	}
}

// TestNoSessionPersistenceRemovesWhatSessionsStored: with --no-session-persistence the stored
// large results and the checkpoints of every session of the run, /new's included, are gone when
// it ends; without the flag both sessions keep theirs.
func TestNoSessionPersistenceRemovesWhatSessionsStored(t *testing.T) {
	t.Parallel()
	entries := func(home, kind string) []string {
		found, _ := filepath.Glob(filepath.Join(home, kind, "*"))
		return found
	}
	for _, unsaved := range []bool{true, false} {
		ws, home := t.TempDir(), t.TempDir()
		args := []string{"--workspace", ws, "--dangerously-skip-permissions"}
		if unsaved {
			args = append(args, "--no-session-persistence")
		}
		res := runMinicode(t, []string{"MINICODE_HOME=" + home}, "demo big output\n/new\ndemo big output\n", args...)
		if res.code != 0 || !strings.Contains(res.stdout, "stored the largest on disk") {
			t.Fatalf("minicode %v: exit %d, stdout %q, stderr %q", args, res.code, res.stdout, res.stderr)
		}
		results, checkpoints := entries(home, "tool-results"), entries(home, "checkpoints")
		if unsaved && len(results)+len(checkpoints) != 0 {
			t.Errorf("with --no-session-persistence, left behind: stored results %q, checkpoints %q", results, checkpoints)
		}
		if !unsaved && (len(results) != 2 || len(checkpoints) != 2) {
			t.Errorf("without the flag: stored results %q, checkpoints %q; want each of the two sessions'", results, checkpoints)
		}
	}
}
