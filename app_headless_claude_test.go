package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// claudeOnlyFields are fields of Claude Code's recorded output that only
// make sense for its own features; minicode leaves them out.
var claudeOnlyFields = []string{"claude_code_version", "plugins", "analytics_disabled",
	"product_feedback_disabled", "memory_paths", "fast_mode_state", "ttft_ms", "ttft_stream_ms", "time_to_request_ms",
	"context_management", "server_tool_use", "cache_creation",
	"inference_geo", "iterations", "speed", "webSearchRequests"}

// minicodeOnlyFields are minicode's additions: what limits commands.
var minicodeOnlyFields = []string{"sandbox"}

// fieldPaths lists the paths of the object fields in a JSON value
// ("message.usage.input_tokens"); the elements of an array share its
// path ("message.content[]"), and a map keyed by model names counts as
// one field.
func fieldPaths(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if slices.Contains(claudeOnlyFields, k) || slices.Contains(minicodeOnlyFields, k) {
				continue
			}
			path := strings.TrimPrefix(prefix+"."+k, ".")
			if prefix == "modelUsage" {
				path = "modelUsage.MODEL"
			}
			out[path] = true
			if k != "tool_use_result" { // a tool's input too: programs see Claude Code's keys; its result is text
				fieldPaths(path, child, out)
			}
		}
	case []any:
		for _, child := range v {
			fieldPaths(prefix+"[]", child, out)
		}
	}
}

// recordKey names a line by its type, and for content blocks their kind,
// so that lines of the same kind are compared.
func recordKey(v map[string]any) string {
	key, _ := v["type"].(string)
	if msg, ok := v["message"].(map[string]any); ok {
		if content, ok := msg["content"].([]any); ok && len(content) > 0 {
			block, _ := content[0].(map[string]any)
			key += "/" + block["type"].(string)
		}
	}
	return key
}

// fieldsByKind reads JSON lines and collects each kind's field paths.
func fieldsByKind(t *testing.T, lines string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		key := recordKey(v)
		if out[key] == nil {
			out[key] = map[string]bool{}
		}
		fieldPaths("", v, out[key])
	}
	return out
}

// compareFields fails for each field one side has and the other lacks.
func compareFields(t *testing.T, got, want map[string]map[string]bool) {
	t.Helper()
	for kind, fields := range want {
		if got[kind] == nil {
			t.Errorf("no %s line; Claude Code writes one", kind)
			continue
		}
		for f := range fields {
			if !got[kind][f] {
				t.Errorf("%s: field %q is missing", kind, f)
			}
		}
		for f := range got[kind] {
			if !fields[f] {
				t.Errorf("%s: field %q is not in Claude Code's output", kind, f)
			}
		}
	}
}

// threeReads is the recorded session's model: three reads of data.txt,
// then the answer.
func threeReads(t *testing.T) string {
	srv, _ := fakeClaudeAPI(t,
		apiStep{tool: "read_file", args: `{"path":"data.txt"}`}, apiStep{tool: "read_file", args: `{"path":"data.txt"}`},
		apiStep{tool: "read_file", args: `{"path":"data.txt"}`}, apiStep{text: "All 3 reads are done."})
	return srv.URL
}

func TestStreamJSONFieldsMatchClaudeCode(t *testing.T) {
	t.Parallel()
	recorded, err := os.ReadFile("testdata/claude/headless/stream-json.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ws := workspaceWith(t, map[string]string{"data.txt": "hello world\n"})
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + threeReads(t)}, "",
		"-p", "read data.txt", "--allowedTools", "Read", "--output-format", "stream-json", "--verbose", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	compareFields(t, fieldsByKind(t, r.stdout), fieldsByKind(t, string(recorded)))
	if n := strings.Count(r.stdout, "\n"); n != 9 {
		t.Errorf("%d lines, want 9 as Claude Code wrote: init, 4 replies, 3 results, the result", n)
	}
}

func TestJSONResultFieldsMatchClaudeCode(t *testing.T) {
	t.Parallel()
	recorded, err := os.ReadFile("testdata/claude/headless/result.json")
	if err != nil {
		t.Fatal(err)
	}
	ws := workspaceWith(t, map[string]string{"data.txt": "hello world\n"})
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + threeReads(t)}, "",
		"-p", "read data.txt", "--output-format", "json", "--model", "claude-opus-4-8", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	compareFields(t, fieldsByKind(t, r.stdout), fieldsByKind(t, string(recorded)))
	var got resultRecord
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	// The recorded run: four replies of 1000 input and 20 output tokens
	// from claude-opus-4-8, which cost 0.022 dollars.
	if got.TotalCostUSD < 0.0219 || got.TotalCostUSD > 0.0221 || got.NumTurns != 4 || got.StopReason == nil || *got.StopReason != "end_turn" ||
		got.Usage.InputTokens != 4000 || got.Usage.OutputTokens != 80 || got.ModelUsage["claude-opus-4-8"].CostUSD != got.TotalCostUSD {
		t.Errorf("result = %+v, want Claude Code's numbers for the same session", got)
	}
}

