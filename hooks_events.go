package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// afterTool runs the PostToolUse hooks of a call, appending what they say to the result.
func (h *Hooks) afterTool(ctx context.Context, call Block, out ToolOutput) ToolOutput {
	if h == nil || len(h.Config[HookPostToolUse]) == 0 {
		return out
	}
	response, _ := json.Marshal(map[string]any{"content": out.Text, "is_error": out.IsError})
	v := h.Run(ctx, HookInput{HookEventName: HookPostToolUse, ToolName: call.Name, ToolUseID: call.ID,
		ToolInput: hookToolInput(call.Input), ToolResponse: response})
	if v.Block || v.Stop {
		out.Text += "\n\nPostToolUse hook: " + v.Reason
	}
	if v.Stop {
		out.Stop = v.Reason
	}
	if v.Context != "" {
		out.Text += "\n\n" + v.Context
	}
	return out
}

// hookToolInput adds file_path next to path in a tool input, the name Claude Code's hooks read.
func hookToolInput(raw json.RawMessage) json.RawMessage {
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return raw
	}
	if p, ok := fields["path"]; ok && fields["file_path"] == nil {
		fields["file_path"] = p
		if b, err := json.Marshal(fields); err == nil {
			return b
		}
	}
	return raw
}

// hookAdjusted applies a PreToolUse hook's answer to the permission check's:
// a deny stays, "allow" settles only a question nothing forces, "ask" asks.
func hookAdjusted(d Decision, hookDecision string) Decision {
	switch {
	case hookDecision == "allow" && d.Verdict == VerdictAsk && !d.Strict:
		return Decision{Verdict: VerdictAllow}
	case hookDecision == "ask" && d.Verdict == VerdictAllow:
		return Decision{Verdict: VerdictAsk, Strict: true, Reason: "a PreToolUse hook asks for approval",
			Hint: "change the PreToolUse hook that asks"}
	}
	return d
}

// Describe lists the hooks in force, by event: the text of /hooks.
func (h *Hooks) Describe() string {
	if h == nil || len(h.Config) == 0 {
		return "No hooks configured. Add them under \"hooks\" in a settings file (see the README)."
	}
	var b strings.Builder
	b.WriteString("Hooks:\n")
	for _, e := range hookEvents() {
		for _, m := range h.Config[e] {
			for _, c := range m.Hooks {
				timeout := cmp.Or(c.Timeout, defaultHookTimeout.Seconds())
				fmt.Fprintf(&b, "  %-16s %-14s %s (timeout %gs, from %s)\n", e, cmp.Or(m.Matcher, "*"), c.Command, timeout, m.source)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
