package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// tcall is a tool call for built histories.
type tcall struct {
	name, input, result string
	failed              bool
}

// history builds a conversation: a user request, then for each round an
// assistant message with its calls and a user message with their results.
func history(request string, rounds ...[]tcall) []Message {
	msgs := []Message{userText(request)}
	for r, calls := range rounds {
		var uses, results []Block
		for i, c := range calls {
			id := fmt.Sprintf("toolu_%d_%d", r, i)
			uses = append(uses, Block{Type: BlockToolUse, ID: id, Name: c.name, Input: json.RawMessage(c.input)})
			results = append(results, Block{Type: BlockToolResult, ToolUseID: id, Content: c.result, IsError: c.failed})
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Content: uses}, Message{Role: RoleUser, Content: results})
	}
	return msgs
}

// read is a read_file round with a result of n characters.
func read(path string, n int) []tcall {
	return []tcall{{name: "read_file", input: fmt.Sprintf(`{"path":%q}`, path), result: strings.Repeat("x", n)}}
}

// describe renders a history one line per message, for golden tables.
func describe(msgs []Message) []string {
	var lines []string
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Content {
			switch b.Type {
			case BlockText:
				parts = append(parts, "text "+cutBytes(b.Text, 40, "..."))
			case BlockToolUse:
				parts = append(parts, "call "+b.Name+" "+string(b.Input))
			case BlockToolResult:
				if strings.HasPrefix(b.Content, microPlaceholderPrefix) {
					parts = append(parts, "result cleared")
				} else {
					parts = append(parts, fmt.Sprintf("result %d", len(b.Content)))
				}
			}
		}
		lines = append(lines, string(m.Role)+": "+strings.Join(parts, ", "))
	}
	return lines
}

// checkHistory fails the test when msgs is a conversation an API would
// reject: a role other than user and assistant, a first message that is
// not the user's, an empty message or text block, or a tool call and its
// result not side by side, exactly once each. Both providers must encode
// it as valid JSON.
func checkHistory(t *testing.T, msgs []Message) {
	t.Helper()
	if len(msgs) == 0 || msgs[0].Role != RoleUser {
		t.Fatalf("history must start with a user message: %q", describe(msgs))
	}
	for i, m := range msgs {
		if m.Role != RoleUser && m.Role != RoleAssistant || len(m.Content) == 0 {
			t.Fatalf("message %d: role %q with %d blocks", i, m.Role, len(m.Content))
		}
		var calls []string
		for _, b := range m.Content {
			if b.Type == BlockText && strings.TrimSpace(b.Text) == "" {
				t.Fatalf("message %d has an empty text block", i)
			}
			if b.Type == BlockToolUse {
				calls = append(calls, b.ID)
			}
			if b.Type == BlockToolResult {
				if _, ok := callOf(msgs[max(0, i-1)], b); i == 0 || !ok {
					t.Fatalf("message %d: result %s without its call just before: %q", i, b.ToolUseID, describe(msgs))
				}
			}
		}
		for _, id := range calls {
			n := 0
			if i+1 < len(msgs) {
				for _, b := range msgs[i+1].Content {
					if b.Type == BlockToolResult && b.ToolUseID == id {
						n++
					}
				}
			}
			if n != 1 && i+1 < len(msgs) {
				t.Fatalf("message %d: call %s has %d results in the next message: %q", i, id, n, describe(msgs))
			}
		}
	}
	req := ModelRequest{Model: "m", Messages: msgs, Tools: testTools}
	a, errA := bodyBytes((&Anthropic{}).encode(req))
	o, errO := bodyBytes((&openAI{}).encodeRequest(req))
	if errA != nil || errO != nil || !json.Valid(a) || !json.Valid(o) {
		t.Fatalf("encoding the history: anthropic %v (valid %v), openai %v (valid %v)", errA, json.Valid(a), errO, json.Valid(o))
	}
}