func TestResultSubtypesAndCosts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, subtype string
		steps         []apiStep
		args          []string
		code          int
		check         func(r resultRecord) bool
	}{
		{"cached tokens are priced", "success", []apiStep{{text: "ok", cacheRead: 1_000_000}}, []string{"--model", "claude-sonnet-4-5"}, 0,
			func(r resultRecord) bool {
				return r.Usage.CacheReadInputTokens == 1_000_000 && r.TotalCostUSD > 0.3 && r.TotalCostUSD < 0.31
			}},
		{"max turns", "error_max_turns", []apiStep{{tool: "list_files", args: `{}`}}, []string{"--max-turns", "2"}, 1,
			func(r resultRecord) bool {
				return r.IsError && len(r.Errors) == 1 && r.Errors[0] == "Reached maximum number of turns (2)" // as Claude Code says it
			}},
		{"model error", "error_during_execution", []apiStep{{status: 404}}, nil, 1,
			func(r resultRecord) bool {
				return r.IsError && r.APIErrorStatus != nil && *r.APIErrorStatus == 404 && len(r.Errors) == 1
			}},
		{"denied calls still succeed", "success", []apiStep{{tool: "run_command", args: `{"command":"make"}`}, {text: "Could not run make."}}, nil, 0,
			func(r resultRecord) bool { return !r.IsError && len(r.PermissionDenials) == 1 && r.Errors == nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := fakeClaudeAPI(t, tc.steps...)
			r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "",
				append([]string{"-p", "go", "--output-format", "json", "--workspace", t.TempDir()}, tc.args...)...)
			var got resultRecord
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("stdout %q (stderr %q): %v", r.stdout, r.stderr, err)
			}
			if r.code != tc.code || got.Subtype != tc.subtype || !tc.check(got) {
				t.Errorf("exit %d, result %+v; want exit %d, subtype %s", r.code, got, tc.code, tc.subtype)
			}
		})
	}
}

func TestStreamJSONInputAndPartialMessages(t *testing.T) {
	t.Parallel()
	srv, requests := fakeClaudeAPI(t, apiStep{text: "First answer."}, apiStep{text: "Second answer."})
	input := `{"type":"user","message":{"role":"user","content":"hello"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and again"}]}}` + "\n"
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, input,
		"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages", "--workspace", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(requests()); n != 2 {
		t.Fatalf("%d model requests, want one per input message", n)
	}
	var kinds, deltas []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v struct {
			Type   string `json:"type"`
			Result string `json:"result"`
			Event  struct {
				Type  string                `json:"type"`
				Delta struct{ Text string } `json:"delta"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		kind := v.Type
		if v.Type == "stream_event" {
			kind += ":" + v.Event.Type
			deltas = append(deltas, v.Event.Delta.Text)
		}
		if v.Type == "result" {
			kind += ":" + v.Result
		}
		kinds = append(kinds, kind)
	}
	reply := []string{"stream_event:message_start", "stream_event:content_block_start", "stream_event:content_block_delta",
		"stream_event:content_block_delta", "stream_event:content_block_stop", "stream_event:message_delta", "stream_event:message_stop", "assistant"}
	want := append(append(append(append([]string{"system"}, reply...), "result:First answer."), reply...), "result:Second answer.")
	if !slices.Equal(kinds, want) {
		t.Errorf("lines = %q\nwant %q", kinds, want)
	}
	if got := strings.Join(deltas, ""); got != "First answer.Second answer." {
		t.Errorf("streamed text = %q", got)
	}
	bad := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "{\"type\":\"user\"\n",
		"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--workspace", t.TempDir())
	if bad.code != 0 || !strings.Contains(bad.stderr, "line 1") || strings.Contains(bad.stdout, `"result"`) {
		t.Errorf("malformed input: exit %d, stdout %q, stderr %q; want the line named and skipped", bad.code, bad.stdout, bad.stderr)
	}
}

func TestInitLineDescribesTheSession(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{".claude/skills/notes/SKILL.md": "---\nname: notes\ndescription: Take notes.\n---\nBody\n"})
	mhome := t.TempDir()
	writeFile(t, filepath.Join(mhome, "mcp.json"), `{"mcpServers": {"gone": {"command": "/no/such/server"}}}`)
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + threeReads(t), "MINICODE_HOME=" + mhome}, "",
		"-p", "read data.txt", "--output-format", "stream-json", "--max-turns", "1", "--workspace", ws)
	var init initRecord
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &init); err != nil {
		t.Fatal(err)
	}
	if init.APIKeySource != "ANTHROPIC_API_KEY" || !slices.Contains(init.Skills, "notes") || !slices.Contains(init.SlashCommands, "notes") ||
		!slices.Contains(init.SlashCommands, "compact") && !slices.Contains(init.SlashCommands, "status") ||
		len(init.MCPServers) != 1 || init.MCPServers[0]["name"] != "gone" || !slices.Contains([]string{"pending", "failed"}, init.MCPServers[0]["status"]) {
		t.Errorf("init = %+v", init)
	}
}
