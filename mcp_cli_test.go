package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMCP runs `minicode mcp ARGS` and returns stdout and the error.
func runMCP(t *testing.T, home, workspace string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := runMCPCommand(t.Context(), args, strings.NewReader(""), &stdout, &stderr, home, workspace)
	return stdout.String(), err
}

func TestMCPCLIConfigCommands(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	steps := []struct {
		args    []string
		wantOut string
		wantErr string
	}{
		{[]string{"list"}, "No MCP servers configured", ""},
		{[]string{"add", "files", "--env", "ROOT=/srv", "--", "npx", "-y", "server-filesystem", "/tmp"}, "Added MCP server files to " + filepath.Join(home, "mcp.json"), ""},
		{[]string{"add", "web", "--project", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer ${TOKEN}"}, "Added MCP server web to " + filepath.Join(ws, ".mcp.json"), ""},
		{[]string{"list"}, "files\tstdio\tnpx -y server-filesystem /tmp", ""},
		{[]string{"list"}, "web\thttp\thttps://example.com/mcp", ""},
		{[]string{"add", "bad"}, "", "needs a command"},
		{[]string{"add", "both", "--url", "http://x", "--", "cmd"}, "", "either --url or a command"},
		{[]string{"remove", "files"}, "Removed MCP server files", ""},
		{[]string{"remove", "files"}, "", `no MCP server named "files"`},
		{[]string{"remove", "web", "--project"}, "Removed MCP server web", ""},
		{[]string{"list"}, "No MCP servers configured", ""},
		{[]string{"frobnicate"}, "", `unknown mcp command "frobnicate"`},
	}
	for _, s := range steps {
		out, err := runMCP(t, home, ws, s.args...)
		if s.wantErr == "" && err != nil || s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)) {
			t.Errorf("mcp %q: error %v, want %q", s.args, err, s.wantErr)
		}
		if !strings.Contains(out, s.wantOut) {
			t.Errorf("mcp %q: output %q, want it to contain %q", s.args, out, s.wantOut)
		}
	}
}

func TestLoadMCPConfig(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "mcp.json"), `{"mcpServers":{"a":{"command":"user-a"},"b":{"command":"user-b","timeoutMs":5}}}`)
	write(filepath.Join(ws, ".mcp.json"), `{"other":true,"mcpServers":{"a":{"type":"http","url":"http://x/mcp","headers":{"X":"1"}}}}`)
	configs := loadMCPConfig(home, ws, noneBroken(t))
	if len(configs) != 2 || configs[0].URL != "http://x/mcp" || !configs[0].isHTTP() || configs[1].Command != "user-b" || configs[1].callTimeout().Milliseconds() != 5 {
		t.Errorf("configs = %+v; want the project's a over the user's, and the user's b", configs)
	}

	bad := []struct{ text, want string }{
		{"{\n  \"mcpServers\": {\n    \"x\": {\"command\": 5}\n  }\n}", `server "x": line 3: field "command" must be a string`},
		{"{\n  \"mcpServers\": {,}\n}", "line 2: not valid JSON (invalid character"},
		{`{"mcpServers":{"x":{"type":"http"}}}`, `MCP server "x": type "http" needs a url`},
		{`{"mcpServers":{"x":{"type":"grpc","command":"c"}}}`, `unknown type "grpc"`},
	}
	for _, b := range bad {
		write(filepath.Join(ws, ".mcp.json"), b.text)
		var broken []error
		loadMCPConfig(home, ws, func(err error) { broken = append(broken, err) })
		if err := errors.Join(broken...); err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), ".mcp.json") {
			t.Errorf("config %q: error %v, want the file and %q", b.text, err, b.want)
		}
	}
}

