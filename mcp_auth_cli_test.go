package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mcpConfigJSON is the --mcp-config of the fake's protected server.
func mcpConfigJSON(f *oauthFake) string {
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"type": "http", "url": f.mcpURL()}}})
	return string(cfg)
}

// seededHome is a $MINICODE_HOME whose mcp.json has the fake's server
// and whose token file a login of lifetime left.
func seededHome(t *testing.T, f *oauthFake, lifetime time.Duration) string {
	t.Helper()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, userMCPFile), mcpConfigJSON(f))
	f.seed(t, &mcpAuth{server: "remote", url: f.mcpURL(), key: "remote " + f.mcpURL(), store: mcpTokenStore{filepath.Join(home, mcpTokenFile)}}, lifetime)
	return home
}

func TestMCPLoginAndLogoutCommands(t *testing.T) {
	t.Setenv(mcpTestBrowserEnv, "http-get")
	f := newOAuthFake(t)
	home, ws := t.TempDir(), t.TempDir()
	if _, err := runMCP(t, home, ws, "add", "remote", "--url", f.mcpURL()); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := runMCPCommand(t.Context(), []string{"login", "remote"}, strings.NewReader(""), &stdout, &stderr, home, ws); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "Logged in to MCP server remote") || !strings.Contains(stderr.String(), f.as.URL+"/authorize?") {
		t.Errorf("mcp login printed %q and %q", stdout.String(), stderr.String())
	}
	if out, err := runMCP(t, home, ws, "call", "remote", "whoami"); err != nil || !strings.Contains(out, "you are alice") || len(f.seen().authorizeReqs) != 1 {
		t.Errorf("mcp call after the login: %q, %v, %d authorizations", out, err, len(f.seen().authorizeReqs))
	}
	for _, want := range []string{"Logged out of MCP server remote", "MCP server remote had no stored login."} {
		if out, err := runMCP(t, home, ws, "logout", "remote"); err != nil || !strings.Contains(out, want) {
			t.Errorf("mcp logout said %q, %v; want %q", out, err, want)
		}
	}
}

func TestMCPAuthTwoProcessesRefreshAtOnce(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.rotate = true
	var stale atomic.Int32
	bothSent := make(chan struct{})
	f.onMCP = func(_, authorization string) {
		if authorization == "Bearer access-0" {
			if stale.Add(1) == 2 {
				close(bothSent)
			}
			select { // the 401s go out once both processes hold the stale token
			case <-bothSent:
			case <-time.After(30 * time.Second):
			}
		}
	}
	home := seededHome(t, f, time.Hour)
	f.revoke() // both processes get a 401 for the stored token and refresh it
	var wg sync.WaitGroup
	outputs := make([]string, 2)
	for i := range outputs {
		wg.Go(func() {
			cmd := exec.Command(minicodeBinary(t), "mcp", "tools", "remote")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + home, mcpTestBrowserEnv + "=http-get"}
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			outputs[i] = string(out) + errString(err)
		})
	}
	wg.Wait()
	seen := f.seen()
	for _, out := range outputs {
		if !strings.Contains(out, "whoami") {
			t.Errorf("a process printed %q", out)
		}
	}
	if seen.refreshes != 1 || seen.refusedReuse != 0 || len(seen.authorizeReqs) != 0 {
		t.Errorf("refreshes %d, refused refresh tokens %d, logins %d; want one refresh that both processes use", seen.refreshes, seen.refusedReuse, len(seen.authorizeReqs))
	}
	if _, err := (mcpTokenStore{filepath.Join(home, mcpTokenFile)}).read(); err != nil {
		t.Error(err)
	}
}

// errString describes err, "" for none.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return "\n" + err.Error()
}

func TestMCPAuthHeadlessGoesOnWithoutTheServer(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	told := make(chan struct{})
	api, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		select { // the model answers once minicode has said what to do
		case <-told:
		case <-time.After(30 * time.Second):
		}
		return anthropicTextStream("done without the server", "end_turn")
	})
	cmd := minicodeCommand(t, anthropicEnv(api.URL), "-p", "go on", "--mcp-config", mcpConfigJSON(f))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if lines = append(lines, sc.Text()); strings.Contains(sc.Text(), "MCP server remote needs a login: run `minicode mcp login remote`") {
			close(told)
			break
		}
	}
	io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), "done without the server") {
		t.Errorf("exit %v, stdout %q, stderr %q; want the task done without the server, after a line naming minicode mcp login remote", err, stdout.String(), lines)
	}
}

// startSDKAt is startSDK with the given $MINICODE_HOME; stderr goes to the file it returns.
func startSDKAt(t *testing.T, url, home string, args ...string) (*sdkProcess, string) {
	t.Helper()
	cmd := exec.Command(minicodeBinary(t), append(append([]string{}, sdkArgs...), args...)...)
	cmd.Dir = t.TempDir()
	stderrPath := filepath.Join(t.TempDir(), "stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + home, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + url}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &sdkProcess{t: t, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 100), ws: cmd.Dir}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			m["raw"] = sc.Text()
			p.lines <- m
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); stderr.Close() })
	return p, stderrPath
}