// TestMicroCompact checks which results micro compact clears: all but the
// newest three of each re-runnable tool, never failures, never others.
func TestMicroCompact(t *testing.T) {
	t.Parallel()
	rounds := [][]tcall{read("a", 900), read("b", 900), {{name: "edit_file", input: `{"path":"a"}`, result: strings.Repeat("e", 900)}},
		read("c", 900), {{name: "read_file", input: `{"path":"gone"}`, result: strings.Repeat("n", 900), failed: true}},
		read("d", 900), read("e", 900), {{name: "grep_files", input: `{"pattern":"x"}`, result: strings.Repeat("g", 900)}}}
	before := history("do it", rounds...)
	splices := microCompact(before, 3, func(name string) bool { return rerunnableTools[name] })
	after := applySplices(before, splices)
	checkHistory(t, after)
	want := []string{
		"user: text do it",
		`assistant: call read_file {"path":"a"}`, "user: result cleared",
		`assistant: call read_file {"path":"b"}`, "user: result cleared",
		`assistant: call edit_file {"path":"a"}`, "user: result 900",
		`assistant: call read_file {"path":"c"}`, "user: result 900",
		`assistant: call read_file {"path":"gone"}`, "user: result 900",
		`assistant: call read_file {"path":"d"}`, "user: result 900",
		`assistant: call read_file {"path":"e"}`, "user: result 900",
		`assistant: call grep_files {"pattern":"x"}`, "user: result 900",
	}
	if got := describe(after); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after micro compact:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(after[2].Content[0].Content, `read_file {"path":"a"}`) {
		t.Errorf("placeholder %q does not name the call", after[2].Content[0].Content)
	}
	if again := microCompact(after, 3, func(string) bool { return true }); len(again) != 0 {
		t.Errorf("a second micro compact changed %d messages; want none", len(again))
	}
	if before[2].Content[0].Content != strings.Repeat("x", 900) {
		t.Errorf("micro compact changed the history it was given")
	}
}

// TestSnipCompact checks that snip drops the largest safe middle run and
// keeps the newest messages, the newest request, edits and errors.
func TestSnipCompact(t *testing.T) {
	t.Parallel()
	var rounds [][]tcall
	for i := 0; i < 4; i++ {
		rounds = append(rounds, read(fmt.Sprint("old", i), 3000))
	}
	rounds = append(rounds, []tcall{{name: "edit_file", input: `{"path":"kept"}`, result: "ok"}})
	for i := 0; i < 2; i++ {
		rounds = append(rounds, read(fmt.Sprint("mid", i), 100))
	}
	for i := 0; i < 6; i++ {
		rounds = append(rounds, read(fmt.Sprint("new", i), 3000))
	}
	before := history("start", rounds...)
	after := applySplices(before, snipCompact(before))
	checkHistory(t, after)
	got := describe(after)
	want := []string{"user: text start", "user: text [minicode context: 8 earlier messages (a...",
		`assistant: call edit_file {"path":"kept"}`, "user: result 2"}
	if strings.Join(got[:4], "\n") != strings.Join(want, "\n") {
		t.Errorf("after snip, first messages:\n got %q\nwant %q", got[:4], want)
	}
	if len(after) != len(before)-8+1 {
		t.Errorf("snip left %d messages of %d; want the 8 old ones replaced by a marker", len(after), len(before))
	}
	if marker := after[1].Text(); !strings.Contains(marker, `read_file {"path":"old3"}`) {
		t.Errorf("marker %q does not list the calls that went", marker)
	}
	if tailEqual(before, after, keepNewestMessages) != nil {
		t.Errorf("snip changed the newest %d messages", keepNewestMessages)
	}
	if short := history("start", read("a", 5000), read("b", 5000)); snipCompact(short) != nil {
		t.Errorf("snip cut a history shorter than the protected tail")
	}
}

