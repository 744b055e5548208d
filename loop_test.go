package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedProvider replies with a fixed list of responses and records
// every request, so tests can check what the loop sent.
type scriptedProvider struct {
	mu       sync.Mutex
	replies  []ModelResponse
	errs     map[int]error
	requests []ModelRequest
}

// Name reports "scripted".
func (p *scriptedProvider) Name() string { return "scripted" }

// Stream records the request and returns the next scripted reply.
func (p *scriptedProvider) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.requests)
	req.Messages = append([]Message(nil), req.Messages...)
	p.requests = append(p.requests, req)
	if err := p.errs[n]; err != nil {
		return ModelResponse{}, err
	}
	if n >= len(p.replies) {
		return ModelResponse{}, fmt.Errorf("script exhausted after %d replies", n)
	}
	r := p.replies[n]
	for _, b := range r.Content {
		if b.Type == BlockText {
			onDelta(Delta{Kind: BlockText, Text: b.Text})
		}
	}
	return r, nil
}

// lastUserText is the text of the newest user message of request i.
func (p *scriptedProvider) lastUserText(i int) string {
	msgs := p.requests[i].Messages
	return msgs[len(msgs)-1].Text()
}

// text is a final reply holding s.
func text(s string) ModelResponse {
	return ModelResponse{Content: []Block{{Type: BlockText, Text: s}}, StopReason: StopEndTurn}
}

// calls is a reply with optional text before tool calls.
func calls(prefix string, cs ...Block) ModelResponse {
	var content []Block
	if prefix != "" {
		content = append(content, Block{Type: BlockText, Text: prefix})
	}
	return ModelResponse{Content: append(content, cs...), StopReason: StopToolUse}
}

