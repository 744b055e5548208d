package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Hooks are shell commands run at points of a session, in Claude Code's format: the "hooks" key of
// a settings file maps an event to [{matcher, hooks: [{type: "command", command, timeout}]}]. A
// command reads the event as JSON on stdin; exit 0 goes on (stdout may add context), exit 2 blocks
// with stderr as the reason, other exits are shown and block nothing. A JSON object on stdout may
// decide instead: {"decision": "block"}, {"continue": false, "stopReason": …} or
// {"hookSpecificOutput": {"permissionDecision": "allow"|"deny"|"ask", "updatedInput": {…}}}.
// Hooks see Claude Code's tool names and input keys (claudeTools).

// HookEvent names a point of a session where hooks run.
type HookEvent string

// The events hooks can attach to.
const (
	HookPreToolUse         HookEvent = "PreToolUse"         // before a tool call; may block it or change its input
	HookPermissionRequest  HookEvent = "PermissionRequest"  // before a permission question; may answer it
	HookPostToolUse        HookEvent = "PostToolUse"        // after a tool call; may tell the model something
	HookPostToolUseFailure HookEvent = "PostToolUseFailure" // after a tool call that failed
	HookUserPromptSubmit   HookEvent = "UserPromptSubmit"   // before a prompt is sent; may drop it or add context
	HookStop               HookEvent = "Stop"               // when the model answers; may make it go on
	HookSubagentStart      HookEvent = "SubagentStart"      // when a subagent starts; may add context
	HookSubagentStop       HookEvent = "SubagentStop"       // when a subagent answers; may make it go on
	HookSessionStart       HookEvent = "SessionStart"       // at start; stdout is added as context
	HookSessionEnd         HookEvent = "SessionEnd"         // when minicode exits
	HookPreCompact         HookEvent = "PreCompact"         // before the conversation is compacted
	HookNotification       HookEvent = "Notification"       // when minicode waits for the user
)

// hookEvents lists the events in the order /hooks shows them.
var hookEvents = []HookEvent{HookSessionStart, HookUserPromptSubmit, HookPreToolUse, HookPermissionRequest, HookPostToolUse,
	HookPostToolUseFailure, HookNotification, HookSubagentStart, HookSubagentStop, HookStop, HookPreCompact, HookSessionEnd}

// defaultHookTimeout bounds a hook that sets no timeout of its own.
const defaultHookTimeout = 60 * time.Second

// HookSettings is the "hooks" key of a settings file.
type HookSettings map[HookEvent][]HookMatcher

// HookMatcher runs its hooks when Matcher, a regexp over minicode's or Claude Code's tool names, fits; "" and "*" match all.
type HookMatcher struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`

	source string         // the settings file it came from
	re     *regexp.Regexp // the compiled matcher; nil matches everything
}

// HookCommand is one hook: a bash command, or a function of the program driving minicode.
type HookCommand struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"` // seconds; 0 means defaultHookTimeout

	// call, when set, gets the event's JSON and returns what a command would print on stdout.
	call func(ctx context.Context, input []byte) (string, error)
}

