package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// acpClient is an editor's end of `minicode acp`: JSON-RPC 2.0 over the
// process's pipes. Every line minicode writes must be a JSON-RPC message;
// minicode's requests go to serve, which returns the result to send.
type acpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan map[string]any
	nextID int
	ws     string
	home   string
	serve  func(m map[string]any) any // answers minicode's requests; nil fails the test
}

// startACP starts `minicode acp` with args in a fresh home and workspace;
// env adds to the environment.
func startACP(t *testing.T, env []string, args ...string) *acpClient {
	t.Helper()
	c := &acpClient{t: t, ws: t.TempDir(), home: t.TempDir(), msgs: make(chan map[string]any, 1000)}
	c.cmd = exec.Command(minicodeBinary(t), append([]string{"acp"}, args...)...)
	c.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "MINICODE_HOME=" + c.home}, env...)
	c.cmd.Stderr = os.Stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.msgs)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				m = map[string]any{"not-jsonrpc": sc.Text()}
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

// send writes one message, or a raw line when v is a string.
func (c *acpClient) send(v any) {
	c.t.Helper()
	line, ok := v.(string)
	if !ok {
		data, _ := json.Marshal(v)
		line = string(data)
	}
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// request sends a request and returns its id.
func (c *acpClient) request(method string, params any) float64 {
	c.nextID++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	return float64(c.nextID)
}

// next returns minicode's next message, answering its requests through
// serve first when answer is set.
func (c *acpClient) next() map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("minicode closed stdout")
		}
		if m["not-jsonrpc"] != nil {
			c.t.Fatalf("stdout carried a line that is not JSON-RPC: %q", m["not-jsonrpc"])
		}
		return m
	case <-time.After(60 * time.Second):
		c.t.Fatal("no message from minicode within a minute")
	}
	return nil
}

// await reads until the response to id, answering minicode's requests with
// serve, and returns the response and the session updates before it.
func (c *acpClient) await(id float64) (map[string]any, []map[string]any) {
	c.t.Helper()
	var updates []map[string]any
	for {
		m := c.next()
		switch {
		case m["method"] == "session/update":
			updates = append(updates, m["params"].(map[string]any)["update"].(map[string]any))
		case m["method"] != nil && m["id"] != nil:
			if c.serve == nil {
				c.t.Fatalf("unexpected request %v", m)
			}
			c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": c.serve(m)})
		case m["method"] == nil && m["id"] == id:
			return m, updates
		}
	}
}

// call sends a request and returns its result, failing on an error response.
func (c *acpClient) call(method string, params any) (map[string]any, []map[string]any) {
	c.t.Helper()
	resp, updates := c.await(c.request(method, params))
	if resp["error"] != nil {
		c.t.Fatalf("%s: %v", method, resp["error"])
	}
	result, _ := resp["result"].(map[string]any)
	return result, updates
}

// open initializes the connection with the client's fs capability and starts a session in the workspace.
func (c *acpClient) open(fs bool) string {
	c.t.Helper()
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": fs, "writeTextFile": fs}}})
	result, _ := c.call("session/new", map[string]any{"cwd": c.ws, "mcpServers": []any{}})
	if u := c.next(); u["method"] != "session/update" {
		c.t.Fatalf("after session/new: %v, want the available_commands_update", u)
	}
	return result["sessionId"].(string)
}