// call is one tool_use block.
func call(id, name, input string) Block {
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

// echoInput is the input of the test tools.
type echoInput struct {
	Text  string `json:"text" validate:"required" desc:"what to echo"`
	Count *int   `json:"count,omitempty" validate:"omitempty,min=1,max=5"`
}

// loopTestTools returns tools for loop tests: echo (read-only), write (not
// read-only, records order), boom (panics), ask (ask_user), slow (waits
// for cancellation).
func loopTestTools(order *[]string, mu *sync.Mutex) *Registry {
	record := func(s string) {
		mu.Lock()
		*order = append(*order, s)
		mu.Unlock()
	}
	return newRegistry(
		ToolDef[echoInput]{Name: "echo", Description: "echo text", ReadOnly: true,
			Run: func(_ context.Context, _ *ToolEnv, in echoInput) (ToolOutput, error) {
				record("echo:" + in.Text)
				return ToolOutput{Text: strings.Repeat(in.Text, max(1, intOr0(in.Count)))}, nil
			}}.Tool(),
		ToolDef[echoInput]{Name: "write", Description: "pretend to write",
			Run: func(_ context.Context, _ *ToolEnv, in echoInput) (ToolOutput, error) {
				record("write:" + in.Text)
				return ToolOutput{Text: "wrote " + in.Text}, nil
			}}.Tool(),
		ToolDef[struct{}]{Name: "boom", Description: "panics",
			Run: func(context.Context, *ToolEnv, struct{}) (ToolOutput, error) { panic("kaboom") }}.Tool(),
		ToolDef[struct{}]{Name: "fail", Description: "fails",
			Run: func(context.Context, *ToolEnv, struct{}) (ToolOutput, error) {
				return ToolOutput{}, errors.New("disk on fire")
			}}.Tool(),
		ToolDef[echoInput]{Name: "ask", Description: "asks the user",
			Run: func(_ context.Context, _ *ToolEnv, in echoInput) (ToolOutput, error) {
				record("ask")
				return ToolOutput{Text: "asked", Question: in.Text}, nil
			}}.Tool(),
		ToolDef[struct{}]{Name: "slow", Description: "waits", Timeout: 50 * time.Millisecond,
			Run: func(ctx context.Context, _ *ToolEnv, _ struct{}) (ToolOutput, error) {
				<-ctx.Done()
				return ToolOutput{}, ctx.Err()
			}}.Tool(),
	)
}

// intOr0 is *p, or 0 for nil.
func intOr0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// newTestAgent returns an agent scripted with replies, its provider and
// the order in which tools ran.
func newTestAgent(t *testing.T, replies ...ModelResponse) (*Agent, *scriptedProvider, *[]string) {
	t.Helper()
	var order []string
	var mu sync.Mutex
	p := &scriptedProvider{replies: replies}
	a := &Agent{Provider: p, Tools: loopTestTools(&order, &mu), Env: &ToolEnv{Workspace: t.TempDir(), ResultsDir: t.TempDir()}, MaxSteps: 10}
	return a, p, &order
}

// resultsOf returns the tool results in the message at index i.
func resultsOf(t *testing.T, msgs []Message, i int) []Block {
	t.Helper()
	if i >= len(msgs) {
		t.Fatalf("history has %d messages, want more than %d", len(msgs), i)
	}
	return msgs[i].ToolResults()
}

func TestLoopReplyKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		replies   []ModelResponse
		wantEnd   TurnEnd
		wantText  string
		wantSteps int
		check     func(t *testing.T, res TurnResult, p *scriptedProvider)
	}{
		{
			name: "final text ends the turn", replies: []ModelResponse{text("<final>done</final>")},
			wantEnd: EndFinal, wantText: "done", wantSteps: 1,
		},
		{
			name: "tool calls run and results come back as one batch",
			replies: []ModelResponse{
				calls("Reading both.", call("a", "echo", `{"text":"x"}`), call("b", "echo", `{"text":"y"}`)),
				text("all read"),
			},
			wantEnd: EndFinal, wantText: "all read", wantSteps: 2,
			check: func(t *testing.T, res TurnResult, p *scriptedProvider) {
				// user, assistant(text+2 calls), user(2 results), assistant
				if got := len(res.Messages); got != 4 {
					t.Fatalf("history has %d messages, want 4", got)
				}
				if got := res.Messages[1].Content[0].Text; got != "Reading both." {
					t.Errorf("text before the calls = %q, want %q", got, "Reading both.")
				}
				rs := resultsOf(t, res.Messages, 2)
				if len(rs) != 2 || rs[0].ToolUseID != "a" || rs[1].ToolUseID != "b" || rs[0].Content != "x" {
					t.Errorf("results = %+v, want a:x and b:y in order", rs)
				}
			},
		},
		{
			name: "progress text is nudged and the loop goes on",
			replies: []ModelResponse{
				text("<progress>Looking around.</progress>"),
				calls("", call("a", "echo", `{"text":"x"}`)),
				text("finished"),
			},
			wantEnd: EndFinal, wantText: "finished", wantSteps: 3,
			check: func(t *testing.T, _ TurnResult, p *scriptedProvider) {
				if got := p.lastUserText(1); got != progressNudge {
					t.Errorf("after progress the loop sent %q, want the nudge", got)
				}
			},
		},
		{
			name: "consecutive progress-only replies are capped",
			replies: []ModelResponse{
				text("[PROGRESS] one"), text("[PROGRESS] two"), text("[PROGRESS] three"), text("[PROGRESS] four"), text("never"),
			},
			wantEnd: EndProgressCap, wantText: "Stopped: the model sent 4 progress updates in a row without acting or answering.", wantSteps: 4,
		},
		{
			name:    "an empty reply is retried with a recovery prompt",
			replies: []ModelResponse{{StopReason: StopEndTurn}, text("answer")},
			wantEnd: EndFinal, wantText: "answer", wantSteps: 2,
			check: func(t *testing.T, _ TurnResult, p *scriptedProvider) {
				if got := p.lastUserText(1); got != emptyText {
					t.Errorf("recovery prompt = %q, want %q", got, emptyText)
				}
			},
		},
		{
			name: "an empty reply after tools gets the after-tools prompt",
			replies: []ModelResponse{
				calls("", call("a", "echo", `{"text":"x"}`)), {StopReason: StopEndTurn}, text("answer"),
			},
			wantEnd: EndFinal, wantText: "answer", wantSteps: 3,
			check: func(t *testing.T, _ TurnResult, p *scriptedProvider) {
				msgs := p.requests[2].Messages
				last := msgs[len(msgs)-1]
				if got := last.Text(); got != emptyAfterToolsText {
					t.Errorf("recovery prompt = %q, want %q", got, emptyAfterToolsText)
				}
			},
		},
		{
			name:      "empty replies exhausted end with a message naming the reason",
			replies:   []ModelResponse{{}, {}, {}, text("never")},
			wantEnd:   EndEmpty,
			wantText:  "Stopped: the model gave 3 empty replies in a row, so the turn ended without an answer. Try again or rephrase the request.",
			wantSteps: 3,
		},
		{
			name: "the empty-reply limit counts replies in a row, not in the whole turn",
			replies: []ModelResponse{
				{}, calls("", call("a", "echo", `{"text":"x"}`)), {}, {}, calls("", call("b", "echo", `{"text":"y"}`)), {}, text("done"),
			},
			wantEnd: EndFinal, wantText: "done", wantSteps: 7,
		},
		{
			name: "text cut off by max_tokens is continued",
			replies: []ModelResponse{
				{Content: []Block{{Type: BlockText, Text: "The first half "}}, StopReason: StopMaxTokens},
				text("and the second half."),
			},
			wantEnd: EndFinal, wantText: "The first half and the second half.", wantSteps: 2,
			check: func(t *testing.T, _ TurnResult, p *scriptedProvider) {
				if got := p.lastUserText(1); got != continuePrompt {
					t.Errorf("after the cut the loop sent %q, want the continue prompt", got)
				}
			},
		},
		{
			name: "a tool call cut off by max_tokens is never run",
			replies: []ModelResponse{
				{Content: []Block{call("a", "write", `{"text":"half`)}, StopReason: StopMaxTokens},
				text("ok, smaller"),
			},
			wantEnd: EndFinal, wantText: "ok, smaller", wantSteps: 2,
			check: func(t *testing.T, res TurnResult, p *scriptedProvider) {
				if got := p.lastUserText(1); got != halfToolCallPrompt {
					t.Errorf("after the cut call the loop sent %q, want the half-call note", got)
				}
				for _, m := range res.Messages {
					if len(m.ToolUses()) > 0 {
						t.Errorf("the half call was kept in the history: %+v", m)
					}
				}
			},
		},
		{
			name: "a thinking-only pause is resumed",
			replies: []ModelResponse{
				{Content: []Block{{Type: BlockThinking, Thinking: "hmm", Signature: "sig"}}, StopReason: StopPauseTurn},
				text("resumed answer"),
			},
			wantEnd: EndFinal, wantText: "resumed answer", wantSteps: 2,
			check: func(t *testing.T, _ TurnResult, p *scriptedProvider) {
				msgs := p.requests[1].Messages
				last := msgs[len(msgs)-1]
				if last.Role != RoleAssistant || last.Content[0].Signature != "sig" {
					t.Errorf("the resumed request ends with %+v, want the thinking block replayed", last)
				}
			},
		},
		{
			name:    "max steps stop the turn with a visible message",
			replies: []ModelResponse{calls("", call("1", "echo", `{"text":"x"}`)), calls("", call("2", "echo", `{"text":"x"}`)), calls("", call("3", "echo", `{"text":"x"}`))},
			wantEnd: EndMaxSteps, wantText: "Stopped after 2 model steps (the --max-turns limit) before the task was finished.", wantSteps: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, p, _ := newTestAgent(t, tc.replies...)
			if tc.wantEnd == EndMaxSteps {
				a.MaxSteps = 2
			}
			res := a.RunTurn(context.Background(), nil, TurnInput{Text: "do it"})
			if res.End != tc.wantEnd || res.Text != tc.wantText || res.Steps != tc.wantSteps {
				t.Fatalf("RunTurn = (%s, %q, %d steps), want (%s, %q, %d steps)", res.End, res.Text, res.Steps, tc.wantEnd, tc.wantText, tc.wantSteps)
			}
			if tc.check != nil {
				tc.check(t, res, p)
			}
		})
	}
}