// check validates and compiles one settings file's hooks; events, types and fields minicode lacks are dropped and returned.
func (hs HookSettings) check(data []byte, source string) (ignored []string, err error) {
	at := func(needle string) int { return lineOf(data, max(int64(bytes.Index(data, []byte(needle))), 0)) }
	var raw struct {
		Hooks map[HookEvent][]map[string]json.RawMessage `json:"hooks"`
	}
	_ = json.Unmarshal(data, &raw) // decoded into hs already
	for _, event := range slices.Sorted(maps.Keys(hs)) {
		if !slices.Contains(hookEvents, event) {
			delete(hs, event)
			ignored = append(ignored, "hooks."+string(event))
			continue
		}
		for i := range hs[event] {
			m, rawMatcher := &hs[event][i], raw.Hooks[event][i]
			m.source = source
			if err := m.compile(); err != nil {
				return nil, fmt.Errorf("line %d: field \"hooks.%s[%d].matcher\": %v", at(m.Matcher), event, i, err)
			}
			if len(m.Hooks) == 0 {
				return nil, fmt.Errorf("line %d: field \"hooks.%s[%d].hooks\": the list of commands is missing or empty", at(`"`+string(event)+`"`), event, i)
			}
			ignored = append(ignored, unknownKeys(rawMatcher, reflect.TypeFor[HookMatcher](), fmt.Sprintf("hooks.%s[%d].", event, i))...)
			var rawHooks []map[string]json.RawMessage
			_ = json.Unmarshal(rawMatcher["hooks"], &rawHooks)
			var commands []HookCommand
			for j, h := range m.Hooks {
				field := fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, i, j)
				switch {
				case h.Type != "command":
					ignored = append(ignored, fmt.Sprintf("%s (type %q)", field, h.Type))
				case strings.TrimSpace(h.Command) == "":
					return nil, fmt.Errorf("line %d: field %q is missing or empty", at(`"`+string(event)+`"`), field+".command")
				case h.Timeout < 0:
					return nil, fmt.Errorf("line %d: field %q must not be negative", at(h.Command), field+".timeout")
				default:
					commands = append(commands, h)
					ignored = append(ignored, unknownKeys(rawHooks[j], reflect.TypeFor[HookCommand](), field+".")...)
				}
			}
			m.Hooks = commands
		}
	}
	return ignored, nil
}

// compile compiles the matcher; "" and "*" match every tool.
func (m *HookMatcher) compile() error {
	if p := m.Matcher; p != "" && p != "*" {
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return fmt.Errorf("%q is not a valid regular expression: %v", p, err)
		}
		m.re = re
	}
	return nil
}

// HookInput is the JSON a hook reads on stdin; the tool's name and input are minicode's until Run sends them.
type HookInput struct {
	SessionID          string          `json:"session_id"`
	TranscriptPath     string          `json:"transcript_path"`
	CWD                string          `json:"cwd"`
	PermissionMode     PermissionMode  `json:"permission_mode,omitempty"`
	HookEventName      HookEvent       `json:"hook_event_name"`
	ToolName           string          `json:"tool_name,omitempty"`
	ToolInput          json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse       json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID          string          `json:"tool_use_id,omitempty"`
	Error              string          `json:"error,omitempty"` // PostToolUseFailure
	Prompt             string          `json:"prompt,omitempty"`
	Message            string          `json:"message,omitempty"`             // Notification
	NotificationType   string          `json:"notification_type,omitempty"`   // Notification: permission_prompt or idle_prompt
	Source             string          `json:"source,omitempty"`              // SessionStart: startup
	Reason             string          `json:"reason,omitempty"`              // SessionEnd
	Trigger            string          `json:"trigger,omitempty"`             // PreCompact: manual or auto
	CustomInstructions string          `json:"custom_instructions,omitempty"` // PreCompact
	AgentID            string          `json:"agent_id,omitempty"`            // SubagentStart and SubagentStop: the task call's id
	AgentType          string          `json:"agent_type,omitempty"`          // SubagentStart and SubagentStop: the agent's name
	StopHookActive     *bool           `json:"stop_hook_active,omitempty"`    // Stop and SubagentStop: a hook already made the model go on
	LastMessage        string          `json:"last_assistant_message,omitempty"`
}

// HookVerdict is what the hooks of one event decided together.
type HookVerdict struct {
	Block      bool            // a hook exited 2 or decided "block" (or "deny")
	Stop       bool            // a hook said {"continue": false}: the turn ends
	Reason     string          // why, for the model or the user
	Permission string          // PreToolUse and PermissionRequest: "allow" or "ask" from a hook, else ""
	Input      json.RawMessage // PreToolUse and PermissionRequest: the input to run the call with instead, Claude Code's keys
	Context    string          // what hooks added to the conversation
}

