package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ContextState is the agent's context accounting and model-call layers' failures, spanning turns; a UI may read it during one.
type ContextState struct {
	mu     sync.Mutex
	tokens int    // the context's, as of the newest request or compaction
	model  string // the model those tokens were measured against, when a turn's model is not the agent's; "" is the agent's
	// anchor is the newest reported usage: the first n messages (the last with cache last) and the reply.
	anchor struct {
		tokens, n int
		last      *WireCache
		reply     *Block
	}
	failures map[string]int // failed collapses and compacts in a row
}

// ContextUsage returns how full the answering model's window is, as of the newest request or compaction; it is safe during a turn.
func (a *Agent) ContextUsage() ContextUsage {
	a.context.mu.Lock()
	defer a.context.mu.Unlock()
	return a.measure(cmp.Or(a.context.model, a.ModelName()), a.context.tokens)
}

// limitsOf returns a model's limits: the agent's own for its model, else LimitsFor's, else the table's.
// A turn may answer with another model than the agent's (a command's or skill's), and its window is that model's.
func (a *Agent) limitsOf(model string) ModelLimits {
	current, limits := a.CurrentModel()
	switch {
	case model == current && limits.ContextWindow != 0:
		return limits
	case a.LimitsFor != nil:
		return a.LimitsFor(model)
	}
	return limitsFor(model, nil)
}

// measure turns a token count into a usage of a model's window.
func (a *Agent) measure(model string, tokens int) ContextUsage {
	limits := a.limitsOf(model)
	u := ContextUsage{Model: model, Tokens: tokens, Window: limits.ContextWindow, Reserve: min(limits.MaxOutput, maxOutputReserve)}
	u.Percent = 100 * float64(tokens) / float64(max(1, u.usable()))
	return u
}

// estimate is the usage a request to model ("" is the agent's) with msgs would have:
// the newest reported usage plus an estimate of what came after (all estimated after a compaction).
func (a *Agent) estimate(model string, msgs []Message) ContextUsage {
	current := a.ModelName()
	model = cmp.Or(model, current)
	an := &a.context.anchor
	var tokens int
	if an.last != nil && an.n <= len(msgs) && msgs[an.n-1].wire == an.last {
		rest := msgs[an.n:]
		if len(rest) > 0 && len(rest[0].Content) > 0 && &rest[0].Content[0] == an.reply {
			rest = rest[1:]
		}
		tokens = an.tokens + tokenCount(rest)
	} else {
		tokens = requestTokenCount(a.request(model, msgs))
	}
	a.context.mu.Lock()
	a.context.tokens, a.context.model = tokens, ""
	if model != current {
		a.context.model = model
	}
	a.context.mu.Unlock()
	return a.measure(model, tokens)
}

// anchorUsage records what the provider reported for a request and its reply, for later estimates to start from.
func (a *Agent) anchorUsage(req ModelRequest, resp ModelResponse) {
	total := resp.Usage.InputTokens + resp.Usage.CacheReadInputTokens + resp.Usage.CacheCreationInputTokens + resp.Usage.OutputTokens
	an := &a.context.anchor
	if total == 0 || len(req.Messages) == 0 {
		an.last = nil
		return
	}
	an.tokens, an.n, an.last, an.reply = total, len(req.Messages), req.Messages[len(req.Messages)-1].wire, nil
	if len(resp.Content) > 0 {
		an.reply = &resp.Content[0]
	}
}