func TestLoopToolFailuresBecomeResults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool, input, want string
	}{
		{"panic", "boom", `{}`, "tool boom crashed: kaboom"},
		{"error", "fail", `{}`, "disk on fire"},
		{"unknown tool", "nope", `{}`, `unknown tool "nope"; available tools: ask, boom, echo, fail, slow, write`},
		{"missing field", "echo", `{}`, `invalid input: field "text" is required`},
		{"rule broken", "echo", `{"text":"x","count":9}`, `invalid input: field "count" must be at most 5`},
		{"wrong type", "echo", `{"text":3}`, `invalid input: field "text" must be a string, got number`},
		{"malformed JSON", "echo", `{"text":`, "invalid input: not valid JSON (unexpected end of JSON input)"},
		{"timeout", "slow", `{}`, "tool slow timed out after 50ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, _, _ := newTestAgent(t, calls("", call("x", tc.tool, tc.input), call("y", "echo", `{"text":"after"}`)), text("recovered"))
			res := a.RunTurn(context.Background(), nil, TurnInput{Text: "go"})
			if res.End != EndFinal || res.Text != "recovered" {
				t.Fatalf("turn ended %s with %q, want the loop to carry on to the answer", res.End, res.Text)
			}
			rs := resultsOf(t, res.Messages, 2)
			if !rs[0].IsError || rs[0].Content != tc.want {
				t.Errorf("result = (error %v) %q, want (error true) %q", rs[0].IsError, rs[0].Content, tc.want)
			}
			if rs[1].IsError || rs[1].Content != "after" {
				t.Errorf("the next call in the batch gave %q, want it run normally", rs[1].Content)
			}
		})
	}
}