// hookReply is the JSON a hook may print on stdout.
type hookReply struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		Decision                 struct {        // PermissionRequest's answer (keys match in any case)
			Behavior, Message string
			UpdatedInput      json.RawMessage
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// Hooks runs the hooks of one session. A nil *Hooks runs none.
type Hooks struct {
	Config     HookSettings
	SessionID  string
	Workspace  string
	Transcript string       // the session's transcript file, for transcript_path
	Notice     func(string) // shows hook errors to the user

	Mode func() PermissionMode // the permission mode, for permission_mode; nil sends none
	// Observe, when set, is told as each command starts, with the event and
	// its subject ("SessionStart:startup"), and returns what is told its end.
	Observe func(event HookEvent, name string) (ended func(stdout, stderr string, err error))
}

// Run runs the fitting hooks of in's event at once and combines their verdicts; cancelling ctx kills them.
func (h *Hooks) Run(ctx context.Context, in HookInput) HookVerdict {
	if h == nil {
		return HookVerdict{}
	}
	var cmds []HookCommand
	subject := cmp.Or(in.ToolName, in.AgentType, in.NotificationType, in.Source, in.Trigger)
	for _, m := range h.Config[in.HookEventName] {
		if m.re == nil || slices.ContainsFunc(toolNamesFor(subject), m.re.MatchString) {
			cmds = append(cmds, m.Hooks...)
		}
	}
	if len(cmds) == 0 {
		return HookVerdict{}
	}
	in.SessionID, in.TranscriptPath, in.CWD = h.SessionID, h.Transcript, h.Workspace
	if h.Mode != nil {
		in.PermissionMode = h.Mode()
	}
	in.ToolName, in.ToolInput = claudeCall(in.ToolName, in.ToolInput, h.Workspace)
	stdin, err := json.Marshal(in)
	if err != nil {
		h.notice(fmt.Sprintf("%s hooks: %v", in.HookEventName, err))
		return HookVerdict{}
	}
	verdicts := make([]HookVerdict, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Go(func() {
			verdicts[i] = h.runOne(ctx, in.HookEventName, strings.TrimSuffix(string(in.HookEventName)+":"+subject, ":"), c, stdin)
		})
	}
	wg.Wait()
	return combineVerdicts(verdicts)
}

// combineVerdicts joins one event's verdicts: any block blocks, ask beats allow, and reasons and context add up.
func combineVerdicts(vs []HookVerdict) HookVerdict {
	var out HookVerdict
	var reasons, context []string
	for _, v := range vs {
		out.Block = out.Block || v.Block
		out.Stop = out.Stop || v.Stop
		if v.Permission == "ask" || out.Permission == "" {
			out.Permission = cmp.Or(v.Permission, out.Permission)
		}
		reasons = appendNew(reasons, v.Reason)
		context = appendNew(context, v.Context)
		out.Input = json.RawMessage(cmp.Or(string(out.Input), string(v.Input))) // the first hook's
	}
	if !out.Block && !out.Stop && out.Permission == "" {
		reasons = nil
	}
	out.Reason, out.Context = strings.Join(reasons, "\n"), strings.Join(context, "\n")
	return out
}

// runOne runs one hook and reads its answer.
func (h *Hooks) runOne(ctx context.Context, event HookEvent, name string, c HookCommand, stdin []byte) HookVerdict {
	timeout := cmp.Or(time.Duration(c.Timeout*float64(time.Second)), defaultHookTimeout)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ended := func(string, string, error) {}
	if h.Observe != nil {
		ended = h.Observe(event, name)
	}
	out, errText, err := h.runCommand(runCtx, c, stdin)
	ended(out, errText, err)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return HookVerdict{}
	case runCtx.Err() != nil:
		h.notice(fmt.Sprintf("%s hook %q timed out after %s and was killed", event, c.Command, timeout))
		return HookVerdict{}
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return HookVerdict{Block: true, Reason: cmp.Or(errText, "blocked by a "+string(event)+" hook")}
	case errors.As(err, &exit) && (exit.ExitCode() == 126 || exit.ExitCode() == 127):
		h.notice(fmt.Sprintf("%s hook %q could not run (exit %d, command not found or not executable): %s", event, c.Command, exit.ExitCode(), errText))
		return HookVerdict{}
	case err != nil:
		h.notice(strings.TrimSuffix(fmt.Sprintf("%s hook %q failed: %v: %s", event, c.Command, err, errText), ": "))
		return HookVerdict{}
	}
	return h.readReply(event, c, out)
}

