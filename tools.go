package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"
)

// Limits on what tool results may put into the conversation.
const (
	maxResultChars      = 50_000  // a larger result goes to disk
	resultPreviewChars  = 2_000   // what stays in the conversation of a stored result
	maxBatchResultChars = 200_000 // all results of one batch together
	defaultToolTimeout  = 5 * time.Minute
)

// ToolOutput is what a tool returns to the model.
type ToolOutput struct {
	Text     string
	Media    []Block // images and documents that go to the model with the text
	IsError  bool
	Question string // set by ask_user: the turn pauses after the batch to put it to the user
	Stop     string // why a hook said {"continue": false}: the turn ends after the batch
}

// ToolEnv is what tools may use: workspace, results folder, permissions, hooks.
type ToolEnv struct {
	Workspace  string // absolute, symlinks resolved
	ResultsDir string // where results over maxResultChars are stored
	Perms      Authorizer
	Hooks      *Hooks                        // PreToolUse and PostToolUse hooks; nil runs none
	Memory     *Memory                       // memory read_file adds for the files it reads; nil adds none
	Files      TextFiles                     // an editor's buffers, read and written in place of the disk; nil: the disk
	Model      string                        // the model answering the turn, which subagents inherit; "" is the agent's
	Grants     []Rule                        // allow rules of the running skill or command: calls they cover run without asking
	Media      MediaLimits                   // what the provider accepts in an image or document
	Reads      *FileReads                    // what read_file read, to answer a re-read with a note; nil: always the text
	Wrote      func(abs string, data []byte) // told of each file a file tool wrote on the disk; may be nil
}

// TextFiles is an editor's view of the files (acp_tools.go), through which
// the file tools read and write text; permissions are judged as for the disk.
type TextFiles interface {
	ReadText(path string) (string, error)       // errors.ErrUnsupported: read the disk
	WriteText(path, before, after string) error // before is "" for a new file; errors.ErrUnsupported: write the disk
}

// forTurn returns env for the calls of one turn: a copy holding the turn's model
// and the grants of the skill or command that started it, or env if it changes neither.
func (env *ToolEnv) forTurn(model string, grants []Rule) *ToolEnv {
	if env == nil && len(grants) == 0 || model == "" && len(grants) == 0 {
		return env
	}
	var e ToolEnv
	if env != nil {
		e = *env
	}
	e.Model, e.Grants = cmp.Or(model, e.Model), slices.Concat(e.Grants, grants)
	return &e
}

// Tool is one capability offered to the model, built-in or from MCP.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
	ReadOnly    bool          // changes nothing: may run in parallel with other such calls
	Concurrent  bool          // may run in parallel though not read-only: bounds its own concurrency
	Timeout     time.Duration // bounds one run; zero means defaultToolTimeout
	// Decode turns the model's JSON into a validated input value.
	Decode func(raw json.RawMessage) (any, error)
	// Permission describes the call for the permission check; nil needs none.
	Permission func(env *ToolEnv, input any) (PermissionRequest, error)
	Run        func(ctx context.Context, env *ToolEnv, input any) (ToolOutput, error)
}

// ToolDef declares a built-in tool whose input is the struct T: its json, desc,
// validate and default tags make the JSON schema, check calls and fill gaps.
// ask_user (askUserTool, tools_builtin.go) is a short example; run_command (tools_shell.go) one with a Permission.
type ToolDef[T any] struct {
	Name        string
	Description string
	ReadOnly    bool
	Concurrent  bool
	Timeout     time.Duration
	Permission  func(env *ToolEnv, in T) (PermissionRequest, error)
	Run         func(ctx context.Context, env *ToolEnv, in T) (ToolOutput, error)
}

// inputValidator checks tool inputs; it reports fields by their JSON names.
var inputValidator = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(jsonName)
	return v
}()

// Tool builds the registry entry for d.
func (d ToolDef[T]) Tool() *Tool {
	schema, err := json.Marshal(schemaFor(reflect.TypeFor[T]()))
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", d.Name, err))
	}
	t := &Tool{Name: d.Name, Description: d.Description, Schema: schema, ReadOnly: d.ReadOnly, Concurrent: d.Concurrent, Timeout: d.Timeout,
		Decode: func(raw json.RawMessage) (any, error) {
			var in T
			err := decodeInput(raw, &in)
			return in, err
		},
		Run: func(ctx context.Context, env *ToolEnv, input any) (ToolOutput, error) {
			return d.Run(ctx, env, input.(T))
		},
	}
	if d.Permission != nil {
		t.Permission = func(env *ToolEnv, input any) (PermissionRequest, error) {
			return d.Permission(env, input.(T))
		}
	}
	return t
}