// prompt sends one text prompt and returns the stop reason and the updates.
func (c *acpClient) prompt(session, text string) (string, []map[string]any) {
	c.t.Helper()
	result, updates := c.call("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]string{"type": "text", "text": text}}})
	return fmt.Sprint(result["stopReason"]), updates
}

// updatesOf returns the updates of one kind, and of one tool call if id is not "".
func updatesOf(updates []map[string]any, kind, id string) []map[string]any {
	var out []map[string]any
	for _, u := range updates {
		if u["sessionUpdate"] == kind && (id == "" || u["toolCallId"] == id) {
			out = append(out, u)
		}
	}
	return out
}

// jsonText is v as compact JSON, for comparing and printing.
func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// permissionAnswers answers request_permission with the options picked in
// order, fs requests from buffers (a path's unsaved text), and records them.
type permissionAnswers struct {
	picks    []string
	asked    []map[string]any
	buffers  map[string]string
	requests []string
}

// serve answers one request of minicode's.
func (a *permissionAnswers) serve(m map[string]any) any {
	params := m["params"].(map[string]any)
	a.requests = append(a.requests, m["method"].(string))
	switch m["method"] {
	case "session/request_permission":
		a.asked = append(a.asked, params)
		pick := a.picks[0]
		a.picks = a.picks[1:]
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": pick}}
	case "fs/read_text_file":
		return map[string]string{"content": a.buffers[params["path"].(string)]}
	case "fs/write_text_file":
		a.buffers[params["path"].(string)] = params["content"].(string)
	}
	return map[string]any{}
}

// TestACPTurnReadsEditsAndRunsCommands drives a turn that reads a file,
// edits it (the diff in the question and in the result), and runs two
// commands, one allowed and one rejected, with the editor's buffers and
// with the disk.
func TestACPTurnReadsEditsAndRunsCommands(t *testing.T) {
	for _, buffers := range []bool{true, false} {
		t.Run(fmt.Sprintf("buffers=%v", buffers), func(t *testing.T) {
			script := writeScript(t, "["+strings.Join([]string{
				`{"thinking":"Look first.","text":"Reading.","tool_calls":[{"id":"r1","name":"read_file","input":{"path":"a.txt"}}]}`,
				`{"tool_calls":[{"id":"e1","name":"edit_file","input":{"path":"a.txt","old_string":"world","new_string":"there"}}]}`,
				`{"tool_calls":[{"id":"c1","name":"run_command","input":{"command":"touch made && echo ran"}}]}`,
				`{"tool_calls":[{"id":"c2","name":"run_command","input":{"command":"touch never"}}]}`,
				`{"text":"All done."}`}, ",")+"]")
			c := startACP(t, nil, "--mock-script", script)
			file := filepath.Join(c.ws, "a.txt")
			os.WriteFile(file, []byte("hello\nworld\n"), 0o644)
			before := "hello\nworld\n"
			answers := &permissionAnswers{picks: []string{"allow_once", "allow_once", "deny_once"}, buffers: map[string]string{}}
			if buffers {
				before = "hello\nworld\nunsaved line\n"
				answers.buffers[file] = before
			}
			c.serve = answers.serve
			session := c.open(buffers)
			stop, updates := c.prompt(session, "go")
			if stop != "end_turn" {
				t.Fatalf("stop reason %q", stop)
			}
			var kinds []string
			for _, u := range updates {
				kinds = append(kinds, fmt.Sprint(u["sessionUpdate"]))
			}
			want := "agent_thought_chunk agent_thought_chunk agent_message_chunk tool_call tool_call_update tool_call tool_call_update tool_call tool_call_update tool_call tool_call_update agent_message_chunk agent_message_chunk"
			if got := strings.Join(kinds, " "); got != want {
				t.Errorf("updates:\n got %s\nwant %s", got, want)
			}
			read := updatesOf(updates, "tool_call", "r1")[0]
			if read["kind"] != "read" || read["title"] != "Read a.txt" || jsonText(read["locations"]) != jsonText([]any{map[string]string{"path": file}}) {
				t.Errorf("read call %v", read)
			}
			if got := jsonText(updatesOf(updates, "tool_call_update", "r1")[0]["content"]); !strings.Contains(got, "hello") || strings.Contains(got, "unsaved") != buffers {
				t.Errorf("read result %s: want the buffer's text when the editor has one", got)
			}
			edit := updatesOf(updates, "tool_call", "e1")[0]
			if edit["kind"] != "edit" || edit["title"] != "Edit a.txt" {
				t.Errorf("edit call %v", edit)
			}
			after := strings.Replace(before, "world", "there", 1)
			wantDiff := jsonText([]any{map[string]any{"type": "diff", "path": file, "oldText": before, "newText": after}})
			done := updatesOf(updates, "tool_call_update", "e1")[0]
			if got := jsonText(done["content"]); got != wantDiff || done["status"] != "completed" || jsonText(done["locations"]) != jsonText([]any{map[string]any{"path": file, "line": 2}}) {
				t.Errorf("edit result %v\nwant content %s at line 2", done, wantDiff)
			}
			question := answers.asked[0]
			if call := question["toolCall"].(map[string]any); call["toolCallId"] != "e1" || !strings.Contains(jsonText(call["content"]), `"text":"`+"```"+`diff\n--- a/a.txt\n+++ b/a.txt\n@@`) ||
				!strings.Contains(jsonText(call["content"]), strings.Trim(wantDiff, "[]")) {
				t.Errorf("edit question %v: want its diff, as text and as the editor's diff content %s", call, wantDiff)
			}
			var options []string
			for _, o := range question["options"].([]any) {
				options = append(options, o.(map[string]any)["optionId"].(string)+":"+o.(map[string]any)["kind"].(string))
			}
			if got := strings.Join(options, " "); got != "allow_once:allow_once allow_file_turn:allow_always allow_edits_turn:allow_always allow_always:allow_always deny_once:reject_once deny_always:reject_always" {
				t.Errorf("edit options %s", got)
			}
			disk, _ := os.ReadFile(file)
			if wantDisk := map[bool]string{true: "hello\nworld\n", false: after}[buffers]; string(disk) != wantDisk || buffers && answers.buffers[file] != after {
				t.Errorf("disk %q, buffer %q: the edit must land in the editor when it offers files, else on disk", disk, answers.buffers[file])
			}
			ran := updatesOf(updates, "tool_call", "c1")[0]
			if ran["kind"] != "execute" || ran["title"] != "`touch made && echo ran`" || !strings.Contains(jsonText(updatesOf(updates, "tool_call_update", "c1")[0]["content"]), "ran") {
				t.Errorf("command %v: want its output as text", ran)
			}
			if got := updatesOf(updates, "tool_call_update", "c2")[0]; got["status"] != "failed" || !strings.Contains(jsonText(got["content"]), "rejected run_command") {
				t.Errorf("rejected command %v", got)
			}
		})
	}
}

// hangingModel streams the first reply's first words and then waits until
// the request is cancelled; later requests get reply.
func hangingModel(t *testing.T, reply string) *httptest.Server {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if requests++; requests > 1 {
			io.WriteString(w, anthropicTextStream(reply, "end_turn"))
			return
		}
		io.WriteString(w, anthropicEvents(`{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Thinking about "}}`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestACPCancelStopsTheStreamingTurn cancels a turn while the model streams:
// the prompt answers cancelled, the session goes on, and the journal keeps both prompts.
func TestACPCancelStopsTheStreamingTurn(t *testing.T) {
	srv := hangingModel(t, "Second answer.")
	c := startACP(t, []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + srv.URL})
	session := c.open(false)
	id := c.request("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]string{"type": "text", "text": "first"}}})
	if m := c.next(); m["method"] != "session/update" || !strings.Contains(jsonText(m), "agent_message_chunk") {
		t.Fatalf("first message %v, want the streamed text", m)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]string{"sessionId": session}})
	resp, _ := c.await(id)
	if got := jsonText(resp["result"]); got != `{"stopReason":"cancelled"}` {
		t.Fatalf("cancelled prompt answered %v", resp)
	}
	if stop, updates := c.prompt(session, "second"); stop != "end_turn" || !strings.Contains(jsonText(updates), "Second answer.") {
		t.Fatalf("after the cancel: %q %v", stop, updates)
	}
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("minicode acp ended with %v after stdin closed", err)
	}
	journal, _ := os.ReadFile(filepath.Join(projectDir(c.home, resolvedPath(t, c.ws)), session+".jsonl"))
	if !strings.Contains(string(journal), `"first"`) || !strings.Contains(string(journal), `"second"`) {
		t.Errorf("journal lacks a prompt:\n%s", journal)
	}
}

// resolvedPath is path with its symlinks resolved, as minicode names workspaces.
func resolvedPath(t *testing.T, path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestACPUnansweredQuestionIsCancelledWithTheTurn leaves a permission
// question unanswered and cancels the turn: minicode withdraws the request,
// the prompt answers cancelled, and the call has its result in the journal.
func TestACPUnansweredQuestionIsCancelledWithTheTurn(t *testing.T) {
	script := writeScript(t, `[{"tool_calls":[{"id":"c1","name":"run_command","input":{"command":"touch hi"}}]}, {"text":"unused"}]`)
	c := startACP(t, nil, "--mock-script", script)
	session := c.open(false)
	id := c.request("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]string{"type": "text", "text": "run it"}}})
	var question map[string]any
	for question == nil {
		if m := c.next(); m["method"] == "session/request_permission" {
			question = m
		}
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]string{"sessionId": session}})
	withdrawn := false
	for {
		m := c.next()
		if m["method"] == "$/cancel_request" {
			withdrawn = jsonText(m["params"]) == jsonText(map[string]any{"requestId": question["id"]})
		}
		if m["id"] == id && m["method"] == nil {
			if jsonText(m["result"]) != `{"stopReason":"cancelled"}` {
				t.Fatalf("prompt answered %v", m)
			}
			break
		}
	}
	if !withdrawn {
		t.Error("the open question was not withdrawn with $/cancel_request")
	}
	c.stdin.Close()
	c.cmd.Wait()
	journal, _ := os.ReadFile(filepath.Join(projectDir(c.home, resolvedPath(t, c.ws)), session+".jsonl"))
	if !strings.Contains(string(journal), `"tool_use_id":"c1"`) {
		t.Errorf("the journal gives the call no result:\n%s", journal)
	}
}

// TestACPDisconnectMidTurnLeavesTheJournalComplete closes stdin while a
// question is open: minicode exits 0, and `minicode --resume` sends the
// model the call with a result.
func TestACPDisconnectMidTurnLeavesTheJournalComplete(t *testing.T) {
	script := writeScript(t, `[{"tool_calls":[{"id":"c1","name":"run_command","input":{"command":"touch hi"}}]}]`)
	c := startACP(t, nil, "--mock-script", script)
	session := c.open(false)
	c.request("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]string{"type": "text", "text": "run it"}}})
	for m := c.next(); m["method"] != "session/request_permission"; m = c.next() {
	}
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("minicode acp ended with %v after the client left", err)
	}
	srv, requests := anthropicServer(t, textReplies("resumed"))
	cmd := exec.Command(minicodeBinary(t), "--resume", session, "-p", "and now?")
	cmd.Dir = c.ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "MINICODE_HOME=" + c.home, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + srv.URL}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "resumed") {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	sent := jsonText(requests()[0].Messages)
	if !strings.Contains(sent, `"tool_use_id":"c1"`) || !strings.Contains(sent, "run it") {
		t.Errorf("the resumed conversation lacks the call's result: %s", sent)
	}
}
