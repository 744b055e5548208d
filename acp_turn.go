package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// acpContent is a content block of a prompt: text, an image, a link to a
// resource, or a resource with its contents (an editor's @-mention).
type acpContent struct {
	Type, Text, Data, MimeType, URI, Name string
	Resource                              *struct{ URI, Text string }
}

// prompt runs one prompt turn as line mode runs a line (a slash command,
// or a turn for the prompt, a custom command's or skill's or the text with
// its @files attached) and answers with how the turn ended.
func (s *acpSession) prompt(params json.RawMessage) (any, error) {
	var p struct {
		Prompt []acpContent `json:"prompt"`
	}
	if err := acpParams(params, &p, "prompt"); err != nil {
		return nil, err
	}
	ctx, done, ok := s.startTurn()
	if !ok {
		return nil, &rpcError{Code: rpcInvalidRequest, Message: "a prompt is running in this session already; cancel it first (session/cancel)"}
	}
	defer done()
	app := s.app
	if len(s.servers) > 0 {
		app.MCP.Wait(ctx, s.servers...) // ready or failed: the client's servers are part of the session
	}
	text, images := acpPromptText(p.Prompt)
	history := app.Session.View()
	sp, err := &slashPrompt{Prompt: text, Images: images}, error(nil)
	if name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " "); strings.HasPrefix(text, "/") && findSlashCommand(s.commands(), name) != nil {
		var out string
		sp, out, _, err = app.slashInput(ctx, text, &history)
		s.chunk("agent_message_chunk", out)
	} else {
		sp.Prompt, err = app.attachFiles(ctx, app.Env, text, nil)
	}
	if s.chunk("agent_message_chunk", errorText(err)); err != nil || sp == nil {
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
		return nil, &rpcError{Code: rpcInternalError, Message: res.Text}
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

// errorText is the message of an error worth showing, "" for none.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return "error: " + err.Error()
}

// acpPromptText turns a prompt's blocks into the user's text and images.
// A link to a file becomes an @mention, attached as read_file reads it (so
// permissions apply); a resource the editor embedded, an unsaved buffer
// say, is attached as it came.
func acpPromptText(blocks []acpContent) (string, []Block) {
	var parts []string
	var images []Block
	var attached strings.Builder
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.Type == "image" && b.Data != "":
			images = append(images, Block{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		case b.Type == "image" && strings.HasPrefix(b.URI, "http"):
			images = append(images, Block{Type: BlockImage, Source: &ImageSource{Type: "url", URL: b.URI}})
		case b.Type == "resource_link":
			parts = append(parts, acpMention(b.URI, b.Name))
		case b.Type == "resource" && b.Resource != nil && b.Resource.Text != "":
			name := strings.TrimPrefix(acpMention(b.Resource.URI, ""), "@")
			parts = append(parts, name)
			fmt.Fprintf(&attached, "\n\nContents of %s:\n%s", name, b.Resource.Text)
		default:
			parts = append(parts, fmt.Sprintf("[a %s block was left out: minicode passes on text, images and text resources]", b.Type))
		}
	}
	return strings.TrimSpace(strings.Join(parts, " ")) + attached.String(), images
}

// acpMention names a resource in a prompt: a file as @path, anything else as a Markdown link.
func acpMention(uri, name string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && !strings.ContainsAny(u.Path, " \t\n") {
		return "@" + u.Path
	}
	return fmt.Sprintf("[%s](%s)", cmp.Or(name, uri), uri)
}

// event turns an event of the loop into session updates: streamed text and
// thinking (the main agent's), each tool call with its outcome (a
// subagent's too, as the client may be asked about it), the todo list as
// the plan, and a mode minicode switched to itself; notices go to stderr.
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
		if plan := acpPlan(e.Call.Input); plan != nil && !e.Result.IsError {
			s.update(plan)
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