func TestExpandVars(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TOKEN": "s3cret", "EMPTY": ""}
	lookup := func(k string) string { return env[k] }
	cases := map[string]string{
		"Bearer ${TOKEN}":   "Bearer s3cret",
		"${TOKEN}-${TOKEN}": "s3cret-s3cret",
		"cost: $5 ${EMPTY}": "cost: $5 ",
		"${MISSING}x":       "x",
		"open ${TOKEN":      "open ${TOKEN",
		"$TOKEN stays":      "$TOKEN stays",
	}
	for in, want := range cases {
		if got := expandVars(in, lookup); got != want {
			t.Errorf("expandVars(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMCPCLIToolsAndCall(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runMCP(t, home, ws, "add", "fake", "--env", fakeMCPEnv+"=ndjson", "--", exe); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args    []string
		wantOut []string
		wantErr error
		errText string
	}{
		{[]string{"tools", "fake"}, []string{"fake 1 (protocol 2025-11-25): 6 tools", "echo\n  Echo the text\n  input: {", `"required": [`}, nil, ""},
		{[]string{"call", "fake", "echo", `{"text":"hi"}`}, []string{"echo: hi\n"}, nil, ""},
		{[]string{"call", "fake", "fail"}, []string{"it went wrong\n"}, errMCPToolFailed, ""},
		{[]string{"call", "fake", "nope"}, nil, nil, "unknown tool nope"},
		{[]string{"call", "nobody", "echo"}, nil, nil, `no MCP server named "nobody" (configured: fake)`},
		{[]string{"call", "fake", "echo", "{bad"}, nil, nil, "not valid JSON"},
		{[]string{"call", "--mcp-elicitation", "maybe", "fake", "echo"}, nil, nil, "--mcp-elicitation must be"},
		{[]string{"call", "fake"}, nil, nil, "usage: minicode mcp call"},
	}
	for _, c := range cases {
		out, err := runMCP(t, home, ws, c.args...)
		switch {
		case c.wantErr != nil && !errors.Is(err, c.wantErr):
			t.Errorf("mcp %q: error %v, want %v", c.args, err, c.wantErr)
		case c.errText != "" && (err == nil || !strings.Contains(err.Error(), c.errText)):
			t.Errorf("mcp %q: error %v, want %q", c.args, err, c.errText)
		case c.wantErr == nil && c.errText == "" && err != nil:
			t.Errorf("mcp %q: %v", c.args, err)
		}
		for _, w := range c.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("mcp %q: output %q, want it to contain %q", c.args, out, w)
			}
		}
	}
}

func TestMCPToolFailureExitsOne(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := exitCode(errMCPToolFailed, &stderr); code != exitFailed || stderr.Len() != 0 {
		t.Errorf("exit code %d with %q, want %d and nothing more said (the tool's text was printed)", code, stderr.String(), exitFailed)
	}
}

func TestMCPAddedServerStarts(t *testing.T) {
	t.Parallel()
	// A server saved by `mcp add --project` is loaded and started.
	home, ws := t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runMCP(t, home, ws, "add", "fake", "--project", "--env", fakeMCPEnv+"=ndjson", "--", exe); err != nil {
		t.Fatal(err)
	}
	configs := loadMCPConfig(home, ws, noneBroken(t))
	m, reg := startManager(t, configs, MCPOptions{})
	if st := m.Status(); len(st) != 1 || st[0].State != MCPReady || len(reg.Tools()) != 6 {
		t.Errorf("status %+v with tools %q, want fake ready with 6 tools", st, reg.names())
	}
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var broken error
	if loadMCPConfig(home, ws, func(err error) { broken = err }); broken == nil || !strings.Contains(broken.Error(), ".mcp.json") {
		t.Errorf("a broken config: error %v, want one naming the file", err)
	}
}

