package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sync/atomic"
)

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

// checkSchema checks v against JSON Schema's data-shape keywords (type,
// enum, const, required, properties, additionalProperties, items, minItems,
// maxItems); at names the place for the error message.
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
