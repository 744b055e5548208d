package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
)

// structuredOutput is the answer --json-schema asks for, which the model
// gives by calling the structured_output tool.
type structuredOutput struct {
	schema  any  // the decoded schema, for checking
	wrapped bool // the schema is not an object: the answer is the "output" field
	value   atomic.Pointer[json.RawMessage]
}

// structuredRetries is how often the model is reminded to call
// structured_output before the turn fails.
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

// decode checks the model's input against the schema and returns the
// answer it carries.
func (so *structuredOutput) decode(raw json.RawMessage) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("structured_output: the input is not JSON: %v", err)
	}
	if so.wrapped {
		v = v.(map[string]any)["output"]
	}
	if err := checkSchema(so.schema, v, "output"); err != nil {
		return nil, fmt.Errorf("structured_output does not match the schema: %v; call it again with a corrected answer", err)
	}
	data, err := json.Marshal(v)
	return json.RawMessage(data), err
}

// take returns the answer given since the last take, or nil.
func (so *structuredOutput) take() json.RawMessage {
	if v := so.value.Swap(nil); v != nil {
		return *v
	}
	return nil
}

// structuredAnswer returns the structured output of the turn that ended
// with res, reminding a model that did not give it structuredRetries times.
func (app *App) structuredAnswer(ctx context.Context, res TurnResult) (json.RawMessage, TurnResult) {
	if app.structured == nil {
		return nil, res
	}
	v := app.structured.take()
	for i := 0; v == nil && res.End == EndFinal && i < structuredRetries; i++ {
		more := app.runPrompt(ctx, app.Session.View(), slashPrompt{Prompt: "Call the structured_output tool now with your final answer; its input must match the tool's schema."})
		more.Steps += res.Steps
		more.Usage.Add(res.Usage)
		res, v = more, app.structured.take()
	}
	return v, res
}

// checkSchema checks v against JSON Schema's data-shape keywords; at names
// the place for the error message.
func checkSchema(schema, v any, at string) error {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil // true, or a schema form not checked
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		return fmt.Errorf("%s must be of type %v", at, t)
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return sameJSON(e, v) }) {
		return fmt.Errorf("%s must be one of %v", at, enum)
	}
	if c, ok := s["const"]; ok && !sameJSON(c, v) {
		return fmt.Errorf("%s must be %v", at, c)
	}
	switch v := v.(type) {
	case map[string]any:
		return checkObject(s, v, at)
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

// checkObject checks an object's required, known and extra properties.
func checkObject(s map[string]any, v map[string]any, at string) error {
	props, _ := s["properties"].(map[string]any)
	for _, r := range asList(s["required"]) {
		if name, _ := r.(string); name != "" {
			if _, ok := v[name]; !ok {
				return fmt.Errorf("%s.%s is required", at, name)
			}
		}
	}
	for name, value := range v {
		p, known := props[name]
		if !known && s["additionalProperties"] == false {
			return fmt.Errorf("%s.%s is not allowed", at, name)
		}
		if err := checkSchema(p, value, at+"."+name); err != nil {
			return err
		}
	}
	return nil
}

// typeMatches reports whether v has the JSON Schema type t (a name or a
// list of names).
func typeMatches(t, v any) bool {
	names := asList(t)
	if names == nil {
		names = []any{t}
	}
	var kind string
	switch x := v.(type) {
	case map[string]any:
		kind = "object"
	case []any:
		kind = "array"
	case string:
		kind = "string"
	case float64:
		kind = "number"
		if x == math.Trunc(x) && slices.Contains(names, any("integer")) {
			return true
		}
	case bool:
		kind = "boolean"
	case nil:
		kind = "null"
	}
	return slices.Contains(names, any(kind))
}

// asList returns v as a list, or nil when it is not one.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// sameJSON reports whether two decoded JSON values are equal.
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// addHooks adds hooks to the session's (hooks a program registered).
func (app *App) addHooks(added HookSettings) {
	app.Env.Hooks.Config = app.Env.Hooks.Config.merge(added)
}

// addAgent adds a subagent definition; one of the same name is replaced.
func (app *App) addAgent(def *AgentDef) {
	s := app.Subagents
	s.Agents = slices.DeleteFunc(s.Agents, func(a *AgentDef) bool { return a.Name == def.Name })
	s.Agents = append(s.Agents, def)
}