// manageContext runs the layers whose threshold is reached, cheapest first, and fails when the request still does not fit.
func (a *Agent) manageContext(ctx context.Context, t *Turn) error {
	th := a.Compaction
	percents := []int{cmp.Or(th.Micro, 50), cmp.Or(th.Snip, 70), cmp.Or(th.Collapse, 75), cmp.Or(th.Auto, 85)}
	for i, layer := range []string{LayerMicro, LayerSnip, LayerCollapse, LayerCompact} {
		u := a.estimate(t.model, t.messages)
		due := u.Percent >= float64(percents[i]) || layer == LayerMicro && th.Micro == 0 && u.Tokens >= microMaxTokens ||
			layer == LayerCompact && u.Tokens > u.usable()
		if !due || a.context.failures[layer] >= maxCompactFailures {
			continue
		}
		t.messages, _, _ = a.compactWith(ctx, t.model, t.messages, layer, "auto", "", false) // unchanged when it fails
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if u := a.estimate(t.model, t.messages); u.Tokens > u.usable() {
		return fmt.Errorf("the conversation (%s tokens) no longer fits the model's context window of %s tokens and could not be compacted; use /compact or /clear", thousands(u.Tokens), thousands(u.usable()))
	}
	return nil
}

// promptFits refuses a prompt to model ("" is the agent's) that no compaction could make room for: with the system prompt and the tools, it passes the window.
func (a *Agent) promptFits(model string, prompt Message) error {
	model = cmp.Or(model, a.ModelName())
	room := a.measure(model, 0).usable() - requestTokenCount(a.request(model, nil))
	if n := messageTokenCount(prompt); n > room {
		return fmt.Errorf("this prompt (%s characters, about %s tokens) is larger than the %s tokens the context window has room for, so it was not sent; "+
			"attach a large file with @path instead (read_file reads it in pieces), or send the text in parts", thousands(len(prompt.Text())), thousands(n), thousands(room))
	}
	return nil
}

// compactForRetry compacts to the newest round after the provider said the request was too long, reporting whether the history changed.
func (a *Agent) compactForRetry(ctx context.Context, t *Turn) bool {
	if ctx.Err() != nil || a.context.failures[LayerCompact] >= maxCompactFailures {
		return false
	}
	a.emit(Event{Kind: EventNotice, Text: "The request did not fit the model's context window; compacting to try once more."})
	msgs, c, err := a.compactWith(ctx, t.model, t.messages, LayerCompact, "auto", "", true)
	t.messages = msgs
	return err == nil && len(c.Splices) > 0
}

// countFailure counts a failed automatic collapse or compact and tells the user, saying when the layer is now off.
func (a *Agent) countFailure(layer string, err error) {
	if a.context.failures == nil {
		a.context.failures = map[string]int{}
	}
	a.context.failures[layer]++
	count, name := a.context.failures[layer], map[string]string{LayerCollapse: "Context collapse", LayerCompact: "Auto compact"}[layer]
	msg := fmt.Sprintf("%s failed (%d of %d): %v", name, count, maxCompactFailures, err)
	if count >= maxCompactFailures {
		msg = fmt.Sprintf("%s failed %d times in a row (%v), so it is off for this session. Use /compact to try again or /clear to start over.", name, count, err)
	}
	a.emit(Event{Kind: EventNotice, Text: msg})
}

// Compact runs one layer now, whatever the usage, as /compact, /snip and /collapse do; no splices means no change.
func (a *Agent) Compact(ctx context.Context, history []Message, layer, focus string) ([]Message, Compaction, error) {
	return a.compactWith(ctx, "", history, layer, "manual", focus, true)
}

// compactWith applies one layer to a conversation with model ("" is the agent's), emitting its event if it changed anything
// and counting automatic failures; with keepLittle, compact keeps only the newest round.
func (a *Agent) compactWith(ctx context.Context, model string, msgs []Message, layer, trigger, focus string, keepLittle bool) ([]Message, Compaction, error) {
	withWireCaches(msgs)
	pre := a.estimate(model, msgs)
	c := Compaction{Layer: layer, Trigger: trigger, PreTokens: pre.Tokens}
	var err error
	switch layer {
	case LayerMicro:
		c.Splices = microCompact(msgs, microKeepPerTool, a.rerunnable)
	case LayerSnip:
		c.Splices = snipCompact(msgs)
	case LayerCollapse:
		a.hooks().Run(ctx, HookInput{HookEventName: HookPreCompact, Trigger: trigger, CustomInstructions: focus})
		c.Splices, err = a.collapse(ctx, msgs, pre.usable())
	case LayerCompact:
		a.hooks().Run(ctx, HookInput{HookEventName: HookPreCompact, Trigger: trigger, CustomInstructions: focus})
		keep := min(40_000, pre.usable()/4)
		if keepLittle {
			keep = 0
		}
		c.Splices, err = a.compactHistory(ctx, msgs, focus, keep, pre.usable())
	}
	if err != nil {
		if trigger == "auto" && ctx.Err() == nil {
			a.countFailure(layer, err)
		}
		return msgs, c, err
	}
	delete(a.context.failures, layer)
	out := applySplices(msgs, c.Splices)
	saved := tokenCount(msgs) - tokenCount(out)
	if len(c.Splices) == 0 || saved <= 0 || layer == LayerMicro && trigger == "auto" && saved < min(pre.usable()/microMinSavedShare, microMaxTokens/5) {
		// Nothing to do, a summary as long as what it replaces, or too little to pay for the cache it rewrites: keep the history.
		c.Splices, c.PostTokens = nil, c.PreTokens
		return msgs, c, nil
	}
	a.context.anchor.last = nil // the provider's count is stale now
	c.PostTokens, c.View = a.estimate(model, out).Tokens, out
	a.emit(Event{Kind: EventCompact, Compaction: &c, Text: c.String()})
	return out, c, nil
}

// rerunnable reports whether a tool's result can be had again by running the same call.
func (a *Agent) rerunnable(name string) bool {
	if a.Tools == nil || !strings.HasPrefix(name, "mcp__") {
		return rerunnableTools[name]
	}
	t, ok := a.Tools.Get(name)
	return ok && t.ReadOnly
}

// summarySystemPrompt is the system prompt of every summary request (the demo model recognises one by it).
const summarySystemPrompt = `You summarise part of a coding agent's conversation so that the work can go on from your summary alone, without the messages it replaces.
Reply with the summary only, inside <summary></summary>, in these sections:
Request: what the user asked for, in their words where it matters.
Decisions: what was decided, and why.
Files touched: each file read, created or changed, and what happened to it.
Errors: errors met and whether they were fixed.
Current state: where the work stands.
Pending work: what is left to do.
Be specific (names, paths, commands, numbers) and brief.`

// Limits of summary requests.
const (
	maxSummaryTokens      = 8_000 // a longer summary is a failure
	transcriptResultChars = 2_000 // of each tool result shown to the summariser
	latestRequestChars    = 4_000 // of the user's request repeated after a summary
)

// summaryTranscript renders messages as text for the summariser, leaving out the oldest to fit budget tokens.
func summaryTranscript(msgs []Message, budget int) string {
	var parts []string
	size, limit := 0, budget*charsPerCodeToken
	for i := len(msgs) - 1; i >= 0; i-- {
		part := transcriptOf(msgs[i])
		if size += len(part); size > limit {
			parts = append(parts, fmt.Sprintf("[%d earlier messages left out to fit the context window]", i+1))
			break
		}
		parts = append(parts, part)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "\n") + "\n"
}

// transcriptOf renders one message, a line per block, with tool results shortened.
func transcriptOf(m Message) string {
	var b strings.Builder
	for _, blk := range m.Content {
		switch blk.Type {
		case BlockText:
			if strings.TrimSpace(blk.Text) != "" {
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, blk.Text)
			}
		case BlockToolUse:
			fmt.Fprintf(&b, "[tool call %s] %s\n", blk.Name, blk.Input)
		case BlockToolResult:
			fmt.Fprintf(&b, "[%s] %s\n", map[bool]string{false: "tool result", true: "tool error"}[blk.IsError], cutBytes(blk.Content, transcriptResultChars, "..."))
		}
	}
	return b.String()
}

