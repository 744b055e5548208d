package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The headless output follows Claude Code's field for field, so that scripts and SDKs written for
// `claude -p` read minicode's as well: a system/init line, assistant and user lines as the conversation
// grows, optional stream_event lines with the streamed deltas, and a result.

// resultRecord is the final object of --output-format json and the last line of stream-json.
type resultRecord struct {
	Type              string                `json:"type"`
	Subtype           string                `json:"subtype"`
	IsError           bool                  `json:"is_error"`
	APIErrorStatus    *int                  `json:"api_error_status"`
	DurationMS        int64                 `json:"duration_ms"`
	DurationAPIMS     int64                 `json:"duration_api_ms"`
	NumTurns          int                   `json:"num_turns"`
	Result            string                `json:"result"`
	StopReason        *string               `json:"stop_reason"`
	SessionID         string                `json:"session_id"`
	TotalCostUSD      float64               `json:"total_cost_usd"`
	Usage             resultUsage           `json:"usage"`
	ModelUsage        map[string]modelUsage `json:"modelUsage"`
	PermissionDenials []Denial              `json:"permission_denials"` // the calls of the task that were not allowed
	TerminalReason    string                `json:"terminal_reason"`    // why the run ended, in the Agent SDK's words
	Errors            []string              `json:"errors,omitempty"`   // why an error subtype ended the run
	StructuredOutput  json.RawMessage       `json:"structured_output,omitempty"`
	UUID              string                `json:"uuid"`
}

// resultUsage is a run's token count, with the cache fields always present.
type resultUsage struct {
	InputTokens              int    `json:"input_tokens"`
	CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
	OutputTokens             int    `json:"output_tokens"`
	ServiceTier              string `json:"service_tier"`
}

// modelUsage is one model's share of a run.
type modelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
}

// runHeadless runs the task, or the turns a program sends (app_sdk.go), prints the outcome and returns errTaskFailed on failure.
func (app *App) runHeadless(ctx context.Context, task string) error {
	meter := &MeteredProvider{Provider: app.Agent.Provider, usage: map[string]Usage{}, budget: app.Opts.MaxBudgetUSD, workspace: app.Workspace}
	app.Agent.Provider = meter
	app.Agent.Emit = app.headlessEvents(meter)
	defer app.stdout.flush()
	if app.Opts.InputFormat == "stream-json" {
		return app.runStreamInput(ctx, meter)
	}
	app.MCP.Wait(ctx) // the first request offers the tools of the servers that start in time
	if app.Opts.OutputFormat == "stream-json" {
		app.stdout.json(app.initRecord())
	}
	return app.runHeadlessTask(ctx, SlashPrompt{Prompt: task}, meter)
}

// runHeadlessTask runs one task, which may be a custom command, and prints its result; its ID names its checkpoint ("" for a new one).
func (app *App) runHeadlessTask(ctx context.Context, task SlashPrompt, meter *MeteredProvider) error {
	start := time.Now()
	meter.reset()
	denied := len(app.Perms.Denials())
	structured, res := app.structuredAnswer(ctx, app.headlessTurn(ctx, task))
	record := app.resultOf(res, structured, meter, denied)
	record.DurationMS = time.Since(start).Milliseconds()
	switch {
	case app.Opts.OutputFormat == "json" || app.Opts.OutputFormat == "stream-json":
		app.stdout.json(record)
	case res.End == EndFinal || res.End == EndAskUser: // a failed turn has said why on stderr
		fmt.Fprintln(app.stdout, res.Text)
	case res.End == EndMaxSteps: // and on stdout, where Claude Code says it
		fmt.Fprintf(app.stdout, "Error: Reached max turns (%d)\n", res.Steps)
	}
	switch {
	case res.End == EndCancelled:
		return context.Canceled
	case app.stdout.failed() != nil:
		return fmt.Errorf("writing the output: %w", app.stdout.failed())
	case record.IsError:
		return errTaskFailed
	}
	return nil
}

// headlessTurn runs the task: a built-in command (/compact, say) as the terminal would, its text the answer;
// else its prompt (a custom command's or skill's, or the task with its @files attached) goes to the model.
func (app *App) headlessTurn(ctx context.Context, task SlashPrompt) TurnResult {
	history := app.Session.View()
	p, out, err := app.taskPrompt(ctx, SlashPrompt{Prompt: task.Prompt}, app.slashCommandList(), &history)
	switch {
	case err != nil: // the prompt is not sent: say why
		fmt.Fprintf(app.stderr, "minicode: %v\n", err)
		return TurnResult{Messages: history, End: EndError, Text: err.Error(), Err: err}
	case p == nil: // a built-in command ran
		return TurnResult{Messages: history, End: EndFinal, Text: out}
	}
	p.ID, p.Images = task.ID, append(task.Images, p.Images...)
	return app.runPrompt(ctx, history, *p)
}

