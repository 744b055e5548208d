package main

import (
	"context"
	"errors"
	"fmt"
)

// TodoInput is todo_write's input, Claude Code's TodoWrite shape: the whole list, each time.
type TodoInput struct {
	Todos []TodoItem `json:"todos" validate:"required,dive" desc:"the whole list, replacing the previous one"`
}

// TodoItem is one step of the task.
type TodoItem struct {
	Content    string `json:"content" validate:"required" desc:"the step, in the imperative: Run the tests"`
	Status     string `json:"status" validate:"required,oneof=pending in_progress completed"`
	ActiveForm string `json:"activeForm" validate:"required" desc:"the step as it is being done: Running the tests"`
}

// todoWriteTool keeps the task's todo list, which the user sees while the turn runs.
func todoWriteTool() *Tool {
	return ToolDef[TodoInput]{
		Name: "todo_write",
		Description: "Write the todo list of a task of several steps (send the whole list each time). " +
			"Mark a step in_progress before starting it and completed as soon as it is done; at most one step is in progress.",
		Run: func(_ context.Context, _ *ToolEnv, in TodoInput) (ToolOutput, error) {
			done, running := 0, 0
			for _, t := range in.Todos {
				done += map[string]int{"completed": 1}[t.Status]
				running += map[string]int{"in_progress": 1}[t.Status]
			}
			if running > 1 {
				return ToolOutput{}, errors.New(`invalid input: field "todos" has more than one item with status "in_progress"; at most one may be in progress`)
			}
			return ToolOutput{Text: fmt.Sprintf("The todo list is updated: %d of %d steps completed. Keep it current as you work.", done, len(in.Todos))}, nil
		},
	}.Tool()
}
