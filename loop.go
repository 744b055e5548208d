package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of the loop's limits.
const (
	defaultMaxSteps     = 50
	defaultMaxProgress  = 3 // consecutive progress-only replies before the turn ends
	maxEmptyRecoveries  = 2 // empty or cut-off-tool-call replies retried
	maxResumes          = 3 // thinking-only replies stopped by pause_turn or max_tokens
	maxContinuations    = 3 // text replies cut off by max_tokens
	progressNudge       = "Continue immediately from your progress update with concrete tool calls, code changes, or an explicit final answer only if the task is complete."
	continuePrompt      = "Your reply was cut off by the output limit. Continue exactly where you stopped, without repeating what you already wrote."
	halfToolCallPrompt  = "Your reply was cut off by the output limit in the middle of a tool call, so the call was not run. Make the call again with smaller input (for example, write a large file in several steps)."
	emptyAfterToolsText = "Your last reply was empty. The tool results are above: continue the task with the next tool call, or give your final answer if the task is complete."
	emptyText           = "Your last reply was empty. Answer the request above: make a tool call, or give your final answer."
)

// EventKind names what happened in the loop, for whoever draws it.
type EventKind string

// The events the loop emits. A UI draws them; headless mode prints them.
const (
	EventTextDelta     EventKind = "text_delta"     // Text: streamed reply text
	EventThinkingDelta EventKind = "thinking_delta" // Text: streamed thinking
	EventAssistant     EventKind = "assistant"      // Message: a reply was added to the history
	EventToolStart     EventKind = "tool_start"     // Call: a tool call begins
	EventToolEnd       EventKind = "tool_end"       // Call, Result: a tool call finished
	EventToolResults   EventKind = "tool_results"   // Message: the batch's results were added
	EventNotice        EventKind = "notice"         // Text: something the user should know
	EventUser          EventKind = "user"           // Message: the loop added a nudge or recovery prompt
	EventCompact       EventKind = "compact"        // Compaction, Text: the history was compacted
	EventUsage         EventKind = "usage"          // Usage, Text (the model), Took: tokens reported; Took > 0 ends a model call
)

// interruptedText is the user message that tells the model, and a resumed session, that the user stopped the turn.
const interruptedText = "[Request interrupted by user]"

// Event is one thing that happened during a turn.
type Event struct {
	Kind    EventKind
	Text    string
	Message *Message
	Call    *Block
	Result  *Block
	// ParentToolUseID is, on a subagent's events, the id of the task call that started it.
	ParentToolUseID string
	Compaction      *Compaction
	Usage           *Usage        // of EventUsage: the tokens reported since the last one
	Took            time.Duration // of EventUsage: how long the model call took, at its end
}

// TurnEnd says how a turn ended.
type TurnEnd string

// The ways a turn can end.
const (
	EndFinal       TurnEnd = "final"         // the model gave its answer
	EndAskUser     TurnEnd = "ask_user"      // the model asked the user something
	EndEmpty       TurnEnd = "empty_replies" // empty replies kept coming
	EndMaxSteps    TurnEnd = "max_steps"     // --max-turns model steps were used up
	EndProgressCap TurnEnd = "progress_cap"  // only progress updates kept coming
	EndError       TurnEnd = "error"         // the model call failed
	EndCancelled   TurnEnd = "cancelled"     // the user interrupted
	EndBlocked     TurnEnd = "blocked"       // a hook dropped the prompt or stopped the turn
)

// TurnResult is the outcome of one turn.
type TurnResult struct {
	Messages []Message // the whole conversation after the turn
	End      TurnEnd
	Text     string // the answer, the question, or the message saying why the turn stopped
	Steps    int
	Usage    Usage
	Err      error
}

// Agent runs turns: it calls the model and runs the tools it asks for until it answers or a limit is reached.
type Agent struct {
	Provider     Provider
	Tools        *Registry
	Env          *ToolEnv
	Model        string // the model that answers, and Limits its limits: once turns run, SetModel changes them and CurrentModel reads them
	SummaryModel string // writes compaction summaries; "" means Model
	System       string
	MaxTokens    int // output tokens per step; 0 means the answering model's output limit
	Thinking     int // tokens the model may think per step; 0 leaves it to the model
	MaxSteps     int
	MaxProgress  int
	Depth        int                            // 0 for the main agent, which alone runs the prompt hooks
	AgentID      string                         // a subagent's id (its task call's), for its hooks
	AgentType    string                         // a subagent's agent definition, for its hooks
	Emit         func(Event)                    // receives every event; may be nil
	Record       func(Event)                    // receives every event before Emit, to record it in the session's journal; may be nil
	Limits       ModelLimits                    // of Model; zero means LimitsFor's
	LimitsFor    func(model string) ModelLimits // the limits of any model, with the settings' overrides; nil means the limits table's
	Compaction   CompactThresholds              // of the context layers
	context      ContextState
	modelMu      sync.Mutex // guards Model and Limits, which /model and a program's set_model change while a turn may run
}

