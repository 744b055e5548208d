package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Elicitation actions a user can take on a server's question.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitField is one field of the form a server asks the user to fill in.
type ElicitField struct {
	Name        string
	Title       string
	Description string
	Type        string // string, integer, number or boolean
	Enum        []string
	Default     any // nil when the schema gives none
	Required    bool
}

// ElicitRequest is a server asking the user for structured input
// (elicitation/create in form mode).
type ElicitRequest struct {
	Server  string
	Message string
	Fields  []ElicitField
}

// ElicitResult is the user's answer: an action and, on accept, the values.
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// Elicitor puts a server's question to the user. The UI implements it; a
// headless run uses DefaultsElicitor or DeclineElicitor.
type Elicitor interface {
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error)
}

// DeclineElicitor declines every request: nobody is there to answer.
type DeclineElicitor struct{}

// Elicit declines.
func (DeclineElicitor) Elicit(context.Context, ElicitRequest) (ElicitResult, error) {
	return ElicitResult{Action: ElicitDecline}, nil
}

// DefaultsElicitor accepts with the schema's defaults, as asked for by
// --mcp-elicitation defaults. A required field without a default makes it
// decline, since there is no value to give.
type DefaultsElicitor struct{}

// Elicit accepts with the defaults.
func (DefaultsElicitor) Elicit(_ context.Context, req ElicitRequest) (ElicitResult, error) {
	content := map[string]any{}
	for _, f := range req.Fields {
		switch {
		case f.Default != nil:
			content[f.Name] = f.Default
		case f.Required:
			return ElicitResult{Action: ElicitDecline}, nil
		}
	}
	return ElicitResult{Action: ElicitAccept, Content: content}, nil
}

// LineElicitor asks field by field on a line-oriented terminal. An empty
// answer keeps the default; ":decline" and ":cancel" refuse the request;
// the end of input, or ctx ending, cancels it. ReadLine returns one line
// without its ending (line mode passes its shared reader's ReadLine).
type LineElicitor struct {
	ReadLine func(ctx context.Context) (string, error)
	Out      io.Writer
}

// NewLineElicitor reads answers from in and writes prompts to out.
func NewLineElicitor(in io.Reader, out io.Writer) *LineElicitor {
	r := bufio.NewReader(in)
	return &LineElicitor{Out: out, ReadLine: func(context.Context) (string, error) {
		line, err := r.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		return strings.TrimRight(line, "\r\n"), err
	}}
}

// Elicit asks for each field in the schema's order.
func (l *LineElicitor) Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error) {
	fmt.Fprintf(l.Out, "MCP server %s asks: %s\n(press Enter to keep a [default]; type :decline or :cancel to refuse)\n", req.Server, req.Message)
	content := map[string]any{}
	for _, f := range req.Fields {
		for {
			if ctx.Err() != nil {
				return ElicitResult{Action: ElicitCancel}, nil
			}
			fmt.Fprint(l.Out, fieldPrompt(f))
			line, err := l.ReadLine(ctx)
			if err != nil {
				return ElicitResult{Action: ElicitCancel}, nil
			}
			answer := strings.TrimSpace(line)
			switch answer {
			case ":decline":
				return ElicitResult{Action: ElicitDecline}, nil
			case ":cancel":
				return ElicitResult{Action: ElicitCancel}, nil
			}
			value, ok, problem := parseFieldAnswer(f, answer)
			if problem != "" {
				fmt.Fprintf(l.Out, "  %s\n", problem)
				continue
			}
			if ok {
				content[f.Name] = value
			}
			break
		}
	}
	return ElicitResult{Action: ElicitAccept, Content: content}, nil
}

// fieldPrompt is the question for one field.
func fieldPrompt(f ElicitField) string {
	var b strings.Builder
	label := f.Title
	if label == "" {
		label = f.Name
	}
	b.WriteString(label)
	if f.Description != "" {
		fmt.Fprintf(&b, " (%s)", f.Description)
	}
	if len(f.Enum) > 0 {
		fmt.Fprintf(&b, " {%s}", strings.Join(f.Enum, "|"))
	} else if f.Type != "string" {
		fmt.Fprintf(&b, " <%s>", f.Type)
	}
	if f.Default != nil {
		fmt.Fprintf(&b, " [%v]", f.Default)
	}
	if f.Required {
		b.WriteString(" *")
	}
	b.WriteString(": ")
	return b.String()
}

// parseFieldAnswer converts a typed answer to the field's type. It returns
// the value and whether to set it, or a problem to show before asking again.
func parseFieldAnswer(f ElicitField, answer string) (any, bool, string) {
	if answer == "" {
		switch {
		case f.Default != nil:
			return f.Default, true, ""
		case f.Required:
			return nil, false, "this field is required"
		}
		return nil, false, ""
	}
	if len(f.Enum) > 0 && !slices.Contains(f.Enum, answer) {
		return nil, false, "choose one of: " + strings.Join(f.Enum, ", ")
	}
	switch f.Type {
	case "integer":
		n, err := strconv.ParseInt(answer, 10, 64)
		if err != nil {
			return nil, false, "enter a whole number"
		}
		return n, true, ""
	case "number":
		x, err := strconv.ParseFloat(answer, 64)
		if err != nil {
			return nil, false, "enter a number"
		}
		return x, true, ""
	case "boolean":
		switch strings.ToLower(answer) {
		case "y", "yes", "true":
			return true, true, ""
		case "n", "no", "false":
			return false, true, ""
		}
		return nil, false, "answer yes or no"
	}
	return answer, true, ""
}

// elicit answers a server's elicitation/create request through the
// configured Elicitor. Only form mode is offered; anything else is declined.
func (s *mcpSession) elicit(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: rpcInvalidParams, Message: "bad elicitation/create params: " + err.Error()}
	}
	if s.opts.Elicitor == nil || (p.Mode != "" && p.Mode != "form") {
		return map[string]any{"action": ElicitDecline}, nil
	}
	fields, err := elicitFields(p.RequestedSchema)
	if err != nil {
		return nil, &rpcError{Code: rpcInvalidParams, Message: "bad requestedSchema: " + err.Error()}
	}
	res, err := s.opts.Elicitor.Elicit(ctx, ElicitRequest{Server: s.server, Message: p.Message, Fields: fields})
	if err != nil {
		return nil, &rpcError{Code: rpcInternalError, Message: err.Error()}
	}
	reply := map[string]any{"action": res.Action}
	if res.Action == ElicitAccept {
		reply["content"] = res.Content
	}
	return reply, nil
}

// elicitFields reads a requested schema's properties in the order written.
func elicitFields(schema json.RawMessage) ([]ElicitField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	var fields []ElicitField
	err := eachProperty(s.Properties, func(name string, raw json.RawMessage) error {
		var p struct {
			Type, Title, Description string
			Enum                     []string
			Default                  any
		}
		err := json.Unmarshal(raw, &p)
		fields = append(fields, ElicitField{Name: name, Title: p.Title, Description: p.Description, Type: p.Type,
			Enum: p.Enum, Default: p.Default, Required: slices.Contains(s.Required, name)})
		return err
	})
	return fields, err
}

// eachProperty calls fn with each key and value of a JSON object, in
// document order (a map would lose the order the form should follow).
func eachProperty(raw json.RawMessage, fn func(name string, value json.RawMessage) error) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("properties is not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return err
		}
		if err := fn(tok.(string), value); err != nil {
			return err
		}
	}
	return nil
}