// tailEqual returns an error when the newest n messages of a and b differ.
func tailEqual(a, b []Message, n int) error {
	if len(a) < n || len(b) < n {
		return fmt.Errorf("too short")
	}
	x, _ := json.Marshal(a[len(a)-n:])
	y, _ := json.Marshal(b[len(b)-n:])
	if !bytes.Equal(x, y) {
		return fmt.Errorf("differ")
	}
	return nil
}

// TestCompactTail checks which rounds auto compact keeps: whole rounds
// within the budget, and always the newest round.
func TestCompactTail(t *testing.T) {
	t.Parallel()
	msgs := history("go", read("a", 3000), read("b", 3000), read("c", 3000), read("d", 3000))
	tests := []struct {
		budget int
		want   int
	}{
		{0, 7},       // the newest round only
		{2_000, 7},   // one round is over the budget already
		{2_200, 5},   // two rounds fit
		{100_000, 0}, // everything fits
	}
	for _, tt := range tests {
		if got := compactTail(msgs, tt.budget); got != tt.want {
			t.Errorf("compactTail(budget %d) = %d, want %d", tt.budget, got, tt.want)
		}
	}
}

// summarizer is a Provider that answers summary requests with fixed
// replies, one per request; other requests get "done".
type summarizer struct {
	replies []ModelResponse
	errs    []error
	asked   []ModelRequest
}

// Name is "summarizer".
func (s *summarizer) Name() string { return "summarizer" }

// Stream gives the next reply.
func (s *summarizer) Stream(_ context.Context, req ModelRequest, _ func(Delta)) (ModelResponse, error) {
	s.asked = append(s.asked, req)
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		if err != nil {
			return ModelResponse{}, err
		}
	}
	if req.System != summarySystemPrompt {
		return ModelResponse{Content: []Block{{Type: BlockText, Text: "done"}}, StopReason: StopEndTurn}, nil
	}
	if len(s.replies) == 0 {
		return demoProviderReply(req), nil
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, nil
}

// demoProviderReply is the demo model's answer to a summary request.
func demoProviderReply(req ModelRequest) ModelResponse {
	resp, _ := (&MockProvider{}).Stream(context.Background(), req, nil)
	return resp
}

// textReply is a reply of one text block.
func textReply(text, stop string) ModelResponse {
	return ModelResponse{Content: []Block{{Type: BlockText, Text: text}}, StopReason: stop}
}

// TestCompactSummaryFailures checks that an empty, malformed, cut-off or
// over-long summary, or a failed call, leaves the history as it was.
func TestCompactSummaryFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply ModelResponse
		err   error
		want  string
	}{
		{"empty", textReply("", StopEndTurn), nil, "empty"},
		{"no summary tags", textReply("Here is what happened.", StopEndTurn), nil, "no <summary>"},
		{"empty summary", textReply("<summary> </summary>", StopEndTurn), nil, "no <summary>"},
		{"unclosed", textReply("<summary>half", StopEndTurn), nil, "no <summary>"},
		{"cut off", textReply("<summary>long</summary>", StopMaxTokens), nil, "longer than"},
		{"over-long", textReply("<summary>"+strings.Repeat("word ", 20_000)+"</summary>", StopEndTurn), nil, "longer than"},
		{"call fails", ModelResponse{}, &APIError{Provider: "anthropic", Status: 500, Message: "boom"}, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &summarizer{replies: []ModelResponse{tt.reply}, errs: []error{tt.err}}
			a := &Agent{Provider: p, Model: "claude-sonnet-4-5"}
			before := history("go", read("a", 9000), read("b", 9000), read("c", 9000), read("d", 9000))
			got, c, err := a.Compact(context.Background(), before, LayerCompact, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compact error = %v, want one containing %q", err, tt.want)
			}
			if len(c.Splices) != 0 || len(got) != len(before) || tailEqual(got, before, len(before)) != nil {
				t.Errorf("a failed compaction changed the history: %q", describe(got))
			}
		})
	}
}