// SetModel switches the model that answers, from the next turn on, and its limits.
func (a *Agent) SetModel(model string, limits ModelLimits) {
	a.modelMu.Lock()
	defer a.modelMu.Unlock()
	a.Model, a.Limits = model, limits
}

// CurrentModel returns the model that answers and its limits; any goroutine may ask, during a turn too.
func (a *Agent) CurrentModel() (string, ModelLimits) {
	a.modelMu.Lock()
	defer a.modelMu.Unlock()
	return a.Model, a.Limits
}

// ModelName is the model that answers, as CurrentModel returns it.
func (a *Agent) ModelName() string {
	model, _ := a.CurrentModel()
	return model
}

// emit passes an event to the journal and whoever draws the loop.
func (a *Agent) emit(e Event) {
	if a.Record != nil {
		a.Record(e)
	}
	if a.Emit != nil {
		a.Emit(e)
	}
}

// TurnInput starts a turn: the user's text and images, and the model and grants a skill or command chose.
type TurnInput struct {
	Text   string
	Images []Block // image blocks sent after the text
	Model  string  // the model that answers this turn; "" is the agent's
	Grants []Rule  // calls these rules cover run without asking (deny rules still hold)
}

// Turn is the state of one running turn.
type Turn struct {
	model         string   // the model that answers
	env           *ToolEnv // the agent's, with the turn's model and grants
	messages      []Message
	usage         Usage
	steps         int
	progress      int    // consecutive progress-only replies
	recoveries    int    // unusable replies (empty, cut-off tool call) retried in a row
	resumes       int    // thinking-only replies resumed
	continuations int    // text replies continued after max_tokens
	cutText       string // the text of the replies continued so far
	partial       string // the text of a reply interrupted while it streamed
	usedTools     bool
	stopHooks     int    // times a Stop hook made the model go on
	hookStop      string // why a tool hook ended the turn ({"continue": false})
}

// RunTurn adds the user's input to history and runs the model until the turn ends; every call in the result has one result.
func (a *Agent) RunTurn(ctx context.Context, history []Message, in TurnInput) TurnResult {
	prompt := userPrompt(in.Text, in.Images)
	if a.Depth == 0 {
		v := a.hooks().Run(ctx, HookInput{HookEventName: HookUserPromptSubmit, Prompt: in.Text})
		if v.Block || v.Stop {
			res := a.end(EndBlocked, "A UserPromptSubmit hook blocked the prompt: "+v.Reason)
			res.Messages = history
			return res
		}
		if v.Context != "" {
			prompt.Content = append(prompt.Content, Block{Type: BlockText, Text: v.Context})
		}
	}
	t := &Turn{model: cmp.Or(in.Model, a.ModelName()), env: a.Env.forTurn(in.Model, in.Grants), messages: append(append([]Message(nil), history...), prompt)}
	res := a.run(ctx, t)
	if res.End == EndAskUser && a.Depth == 0 {
		a.hooks().Run(ctx, HookInput{HookEventName: HookNotification, NotificationType: "idle_prompt", Message: "minicode is waiting for your answer: " + res.Text})
	}
	res.Messages = closeToolCalls(t.messages)
	res.Steps, res.Usage = t.steps, t.usage
	a.estimate("", res.Messages) // what ContextUsage shows until the next turn
	return res
}