// taskPrompt turns a task into the prompt of its turn: a command of commands runs, saying out, and gives
// a prompt only if it is a custom command or skill; any other text is the prompt, its @files attached.
func (app *App) taskPrompt(ctx context.Context, p SlashPrompt, commands []SlashCommand, history *[]Message) (*SlashPrompt, string, error) {
	if name, _, _ := strings.Cut(p.Prompt, " "); strings.HasPrefix(name, "/") && findSlashCommand(commands, name[1:]) != nil {
		command, out, _, err := app.slashInput(ctx, p.Prompt, history)
		return command, out, err
	}
	return &p, "", app.attachFiles(ctx, app.Env, &p, nil)
}

// resultOf builds the result record of a turn, listing the calls denied after the first denied ones. A turn
// the model answered is a success even if some calls were denied, unless it owes a structured answer.
func (app *App) resultOf(res TurnResult, structured json.RawMessage, meter *MeteredProvider, denied int) resultRecord {
	r := resultRecord{
		Type: "result", Result: res.Text, SessionID: app.Session.ID, StructuredOutput: structured,
		NumTurns: res.Steps, PermissionDenials: append([]Denial{}, app.Perms.Denials()[denied:]...), UUID: newSessionID(),
		Usage: resultUsage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, ServiceTier: "standard",
			CacheCreationInputTokens: res.Usage.CacheCreationInputTokens, CacheReadInputTokens: res.Usage.CacheReadInputTokens},
		ModelUsage: map[string]modelUsage{},
	}
	switch {
	case errors.Is(res.Err, errBudgetSpent):
		r.Subtype, r.TerminalReason = "error_max_budget_usd", "budget_exhausted"
	case res.End == EndMaxSteps:
		r.Subtype, r.TerminalReason, res.Text = "error_max_turns", "max_turns", fmt.Sprintf("Reached maximum number of turns (%d)", res.Steps)
	case res.End == EndBlocked: // a hook's stop is a success, as in Claude Code
		r.Subtype, r.TerminalReason = "success", "hook_stopped"
	case res.End != EndFinal && res.End != EndAskUser:
		r.Subtype, r.TerminalReason = "error_during_execution", cmp.Or(map[TurnEnd]string{EndError: "api_error", EndCancelled: "aborted_streaming"}[res.End], "model_error")
	case app.structured != nil && structured == nil:
		r.Subtype, r.TerminalReason, res.Text = "error_max_structured_output_retries", "structured_output_retry_exhausted", "the model did not deliver its answer through structured_output"
	default:
		r.Subtype, r.TerminalReason = "success", "completed"
	}
	if r.IsError = r.Subtype != "success"; r.IsError {
		r.Errors = []string{res.Text}
	}
	var apiErr *APIError
	if errors.As(res.Err, &apiErr) && apiErr.Status != 0 {
		r.APIErrorStatus = &apiErr.Status
	}
	apiTime, usage, last := meter.totals()
	r.DurationAPIMS = apiTime.Milliseconds()
	if last.StopReason != "" {
		r.StopReason = &last.StopReason
	}
	for model, u := range usage {
		limits := limitsFor(model, app.Settings.Limits)
		cost := costUSD(model, u)
		r.TotalCostUSD += cost
		r.ModelUsage[model] = modelUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: cost,
			CacheReadInputTokens: u.CacheReadInputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
			ContextWindow: limits.ContextWindow, MaxOutputTokens: limits.MaxOutput}
	}
	return r
}

// structuredOutput is the answer --json-schema asks for, given through the structured_output tool.
type structuredOutput struct {
	schema  any  // the decoded schema, for checking
	wrapped bool // the schema is not an object: the answer is the "output" field
	value   atomic.Pointer[json.RawMessage]
}

// structuredRetries is how often the model is reminded to call structured_output before the turn fails.
const structuredRetries = 2

// useJSONSchema makes the final answer structured output matching schema.
func (app *App) useJSONSchema(schema json.RawMessage) error {
	var decoded any
	if err := json.Unmarshal(schema, &decoded); err != nil {
		return fmt.Errorf("the JSON schema is not JSON: %v", err)
	}
	top, ok := decoded.(map[string]any)
	if !ok {
		return errors.New("the JSON schema must be an object")
	}
	so := &structuredOutput{schema: decoded}
	toolSchema := schema
	if top["type"] != "object" {
		so.wrapped = true
		toolSchema, _ = json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"output": decoded}, "required": []string{"output"}})
	}
	app.structured = so
	app.Registry.Add(&Tool{
		Name:        "structured_output",
		Description: "Deliver your final answer as structured data. Call this once, when the task is done, with the answer as input; it must match this tool's input schema.",
		Schema:      toolSchema,
		ReadOnly:    true,
		Decode:      so.decode,
		Run: func(_ context.Context, _ *ToolEnv, input any) (ToolOutput, error) {
			v := input.(json.RawMessage)
			so.value.Store(&v)
			return ToolOutput{Text: "Structured output recorded. Finish with a one-line final message."}, nil
		},
	})
	return nil
}