// TestAutoCompactGivesUpAfterThreeFailures checks that a request that
// does not fit is never sent: each turn tries auto compact, and after
// three failed summaries it stops trying and says so.
func TestAutoCompactGivesUpAfterThreeFailures(t *testing.T) {
	t.Parallel()
	bad := textReply("no tags", StopEndTurn)
	p := &summarizer{replies: []ModelResponse{bad, bad, bad}}
	var notices []string
	a := &Agent{Provider: p, Model: "m", Limits: ModelLimits{ContextWindow: 30_000, MaxOutput: 4_000},
		Emit: func(e Event) {
			if e.Kind == EventNotice {
				notices = append(notices, e.Text)
			}
		}}
	var rounds [][]tcall // edits: no layer but auto compact may touch them
	for i := 0; i < 8; i++ {
		rounds = append(rounds, []tcall{{name: "edit_file", input: fmt.Sprintf(`{"path":"%d"}`, i), result: strings.Repeat("d", 12_000)}})
	}
	h := history("go", rounds...)
	for turn := 1; turn <= 4; turn++ {
		res := a.RunTurn(context.Background(), h, TurnInput{Text: "next"})
		if res.End != EndError || !strings.Contains(res.Text, "no longer fits") {
			t.Errorf("turn %d ended %s with %q; want an error saying the conversation no longer fits", turn, res.End, res.Text)
		}
		if want := min(turn, 3); len(p.asked) != want {
			t.Errorf("after turn %d: %d summary requests, want %d", turn, len(p.asked), want)
		}
	}
	for _, req := range p.asked {
		if req.System != summarySystemPrompt {
			t.Errorf("a request that does not fit was sent to the model")
		}
	}
	if !strings.Contains(strings.Join(notices, "\n"), "Auto compact failed 3 times in a row") {
		t.Errorf("notices = %q; want three failures, the third saying auto compact is off", notices)
	}
}

// TestContextTooLongCompactsAndRetries checks both providers' "too long"
// errors: auto compact runs and the step is tried once more.
func TestContextTooLongCompactsAndRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
	}{
		{"anthropic", &APIError{Provider: "anthropic", Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}},
		{"openai", &APIError{Provider: "openai", Status: 400, Type: "invalid_request_error, context_length_exceeded", Message: "This model's maximum context length is 128000 tokens."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &summarizer{errs: []error{tt.err}}
			var compactions []Compaction
			a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Emit: func(e Event) {
				if e.Kind == EventCompact {
					compactions = append(compactions, *e.Compaction)
				}
			}}
			h := history("go", read("a", 9000), read("b", 9000), read("c", 9000), read("d", 9000))
			res := a.RunTurn(context.Background(), h, TurnInput{Text: "next"})
			if res.End != EndFinal || res.Text != "done" {
				t.Fatalf("turn ended %s with %q; want the answer after a retry", res.End, res.Text)
			}
			if len(compactions) != 1 || compactions[0].Layer != LayerCompact || compactions[0].Trigger != "auto" {
				t.Fatalf("compactions = %+v; want one auto compact", compactions)
			}
			checkHistory(t, res.Messages)
			if !strings.Contains(res.Messages[0].Text(), "<summary>") || !strings.Contains(res.Messages[0].Text(), "next") {
				t.Errorf("first message %q; want the summary and the latest request", res.Messages[0].Text())
			}
		})
	}
	if isContextTooLong(&APIError{Type: "invalid_request_error", Message: "max_tokens: must be positive"}) {
		t.Errorf("an unrelated invalid_request_error counted as too long")
	}
}

