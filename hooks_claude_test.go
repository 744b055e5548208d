package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// dumpHooks are settings that append every event of the named kinds, as a
// hook reads it, to events.jsonl in the workspace.
func dumpHooks(events ...string) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, fmt.Sprintf(`%q: [{"hooks": [{"type": "command", "command": "cat >> events.jsonl; echo >> events.jsonl"}]}]`, e))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// hookEventsIn reads what the dump hooks wrote, in order.
func hookEventsIn(t *testing.T, ws string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(ws, "events.jsonl"))
	var events []map[string]any
	for line := range strings.Lines(strings.TrimSpace(string(data))) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		events = append(events, e)
	}
	return events
}

// scriptedModel answers the requests of a turn with the given replies in order, then "done".
func scriptedModel(replies ...string) func(*http.Request, modelRequest) string {
	var mu sync.Mutex
	n := 0
	return func(*http.Request, modelRequest) string {
		mu.Lock()
		defer mu.Unlock()
		if n++; n <= len(replies) {
			return replies[n-1]
		}
		return anthropicTextStream("done", StopEndTurn)
	}
}

// toolCall is a reply asking for one tool call.
func toolCall(id, name, input string) string {
	return anthropicToolStream(Block{ID: id, Name: name, Input: json.RawMessage(input)})
}

// TestHooksSeeClaudeCodesNamesAndFields runs a read, a command -p cannot
// allow, and a read of a missing file: hooks see Claude Code's names and keys
// (file_path absolute), the permission mode on every event, PostToolUse only
// for the call that ran, PostToolUseFailure for the one that failed, and
// stop_hook_active on Stop.
func TestHooksSeeClaudeCodesNamesAndFields(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, dumpHooks("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "UserPromptSubmit"), nil)
	writeFile(t, filepath.Join(ws, "notes.txt"), "alpha\n")
	srv, _ := anthropicServer(t, scriptedModel(toolCall("r1", "read_file", `{"path":"notes.txt","limit":5}`),
		toolCall("c1", "run_command", `{"command":"touch made","timeout_ms":5000}`), toolCall("r2", "read_file", `{"path":"missing.txt"}`)))
	res := runWithModel(t, srv, ws)
	var got []string
	for _, e := range hookEventsIn(t, ws) {
		if e["permission_mode"] != "default" {
			t.Errorf("%v: permission_mode %v, want default", e["hook_event_name"], e["permission_mode"])
		}
		input, _ := json.Marshal(e["tool_input"])
		line := fmt.Sprintf("%v %v %s", e["hook_event_name"], e["tool_name"], input)
		if e["hook_event_name"] == "Stop" {
			line += fmt.Sprintf(" stop_hook_active=%v", e["stop_hook_active"])
		}
		if errText, ok := e["error"].(string); ok && strings.Contains(errText, "missing.txt") {
			line += " error"
		}
		got = append(got, strings.ReplaceAll(line, ws, "WS"))
	}
	want := []string{
		"UserPromptSubmit <nil> null",
		`PreToolUse Read {"file_path":"WS/notes.txt","limit":5}`,
		`PostToolUse Read {"file_path":"WS/notes.txt","limit":5}`,
		`PreToolUse Bash {"command":"touch made","timeout":5000}`,
		`PreToolUse Read {"file_path":"WS/missing.txt"}`,
		`PostToolUseFailure Read {"file_path":"WS/missing.txt"} error`,
		"Stop <nil> null stop_hook_active=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hook events:\n got %q\nwant %q\nstderr %q", got, want, res.stderr)
	}
}