// run is the loop proper: one iteration per model step.
func (a *Agent) run(ctx context.Context, t *Turn) TurnResult {
	maxSteps := cmp.Or(max(a.MaxSteps, 0), defaultMaxSteps)
	retried := false // after the provider said a request was too long
	for t.steps < maxSteps {
		t.steps++
		if err := a.manageContext(ctx, t); err != nil {
			return a.fail(ctx, t, err, "Stopped: ")
		}
		resp, err := a.callModel(ctx, t)
		if err != nil && isContextTooLong(err) && !retried && a.compactForRetry(ctx, t) {
			retried = true
			t.steps--
			continue
		}
		if err != nil && rejectsMedia(err) && !retried {
			if msgs, found := withoutMedia(t.messages, "the API refused it: "+err.Error()); found {
				a.emit(Event{Kind: EventNotice, Text: "The API refused an image or document; asking again without it: " + err.Error()})
				t.messages, retried = msgs, true
				t.steps--
				continue
			}
		}
		retried = false
		if err != nil {
			return a.fail(ctx, t, err, "The model call failed: ")
		}
		if res, done := a.step(ctx, t, resp); done {
			if res.End == EndFinal && a.stopHookContinues(ctx, t, res.Text) {
				continue
			}
			return res
		}
	}
	return a.end(EndMaxSteps, fmt.Sprintf("Stopped after %s (the --max-turns limit) before the task was finished.", plural(maxSteps, "model step", "model steps")))
}

// end ends the turn the way end says, telling the user msg.
func (a *Agent) end(end TurnEnd, msg string) TurnResult {
	a.emit(Event{Kind: EventNotice, Text: msg})
	return TurnResult{End: end, Text: msg}
}

// hooks returns the session's hooks, or nil.
func (a *Agent) hooks() *Hooks {
	if a.Env == nil {
		return nil
	}
	return a.Env.Hooks
}

// stopHookContinues runs the Stop hooks (a subagent's SubagentStop hooks) once the model answered; a block sends its reason to the model, which goes on.
func (a *Agent) stopHookContinues(ctx context.Context, t *Turn, answer string) bool {
	in := HookInput{HookEventName: HookStop, StopHookActive: new(t.stopHooks > 0), LastMessage: answer}
	if a.Depth > 0 {
		in.HookEventName, in.AgentID, in.AgentType = HookSubagentStop, a.AgentID, a.AgentType
	}
	v := a.hooks().Run(ctx, in)
	if !v.Block || v.Stop || ctx.Err() != nil {
		return false
	}
	t.stopHooks++
	a.emit(Event{Kind: EventNotice, Text: fmt.Sprintf("A %s hook asks the model to go on: %s", in.HookEventName, v.Reason)})
	a.appendUser(t, userText(fmt.Sprintf("A %s hook did not let you stop yet: %s", in.HookEventName, v.Reason)))
	return true
}

// fail ends the turn after an error: cancelled if the user interrupted, else with a notice starting with prefix.
func (a *Agent) fail(ctx context.Context, t *Turn, err error, prefix string) TurnResult {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return a.interrupted(t)
	}
	res := a.end(EndError, prefix+err.Error())
	res.Err = err
	return res
}

// callModel sends the conversation and streams the reply to the UI.
func (a *Agent) callModel(ctx context.Context, t *Turn) (ModelResponse, error) {
	withWireCaches(t.messages)
	req := a.request(t.model, t.messages)
	if u := a.ContextUsage(); req.MaxTokens > 0 && u.Tokens+req.MaxTokens > u.Window {
		req.MaxTokens = max(u.Reserve, u.Window-u.Tokens)
	}
	var streamed strings.Builder
	var reported Usage // the reply's tokens announced so far
	start := time.Now()
	resp, err := a.Provider.Stream(ctx, req, func(d Delta) {
		switch d.Kind {
		case deltaUsage:
			a.emitUsage(t.model, &reported, d.Usage, 0)
		case BlockThinking:
			a.emit(Event{Kind: EventThinkingDelta, Text: d.Text})
		default:
			streamed.WriteString(d.Text)
			a.emit(Event{Kind: EventTextDelta, Text: d.Text})
		}
	})
	t.partial = ""
	if err != nil { // an interrupted reply's tokens count as far as they were reported
		resp.Usage, t.partial = reported, streamed.String()
	}
	a.emitUsage(cmp.Or(resp.Model, t.model), &reported, resp.Usage, max(time.Since(start), time.Nanosecond))
	t.usage.Add(resp.Usage)
	if err == nil {
		a.anchorUsage(req, resp)
	}
	return resp, err
}

// emitUsage announces the tokens a reply's totals count beyond those announced; took > 0 ends the call.
func (a *Agent) emitUsage(model string, reported *Usage, now Usage, took time.Duration) {
	d := Usage{now.InputTokens - reported.InputTokens, now.OutputTokens - reported.OutputTokens,
		now.CacheCreationInputTokens - reported.CacheCreationInputTokens, now.CacheReadInputTokens - reported.CacheReadInputTokens}
	if d != (Usage{}) || took > 0 {
		*reported = now
		a.emit(Event{Kind: EventUsage, Text: model, Usage: &d, Took: took})
	}
}