// TestCollapse checks that collapse replaces up to two old spans with
// summaries the model wrote, keeping the newest messages.
func TestCollapse(t *testing.T) {
	t.Parallel()
	var rounds [][]tcall
	for i := 0; i < 6; i++ {
		rounds = append(rounds, read(fmt.Sprint("old", i), 3000))
	}
	rounds = append(rounds, []tcall{{name: "read_file", input: `{"path":"bad"}`, result: "no such file", failed: true}})
	for i := 0; i < 6; i++ {
		rounds = append(rounds, read(fmt.Sprint("mid", i), 3000))
	}
	for i := 0; i < 6; i++ {
		rounds = append(rounds, read(fmt.Sprint("new", i), 3000))
	}
	before := history("start", rounds...)
	p := &summarizer{}
	a := &Agent{Provider: p, Model: "claude-sonnet-4-5", SummaryModel: "claude-haiku-4-5"}
	after, c, err := a.Compact(context.Background(), before, LayerCollapse, "")
	if err != nil || len(c.Splices) != 2 || len(p.asked) != 2 {
		t.Fatalf("collapse: %v, %d splices, %d summary requests; want 2 and 2", err, len(c.Splices), len(p.asked))
	}
	if p.asked[0].Model != "claude-haiku-4-5" {
		t.Errorf("summary asked of %q, want the summary model", p.asked[0].Model)
	}
	checkHistory(t, after)
	if err := tailEqual(before, after, keepNewestMessages); err != nil {
		t.Errorf("collapse changed the newest messages")
	}
	got := describe(after)
	if !strings.HasPrefix(got[1], "user: text [minicode context: 12 earlier") || !strings.Contains(got[2], `"bad"`) {
		t.Errorf("after collapse: %q; want a summary of the old rounds, then the failed call kept", got[:4])
	}
	if !strings.Contains(after[1].Text(), "old5") {
		t.Errorf("collapsed summary %q does not come from the messages it replaced", after[1].Text())
	}
}

// TestLayersKeepHistoriesValid is the property test: random histories,
// compacted by random layers in random order, always stay conversations
// the API accepts, and keep the newest message.
func TestLayersKeepHistoriesValid(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(12))
	tools := []string{"read_file", "grep_files", "run_command", "edit_file", "ask_user", "web_fetch"}
	runs := 150
	if testing.Short() {
		runs = 20
	}
	for n := 0; n < runs; n++ {
		var rounds [][]tcall
		for r := rng.Intn(40); r > 0; r-- {
			var calls []tcall
			for c := 1 + rng.Intn(3); c > 0; c-- {
				calls = append(calls, tcall{name: tools[rng.Intn(len(tools))], input: fmt.Sprintf(`{"n":%d}`, rng.Intn(9)),
					result: strings.Repeat("r", rng.Intn(4000)), failed: rng.Intn(8) == 0})
			}
			rounds = append(rounds, calls)
		}
		msgs := history("task", rounds...)
		for i := rng.Intn(4); i > 0; i-- { // a user text in between, and replies
			at := 1 + 2*rng.Intn(len(msgs)/2+1)
			if at <= len(msgs) {
				msgs = append(msgs[:at:at], append([]Message{assistantText("so far so good"), userText("also this")}, msgs[at:]...)...)
			}
		}
		checkHistory(t, msgs)
		a := &Agent{Provider: &summarizer{}, Model: "m", Limits: ModelLimits{ContextWindow: 50_000, MaxOutput: 8_000}}
		for step := 0; step < 4; step++ {
			layer := []string{LayerMicro, LayerSnip, LayerCollapse, LayerCompact}[rng.Intn(4)]
			newest := msgs[len(msgs)-1]
			out, _, err := a.Compact(context.Background(), msgs, layer, "")
			if err != nil {
				t.Fatalf("history %d, %s: %v", n, layer, err)
			}
			checkHistory(t, out)
			if last := out[len(out)-1]; layer != LayerMicro && tailEqual([]Message{last}, []Message{newest}, 1) != nil {
				t.Fatalf("history %d, %s changed the newest message", n, layer)
			}
			msgs = out
		}
	}
}