// TestPreToolUseUpdatedInput checks that a hook's updatedInput, in Claude
// Code's keys, replaces the call's input and is judged again: the deny rules
// and leaving the sandbox hold against it.
func TestPreToolUseUpdatedInput(t *testing.T) {
	t.Parallel()
	hook := func(matcher, output string) string {
		return fmt.Sprintf(`{"PreToolUse": [{"matcher": %q, "hooks": [{"type": "command", "command": %q}]}]}`, matcher, "echo '"+output+"'")
	}
	allow := func(input string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":` + input + `}}`
	}
	tests := []struct {
		name, hooks, call string
		args              []string
		made, notMade     string // files in the workspace afterwards
		result            string // in the tool result
	}{
		{"a command replaced", hook("Bash", allow(`{"command":"touch changed.txt"}`)), `{"command":"touch ran.txt"}`,
			nil, "changed.txt", "ran.txt", "Exit code: 0"},
		{"a write sent elsewhere by file_path", hook("Write", allow(`{"file_path":"other.txt","content":"hooked"}`)), "",
			nil, "other.txt", "asked.txt", "other.txt"},
		{"the deny rules judge the new input", hook("Bash", allow(`{"command":"touch denied.txt"}`)), `{"command":"touch ran.txt"}`,
			[]string{"--disallowedTools", "Bash(touch denied.txt)"}, "", "denied.txt", "denied by the rule"},
		{"leaving the sandbox still asks", hook("Bash", allow(`{"command":"touch out.txt","dangerouslyDisableSandbox":true,"reason":"r"}`)), `{"command":"touch ran.txt"}`,
			nil, "", "out.txt", "outside the sandbox"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := hookWorkspace(t, tc.hooks, nil)
			first := toolCall("c1", "run_command", tc.call)
			if tc.call == "" {
				first = toolCall("w1", "write_file", `{"path":"asked.txt","content":"model"}`)
			}
			srv, requests := anthropicServer(t, scriptedModel(first))
			res := runWithModel(t, srv, ws, tc.args...)
			if _, err := os.Stat(filepath.Join(ws, tc.made)); tc.made != "" && err != nil {
				t.Errorf("%s was not made: %v; stderr %q", tc.made, err, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, tc.notMade)); err == nil {
				t.Errorf("%s was made", tc.notMade)
			}
			if results := toolResultsOf(requests()[1]); len(results) != 1 || !strings.Contains(results[0].Content, tc.result) {
				t.Errorf("tool results %+v, want one holding %q", results, tc.result)
			}
		})
	}
}

// TestSubagentHooks runs a task: SubagentStart names the agent and adds
// context to its prompt, SubagentStop (matched by the agent's name) keeps
// it working once, with stop_hook_active set the second time.
func TestSubagentHooks(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{
		"SubagentStart": [{"matcher": "general-purpose", "hooks": [{"type": "command", "command": "cat >> events.jsonl; echo >> events.jsonl; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"SubagentStart\",\"additionalContext\":\"the tests live in ./t\"}}'"}]}],
		"SubagentStop": [{"matcher": "general-purpose", "hooks": [{"type": "command", "command": ".minicode/hooks/stop.sh"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "cat >> events.jsonl; echo >> events.jsonl"}]}]}`,
		map[string]string{"stop.sh": `in=$(cat); echo "$in" >> events.jsonl; case "$in" in *'"stop_hook_active":false'*) echo "check the tests again" >&2; exit 2;; esac`})
	var mu sync.Mutex
	var subRequests []string
	srv, _ := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		first, _ := json.Marshal(req.Messages[0])
		if strings.Contains(string(first), "SUBTASK") {
			all, _ := json.Marshal(req.Messages)
			mu.Lock()
			defer mu.Unlock()
			subRequests = append(subRequests, string(all))
			return anthropicTextStream(fmt.Sprintf("sub answer %d", len(subRequests)), StopEndTurn)
		}
		if len(toolResultsOf(req)) == 0 {
			return toolCall("task1", "task", `{"description":"look","prompt":"SUBTASK: find the tests"}`)
		}
		return anthropicTextStream("main done", StopEndTurn)
	})
	res := runWithModel(t, srv, ws, "--permission-mode", "bypassPermissions")
	var got []string
	for _, e := range hookEventsIn(t, ws) {
		got = append(got, fmt.Sprintf("%v %v %v %v %v", e["hook_event_name"], e["agent_type"], e["agent_id"], e["stop_hook_active"], e["last_assistant_message"]))
	}
	want := []string{"SubagentStart general-purpose task1 <nil> <nil>", "SubagentStop general-purpose task1 false sub answer 1",
		"SubagentStop general-purpose task1 true sub answer 2", "Stop <nil> <nil> false main done"}
	if !slices.Equal(got, want) {
		t.Errorf("hook events:\n got %q\nwant %q\nstderr %q", got, want, res.stderr)
	}
	if len(subRequests) != 2 || !strings.Contains(subRequests[0], "the tests live in ./t") || !strings.Contains(subRequests[1], "check the tests again") {
		t.Errorf("subagent requests %q, want the start hook's context and the stop hook's reason", subRequests)
	}
}

// TestDisableAllHooks checks that "disableAllHooks" in any settings file turns off every file's hooks.
func TestDisableAllHooks(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, dumpHooks("SessionStart", "UserPromptSubmit", "Stop"), nil)
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"disableAllHooks": true}`)
	srv, _ := anthropicServer(t, answerOnce())
	res := runWithModel(t, srv, ws)
	if events := hookEventsIn(t, ws); res.code != 0 || len(events) != 0 {
		t.Errorf("exit %d, hook events %v; want none to run (stderr %q)", res.code, events, res.stderr)
	}
}

