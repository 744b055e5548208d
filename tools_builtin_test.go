package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// newTestEnv returns a tool environment whose workspace is a fresh
// temporary folder holding files (path → content).
func newTestEnv(t *testing.T, files map[string]string) *ToolEnv {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, ws, files)
	return &ToolEnv{Workspace: ws, ResultsDir: filepath.Join(ws, ".results")}
}

// writeTree creates files (path → content) below root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// callTool runs one call of tool through the registry, the way the agent
// loop does: decode, validate, describe the permission, run.
func callTool(t *testing.T, env *ToolEnv, tool *Tool, input string) ToolOutput {
	t.Helper()
	reg := newRegistry(tool)
	return reg.Execute(context.Background(), env, Block{Type: BlockToolUse, ID: "call_1", Name: tool.Name, Input: json.RawMessage(input)})
}

// mustContain fails the test unless got holds every one of wants.
func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q; got %q", w, got)
		}
	}
}

// recordingPerms is an Authorizer that allows everything and remembers
// the requests it saw.
type recordingPerms struct {
	reqs []PermissionRequest
}

// Authorize records req, with its diff planned as the real check does,
// and allows it.
func (p *recordingPerms) Authorize(ctx context.Context, req PermissionRequest) error {
	if req.Plan != nil {
		_ = req.planned()
	}
	p.reqs = append(p.reqs, req)
	return nil
}

func TestBuiltinsHaveValidSchemas(t *testing.T) {
	tools, procs := newBuiltins("", nil)
	defer procs.Close()
	seen := map[string]bool{}
	for _, tool := range tools {
		if seen[tool.Name] {
			t.Errorf("tool %q registered twice", tool.Name)
		}
		seen[tool.Name] = true
		var schema map[string]any
		if err := json.Unmarshal(tool.Schema, &schema); err != nil {
			t.Errorf("%s: schema is not JSON: %v", tool.Name, err)
		}
		if schema["type"] != "object" {
			t.Errorf("%s: schema type = %q, want %q", tool.Name, schema["type"], "object")
		}
		if tool.Description == "" || len(tool.Description) > 600 {
			t.Errorf("%s: description length %d, want 1..600", tool.Name, len(tool.Description))
		}
	}
}

func TestAskUser(t *testing.T) {
	env := newTestEnv(t, nil)
	tool := askUserTool()
	tests := []struct {
		input, wantQuestion string
		wantErr             bool
	}{
		{`{"question":"Which database?"}`, "Which database?", false},
		{`{"question":"   "}`, "", true},
		{`{}`, "", true},
		{`{"question":7}`, "", true},
	}
	for _, tc := range tests {
		out := callTool(t, env, tool, tc.input)
		if out.IsError != tc.wantErr || out.Question != tc.wantQuestion {
			t.Errorf("ask_user %s = (%q, err=%v, question=%q), want err=%v question=%q", tc.input, out.Text, out.IsError, out.Question, tc.wantErr, tc.wantQuestion)
		}
	}
}

func TestCutMiddle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s      string
		budget int
		want   string
	}{
		{"short", 10, "short"},
		{"0123456789", 4, "01\n[... 6 characters omitted ...]\n89"},
		{"ééééé", 5, "é\n[... 6 characters omitted ...]\né"},
	}
	for _, tc := range tests {
		if got := cutMiddleBytes(tc.s, tc.budget); got != tc.want {
			t.Errorf("cutMiddleBytes(%q, %d) = %q, want %q", tc.s, tc.budget, got, tc.want)
		}
	}
}

// timeAgo is the time the given number of minutes ago.
func timeAgo(minutes int) time.Time {
	return time.Now().Add(-time.Duration(minutes) * time.Minute)
}

// TestMalformedArgumentsSayWhere streams a tool call whose arguments stop
// half way (as a model cut off or confused may send them) and runs it: the
// result says the arguments are not valid JSON, and where they go wrong.
func TestMalformedArgumentsSayWhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"path": "a.txt", "limit": 5`, `invalid input: the arguments are not valid JSON: unexpected end of JSON input at character 28 of 28, after "{\"path\": \"a.txt\", \"limit\": 5"`},
		{`{"path": "a.txt" "limit": 5}`, `invalid input: the arguments are not valid JSON: invalid character '"' after object key:value pair at character 18 of 28, after "{\"path\": \"a.txt\" \""`},
	} {
		quoted, _ := json.Marshal(tc.args)
		stream := `event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}` + "\n\n" +
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":` + string(quoted) + `}}` + "\n\n" +
			`event: message_stop` + "\n" + `data: {"type":"message_stop"}` + "\n\n"
		resp, err := parseAnthropicStream(newSSEReader(strings.NewReader(stream), 1<<20), func(Delta) {})
		if err != nil || len(resp.Content) != 1 {
			t.Fatalf("parsing the stream: %v, %d blocks", err, len(resp.Content))
		}
		env := newTestEnv(t, map[string]string{"a.txt": "alpha\n"})
		if out := newRegistry(readFileTool()).Execute(context.Background(), env, resp.Content[0]); !out.IsError || out.Text != tc.want {
			t.Errorf("result of %s = %q (error %v), want %q", tc.args, out.Text, out.IsError, tc.want)
		}
	}
}

// TestSpecsOrderIsStable registers MCP tools in two orders, as servers that answer in either
// order would: the specs, the start of every request's cached prefix, come out the same, the
// built-in tools first in their own order.
func TestSpecsOrderIsStable(t *testing.T) {
	t.Parallel()
	names := func(order ...string) []string {
		r := newRegistry(readFileTool(), grepFilesTool())
		for _, n := range order {
			r.Add(&Tool{Name: n})
		}
		var got []string
		for _, s := range r.Specs() {
			got = append(got, s.Name)
		}
		return got
	}
	want := []string{"read_file", "grep_files", "mcp__a__x", "mcp__b__y", "mcp__b__z"}
	for _, order := range [][]string{{"mcp__b__z", "mcp__b__y", "mcp__a__x"}, {"mcp__a__x", "mcp__b__y", "mcp__b__z"}} {
		if got := names(order...); !slices.Equal(got, want) {
			t.Errorf("registered %q: specs %q, want %q", order, got, want)
		}
	}
}

// WalkFilter hides nothing.
func (*recordingPerms) WalkFilter(string) func(string) bool { return nil }