// decode checks the model's input against the schema and returns the answer it carries.
func (so *structuredOutput) decode(raw json.RawMessage) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("structured_output: the input is not JSON: %v", err)
	}
	if so.wrapped {
		input, _ := v.(map[string]any)
		v = input["output"] // missing from an input that is not an object
	}
	if err := checkSchema(so.schema, v, "output"); err != nil {
		return nil, fmt.Errorf("structured_output does not match the schema: %v; call it again with a corrected answer", err)
	}
	data, err := json.Marshal(v)
	return json.RawMessage(data), err
}

// structuredAnswer returns the structured output of the turn that ended with res, reminding the model if need be.
func (app *App) structuredAnswer(ctx context.Context, res TurnResult) (json.RawMessage, TurnResult) {
	if app.structured == nil {
		return nil, res
	}
	v := app.structured.value.Swap(nil) // the answer given since the last turn
	for i := 0; v == nil && res.End == EndFinal && i < structuredRetries; i++ {
		more := app.runPrompt(ctx, app.Session.View(), SlashPrompt{Prompt: "Call the structured_output tool now with your final answer; its input must match the tool's schema."})
		more.Steps += res.Steps
		more.Usage.Add(res.Usage)
		res, v = more, app.structured.value.Swap(nil)
	}
	if v == nil {
		return nil, res
	}
	return *v, res
}

// checkSchema checks v against JSON Schema's data-shape keywords (type, enum, const, required,
// properties, additionalProperties, items, minItems, maxItems); at names the place for the error message.
func checkSchema(schema, v any, at string) error {
	s, _ := schema.(map[string]any) // true, or a schema form not checked, checks nothing
	types, isList := s["type"].([]any)
	if !isList {
		types = []any{s["type"]}
	}
	enum, hasEnum := s["enum"].([]any)
	c, hasConst := s["const"]
	switch _, typed := s["type"]; {
	case typed && !slices.ContainsFunc(types, func(t any) bool { return hasJSONType(v, t) }):
		return fmt.Errorf("%s must be of type %v", at, s["type"])
	case hasEnum && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }):
		return fmt.Errorf("%s must be one of %v", at, enum)
	case hasConst && !reflect.DeepEqual(c, v):
		return fmt.Errorf("%s must be %v", at, c)
	}
	switch v := v.(type) {
	case map[string]any:
		required, _ := s["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			if _, ok := v[name]; !ok && name != "" {
				return fmt.Errorf("%s.%s is required", at, name)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if _, known := props[name]; !known && s["additionalProperties"] == false {
				return fmt.Errorf("%s.%s is not allowed", at, name)
			}
			if err := checkSchema(props[name], v[name], at+"."+name); err != nil {
				return err
			}
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(v)) < n {
			return fmt.Errorf("%s needs at least %v items", at, n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(v)) > n {
			return fmt.Errorf("%s takes at most %v items", at, n)
		}
		for i, item := range v {
			if err := checkSchema(s["items"], item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasJSONType reports whether the decoded JSON value v is of the JSON Schema type t.
func hasJSONType(v, t any) bool {
	if v == nil {
		return t == "null"
	}
	kind := jsonType(reflect.TypeOf(v))
	return t == kind || t == "integer" && kind == "number" && v.(float64) == math.Trunc(v.(float64))
}

// LineWriter is minicode's output: it serialises writes, remembers the first error and writes JSON lines.
type LineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	err     error
	collect bool              // keep the JSON lines, for flush to print as one array
	lines   []json.RawMessage // those kept
}

// Write writes p whole before another write may start.
func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	l.err = cmp.Or(l.err, err)
	return n, err
}

// failed returns the first error of a write, if one failed.
func (l *LineWriter) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// json writes v as one line (with one Write), or keeps it.
func (l *LineWriter) json(v any) {
	data, err := json.Marshal(v)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.collect && err == nil {
		l.lines = append(l.lines, data)
		return
	}
	if err == nil {
		_, err = l.w.Write(append(data, '\n'))
	}
	l.err = cmp.Or(l.err, err)
}

// flush prints the lines kept as one JSON array, as --output-format json --verbose does.
func (l *LineWriter) flush() {
	l.mu.Lock()
	kept, collected := l.lines, l.collect
	l.collect, l.lines = false, nil
	l.mu.Unlock()
	if collected {
		array, _ := json.Marshal(kept) // JSON lines always encode
		l.Write(append(array, '\n'))
	}
}