// awaitServerStatus asks mcp_status until the server has status.
func awaitServerStatus(t *testing.T, p *sdkProcess, status string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		p.control("status", map[string]any{"subtype": "mcp_status"})
		resp := p.await("mcp_status", isType("control_response", "success"), nil)
		if got, _ := json.Marshal(resp["response"]); strings.Contains(string(got), `"status":"`+status+`"`) {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling the program interface, as a program would
	}
	t.Fatalf("the server never became %s", status)
}

func TestMCPAuthSDKStatusNeedsAuth(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	api, _ := anthropicServer(t, func(*http.Request, modelRequest) string { return anthropicTextStream("ok", "end_turn") })
	p, _ := startSDKAt(t, api.URL, t.TempDir(), "--mcp-config", mcpConfigJSON(f))
	p.control("init", map[string]any{"subtype": "initialize"})
	awaitServerStatus(t, p, "needs-auth")
	p.user("hi")
	init := p.await("system/init", isType("system", "init"), nil)
	if servers, _ := json.Marshal(init["mcp_servers"]); !strings.Contains(string(servers), `{"name":"remote","status":"needs-auth"}`) {
		t.Errorf("init mcp_servers = %s, want remote needs-auth", servers)
	}
}

func TestMCPAuthTokensStayOutOfTheJournalAndTheModel(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	home := seededHome(t, f, time.Hour)
	f.revoke() // the stored token is refused, and refreshed
	step := 0
	api, requests := anthropicServer(t, func(*http.Request, modelRequest) string {
		if step++; step == 1 {
			return anthropicToolStream(Block{ID: "toolu_1", Name: "mcp__remote__whoami", Input: json.RawMessage(`{}`)})
		}
		return anthropicTextStream("you are alice", "end_turn")
	})
	p, stderrPath := startSDKAt(t, api.URL, home, "--allowedTools=mcp__remote__whoami", "--debug")
	p.control("init", map[string]any{"subtype": "initialize"})
	awaitServerStatus(t, p, "connected")
	p.user("who am I?")
	var out strings.Builder
	res := p.await("the result", isType("result", ""), func(m map[string]any) { out.WriteString(m["raw"].(string)) })
	if res["result"] != "you are alice" {
		t.Fatalf("result %v", res)
	}
	if got := toolResultsOf(requests()[1]); len(got) != 1 || got[0].Content != "you are alice" {
		t.Errorf("the model got %+v", got)
	}
	sent, _ := json.Marshal(requests())
	journals := ""
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), mcpTokenFile) && d.Name() != userMCPFile {
			data, _ := os.ReadFile(path)
			journals += string(data)
		}
		return nil
	})
	if !strings.Contains(journals, "you are alice") {
		t.Fatalf("no journal with the turn under %s", home)
	}
	p.stdin.Close()
	p.cmd.Wait()
	stderr, _ := os.ReadFile(stderrPath)
	for _, token := range []string{"access-0", "refresh-0", "access-1", "refresh-1"} {
		for where, text := range map[string]string{"the session journal": journals, "the model's requests": string(sent), "stdout": out.String() + res["raw"].(string), "stderr": string(stderr)} {
			if strings.Contains(text, token) {
				t.Errorf("%s holds the token %s", where, token)
			}
		}
	}
	if f.seen().refreshes != 1 {
		t.Errorf("refreshes %d, want 1 (the stored token was refused)", f.seen().refreshes)
	}
}

func TestMCPTokenFileIsHiddenFromSandboxedCommands(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	for _, stored := range []bool{true, false} {
		home := t.TempDir()
		store := mcpTokenStore{filepath.Join(home, mcpTokenFile)}
		login := func() {
			store.update(true, func(entries map[string]mcpTokenEntry) error {
				entries["remote x"] = mcpTokenEntry{Server: "remote", AccessToken: "SECRET-ACCESS"}
				return nil
			})
		}
		if stored {
			login()
		}
		step := 0
		api, requests := anthropicServer(t, func(*http.Request, modelRequest) string {
			if step++; step > 1 {
				return anthropicTextStream("done", "end_turn")
			}
			if !stored {
				login() // during the session, after the sandbox was made
			}
			// The pattern keeps the permission check from judging the path: the sandbox does.
			input, _ := json.Marshal(map[string]string{"command": "cat " + home + "/mcp-tok*.json"})
			return anthropicToolStream(Block{ID: "toolu_1", Name: "run_command", Input: input})
		})
		r := runMinicode(t, append(anthropicEnv(api.URL), "MINICODE_HOME="+home), "", "-p", "go", "--workspace", tr.ws, "--permission-mode", "bypassPermissions")
		if got := toolResultsOf(requests()[1]); r.code != 0 || len(got) != 1 || strings.Contains(got[0].Content, "SECRET-ACCESS") || !strings.Contains(got[0].Content, "Permission denied") {
			t.Errorf("stored before the session %v: cat of the token file gave %+v (exit %d, %s)", stored, got, r.code, r.stderr)
		}
	}
}