func TestLoopAskUserPausesAfterTheBatch(t *testing.T) {
	t.Parallel()
	a, p, order := newTestAgent(t, calls("",
		call("1", "write", `{"text":"before"}`),
		call("2", "ask", `{"text":"Which colour?"}`),
		call("3", "write", `{"text":"after"}`),
	))
	res := a.RunTurn(context.Background(), nil, TurnInput{Text: "paint it"})
	if res.End != EndAskUser || res.Text != "Which colour?" {
		t.Fatalf("RunTurn = (%s, %q), want (ask_user, %q)", res.End, res.Text, "Which colour?")
	}
	if got, want := strings.Join(*order, ","), "write:before,ask,write:after"; got != want {
		t.Errorf("tools ran %q, want the whole batch %q", got, want)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != RoleAssistant || last.Text() != "Which colour?" {
		t.Errorf("last message = %+v, want the question as an assistant message", last)
	}
	if len(p.requests) != 1 {
		t.Errorf("model was called %d times, want 1 (the turn waits for the user)", len(p.requests))
	}
	// The user's answer continues the same conversation.
	p.replies = append(p.replies, text("blue it is"))
	res = a.RunTurn(context.Background(), res.Messages, TurnInput{Text: "blue"})
	if res.End != EndFinal || p.lastUserText(1) != "blue" {
		t.Errorf("answering the question: end %s, last user text %q", res.End, p.lastUserText(1))
	}
}

func TestLoopReadOnlyCallsRunInParallelWritesInOrder(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int32
	release := make(chan struct{})
	var order []string
	var mu sync.Mutex
	reg := loopTestTools(&order, &mu)
	reg.Add(ToolDef[echoInput]{Name: "echo", Description: "blocks until released", ReadOnly: true,
		Run: func(ctx context.Context, _ *ToolEnv, in echoInput) (ToolOutput, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == 3 {
				close(release)
			}
			select {
			case <-release:
			case <-time.After(5 * time.Second):
			}
			running.Add(-1)
			return ToolOutput{Text: in.Text}, nil
		}}.Tool())
	p := &scriptedProvider{replies: []ModelResponse{
		calls("", call("1", "echo", `{"text":"a"}`), call("2", "echo", `{"text":"b"}`), call("3", "echo", `{"text":"c"}`),
			call("4", "write", `{"text":"w1"}`), call("5", "write", `{"text":"w2"}`)),
		text("done"),
	}}
	a := &Agent{Provider: p, Tools: reg, Env: &ToolEnv{ResultsDir: t.TempDir()}}
	res := a.RunTurn(context.Background(), nil, TurnInput{Text: "go"})
	if peak.Load() != 3 {
		t.Errorf("at most %d read-only calls ran at once, want 3", peak.Load())
	}
	if got := strings.Join(order, ","); got != "write:w1,write:w2" {
		t.Errorf("writes ran as %q, want in order", got)
	}
	rs := resultsOf(t, res.Messages, 2)
	for i, want := range []string{"a", "b", "c", "wrote w1", "wrote w2"} {
		if rs[i].Content != want {
			t.Errorf("result %d = %q, want %q (results keep the call order)", i, rs[i].Content, want)
		}
	}
}

func TestLoopCancelGivesEveryCallAResult(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var order []string
	var mu sync.Mutex
	reg := loopTestTools(&order, &mu)
	reg.Add(ToolDef[struct{}]{Name: "slow", Description: "cancels the turn while running",
		Run: func(c context.Context, _ *ToolEnv, _ struct{}) (ToolOutput, error) {
			cancel()
			<-c.Done()
			return ToolOutput{}, c.Err()
		}}.Tool())
	p := &scriptedProvider{replies: []ModelResponse{calls("", call("1", "slow", `{}`), call("2", "write", `{"text":"never"}`))}}
	a := &Agent{Provider: p, Tools: reg, Env: &ToolEnv{ResultsDir: t.TempDir()}}
	res := a.RunTurn(ctx, nil, TurnInput{Text: "go"})
	if res.End != EndCancelled {
		t.Fatalf("end = %s, want cancelled", res.End)
	}
	rs := resultsOf(t, res.Messages, 2)
	if len(rs) != 2 || !rs[0].IsError || !rs[1].IsError || !strings.Contains(rs[1].Content, "cancelled") {
		t.Errorf("results = %+v, want both calls answered as cancelled", rs)
	}
	if len(order) != 0 {
		t.Errorf("tools ran after the cancel: %v", order)
	}
}

func TestLoopModelErrorEndsTheTurn(t *testing.T) {
	t.Parallel()
	a, p, _ := newTestAgent(t)
	p.errs = map[int]error{0: errors.New("overloaded")}
	res := a.RunTurn(context.Background(), nil, TurnInput{Text: "go"})
	if res.End != EndError || res.Text != "The model call failed: overloaded" {
		t.Errorf("RunTurn = (%s, %q), want an error ending naming the failure", res.End, res.Text)
	}
}

func TestLoopStoresLargeResults(t *testing.T) {
	t.Parallel()
	a, _, _ := newTestAgent(t, calls("",
		call("big", "echo", fmt.Sprintf(`{"text":%q,"count":1}`, strings.Repeat("x", 60_000))),
		call("small", "echo", `{"text":"tiny"}`)), text("ok"))
	res := a.RunTurn(context.Background(), nil, TurnInput{Text: "go"})
	rs := resultsOf(t, res.Messages, 2)
	path := a.Env.ResultsDir + "/big.txt"
	if !strings.Contains(rs[0].Content, path) || len(rs[0].Content) > resultPreviewChars+300 {
		t.Errorf("large result kept %d characters without naming %s", len(rs[0].Content), path)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) != 60_000 {
		t.Errorf("stored result: %d bytes, err %v; want the full 60000", len(data), err)
	}
	if rs[1].Content != "tiny" {
		t.Errorf("small result = %q, want it untouched", rs[1].Content)
	}
}

func TestStoreLargeResultsCapsTheBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var results []Block
	for i, n := range []int{45_000, 49_000, 48_000, 47_000, 46_000, 1_000} {
		results = append(results, Block{Type: BlockToolResult, ToolUseID: fmt.Sprint("r", i), Content: strings.Repeat("y", n)})
	}
	storeLargeResults(dir, results)
	total := 0
	for _, r := range results {
		total += len(r.Content)
	}
	if total > maxBatchResultChars {
		t.Errorf("batch holds %d characters, want at most %d", total, maxBatchResultChars)
	}
	if !strings.Contains(results[1].Content, "r1.txt") {
		t.Errorf("the largest result (r1) was not the one stored")
	}
	if len(results[0].Content) != 45_000 || len(results[5].Content) != 1_000 {
		t.Errorf("smaller results were stored though the batch already fit")
	}
}

func TestCloseToolCalls(t *testing.T) {
	t.Parallel()
	msgs := []Message{
		userText("go"),
		{Role: RoleAssistant, Content: []Block{call("a", "echo", `{}`), call("b", "echo", `{}`)}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "a", Content: "fine"}}},
		{Role: RoleAssistant, Content: []Block{call("c", "echo", `{}`)}},
	}
	got := closeToolCalls(msgs)
	if len(got) != 5 {
		t.Fatalf("got %d messages, want 5", len(got))
	}
	rs := got[2].ToolResults()
	if len(rs) != 2 || rs[0].ToolUseID != "b" || rs[1].ToolUseID != "a" {
		t.Errorf("results after the first calls = %+v, want b synthesised first, then a", rs)
	}
	if rs := got[4].ToolResults(); len(rs) != 1 || rs[0].ToolUseID != "c" || !strings.HasPrefix(rs[0].Content, "interrupted") {
		t.Errorf("trailing call result = %+v, want an interrupted result for c", rs)
	}
	if len(msgs[2].ToolResults()) != 1 {
		t.Errorf("closeToolCalls changed its input")
	}
}