// TestContextUsage checks the accounting: provider usage plus an estimate
// of what came after, marked stale after a compaction.
func TestContextUsage(t *testing.T) {
	t.Parallel()
	a := &Agent{Model: "claude-sonnet-4-5"}
	if u := a.ContextUsage(); u.Window != 200_000 || u.Reserve != 20_000 || u.Tokens != 0 {
		t.Fatalf("usage before any turn = %+v; want the model's window of 200,000 and 20,000 reserved", u)
	}
	msgs := history("go", read("a", 300))
	withWireCaches(msgs)
	resp := textReply("ok", StopEndTurn)
	resp.Usage = Usage{InputTokens: 1000, CacheReadInputTokens: 50_000, CacheCreationInputTokens: 9000, OutputTokens: 100}
	a.anchorUsage(ModelRequest{Messages: msgs}, resp)
	next := append(msgs, Message{Role: RoleAssistant, Content: resp.Content}, userText(strings.Repeat("y", 400)))
	u := a.estimate("", next)
	if want := 60_100 + messageTokenCount(next[len(next)-1]); u.Tokens != want {
		t.Errorf("tokens = %d, want the reported 60,100 plus %d estimated", u.Tokens, want-60_100)
	}
	if u.Percent < 33 || u.Percent > 34 || !strings.Contains(u.String(), "of 180,000 tokens") {
		t.Errorf("usage = %+v (%s); want about 33%% of 180,000", u, u)
	}
	a.context.anchor.last = nil
	if u := a.estimate("", next); u.Tokens > 1000 {
		t.Errorf("after the count went stale, tokens = %d; want an estimate of the small history", u.Tokens)
	}
}

// TestSubagentInheritsContextSettings checks that a subagent measures its
// context against the parent's window and compacts at its thresholds.
func TestSubagentInheritsContextSettings(t *testing.T) {
	t.Parallel()
	parent := &Agent{Model: "claude-sonnet-4-5", Tools: newRegistry(), SummaryModel: "small",
		Limits: ModelLimits{ContextWindow: 50_000, MaxOutput: 8_000}, Compaction: CompactThresholds{Micro: 20, Auto: 60}}
	child := (&Subagents{Parent: parent}).child(context.Background(), parent.Env, &AgentDef{Name: "helper"}, 1)
	if got := child.ContextUsage(); got.Window != 50_000 || got.Reserve != 8_000 {
		t.Errorf("subagent window %d, reserve %d; want the parent's 50000 and 8000", got.Window, got.Reserve)
	}
	if child.Compaction != parent.Compaction || child.SummaryModel != "small" {
		t.Errorf("subagent thresholds %+v, summary model %q; want the parent's %+v and %q", child.Compaction, child.SummaryModel, parent.Compaction, "small")
	}
}

// TestTurnOfAnotherModelFitsItsWindow checks a turn that answers with another model than the
// agent's (a command's or skill's model): the context is measured against that model's window,
// so a history filling a fifth of the agent's window but most of the turn's is compacted before
// the request, and the request asks for no more output than that model gives.
func TestTurnOfAnotherModelFitsItsWindow(t *testing.T) {
	t.Parallel()
	p := &scriptedProvider{replies: []ModelResponse{textReply("done", StopEndTurn)}}
	a := &Agent{Provider: p, Model: "claude-sonnet-5", Limits: ModelLimits{ContextWindow: 1_000_000, MaxOutput: 128_000},
		LimitsFor: func(string) ModelLimits { return ModelLimits{ContextWindow: 200_000, MaxOutput: 64_000} }}
	var rounds [][]tcall
	for i := range 40 {
		rounds = append(rounds, read(fmt.Sprintf("f%d.txt", i), 12_000)) // about 160,000 tokens
	}
	h := history("task", rounds...)
	if u := a.estimate("", h); u.Percent > 20 {
		t.Fatalf("the history fills %.0f%% of the agent's window, want a fifth at most", u.Percent)
	}
	res := a.RunTurn(t.Context(), h, TurnInput{Text: "review", Model: "claude-haiku-4-5"})
	if res.End != EndFinal || len(p.requests) != 1 {
		t.Fatalf("turn ended %s (%q) after %d requests, want one answer", res.End, res.Text, len(p.requests))
	}
	req := p.requests[0]
	if n := requestTokenCount(req); req.Model != "claude-haiku-4-5" || n > 100_000 || req.MaxTokens != 64_000 {
		t.Errorf("request to %s of %d tokens asking for %d output tokens; want the turn's model, micro compacted under half its window of 200,000, and its 64,000",
			req.Model, n, req.MaxTokens)
	}
	if u := a.ContextUsage(); u.Window != 1_000_000 {
		t.Errorf("after the turn the usage is of a window of %d, want the agent's 1,000,000", u.Window)
	}
}

