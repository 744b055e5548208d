package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// resultRecord is the final object of --output-format json and the last
// line of stream-json.
type resultRecord struct {
	Type       string `json:"type"`
	Subtype    string `json:"subtype"`
	IsError    bool   `json:"is_error"`
	Result     string `json:"result"`
	SessionID  string `json:"session_id"`
	NumTurns   int    `json:"num_turns"`
	DurationMS int64  `json:"duration_ms"`
	Usage      Usage  `json:"usage"`
	// PermissionDenials lists the tool calls that were not allowed.
	PermissionDenials []Denial `json:"permission_denials"`
}

// streamRecord is one line of stream-json output besides the result.
type streamRecord struct {
	Type           string   `json:"type"`
	Subtype        string   `json:"subtype,omitempty"`
	SessionID      string   `json:"session_id"`
	Message        *Message `json:"message,omitempty"`
	Model          string   `json:"model,omitempty"`
	CWD            string   `json:"cwd,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	PermissionMode string   `json:"permissionMode,omitempty"`
	Sandbox        string   `json:"sandbox,omitempty"` // what limits commands (init only)
	// ParentToolUseID marks a subagent's messages: the task call's id.
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`
	// CompactMetadata describes a compact_boundary: what started the
	// compaction and the tokens before it.
	CompactMetadata *compactMetadata `json:"compact_metadata,omitempty"`
}

// compactMetadata is the compact_metadata of a compact_boundary line.
type compactMetadata struct {
	Trigger   string `json:"trigger"`
	PreTokens int    `json:"pre_tokens"`
}

// runHeadless runs one task with nobody to ask and prints its outcome in
// the chosen output format. It returns errTaskFailed when the task did not
// succeed, and the context's error when interrupted.
func (app *App) runHeadless(ctx context.Context, task string) error {
	start := time.Now()
	out := &lineWriter{w: app.stdout}
	if app.Opts.OutputFormat == "stream-json" {
		var names []string
		for _, t := range app.Registry.Tools() {
			names = append(names, t.Name)
		}
		out.json(streamRecord{Type: "system", Subtype: "init", SessionID: app.SessionID, Model: app.Model,
			CWD: app.Workspace, Tools: names, PermissionMode: string(app.Perms.Mode()),
			Sandbox: app.Sandbox.Status()})
		app.Agent.Emit = func(e Event) {
			switch e.Kind {
			case EventAssistant:
				out.json(streamRecord{Type: "assistant", SessionID: app.SessionID, Message: e.Message, ParentToolUseID: e.ParentToolUseID})
			case EventToolResults:
				out.json(streamRecord{Type: "user", SessionID: app.SessionID, Message: e.Message, ParentToolUseID: e.ParentToolUseID})
			case EventCompact:
				if c := e.Compaction; c.Layer == LayerCompact && e.ParentToolUseID == "" {
					out.json(streamRecord{Type: "system", Subtype: "compact_boundary", SessionID: app.SessionID,
						CompactMetadata: &compactMetadata{Trigger: c.Trigger, PreTokens: c.PreTokens}})
				}
			case EventNotice:
				fmt.Fprintln(app.stderr, e.Text)
			}
		}
	} else {
		app.Agent.Emit = func(e Event) {
			if e.Kind == EventNotice {
				fmt.Fprintln(app.stderr, e.Text)
			}
		}
	}
	prompt := slashPrompt{Prompt: task}
	if strings.HasPrefix(task, "/") {
		sp, ok, err := app.slashPromptFor(ctx, task)
		if err != nil {
			return err
		}
		if ok {
			prompt = sp
		}
	}
	res := app.runPrompt(ctx, app.Session.View(), prompt)
	record := resultRecord{
		Type:              "result",
		Subtype:           resultSubtype(res.End),
		Result:            res.Text,
		SessionID:         app.SessionID,
		NumTurns:          res.Steps,
		DurationMS:        time.Since(start).Milliseconds(),
		Usage:             res.Usage,
		PermissionDenials: app.Perms.Denials(),
	}
	if record.PermissionDenials == nil {
		record.PermissionDenials = []Denial{}
	}
	// A denial means part of the task could not be done as asked.
	record.IsError = record.Subtype != "success" || len(record.PermissionDenials) > 0
	switch app.Opts.OutputFormat {
	case "json", "stream-json":
		out.json(record)
	default:
		// A turn that did not succeed has already said why on stderr.
		if res.End == EndFinal || res.End == EndAskUser {
			_, err := fmt.Fprintln(app.stdout, res.Text)
			out.err = cmp.Or(out.err, err)
		}
	}
	switch {
	case res.End == EndCancelled:
		return context.Canceled
	case out.err != nil:
		return fmt.Errorf("writing the output: %w", out.err)
	case record.IsError:
		return errTaskFailed
	}
	return nil
}

// resultSubtype names a turn's ending in the result record.
func resultSubtype(end TurnEnd) string {
	switch end {
	case EndFinal, EndAskUser:
		return "success"
	case EndMaxSteps:
		return "error_max_turns"
	default:
		return "error_during_execution"
	}
}

// lineWriter writes JSON lines, safe for use from several goroutines, and
// remembers the first write error.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// json writes v as one line.
func (l *lineWriter) json(v any) {
	data, err := json.Marshal(v)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		_, err = l.w.Write(append(data, '\n'))
	}
	if err != nil && l.err == nil {
		l.err = err
	}
}
