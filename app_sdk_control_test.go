package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// startSDKHere runs minicode as the Agent SDK does, but in this process, so that the race
// detector watches the goroutine that reads stdin and the one that runs turns; the offline
// demo model answers.
func startSDKHere(t *testing.T) *sdkProcess {
	t.Helper()
	stdin, toMinicode := io.Pipe()
	fromMinicode, stdout := io.Pipe()
	env := map[string]string{"HOME": t.TempDir(), "MINICODE_HOME": t.TempDir()}
	args := append([]string{"-p", "--workspace", t.TempDir(), "--no-session-persistence"}, sdkArgs...)
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), args, stdin, stdout, io.Discard, func(k string) string { return env[k] })
		stdout.Close()
	}()
	p := &sdkProcess{t: t, stdin: toMinicode, lines: make(chan map[string]any, 100)}
	go p.readLines(fromMinicode)
	t.Cleanup(func() {
		toMinicode.Close()
		for range p.lines {
		}
		if err := <-done; err != nil {
			t.Errorf("minicode ended with %v", err)
		}
	})
	return p
}

// answerTo awaits the control_response to the request id and returns its response part.
func (p *sdkProcess) answerTo(id string) map[string]any {
	p.t.Helper()
	return p.await("the answer to "+id, func(m map[string]any) bool {
		r, _ := m["response"].(map[string]any)
		return m["type"] == "control_response" && r["request_id"] == id
	}, nil)["response"].(map[string]any)
}

// TestSDKControlRequestsDuringTurns asks for the context usage and switches the model while
// turns run, some of them /model: every request is answered, and -race finds nothing. Each
// prompt and its requests wait for the turn before, so that the turn starts as they arrive.
func TestSDKControlRequestsDuringTurns(t *testing.T) {
	p := startSDKHere(t)
	p.control("init", map[string]any{"subtype": "initialize"})
	p.answerTo("init")
	for i, prompt := range []string{"/model haiku", "hello", "/model opus", "hello", "/model sonnet", "/context"} {
		p.user(prompt)
		for j, model := range []string{"sonnet", "default"} {
			p.control(fmt.Sprint("model", i, j), map[string]any{"subtype": "set_model", "model": model})
			p.control(fmt.Sprint("usage", i, j), map[string]any{"subtype": "get_context_usage"})
		}
		for result, answers := false, 0; !result || answers < 4; {
			m := p.await("the result and the answers", func(map[string]any) bool { return true }, nil)
			switch r, _ := m["response"].(map[string]any); m["type"] {
			case "result":
				result = true
			case "control_response":
				if answers++; r["subtype"] != "success" {
					t.Errorf("%s: control request %v: %v", prompt, r["request_id"], r["error"])
				}
			}
		}
	}
}

// TestSDKSetModelAndSlashModelAgree switches the model with set_model and with /model: the
// context usage reports the model in use and its window, and the next turn asks that model.
func TestSDKSetModelAndSlashModelAgree(t *testing.T) {
	p := startSDKHere(t)
	p.control("init", map[string]any{"subtype": "initialize"})
	p.answerTo("init")
	opus, haiku := resolveModelAlias("opus"), resolveModelAlias("haiku")
	steps := []struct {
		user, setModel string // what switches the model
		want           string
		window         int
	}{
		{setModel: "opus", want: opus, window: limitsFor(opus, nil).ContextWindow},
		{user: "/model haiku", want: haiku, window: limitsFor(haiku, nil).ContextWindow},
		{setModel: "default", want: "mock", window: limitsFor("mock", nil).ContextWindow},
		{setModel: "sonnet", want: resolveModelAlias("sonnet"), window: limitsFor(resolveModelAlias("sonnet"), nil).ContextWindow},
	}
	for i, s := range steps {
		if s.user != "" {
			p.user(s.user)
			p.await("the result of "+s.user, isType("result", ""), nil)
		} else {
			id := fmt.Sprint("set", i)
			p.control(id, map[string]any{"subtype": "set_model", "model": s.setModel})
			p.answerTo(id)
		}
		id := fmt.Sprint("usage", i)
		p.control(id, map[string]any{"subtype": "get_context_usage"})
		u, _ := p.answerTo(id)["response"].(map[string]any)
		if u["model"] != s.want || u["maxTokens"] != float64(s.window) {
			t.Errorf("after %s: context usage of %q, window %v; want %q, %d", s.user+s.setModel, u["model"], u["maxTokens"], s.want, s.window)
		}
		p.user("hello")
		r := p.await("the result of hello", isType("result", ""), nil)
		if used := slices.Collect(maps.Keys(r["modelUsage"].(map[string]any))); strings.Join(used, ",") != s.want {
			t.Errorf("after %s: the turn asked %q, want %q", s.user+s.setModel, used, s.want)
		}
	}
}

// TestSDKInitializeComesFirst sends initialize after a user message, and a second time: both are
// refused, as the session's setup is fixed once its first turn has started.
func TestSDKInitializeComesFirst(t *testing.T) {
	p := startSDKHere(t)
	p.user("hello")
	p.control("late", map[string]any{"subtype": "initialize", "appendSystemPrompt": "Always be brief."})
	if a := p.answerTo("late"); a["subtype"] != "error" || !strings.Contains(fmt.Sprint(a["error"]), "first") {
		t.Errorf("initialize after a user message: %v; want an error that says initialize comes first", a)
	}
	p = startSDKHere(t)
	for _, id := range []string{"init1", "init2"} {
		p.control(id, map[string]any{"subtype": "initialize"})
	}
	if a := p.answerTo("init1"); a["subtype"] != "success" {
		t.Errorf("first initialize: %v", a)
	}
	if a := p.answerTo("init2"); a["subtype"] != "error" {
		t.Errorf("second initialize: %v; want an error", a)
	}
}

// TestSDKControlBeforeInitialize sends control requests before initialize: each gets an error
// that says initialize comes first, and changes nothing. A user message without initialize
// still runs its turn with the session as the command line set it up, as scripts that pipe
// user messages expect, and control requests are answered after it.
func TestSDKControlBeforeInitialize(t *testing.T) {
	p := startSDKHere(t)
	early := []map[string]any{
		{"subtype": "interrupt"}, {"subtype": "set_permission_mode", "mode": "acceptEdits"},
		{"subtype": "set_model", "model": "opus"}, {"subtype": "mcp_status"}, {"subtype": "get_context_usage"},
		{"subtype": "mcp_message", "server_name": "s", "message": map[string]any{"jsonrpc": "2.0", "method": "x"}},
		{"subtype": "rewind_files", "user_message_id": "u1"},
	}
	for i, req := range early {
		id := fmt.Sprint("early", i)
		p.control(id, req)
		if a := p.answerTo(id); a["subtype"] != "error" || !strings.Contains(fmt.Sprint(a["error"]), "initialize") {
			t.Errorf("%v before initialize: %v; want an error that says initialize comes first", req["subtype"], a)
		}
	}
	p.user("hello")
	if r := p.await("the result of hello", isType("result", ""), nil); r["is_error"] != false {
		t.Errorf("a user message without initialize: %v", r)
	}
	p.control("usage", map[string]any{"subtype": "get_context_usage"})
	a := p.answerTo("usage")
	if u, _ := a["response"].(map[string]any); a["subtype"] != "success" || u["model"] != "mock" {
		t.Errorf("get_context_usage after the first turn: %v; want a success naming the command line's model", a)
	}
}