// TestAutoMicroCompactClearsInBatches checks micro compact's hysteresis: run automatically, it
// leaves the history alone while it could clear less than a tenth of the window (each run makes
// the next request write the prompt cache again after its first change), and clears the whole
// batch once there is that much; run by hand, it clears whatever it can.
func TestAutoMicroCompactClearsInBatches(t *testing.T) {
	t.Parallel()
	a := &Agent{Model: "m", Limits: ModelLimits{ContextWindow: 50_000, MaxOutput: 8_000}}
	rounds := [][]tcall{{{name: "edit_file", input: `{"path":"big.go"}`, result: strings.Repeat("e", 60_000)}}}
	for i := range 4 {
		rounds = append(rounds, read(fmt.Sprintf("f%d.txt", i), 2_000))
	}
	usable := a.measure(a.Model, 0).usable()
	if _, c, _ := a.compactWith(t.Context(), "", history("task", rounds...), LayerMicro, "auto", "", false); len(c.Splices) != 0 {
		t.Errorf("automatic micro compact cleared one result (%d tokens of a usable %d): %+v", c.PreTokens-c.PostTokens, usable, c.Splices)
	}
	if _, c, _ := a.Compact(t.Context(), history("task", rounds...), LayerMicro, ""); len(c.Splices) != 1 {
		t.Errorf("micro compact by hand made %d splices, want the one result cleared", len(c.Splices))
	}
	for i := 4; i < 20; i++ {
		rounds = append(rounds, read(fmt.Sprintf("f%d.txt", i), 2_000))
	}
	_, c, _ := a.compactWith(t.Context(), "", history("task", rounds...), LayerMicro, "auto", "", false)
	if len(c.Splices) != 17 || c.PreTokens-c.PostTokens < usable/microMinSavedShare {
		t.Errorf("automatic micro compact of 17 old results made %d splices, saving %d tokens of a usable %d", len(c.Splices), c.PreTokens-c.PostTokens, usable)
	}
}

// On a window of a million tokens automatic micro compact clears old results once the context passes
// microMaxTokens, not only at half the window, which would let every request read five times as much; a
// threshold the settings set is kept as it is.
func TestAutoMicroCompactCapsLargeWindows(t *testing.T) {
	t.Parallel()
	var rounds [][]tcall
	for i := range 40 {
		rounds = append(rounds, read(fmt.Sprintf("f%d.txt", i), 12_000))
	}
	for _, tc := range []struct {
		name      string
		set       CompactThresholds
		wantClear bool
	}{{"the default threshold", CompactThresholds{}, true}, {"a threshold from the settings", CompactThresholds{Micro: 50}, false}} {
		a := &Agent{Model: "m", Limits: ModelLimits{ContextWindow: 1_000_000, MaxOutput: 64_000}, Compaction: tc.set}
		turn := &Turn{model: "m", messages: history("task", rounds...)}
		before := a.estimate("m", turn.messages)
		if before.Tokens < microMaxTokens || before.Percent >= 50 {
			t.Fatalf("the history holds %s; want over %d tokens and under half the window", before, microMaxTokens)
		}
		if err := a.manageContext(t.Context(), turn); err != nil {
			t.Fatal(err)
		}
		after := a.estimate("m", turn.messages)
		if cleared := after.Tokens < microMaxTokens/2; cleared != tc.wantClear {
			t.Errorf("%s: %s before, %s after; want cleared %v", tc.name, before, after, tc.wantClear)
		}
	}
}
