package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// elicitField is one field of the form a server asks the user to fill in.
type elicitField struct {
	Name        string `json:"-"`
	Title       string
	Description string
	Type        string // string, integer, number or boolean
	Enum        []string
	Default     any  // nil when the schema gives none
	Required    bool `json:"-"`
}

// elicitRequest is a server's elicitation/create in form mode.
type elicitRequest struct {
	Server  string
	Message string
	Fields  []elicitField
}

// elicitResult is the user's answer, elicitation/create's result: accept, decline or cancel, and on accept the values.
type elicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitzero"`
}

// Elicitor puts a server's question to the user.
type Elicitor func(ctx context.Context, req elicitRequest) elicitResult

// elicitDefaults accepts with the schema's defaults, or declines if a required field has none.
func elicitDefaults(_ context.Context, req elicitRequest) elicitResult {
	content := map[string]any{}
	for _, f := range req.Fields {
		switch {
		case f.Default != nil:
			content[f.Name] = f.Default
		case f.Required:
			return elicitResult{Action: "decline"}
		}
	}
	return elicitResult{Action: "accept", Content: content}
}

// LineElicitor asks field by field on a line terminal; ReadLine returns a line without its end.
type LineElicitor struct {
	ReadLine func(ctx context.Context) (string, error)
	Out      io.Writer
	turn     chan struct{} // holds one token while a form is on the terminal
}

// newLineElicitor reads answers with readLine and writes prompts to out.
func newLineElicitor(readLine func(context.Context) (string, error), out io.Writer) *LineElicitor {
	return &LineElicitor{Out: out, ReadLine: readLine, turn: make(chan struct{}, 1)}
}

// Elicit asks for each field in the schema's order, one form at a time.
func (l *LineElicitor) Elicit(ctx context.Context, req elicitRequest) elicitResult {
	select { // two servers asking at once would mix their questions and answers
	case l.turn <- struct{}{}:
		defer func() { <-l.turn }()
	case <-ctx.Done():
		return elicitResult{Action: "cancel"} // given up while another form was filled in
	}
	if ctx.Err() != nil { // the select may take the turn though ctx was already done
		return elicitResult{Action: "cancel"}
	}
	fmt.Fprintf(l.Out, "MCP server %s asks: %s\n(press Enter to keep a [default]; type :decline or :cancel to refuse)\n", req.Server, req.Message)
	content := map[string]any{}
	for i := 0; i < len(req.Fields); {
		f := req.Fields[i]
		fmt.Fprint(l.Out, fieldPrompt(f))
		line, err := l.ReadLine(ctx)
		answer := strings.TrimSpace(line)
		value, problem := parseFieldAnswer(f, answer)
		switch {
		case err != nil || ctx.Err() != nil || answer == ":cancel":
			return elicitResult{Action: "cancel"}
		case answer == ":decline":
			return elicitResult{Action: "decline"}
		case problem != "":
			fmt.Fprintf(l.Out, "  %s\n", problem)
			continue
		case value != nil:
			content[f.Name] = value
		}
		i++
	}
	return elicitResult{Action: "accept", Content: content}
}

// fieldPrompt is the question for one field.
func fieldPrompt(f elicitField) string {
	s := cmp.Or(f.Title, f.Name)
	if f.Description != "" {
		s += " (" + f.Description + ")"
	}
	if len(f.Enum) > 0 {
		s += " {" + strings.Join(f.Enum, "|") + "}"
	} else if f.Type != "string" {
		s += " <" + f.Type + ">"
	}
	if f.Default != nil {
		s += fmt.Sprintf(" [%v]", f.Default)
	}
	if f.Required {
		s += " *"
	}
	return s + ": "
}

// parseFieldAnswer converts an answer to the field's value (nil: none), or says what is wrong.
func parseFieldAnswer(f elicitField, answer string) (any, string) {
	bools := map[string]bool{"y": true, "yes": true, "true": true, "n": false, "no": false, "false": false}
	switch {
	case answer == "" && f.Required && f.Default == nil:
		return nil, "this field is required"
	case answer == "":
		return f.Default, ""
	case len(f.Enum) > 0 && !slices.Contains(f.Enum, answer):
		return nil, "choose one of: " + strings.Join(f.Enum, ", ")
	case f.Type == "integer":
		if n, err := strconv.ParseInt(answer, 10, 64); err == nil {
			return n, ""
		}
		return nil, "enter a whole number"
	case f.Type == "number":
		if x, err := strconv.ParseFloat(answer, 64); err == nil {
			return x, ""
		}
		return nil, "enter a number"
	case f.Type == "boolean":
		if b, ok := bools[strings.ToLower(answer)]; ok {
			return b, ""
		}
		return nil, "answer yes or no"
	}
	return answer, ""
}

// elicit answers a server's elicitation/create in form mode through the Elicitor, or declines.
func (s *mcpSession) elicit(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var p struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &RPCError{Code: rpcInvalidParams, Message: "bad elicitation/create params: " + err.Error()}
	}
	if s.opts.Elicitor == nil || (p.Mode != "" && p.Mode != "form") {
		return elicitResult{Action: "decline"}, nil
	}
	fields, err := elicitFields(p.RequestedSchema)
	if err != nil {
		return nil, &RPCError{Code: rpcInvalidParams, Message: "bad requestedSchema: " + err.Error()}
	}
	return s.opts.Elicitor(ctx, elicitRequest{Server: s.server, Message: p.Message, Fields: fields}), nil
}

// elicitFields reads a requested schema's properties in the order written, the form's order.
func elicitFields(schema json.RawMessage) ([]elicitField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil || len(s.Properties) == 0 {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var fields []elicitField
	for dec.More() {
		var f elicitField
		name, err := dec.Token()
		if err == nil {
			err = dec.Decode(&f)
		}
		if err != nil {
			return nil, err
		}
		f.Name = name.(string)
		f.Required = slices.Contains(s.Required, f.Name)
		fields = append(fields, f)
	}
	return fields, nil
}