// interrupted ends a turn the user stopped. The text of a reply cut off stays in the conversation, and
// a note after it tells the model, and a resumed session, that the user interrupted, as Claude Code does.
func (a *Agent) interrupted(t *Turn) TurnResult {
	if text := strings.TrimSpace(t.partial); text != "" {
		a.appendReply(t, assistantText(text))
	}
	a.appendUser(t, userText(interruptedText))
	return TurnResult{End: EndCancelled, Text: "interrupted", Err: context.Canceled}
}

// request builds the model request for the current conversation.
func (a *Agent) request(model string, messages []Message) ModelRequest {
	plan := false // opusplan: sonnet, and opus in plan mode
	if a.Env != nil {
		if modes, ok := a.Env.Perms.(interface{ Mode() PermissionMode }); ok {
			plan = modes.Mode() == ModePlan
		}
	}
	req := ModelRequest{Model: modelForMode(model, plan), System: a.System, Messages: messages, MaxTokens: cmp.Or(a.MaxTokens, a.limitsOf(model).MaxOutput), Thinking: a.Thinking}
	if a.Tools != nil {
		req.Tools = a.Tools.Specs()
	}
	return req
}

// step classifies one reply and acts on it, reporting whether the turn is over.
func (a *Agent) step(ctx context.Context, t *Turn, resp ModelResponse) (TurnResult, bool) {
	reply := Message{Role: RoleAssistant, Content: resp.Content}
	calls := reply.ToolUses()
	text := strings.TrimSpace(reply.Text())
	thinking := slices.ContainsFunc(reply.Content, func(b Block) bool {
		return b.Type == BlockThinking || b.Type == BlockRedactedThinking
	})

	switch {
	case len(calls) > 0 && resp.StopReason == StopMaxTokens:
		// The last call was still being written when the output ran out.
		return a.recover(t, halfToolCallPrompt, "replies cut off in the middle of a tool call")
	case len(calls) > 0:
		return a.runCalls(ctx, t, reply, calls)
	case text == "" && thinking && (resp.StopReason == StopPauseTurn || resp.StopReason == StopMaxTokens) && t.resumes < maxResumes:
		t.resumes++
		a.appendReply(t, reply)
		return TurnResult{}, false
	case text == "":
		prompt := emptyText
		if t.usedTools {
			prompt = emptyAfterToolsText
		}
		return a.recover(t, prompt, "empty replies")
	case resp.StopReason == StopMaxTokens && t.continuations < maxContinuations:
		t.continuations++
		t.cutText += reply.Text()
		a.appendReply(t, reply)
		a.appendUser(t, userText(continuePrompt))
		return TurnResult{}, false
	case strings.HasPrefix(text, "<progress>") || strings.HasPrefix(text, "[PROGRESS]"): // a progress update, not an answer
		a.appendReply(t, reply)
		if t.progress++; t.progress > cmp.Or(max(a.MaxProgress, 0), defaultMaxProgress) {
			return a.end(EndProgressCap, fmt.Sprintf("Stopped: the model sent %d progress updates in a row without acting or answering.", t.progress)), true
		}
		a.appendUser(t, userText(progressNudge))
		return TurnResult{}, false
	default:
		a.appendReply(t, reply)
		// An answer continued after max_tokens is all of its parts; the <final> tags around it are optional.
		answer := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(t.cutText+reply.Text()), "<final>"), "</final>")
		return TurnResult{End: EndFinal, Text: strings.TrimSpace(answer)}, true
	}
}

// runCalls stores a reply asking for tools and runs them; the turn goes on unless cancelled, asking the user, or stopped by a hook.
func (a *Agent) runCalls(ctx context.Context, t *Turn, reply Message, calls []Block) (TurnResult, bool) {
	t.progress, t.recoveries, t.cutText = 0, 0, ""
	t.usedTools = true
	a.appendReply(t, reply)
	question := a.runBatch(ctx, t, calls)
	if ctx.Err() != nil {
		return a.interrupted(t), true
	}
	if question != "" {
		a.appendReply(t, assistantText(question))
		return TurnResult{End: EndAskUser, Text: question}, true
	}
	if t.hookStop != "" {
		return a.end(EndBlocked, "A hook stopped the turn: "+t.hookStop), true
	}
	return TurnResult{}, false
}