// TestHookStopsEndTheTaskWithSuccess checks that a prompt blocked by a
// hook, or a turn a hook stops, ends -p with exit 0 and a success result.
func TestHookStopsEndTheTaskWithSuccess(t *testing.T) {
	t.Parallel()
	for _, hooks := range []string{
		`{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'not now' >&2; exit 2"}]}]}`,
		`{"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"not now\"}'"}]}]}`,
	} {
		ws := hookWorkspace(t, hooks, nil)
		srv, _ := anthropicServer(t, touchThenAnswer)
		res := runWithModel(t, srv, ws, "--output-format", "json")
		var result resultRecord
		json.Unmarshal([]byte(res.stdout), &result)
		if res.code != 0 || result.Subtype != "success" || result.IsError || !strings.Contains(result.Result, "not now") || result.TerminalReason != "hook_stopped" {
			t.Errorf("%s: exit %d, result %+v; want a success naming the reason", hooks, res.code, result)
		}
	}
}

// TestPermissionRequestHookAnswersTheQuestion runs a command that asks, at a
// terminal-less prompt whose input has no answer: a PermissionRequest hook
// that allows runs it (no question), one that denies refuses it with its message.
func TestPermissionRequestHookAnswersTheQuestion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ decision, result string }{
		{`{"behavior":"allow"}`, "Exit code: 0"},
		{`{"behavior":"deny","message":"not on Fridays"}`, "not on Fridays"},
	} {
		ws := hookWorkspace(t, fmt.Sprintf(`{"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}`,
			`cat > asked.json; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":`+tc.decision+`}}'`), nil)
		srv, requests := anthropicServer(t, touchThenAnswer)
		res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)}, "touch the file\n", "--workspace", ws)
		reqs := requests()
		if len(reqs) != 2 || !strings.Contains(toolResultsOf(reqs[1])[0].Content, tc.result) {
			t.Fatalf("%s: %d requests; want the second to hold %q (stdout %q)", tc.decision, len(reqs), tc.result, res.stdout)
		}
		_, err := os.Stat(filepath.Join(ws, "ran.txt"))
		asked, _ := os.ReadFile(filepath.Join(ws, "asked.json"))
		if (err == nil) != strings.Contains(tc.decision, "allow") || !strings.Contains(string(asked), `"tool_name":"Bash"`) || strings.Contains(res.stdout, "choice [") {
			t.Errorf("%s: ran %v, hook input %s, stdout %q", tc.decision, err == nil, asked, res.stdout)
		}
	}
}
