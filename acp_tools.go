package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// acpTools are the ACP kind of each of minicode's tools (it picks the client's icon; any other tool, an
// MCP server's say, is "other") and the verb of its title.
var acpTools = map[string]struct{ kind, verb string }{
	"read_file": {"read", "Read"}, "load_skill": {"read", "Load skill"}, "write_file": {"edit", "Write"},
	"edit_file": {"edit", "Edit"}, "patch_file": {"edit", "Edit"}, "list_files": {"search", "List"},
	"glob_files": {"search", "Find"}, "grep_files": {"search", "Search for"}, "run_command": {"execute", ""},
	"command_output": {"execute", ""}, "command_kill": {"execute", ""}, "web_fetch": {"fetch", "Fetch"},
	"web_search": {"fetch", "Search the web for"}, "task": {"think", ""}, "exit_plan_mode": {"switch_mode", ""},
}

// acpToolInput holds the input fields that titles and locations are made of.
type acpToolInput struct {
	Path, Pattern, Command, URL, Query, Name, Description, Question string
	Offset                                                          int
}

// acpDiff is the diff content of a tool call: a file's text before (null for a new file) and after.
type acpDiff struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// acpFileDiff is the diff content of a change to the file at path (before "": a new file).
func acpFileDiff(path, before, after string) acpDiff {
	if before == "" {
		return acpDiff{"diff", path, nil, after}
	}
	return acpDiff{"diff", path, &before, after}
}

// toolCall is the tool_call update announcing a call: a title a person reads (the command, the task,
// what it does to what, or else the tool's name as Claude Code's, which editors know) and its file.
func (s *acpSession) toolCall(call Block) map[string]any {
	var in acpToolInput
	json.Unmarshal(call.Input, &in) // a call with bad input gets a bare title
	title, target := claudeName(call.Name), cmp.Or(in.Pattern, in.URL, in.Query, in.Name, in.Path)
	if verb := acpTools[call.Name].verb; verb != "" && target != "" {
		title = verb + " " + target
	} else if in.Command != "" {
		title = "`" + oneLine(in.Command, 200) + "`"
	}
	u := map[string]any{"sessionUpdate": "tool_call", "toolCallId": call.ID, "kind": cmp.Or(acpTools[call.Name].kind, "other"),
		"title": cmp.Or(in.Description, in.Question, title), "status": "pending", "rawInput": call.Input}
	if loc := map[string]any{"path": s.abs(in.Path)}; in.Path != "" {
		if in.Offset > 0 {
			loc["line"] = in.Offset
		}
		u["locations"] = []any{loc}
	}
	return u
}

// toolDone is a finished call's tool_call_update: an edit's diff, or its result as text (fenced if it read, searched or ran).
func (s *acpSession) toolDone(call Block, result Block) map[string]any {
	u := map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": call.ID, "status": map[bool]string{false: "completed", true: "failed"}[result.IsError]}
	var in acpToolInput
	json.Unmarshal(call.Input, &in)
	s.mu.Lock()
	diff, changed := s.changes[s.abs(in.Path)]
	delete(s.changes, s.abs(in.Path))
	s.mu.Unlock()
	switch kind := acpTools[call.Name].kind; {
	case changed && !result.IsError:
		old, same := *cmp.Or(diff.OldText, new("")), 0 // same: bytes before the first change
		for same < min(len(old), len(diff.NewText)) && old[same] == diff.NewText[same] {
			same++
		}
		u["content"] = []any{diff}
		u["locations"] = []any{map[string]any{"path": diff.Path, "line": strings.Count(diff.NewText[:same], "\n") + 1}}
	case result.Content != "" && (kind == "read" || kind == "search" || kind == "execute"):
		u["content"] = []any{textContent(fenced("", result.Content))}
	case result.Content != "":
		u["content"] = []any{textContent(result.Content)}
	}
	return u
}

// acpPlan is the plan update of a todo_write call that succeeded: its todos as the plan's entries.
func acpPlan(input json.RawMessage) map[string]any {
	var in TodoInput
	json.Unmarshal(input, &in) // valid, as the call succeeded
	return map[string]any{"sessionUpdate": "plan", "entries": mapped(in.Todos, func(t TodoItem) map[string]string {
		return map[string]string{"content": t.Content, "status": t.Status, "priority": "medium"}
	})}
}