// summarize asks the model to summarise msgs; a reply without a non-empty <summary> within budget is an error.
func (a *Agent) summarize(ctx context.Context, msgs []Message, focus string, usable int) (string, error) {
	budget := max(256, min(maxSummaryTokens, usable/8)) // the longest summary accepted
	ask := "Summarise this conversation:\n\n" + summaryTranscript(msgs, usable-budget-len(summarySystemPrompt)/charsPerTextToken-256)
	if focus != "" {
		ask += "\nFocus the summary on: " + focus
	}
	resp, err := a.Provider.Stream(ctx, ModelRequest{Model: cmp.Or(a.SummaryModel, a.ModelName()), System: summarySystemPrompt, Messages: []Message{userText(ask)}, MaxTokens: budget}, nil)
	if err != nil {
		return "", err
	}
	text := Message{Content: resp.Content}.Text()
	_, rest, found := strings.Cut(text, "<summary>")
	summary, _, closed := strings.Cut(rest, "</summary>")
	summary = strings.TrimSpace(summary)
	switch {
	case strings.TrimSpace(text) == "":
		return "", fmt.Errorf("unusable summary: the reply was empty")
	case resp.StopReason == StopMaxTokens || len(summary)/charsPerTextToken > budget:
		return "", fmt.Errorf("unusable summary: the summary was longer than %d tokens", budget)
	case !found || !closed || summary == "":
		return "", fmt.Errorf("unusable summary: the reply held no <summary>...</summary>")
	}
	return summary, nil
}

