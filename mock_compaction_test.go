package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// compactionWorkspace is a workspace with enough text to fill the demo
// model's context window: 30 files of 30,000 characters.
func compactionWorkspace(t *testing.T) string {
	files := map[string]string{}
	for i := range 30 {
		var b strings.Builder
		for j := range 750 {
			fmt.Fprintf(&b, "line %04d of file %02d: the quick brown fox\n", j, i)
		}
		files[fmt.Sprintf("file%02d.txt", i)] = b.String()
	}
	return workspaceWith(t, files)
}

// compactionLine is a line-mode compaction notice: the layer, the tokens
// it saved and the context use after it.
var compactionLine = regexp.MustCompile(`(?m)^· (.+) \(auto\) saved ([\d,]+) tokens \(context now (\d+)% `)

func TestDemoCompactionRunsEveryLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary over a large workspace")
	}
	t.Parallel()
	ws, home := compactionWorkspace(t), t.TempDir()
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "demo compaction\n/exit\n", "--provider", "mock", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	fired := map[string]bool{}
	for _, m := range compactionLine.FindAllStringSubmatch(r.stdout, -1) {
		fired[m[1]] = true
		if m[2] == "0" || strings.HasPrefix(m[2], "-") {
			t.Errorf("%s saved %s tokens, want a positive number", m[1], m[2])
		}
		if percent, _ := strconv.Atoi(m[3]); percent >= 85 && m[1] == "compaction" {
			t.Errorf("after auto compact the context is %d%% full, want less than 85%%", percent)
		}
	}
	for _, layer := range []string{"micro compact", "snip compact", "compaction"} {
		if !fired[layer] {
			t.Errorf("%s never ran; compaction lines: %q", layer, compactionLine.FindAllString(r.stdout, -1))
		}
	}
	if !strings.Contains(r.stdout, "Auto compact has run, so the demo is complete") {
		t.Errorf("the demo did not finish after auto compact:\n%s", r.stdout)
	}
	// Tool lines of one batch run in parallel, so their order varies: the
	// golden transcript keeps the model's text and the compaction lines.
	// The token counts depend on the length of the workspace's path.
	out := regexp.MustCompile(`\([\d,]+ of [\d,]+ tokens\)\)`).ReplaceAllString(normaliseRun(r.stdout, ws, home), "(<tokens>))")
	var kept []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "→") && !strings.HasPrefix(line, "  ") {
			kept = append(kept, line)
		}
	}
	checkGolden(t, filepath.Join("testdata", "demo", "compaction.txt"), strings.Join(kept, "\n"))
}

func TestDemoCompactionStreamJSONShowsBoundaries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary over a large workspace")
	}
	t.Parallel()
	ws := compactionWorkspace(t)
	r := runMinicode(t, nil, "", "-p", "demo compaction", "--provider", "mock", "--output-format", "stream-json", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	found := false
	for _, line := range strings.Split(r.stdout, "\n") {
		var e struct {
			Type, Subtype, UUID string
			SessionID           string `json:"session_id"`
			Meta                struct {
				Trigger   string
				PreTokens int `json:"pre_tokens"`
			} `json:"compact_metadata"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Subtype == "compact_boundary" {
			found = found || e.Type == "system" && e.SessionID != "" && e.UUID != "" && e.Meta.Trigger == "auto" && e.Meta.PreTokens > 0
		}
	}
	if !found {
		t.Errorf("no auto compact_boundary event in the stream; system lines: %q", regexp.MustCompile(`(?m)^\{"type":"system".*$`).FindAllString(r.stdout, -1))
	}
}

func TestDemoCompactionSmallWorkspace(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"main.go": "package main\n"})
	r := runMinicode(t, nil, "", "-p", "demo compaction", "--provider", "mock", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "I have read all 1 files of this workspace") || !strings.Contains(r.stdout, "contextWindow") {
		t.Errorf("exit %d, stdout %q: want the demo to say the workspace is too small and how to shrink the window", r.code, r.stdout)
	}
}