// decodeInput unmarshals and validates a call's input, naming field and rule.
func decodeInput(raw json.RawMessage, in any) error {
	if trimmed := strings.TrimSpace(string(raw)); trimmed == "" || trimmed == "null" { // no arguments
		raw = json.RawMessage("{}")
	}
	v := reflect.ValueOf(in).Elem()
	for f := range v.Type().Fields() {
		if def, ok := f.Tag.Lookup("default"); ok {
			fmt.Sscan(def, v.FieldByIndex(f.Index).Addr().Interface())
		}
	}
	var args string // arguments that are not JSON arrive as a JSON string (toolInput)
	if json.Unmarshal(raw, &args) == nil && !json.Valid([]byte(args)) {
		var syntaxErr *json.SyntaxError
		errors.As(json.Unmarshal([]byte(args), new(any)), &syntaxErr)
		at := int(syntaxErr.Offset)
		return fmt.Errorf("invalid input: the arguments are not valid JSON: %v at character %d of %d, after %q", syntaxErr, at, len(args), args[max(0, at-40):at])
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return fmt.Errorf("invalid input: %s", jsonError(err, nil, 0))
	}
	if err := inputValidator.Struct(in); err != nil {
		var fieldErrs validator.ValidationErrors
		if !errors.As(err, &fieldErrs) {
			return fmt.Errorf("invalid input: %v", err)
		}
		msgs := make([]string, len(fieldErrs))
		for i, fe := range fieldErrs {
			_, field, _ := strings.Cut(fe.Namespace(), ".")
			rule := map[string]string{"required": "is required", "min": "must be at least ", "gte": "must be at least ",
				"max": "must be at most ", "lte": "must be at most ", "oneof": "must be one of: "}[fe.Tag()]
			if rule == "" {
				rule = fmt.Sprintf("fails rule %q", strings.TrimSuffix(fe.Tag()+"="+fe.Param(), "="))
			} else if fe.Tag() != "required" {
				rule += fe.Param()
			}
			msgs[i] = fmt.Sprintf("field %q %s", field, rule)
		}
		return fmt.Errorf("invalid input: %s", strings.Join(msgs, "; "))
	}
	return nil
}

// schemaFor generates the JSON schema of a Go type from its fields' tags.
func schemaFor(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := jsonType(t)
	switch {
	case kind == "":
		return map[string]any{}
	case kind == "array":
		return map[string]any{"type": kind, "items": schemaFor(t.Elem())}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": kind, "additionalProperties": schemaFor(t.Elem())}
	case kind != "object":
		return map[string]any{"type": kind}
	}
	props, required := map[string]any{}, []string{}
	for f := range t.Fields() {
		name := jsonName(f)
		if !f.IsExported() || name == "" {
			continue
		}
		prop := schemaFor(f.Type)
		if desc := f.Tag.Get("desc"); desc != "" {
			prop["description"] = desc
		}
		bound := map[string][2]string{"string": {"minLength", "maxLength"}, "array": {"minItems", "maxItems"}}[jsonType(f.Type)]
		if bound[0] == "" {
			bound = [2]string{"minimum", "maximum"}
		}
		for rule := range strings.SplitSeq(f.Tag.Get("validate"), ",") {
			key, param, _ := strings.Cut(rule, "=")
			switch key {
			case "required":
				required = append(required, name)
			case "oneof":
				prop["enum"] = strings.Fields(param)
			case "min", "gte":
				prop[bound[0]] = json.Number(param)
			case "max", "lte":
				prop[bound[1]] = json.Number(param)
			}
		}
		props[name] = prop
	}
	return map[string]any{"type": kind, "properties": props, "required": required, "additionalProperties": false}
}

// Registry holds the tools offered to the model and runs their calls.
type Registry struct {
	mu    sync.RWMutex
	tools []*Tool // in registration order

	Withheld func(name string) bool // tools not offered to the model (denied whole); nil withholds none
}

// newRegistry returns a registry holding tools in the given order.
func newRegistry(tools ...*Tool) *Registry {
	r := &Registry{}
	for _, t := range tools {
		r.Add(t)
	}
	return r
}

// Add registers or replaces a tool.
func (r *Registry) Add(t *Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.IndexFunc(r.tools, func(old *Tool) bool { return old.Name == t.Name }); i >= 0 {
		r.tools[i] = t
	} else {
		r.tools = append(r.tools, t)
	}
}