// collapse summarises the two oldest safe runs of msgs at most, each into one message standing for it.
func (a *Agent) collapse(ctx context.Context, msgs []Message, usable int) ([]Splice, error) {
	var splices []Splice
	runs := safeRuns(msgs)
	for _, span := range runs[:min(2, len(runs))] {
		summary, err := a.summarize(ctx, msgs[span[0]:span[1]], "", usable)
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("%s%d earlier messages were collapsed into this summary.]\n<summary>\n%s\n</summary>", summaryMarker, span[1]-span[0], summary)
		splices = append(splices, Splice{From: span[0], To: span[1], With: []Message{userText(text)}})
	}
	return splices, nil
}

// compactHistory replaces all but the newest rounds (keep tokens) with a summary and the user's latest
// request, and cuts a kept message that takes half the window to a head and a tail.
func (a *Agent) compactHistory(ctx context.Context, msgs []Message, focus string, keep, usable int) ([]Splice, error) {
	from := compactTail(msgs, keep)
	var splices []Splice
	if from > 0 {
		summary, err := a.summarize(ctx, msgs[:from], focus, usable)
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("%sthe conversation before this point was compacted into this summary to fit the context window.]\n<summary>\n%s\n</summary>", summaryMarker, summary)
		if i := newestRequest(msgs); i >= 0 {
			text += "\n\nThe user's latest request, to continue with: " + cutBytes(msgs[i].Text(), latestRequestChars, "...")
		}
		splices = append(splices, Splice{From: 0, To: from, With: []Message{userText(text)}})
	}
	for i, m := range msgs[from:] {
		if messageTokenCount(m) > usable/2 {
			content := slices.Clone(m.Content)
			for j := range content {
				content[j].Text, content[j].Content = cutMiddleBytes(content[j].Text, usable), cutMiddleBytes(content[j].Content, usable)
			}
			splices = append(splices, Splice{From: from + i, To: from + i + 1, With: []Message{{Role: m.Role, Content: content}}})
		}
	}
	return splices, nil
}

// isContextTooLong reports whether err is the provider saying the request does not fit the window.
func isContextTooLong(err error) bool {
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok {
		return false
	}
	kind, msg := strings.ToLower(apiErr.Type), strings.ToLower(apiErr.Message)
	return strings.Contains(kind, "context_length_exceeded") ||
		strings.Contains(kind, "invalid_request_error") && strings.Contains(msg, "prompt is too long") ||
		strings.Contains(msg, "maximum context length")
}