// recover asks the model again after an unusable reply, or ends the turn naming the reason once retries are used up.
func (a *Agent) recover(t *Turn, prompt, reason string) (TurnResult, bool) {
	if t.recoveries >= maxEmptyRecoveries {
		msg := fmt.Sprintf("Stopped: the model gave %d %s in a row, so the turn ended without an answer. Try again or rephrase the request.", t.recoveries+1, reason)
		a.appendReply(t, assistantText(msg))
		return a.end(EndEmpty, msg), true
	}
	t.recoveries++
	a.appendUser(t, userText(prompt))
	return TurnResult{}, false
}

// appendUser adds a message the loop itself writes to the model (a nudge or recovery prompt) and announces it.
func (a *Agent) appendUser(t *Turn, m Message) {
	t.messages = append(t.messages, m)
	a.emit(Event{Kind: EventUser, Message: &t.messages[len(t.messages)-1]})
}

// appendReply adds an assistant message to the history and announces it.
func (a *Agent) appendReply(t *Turn, m Message) {
	t.messages = append(t.messages, m)
	a.emit(Event{Kind: EventAssistant, Message: &t.messages[len(t.messages)-1]})
}

// runBatch runs a reply's calls (parallel-safe runs together), adds their results, and returns ask_user's question.
func (a *Agent) runBatch(ctx context.Context, t *Turn, calls []Block) (question string) {
	ctx = context.WithValue(ctx, keyHistory, t.messages)
	results := make([]Block, len(calls))
	questions, stops := make([]string, len(calls)), make([]string, len(calls))
	runOne := func(i int) {
		call := calls[i]
		a.emit(Event{Kind: EventToolStart, Call: &call})
		var out ToolOutput
		if ctx.Err() != nil {
			out = ToolOutput{Text: "cancelled by the user before the tool started", IsError: true}
		} else {
			out = a.Tools.Execute(ctx, t.env, call)
		}
		questions[i], stops[i] = out.Question, out.Stop
		results[i] = Block{Type: BlockToolResult, ToolUseID: call.ID, Content: out.Text, IsError: out.IsError, Media: out.Media}
		a.emit(Event{Kind: EventToolEnd, Call: &call, Result: &results[i]})
	}
	for i := 0; i < len(calls); {
		j := i + 1
		for a.Tools.isParallel(calls[i].Name) && j < len(calls) && a.Tools.isParallel(calls[j].Name) {
			j++
		}
		if j == i+1 {
			runOne(i) // a lone call needs no goroutine
		} else {
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Go(func() { runOne(k) })
			}
			wg.Wait()
		}
		i = j
	}
	resultsDir := ""
	if a.Env != nil {
		resultsDir = a.Env.ResultsDir
	}
	storeLargeResults(resultsDir, results)
	t.messages = append(t.messages, Message{Role: RoleUser, Content: results})
	a.emit(Event{Kind: EventToolResults, Message: &t.messages[len(t.messages)-1]})
	t.hookStop = cmp.Or(stops...)
	return cmp.Or(questions...)
}

// answeredCalls returns the ids of the tool calls that have a result in messages.
func answeredCalls(messages []Message) map[string]bool {
	answered := map[string]bool{}
	for _, m := range messages {
		for _, b := range m.Content {
			answered[b.ToolUseID] = answered[b.ToolUseID] || b.Type == BlockToolResult
		}
	}
	return answered
}

// closeToolCalls gives every tool call in messages exactly one result: an "interrupted" one where it is missing.
func closeToolCalls(messages []Message) []Message {
	answered := answeredCalls(messages)
	out := append([]Message(nil), messages...)
	for i := 0; i < len(out); i++ {
		var missing []Block
		for _, call := range out[i].ToolUses() {
			if !answered[call.ID] {
				missing = append(missing, Block{Type: BlockToolResult, ToolUseID: call.ID, Content: "interrupted: the tool call did not finish and its outcome is unknown", IsError: true})
			}
		}
		switch {
		case len(missing) == 0:
		case i+1 < len(out) && out[i+1].Role == RoleUser:
			// Results go first in the user message that follows the calls.
			out[i+1] = Message{Role: RoleUser, Content: append(missing, out[i+1].Content...)}
		default:
			out = slices.Insert(out, i+1, Message{Role: RoleUser, Content: missing})
		}
	}
	return out
}