// Remove unregisters every tool whose name matches.
func (r *Registry) Remove(match func(name string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools = slices.DeleteFunc(r.tools, func(t *Tool) bool { return match(t.Name) })
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if i := slices.IndexFunc(r.tools, func(t *Tool) bool { return t.Name == name }); i >= 0 {
		return r.tools[i], true
	}
	return nil, false
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.tools)
}

// Specs describes the tools for the model: the built-in ones in registration order, then the MCP servers' by
// name, so that the list, where every request's cached prefix starts, is the same whichever server answered first.
func (r *Registry) Specs() []ToolSpec {
	tools := r.Tools()
	key := func(t *Tool) string { // the built-in tools tie, keeping their order
		if strings.HasPrefix(t.Name, "mcp__") {
			return "1" + t.Name
		}
		return "0"
	}
	slices.SortStableFunc(tools, func(a, b *Tool) int { return strings.Compare(key(a), key(b)) })
	var specs []ToolSpec
	for _, t := range tools {
		if r.Withheld == nil || !r.Withheld(t.Name) {
			specs = append(specs, ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
		}
	}
	return specs
}

// Execute runs one call through the hooks, validation, the permission check and the run; every outcome, a
// panic included, becomes a result. The input a PreToolUse hook gives replaces the model's, and is checked as
// the model's would be; a call blocked or refused runs no PostToolUse hook.
func (r *Registry) Execute(ctx context.Context, env *ToolEnv, call Block) ToolOutput {
	var hooks *Hooks
	if env != nil {
		hooks = env.Hooks
	}
	hook := hooks.Run(ctx, HookInput{HookEventName: HookPreToolUse, ToolName: call.Name, ToolUseID: call.ID, ToolInput: call.Input})
	if hook.Block || hook.Stop {
		out := ToolOutput{Text: "A PreToolUse hook blocked this call: " + hook.Reason, IsError: true}
		if hook.Stop {
			out.Stop = hook.Reason
		}
		return out
	}
	if len(hook.Input) > 0 {
		call.Input = minicodeInput(call.Name, hook.Input)
	}
	return r.execute(context.WithValue(ctx, keyToolUseID, call.ID), env, call, hook.Permission, hooks)
}

// execute is Execute after the PreToolUse hooks, whose permission say is
// hookDecision; the after-hooks see a call that ran, or failed running.
func (r *Registry) execute(ctx context.Context, env *ToolEnv, call Block, hookDecision string, hooks *Hooks) (out ToolOutput) {
	tool, ok := r.Get(call.Name)
	if !ok {
		return ToolOutput{Text: fmt.Sprintf("unknown tool %q; available tools: %s", call.Name, strings.Join(r.names(), ", ")), IsError: true}
	}
	defer func() {
		if p := recover(); p != nil {
			out = ToolOutput{Text: fmt.Sprintf("tool %s crashed: %v", call.Name, p), IsError: true}
		}
	}()
	input, judged, err := permit(ctx, env, tool, call, hookDecision)
	if err != nil {
		return ToolOutput{Text: err.Error(), IsError: true}
	}
	timeout := cmp.Or(tool.Timeout, defaultToolTimeout)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err = tool.Run(context.WithValue(runCtx, keyJudged, judged), env, input)
	switch {
	case ctx.Err() != nil:
		return ToolOutput{Text: "cancelled by the user before the tool finished", IsError: true}
	case runCtx.Err() == context.DeadlineExceeded:
		out = ToolOutput{Text: fmt.Sprintf("tool %s timed out after %s", tool.Name, timeout), IsError: true}
	case err != nil:
		out = ToolOutput{Text: err.Error(), IsError: true}
	}
	return hooks.afterTool(ctx, call, out)
}

// permit decodes a call's input and runs its permission check, returning the request judged; an input an
// approver changed is decoded and checked again, as approved.
func permit(ctx context.Context, env *ToolEnv, tool *Tool, call Block, hookDecision string) (any, PermissionRequest, error) {
	raw, changed := call.Input, false
	for {
		input, err := tool.Decode(raw)
		if err != nil && changed {
			return nil, PermissionRequest{}, fmt.Errorf("the changed input is not valid: %w", err)
		}
		if err != nil || tool.Permission == nil {
			return input, PermissionRequest{}, err
		}
		req, err := tool.Permission(env, input)
		req.Found = make([]fs.FileInfo, len(req.Paths))
		for i, abs := range req.Paths {
			req.Found[i], _ = os.Lstat(abs)
		}
		if err != nil || env.Perms == nil {
			return input, req, err
		}
		req.Tool, req.ToolUseID, req.Input = tool.Name, call.ID, raw
		req.HookDecision, req.Grants = hookDecision, env.Grants
		err = env.Perms.Authorize(ctx, req)
		var replaced *InputReplaced
		if changed || !errors.As(err, &replaced) {
			return input, req, err
		}
		raw, hookDecision, changed = replaced.Input, "allow", true
	}
}

// judgedPath is the path a file tool's call was checked for and the file
// found there then; a call run without the check resolves path now.
func judgedPath(ctx context.Context, env *ToolEnv, path string) (string, fs.FileInfo, error) {
	if judged := contextValue[PermissionRequest](ctx, keyJudged); len(judged.Paths) > 0 {
		return judged.Paths[0], judged.Found[0], nil
	}
	abs, err := resolveInput(env, path)
	if err != nil {
		return "", nil, err
	}
	found, _ := os.Lstat(abs)
	return abs, found, nil
}

// names lists the registered tool names, sorted.
func (r *Registry) names() []string {
	var names []string
	for _, t := range r.Tools() {
		names = append(names, t.Name)
	}
	return slices.Sorted(slices.Values(names))
}

// isParallel reports whether the named tool is read-only or bounds its own concurrency.
func (r *Registry) isParallel(name string) bool {
	t, ok := r.Get(name)
	return ok && (t.ReadOnly || t.Concurrent)
}

// storeLargeResults moves to dir each result over maxResultChars, then the
// largest until the batch fits maxBatchResultChars, leaving previews. The dir is the session's
// ~/.minicode/tool-results/<session-id> (App.useSession, app_session.go); read_file reads it without
// asking (Permissions.readable, permissions_paths.go), as do sandboxed commands (CommandSpec.Readable).
func storeLargeResults(dir string, results []Block) {
	order, total := make([]*Block, len(results)), 0
	for i := range results {
		order[i] = &results[i]
		total += len(results[i].Content)
	}
	slices.SortStableFunc(order, func(a, b *Block) int { return len(b.Content) - len(a.Content) })
	for _, r := range order {
		if len(r.Content) <= maxResultChars && total <= maxBatchResultChars {
			break
		}
		if len(r.Content) <= resultPreviewChars {
			continue
		}
		name := cmp.Or(strings.NewReplacer("/", "_", "\\", "_", ".", "_").Replace(r.ToolUseID), fmt.Sprintf("result-%d", time.Now().UnixNano()))
		path := filepath.Join(dir, name+".txt")
		note := fmt.Sprintf("output of %d characters was too large and is stored in %s; read it with read_file using offset and limit", len(r.Content), path)
		if err := writeFileAtomic(path, []byte(r.Content), 0o644); err != nil {
			note = fmt.Sprintf("output of %d characters cut here; storing it failed: %v", len(r.Content), err)
		}
		stored := cutBytes(r.Content, resultPreviewChars, "") + "\n\n[" + note + "]"
		total += len(stored) - len(r.Content)
		r.Content = stored
	}
}

// afterTool runs the PostToolUse hooks of a call that ran, or the PostToolUseFailure hooks of one that failed, appending what they say to the result.
func (h *Hooks) afterTool(ctx context.Context, call Block, out ToolOutput) ToolOutput {
	in := HookInput{HookEventName: HookPostToolUse, ToolName: call.Name, ToolUseID: call.ID, ToolInput: call.Input}
	if out.IsError {
		in.HookEventName, in.Error = HookPostToolUseFailure, out.Text
	} else {
		in.ToolResponse, _ = json.Marshal(map[string]any{"content": out.Text, "is_error": false})
	}
	v := h.Run(ctx, in)
	if v.Block || v.Stop {
		out.Text += "\n\n" + string(in.HookEventName) + " hook: " + v.Reason
	}
	if v.Stop {
		out.Stop = v.Reason
	}
	if v.Context != "" {
		out.Text += "\n\n" + v.Context
	}
	return out
}

// contextKey names the values minicode keeps in a context.
type contextKey int

// The context keys.
const (
	keyToolUseID     contextKey = iota // the id of the tool call being run
	keySubagentDepth                   // how many subagents deep a call runs
	keyJudged                          // the PermissionRequest judged for the call being run
	keyHistory                         // the conversation the call's batch answers, as []Message
)

// contextValue returns the value ctx holds under key, or T's zero value.
func contextValue[T any](ctx context.Context, key contextKey) T {
	v, _ := ctx.Value(key).(T)
	return v
}
