package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// prompt runs one prompt turn as line mode runs a line (a slash command, or a turn for the prompt, a
// custom command's or skill's or the text with its @files attached) and answers with how the turn ended.
func (s *acpSession) prompt(params json.RawMessage) (any, error) {
	var p struct {
		Prompt []PromptBlock `json:"prompt"`
	}
	if err := acpParams(params, &p, "prompt"); err != nil {
		return nil, err
	}
	ctx, done, ok := s.startTurn()
	if !ok {
		return nil, &RPCError{Code: rpcInvalidRequest, Message: "a prompt is running in this session already; cancel it first (session/cancel)"}
	}
	defer done()
	app := s.app
	if len(s.servers) > 0 {
		app.MCP.Wait(ctx, s.servers...) // ready or failed: the client's servers are part of the session
	}
	sp, err := new(promptOf(p.Prompt)), error(nil)
	text, history := sp.Prompt, app.Session.View()
	if name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " "); strings.HasPrefix(text, "/") && findSlashCommand(s.commands(), name) != nil {
		var out string
		sp, out, _, err = app.slashInput(ctx, text, &history)
		s.chunk("agent_message_chunk", out)
	} else {
		err = app.attachFiles(ctx, app.Env, sp, nil)
	}
	if err != nil {
		s.chunk("agent_message_chunk", "error: "+err.Error())
	}
	if err != nil || sp == nil {
		return map[string]string{"stopReason": "end_turn"}, nil
	}
	s.meter.reset()
	res := app.runPrompt(ctx, history, *sp)
	_, _, last := s.meter.totals()
	reason := "end_turn"
	switch {
	case ctx.Err() != nil || res.End == EndCancelled:
		reason = "cancelled"
	case res.End == EndError:
		return nil, &RPCError{Code: rpcInternalError, Message: res.Text}
	case res.End == EndMaxSteps:
		reason = "max_turn_requests"
	case last.StopReason == StopRefusal, last.StopReason == StopMaxTokens:
		reason = last.StopReason
	}
	if res.End == EndMaxSteps || res.End == EndProgressCap || res.End == EndBlocked {
		s.chunk("agent_message_chunk", res.Text) // why the turn stopped, which no reply says
	}
	return map[string]string{"stopReason": reason}, nil
}

// event turns an event of the loop into session updates: streamed text and thinking (the main agent's),
// each tool call with its outcome (a subagent's too, as the client may be asked about it), the todo list
// as the plan, and a mode minicode switched to itself; notices go to stderr.
func (s *acpSession) event(e Event) {
	sub := e.ParentToolUseID != ""
	switch {
	case e.Kind == EventTextDelta && !sub:
		s.streamed = true
		s.chunk("agent_message_chunk", e.Text)
	case e.Kind == EventThinkingDelta && !sub:
		s.chunk("agent_thought_chunk", e.Text)
	case e.Kind == EventAssistant && !sub:
		if !s.streamed { // an answer that was not streamed, such as ask_user's question
			s.chunk("agent_message_chunk", e.Message.Text())
		}
		s.streamed = false
	case e.Kind == EventToolStart && e.Call.Name != "todo_write":
		s.update(s.toolCall(*e.Call))
	case e.Kind == EventToolEnd && e.Call.Name == "todo_write":
		if !e.Result.IsError {
			s.update(acpPlan(e.Call.Input))
		}
	case e.Kind == EventToolEnd:
		s.update(s.toolDone(*e.Call, *e.Result))
		s.mu.Lock()
		mode, was := s.app.Perms.Mode(), s.mode
		s.mode = mode
		s.mu.Unlock()
		if mode != was {
			s.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": mode})
		}
	case e.Kind == EventNotice, e.Kind == EventCompact:
		fmt.Fprintln(s.conn.stderr, e.Text)
	}
}

// chunk sends text, if any, as a chunk of kind: agent_message_chunk, agent_thought_chunk or user_message_chunk.
func (s *acpSession) chunk(kind, text string) {
	if text != "" {
		s.update(map[string]any{"sessionUpdate": kind, "content": map[string]string{"type": "text", "text": text}})
	}
}

// textContent is text as the content of a tool call.
func textContent(text string) map[string]any {
	return map[string]any{"type": "content", "content": map[string]string{"type": "text", "text": text}}
}