// abs is a tool's path as the client names files: absolute.
func (s *acpSession) abs(path string) string {
	if abs, err := resolveInput(s.app.Env, path); err == nil && path != "" {
		return abs
	}
	return path
}

// acpOptionKind is the ACP kind of an answer offered, "" for one not offered: rejecting with guidance needs text, which
// ACP cannot ask for, so it is a plain rejection where no other is offered (keep planning).
func acpOptionKind(choices []Choice, id ChoiceID) string {
	if id == ChoiceDenyGuidance && !slices.ContainsFunc(choices, func(c Choice) bool { return c.ID == ChoiceDenyOnce }) {
		return "reject_once"
	}
	return map[ChoiceID]string{ChoiceAllowOnce: "allow_once", ChoiceAllowTurn: "allow_always", ChoiceAllowFileTurn: "allow_always", ChoiceAllowEditsTurn: "allow_always",
		ChoiceAllowAlways: "allow_always", ChoicePlanAcceptEdits: "allow_always", ChoiceDenyOnce: "reject_once", ChoiceDenyAlways: "reject_always"}[id]
}

// Ask puts a permission question to the client (session/request_permission),
// an edit's diff or a plan with it; "always" answers are saved where the terminal's are by default.
func (s *acpSession) Ask(ctx context.Context, p Prompt) (Answer, error) {
	var options []map[string]string
	for _, c := range p.Choices {
		if kind := acpOptionKind(p.Choices, c.ID); kind != "" {
			options = append(options, map[string]string{"optionId": string(c.ID), "name": strings.ToUpper(c.Label[:1]) + c.Label[1:], "kind": kind})
		}
	}
	content := []any{textContent(strings.TrimSpace(p.Body + "\n\n" + p.Warning + "\n" + p.Reason))}
	if c := p.Request.Change; p.Diff != "" {
		content = append(content, textContent(fenced("diff", p.Diff)), acpFileDiff(p.Request.Paths[0], c.Before, c.After))
	}
	call := map[string]any{"toolCallId": p.Request.ToolUseID, "title": p.Title, "content": content}
	var out struct {
		Outcome struct{ Outcome, OptionID string }
	}
	if err := s.conn.call(ctx, "session/request_permission", map[string]any{"sessionId": s.id, "toolCall": call, "options": options}, &out); err != nil {
		return Answer{}, err
	} else if out.Outcome.Outcome != "selected" {
		return Answer{}, errors.New("the client cancelled the question")
	}
	if !slices.ContainsFunc(options, func(o map[string]string) bool { return o["optionId"] == out.Outcome.OptionID }) {
		return Answer{}, fmt.Errorf("the client chose %q, which was not offered", out.Outcome.OptionID)
	}
	a := Answer{Choice: ChoiceID(out.Outcome.OptionID)}
	if savesRule(a.Choice) && len(p.SaveTargets) > 0 {
		a.SaveTo = p.SaveTargets[0].Target
	}
	return a, nil
}

// ReadText reads a file through the client (fs/read_text_file): the model sees unsaved buffers; errors.ErrUnsupported: the disk.
func (s *acpSession) ReadText(path string) (string, error) {
	if !s.conn.fs.ReadTextFile {
		return "", errors.ErrUnsupported
	}
	var out struct{ Content string }
	err := s.conn.call(s.conn.life, "fs/read_text_file", map[string]any{"sessionId": s.id, "path": path}, &out)
	return out.Content, err
}

// WriteText keeps the change as the diff of the call's tool_call_update (a failed call shows none) and
// writes the file through the client (fs/write_text_file), so that the edit lands in the editor's undo
// history; errors.ErrUnsupported: the client writes no files, and the disk is written.
func (s *acpSession) WriteText(path, before, after string) error {
	s.mu.Lock()
	s.changes[path] = acpFileDiff(path, before, after)
	s.mu.Unlock()
	if !s.conn.fs.WriteTextFile {
		return errors.ErrUnsupported
	}
	return s.conn.call(s.conn.life, "fs/write_text_file", map[string]any{"sessionId": s.id, "path": path, "content": after}, nil)
}