// runCommand runs a hook's call, or its command with bash -c (outside the sandbox, as Claude Code runs hooks), in a process group that ctx kills whole.
func (h *Hooks) runCommand(ctx context.Context, c HookCommand, stdin []byte) (stdout, stderr string, err error) {
	if c.call != nil {
		stdout, err = c.call(ctx, stdin)
		return stdout, "", err
	}
	out, errOut := newBoundedOutput(commandStreamBudget), newBoundedOutput(commandStreamBudget)
	cmd := exec.CommandContext(ctx, "bash", "-c", c.Command)
	cmd.Dir, cmd.SysProcAttr, cmd.WaitDelay = h.Workspace, commandProcAttr(), time.Second
	cmd.Env = slices.Concat(os.Environ(), shellEnv, []string{"CLAUDE_PROJECT_DIR=" + h.Workspace, "MINICODE_PROJECT_DIR=" + h.Workspace})
	cmd.Cancel = func() error { return killGroup(cmd, syscall.SIGKILL) }
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), out, errOut
	err = cmd.Run()
	return out.take(), strings.TrimSpace(errOut.take()), err
}

// readReply reads what a hook that exited 0 printed: a JSON decision or plain context.
func (h *Hooks) readReply(event HookEvent, c HookCommand, out string) HookVerdict {
	out = strings.TrimSpace(out)
	if !strings.HasPrefix(out, "{") {
		return HookVerdict{Context: out}
	}
	var r hookReply
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		h.notice(fmt.Sprintf("%s hook %q printed invalid JSON: %v", event, c.Command, err))
		return HookVerdict{}
	}
	if r.SystemMessage != "" {
		h.notice(r.SystemMessage)
	}
	hs := r.HookSpecificOutput
	v := HookVerdict{Reason: cmp.Or(hs.PermissionDecisionReason, hs.Decision.Message, r.Reason), Context: hs.AdditionalContext,
		Input: json.RawMessage(cmp.Or(string(hs.UpdatedInput), string(hs.Decision.UpdatedInput)))}
	switch d := cmp.Or(hs.PermissionDecision, hs.Decision.Behavior, map[string]string{"block": "deny", "approve": "allow"}[r.Decision]); d {
	case "deny":
		v.Block = true
	case "allow", "ask":
		v.Permission = d
	}
	if r.Continue != nil && !*r.Continue {
		v.Stop, v.Reason = true, cmp.Or(r.StopReason, v.Reason, "stopped by a "+string(event)+" hook")
	}
	if v.Block && v.Reason == "" {
		v.Reason = "blocked by a " + string(event) + " hook"
	}
	return v
}

// notice shows a hook problem to the user.
func (h *Hooks) notice(msg string) {
	if h.Notice != nil {
		h.Notice(msg)
	}
}

// Describe lists the hooks in force, by event: the text of /hooks.
func (h *Hooks) Describe() string {
	if h == nil || len(h.Config) == 0 {
		return "No hooks configured. Add them under \"hooks\" in a settings file (see the README)."
	}
	var b strings.Builder
	b.WriteString("Hooks:\n")
	for _, e := range hookEvents {
		for _, m := range h.Config[e] {
			for _, c := range m.Hooks {
				timeout := cmp.Or(c.Timeout, defaultHookTimeout.Seconds())
				fmt.Fprintf(&b, "  %-16s %-14s %s (timeout %gs, from %s)\n", e, cmp.Or(m.Matcher, "*"), c.Command, timeout, m.source)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
