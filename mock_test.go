package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestDemoModelUnderstandsPlainRequests(t *testing.T) {
	tools := []ToolSpec{{Name: "list_files"}, {Name: "read_file"}, {Name: "grep_files"}, {Name: "run_command"},
		{Name: "edit_file"}, {Name: "write_file"}, {Name: "ask_user"}}
	cases := []struct {
		request, wantTool, wantInput, wantText string
	}{
		{"list files", "list_files", `{}`, ""},
		{"Read main.go", "read_file", `{"path":"main.go"}`, ""},
		{"show the file docs/a.md", "read_file", `{"path":"docs/a.md"}`, ""},
		{"search for func main", "grep_files", `{"pattern":"func main"}`, ""},
		{"search for a.b", "grep_files", `{"pattern":"a\\.b"}`, ""},
		{"run go test ./...", "run_command", `{"command":"go test ./..."}`, ""},
		{"replace foo with bar in x.go", "edit_file", `{"new_string":"bar","old_string":"foo","path":"x.go"}`, ""},
		{"create notes.txt with hello world", "write_file", `{"content":"hello world\n","path":"notes.txt"}`, ""},
		{"ask me something", "ask_user", `{"question":"Which word should I search the workspace for?"}`, ""},
		{"help", "", "", "I understand these requests"},
		{"explain yourself", "", "", "deterministic demo model"},
		{"write me a poem", "", "", "did not understand"},
	}
	for _, tc := range cases {
		r := demoReply(ModelRequest{Messages: []Message{userText(tc.request)}, Tools: tools}, nil)
		if tc.wantTool == "" {
			if len(r.ToolCalls) != 0 || !strings.Contains(r.Text, tc.wantText) {
				t.Errorf("%q: reply %+v, want text containing %q", tc.request, r, tc.wantText)
			}
			continue
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != tc.wantTool || string(r.ToolCalls[0].Input) != tc.wantInput {
			t.Errorf("%q: calls %+v, want %s %s", tc.request, r.ToolCalls, tc.wantTool, tc.wantInput)
		}
	}
	r := demoReply(ModelRequest{Messages: []Message{userText("list files")}}, nil)
	if len(r.ToolCalls) != 0 || !strings.Contains(r.Text, "not available") {
		t.Errorf("without the tool the demo model replied %+v, want it to say the tool is missing", r)
	}
}

func TestDemoModelReportsToolResults(t *testing.T) {
	history := []Message{
		userText("read a.txt"),
		{Role: RoleAssistant, Content: []Block{call("t1", "read_file", `{"path":"a.txt"}`)}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "t1", Content: "no such file", IsError: true}}},
	}
	r := demoReply(ModelRequest{Messages: history}, nil)
	if r.Text != "read_file failed: no such file" || len(r.ToolCalls) != 0 {
		t.Errorf("reply = %+v, want the failure reported as the answer", r)
	}
}

func TestMockProviderStreamsAndReplaysScript(t *testing.T) {
	m := &MockProvider{script: []ScriptedReply{
		{Thinking: "plan it", Text: "two words", ToolCalls: []scriptedToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":"x"}`)}}},
		{Text: "cut", StopReason: StopMaxTokens, Usage: &Usage{InputTokens: 5, OutputTokens: 1}},
	}}
	var deltas []string
	resp, err := m.Stream(context.Background(), ModelRequest{Messages: []Message{userText("go")}}, func(d Delta) {
		deltas = append(deltas, d.Kind+":"+d.Text)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, "|"); got != "thinking:plan|thinking: it|text:two|text: words" {
		t.Errorf("deltas = %q", got)
	}
	if resp.StopReason != StopToolUse || len(resp.Content) != 3 || resp.Content[2].ID == "" || resp.Content[0].Signature == "" {
		t.Errorf("first reply = %+v, want thinking, text and a tool call with an id", resp)
	}
	resp, _ = m.Stream(context.Background(), ModelRequest{Messages: []Message{userText("go")}}, nil)
	if resp.StopReason != StopMaxTokens || resp.Usage.InputTokens != 5 {
		t.Errorf("second reply = %+v, want the scripted stop reason and usage", resp)
	}
	if _, err := m.Stream(context.Background(), ModelRequest{}, nil); err == nil || !strings.Contains(err.Error(), "no reply left") {
		t.Errorf("exhausted script: err = %v", err)
	}
}
