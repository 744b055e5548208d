package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestTodoWriteValidatesTheList(t *testing.T) {
	reg := newRegistry(todoWriteTool())
	for _, tc := range []struct{ name, input, want string }{
		{"two in progress", `{"todos":[{"content":"a","activeForm":"A","status":"in_progress"},{"content":"b","activeForm":"B","status":"in_progress"}]}`,
			`field "todos" has more than one item with status "in_progress"`},
		{"unknown status", `{"todos":[{"content":"a","activeForm":"A","status":"done"}]}`, `field "todos[0].status" must be one of: pending in_progress completed`},
		{"missing field", `{"todos":[{"content":"a","status":"pending"}]}`, `field "todos[0].activeForm" is required`},
		{"no list", `{}`, `field "todos" is required`},
		{"blank content", `{"todos":[{"content":"a","activeForm":"A","status":"completed"},{"content":"  ","activeForm":"B","status":"pending"}]}`,
			`field "todos[1]" has a blank content or activeForm`},
		{"blank activeForm", `{"todos":[{"content":"a","activeForm":"\n","status":"pending"}]}`, `field "todos[0]" has a blank content or activeForm`},
		{"the same step twice", `{"todos":[{"content":"Run the tests","activeForm":"A","status":"completed"},{"content":"b","activeForm":"B","status":"pending"},{"content":" Run the tests","activeForm":"A","status":"pending"}]}`,
			`todos[0] and todos[2] are the same step "Run the tests"; list each step once`},
		{"a good list", `{"todos":[{"content":"a","activeForm":"A","status":"completed"},{"content":"b","activeForm":"B","status":"in_progress"}]}`,
			"The todo list is updated: 1 of 2 steps completed."},
		{"an empty list", `{"todos":[]}`, "0 of 0 steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := reg.Execute(context.Background(), nil, Block{Type: BlockToolUse, ID: "t1", Name: "todo_write", Input: json.RawMessage(tc.input)})
			if !strings.Contains(out.Text, tc.want) || out.IsError != !strings.HasPrefix(tc.name, "a") {
				t.Errorf("got %q (error %v), want %q", out.Text, out.IsError, tc.want)
			}
		})
	}
	if got := minicodeToolNames("TodoWrite"); len(got) != 1 || got[0] != "todo_write" {
		t.Errorf("TodoWrite stands for %q", got)
	}
}

func TestTodoLinesHighlightTheStepInProgress(t *testing.T) {
	input := json.RawMessage(`{"todos":[{"content":"Read","activeForm":"Reading","status":"completed"},{"content":"Test","activeForm":"Testing","status":"in_progress"},{"content":"Ship","activeForm":"Shipping","status":"pending"}]}`)
	if got, want := strings.Join(todoLines(input, &Transcript{}), "\n"), "  ☒ Read\n  ▸ Testing\n  ☐ Ship"; got != want {
		t.Errorf("todoLines = %q, want %q", got, want)
	}
	if lines := todoLines(input, &Transcript{color: true}); lines[1] != ansiBold+ansiCyan+"  ▸ Testing"+ansiReset {
		t.Errorf("the step in progress is drawn %q", lines[1])
	}
}
