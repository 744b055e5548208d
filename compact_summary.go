package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

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
	resp, err := a.Provider.Stream(ctx, ModelRequest{Model: cmp.Or(a.SummaryModel, a.Model), System: summarySystemPrompt, Messages: []Message{userText(ask)}, MaxTokens: budget}, nil)
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