// TestMCPAddAndRemoveThroughTheBinary: add never replaces a server silently, remove names the file the
// server is really in, the last server removed takes its file along, and what is saved reads as written.
// TestMCPAddToANullFile: a file or an mcpServers holding null has no servers yet; adding
// to it and removing from it work, and the other keys stay.
func TestMCPAddToANullFile(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"null", `{"mcpServers": null, "other": 1}`} {
		home, ws := t.TempDir(), t.TempDir()
		path := filepath.Join(home, "mcp.json")
		writeFile(t, path, body)
		if out, err := runMCP(t, home, ws, "list"); err != nil || !strings.Contains(out, "No MCP servers configured") {
			t.Errorf("%s: list gave %q, %v", body, out, err)
		}
		if _, err := runMCP(t, home, ws, "add", "files", "--", "echo", "hi"); err != nil {
			t.Fatalf("%s: add: %v", body, err)
		}
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), `"files"`) || strings.Contains(body, "other") && !strings.Contains(string(data), `"other"`) {
			t.Errorf("%s: after add the file holds %s", body, data)
		}
		if _, err := runMCP(t, home, ws, "remove", "files"); err != nil {
			t.Errorf("%s: remove: %v", body, err)
		}
	}
}

func TestMCPAddAndRemoveThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	userFile, projectFile := filepath.Join(n.home, ".minicode", "mcp.json"), filepath.Join(n.ws, ".mcp.json")
	n.mustRun(0, "mcp", "add", "files", "--", "echo", "hi")
	r := n.mustRun(1, "mcp", "add", "files", "--", "echo", "a&b")
	for _, want := range []string{`an MCP server named "files" is already in ` + userFile, `{"command":"echo","args":["hi"]}`, "--force", "mcp remove files"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("replacing without --force: stderr %q lacks %q", r.stderr, want)
		}
	}
	n.mustRun(0, "mcp", "add", "files", "--force", "--", "echo", "a&b")
	if data, _ := os.ReadFile(userFile); !strings.Contains(string(data), `"a&b"`) {
		t.Errorf("after --force, %s = %s; want the new command, written as typed", userFile, data)
	}
	r = n.mustRun(1, "mcp", "remove", "files", "--project")
	if want := "it is in " + userFile + ": minicode mcp remove files"; !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "files --project") {
		t.Errorf("remove --project of a user server: stderr %q, want it to say %q", r.stderr, want)
	}
	n.mustRun(0, "mcp", "add", "web", "--project", "--url", "https://example.com/mcp")
	r = n.mustRun(1, "mcp", "remove", "web")
	if want := "it is in " + projectFile + ": minicode mcp remove web --project"; !strings.Contains(r.stderr, want) {
		t.Errorf("remove of a project server: stderr %q, want it to say %q", r.stderr, want)
	}
	n.mustRun(0, "mcp", "remove", "web", "--project")
	if _, err := os.Stat(projectFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing the last project server left %s (%v)", projectFile, err)
	}
	n.mustRun(1, "mcp", "remove", "web", "--project")
	if _, err := os.Stat(projectFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing a server that is not there created %s", projectFile)
	}
}

// TestMCPAddAndRemoveKeepTheFile: mcp add and remove change only their server; the other keys and
// servers keep their order, and numbers stay as written.
func TestMCPAddAndRemoveKeepTheFile(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	path := filepath.Join(home, "mcp.json")
	file := "{\n  \"zeta\": {\n    \"b\": 1,\n    \"a\": 12345678901234567890\n  },\n  \"mcpServers\": {\n" +
		"    \"web\": {\n      \"url\": \"https://example.com/mcp\",\n      \"type\": \"http\"\n    }%s\n  }\n}\n"
	writeFile(t, path, fmt.Sprintf(file, ",\n    \"files\": {\n      \"command\": \"echo\"\n    }"))
	if _, err := runMCP(t, home, ws, "add", "api", "--", "echo", "hi"); err != nil {
		t.Fatal(err)
	}
	added := fmt.Sprintf(file, ",\n    \"files\": {\n      \"command\": \"echo\"\n    },\n    \"api\": {\n      \"command\": \"echo\",\n      \"args\": [\n        \"hi\"\n      ]\n    }")
	if got := readFileString(t, path); got != added {
		t.Errorf("after mcp add the file is\n%s\nwant\n%s", got, added)
	}
	for _, name := range []string{"files", "api"} {
		if _, err := runMCP(t, home, ws, "remove", name); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := readFileString(t, path), fmt.Sprintf(file, ""); got != want {
		t.Errorf("after mcp remove the file is\n%s\nwant\n%s", got, want)
	}
}
