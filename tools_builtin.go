package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// newBuiltins builds every built-in tool, web_search querying searchEndpoint ("" for
// DuckDuckGo) and run_command running in sb (nil: plainly); procs.Close stops them.
func newBuiltins(searchEndpoint string, sb *Sandbox) (tools []*Tool, procs *ProcessManager) {
	procs = &ProcessManager{sandbox: sb}
	web := newWebClient(searchEndpoint)
	return []*Tool{
		readFileTool(), writeFileTool(), editFileTool(), patchFileTool(),
		listFilesTool(), grepFilesTool(), globFilesTool(),
		runCommandTool(procs), commandOutputTool(procs), commandKillTool(procs),
		webFetchTool(web), webSearchTool(web),
		askUserTool(), todoWriteTool(),
	}, procs
}

// inputPath makes a path given by the model absolute, its symlinks kept.
func inputPath(env *ToolEnv, path string) string {
	abs := cmp.Or(path, ".")
	if strings.HasPrefix(abs, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			abs = home + abs[1:]
		}
	}
	if !filepath.IsAbs(abs) {
		abs = env.Workspace + "/" + abs
	}
	return abs
}

// resolveInput makes a path given by the model absolute, with symlinks resolved.
func resolveInput(env *ToolEnv, path string) (string, error) {
	abs, err := resolveExisting(inputPath(env, path))
	if err != nil {
		return "", fmt.Errorf("cannot resolve path %q: %w", path, err)
	}
	return abs, nil
}

// displayPath names a path to the model: relative when in the workspace.
func displayPath(env *ToolEnv, abs string) string {
	if rel, err := filepath.Rel(env.Workspace, abs); err == nil && within(env.Workspace, abs) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// readPermission is the permission request of a tool that only reads path. A folder is judged without what
// lies inside (Walks): the tools that walk one pass over what the rules cover, and read_file refuses it.
func readPermission(env *ToolEnv, path, verb string) (PermissionRequest, error) {
	abs, err := resolveInput(env, path)
	if err != nil {
		return PermissionRequest{}, err
	}
	return PermissionRequest{Access: AccessRead, Paths: []string{abs}, Named: []string{inputPath(env, path)}, Summary: verb + " " + displayPath(env, abs), Walks: true}, nil
}

// askUserInput is the input of ask_user.
type askUserInput struct {
	Question string `json:"question" validate:"required" desc:"The question, complete in itself: the user sees only this text."`
}

// askUserTool lets the model ask the user; the answer is the next message.
func askUserTool() *Tool {
	return ToolDef[askUserInput]{
		Name: "ask_user",
		Description: "Ask the user a question when you cannot go on without their decision or information. " +
			"The turn pauses after this batch of tool calls; the answer comes as the user's next message. Ask one clear question.",
		ReadOnly: true,
		Run: func(ctx context.Context, env *ToolEnv, in askUserInput) (ToolOutput, error) {
			q := strings.TrimSpace(in.Question)
			if q == "" {
				return ToolOutput{Text: "the question is empty; write the question you want to ask", IsError: true}, nil
			}
			return ToolOutput{Text: "The question was put to the user; their answer will come as the next message.", Question: q}, nil
		},
	}.Tool()
}

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
			steps, seen := map[string]int{}, map[string]int{} // by status; the index of each step
			for i, t := range in.Todos {
				steps[t.Status]++
				step := strings.TrimSpace(t.Content)
				if step == "" || strings.TrimSpace(t.ActiveForm) == "" {
					return ToolOutput{}, fmt.Errorf(`invalid input: field "todos[%d]" has a blank content or activeForm; write the step in words`, i)
				}
				if j, twice := seen[step]; twice {
					return ToolOutput{}, fmt.Errorf(`invalid input: todos[%d] and todos[%d] are the same step %q; list each step once`, j, i, step)
				}
				seen[step] = i
			}
			if steps["in_progress"] > 1 {
				return ToolOutput{}, errors.New(`invalid input: field "todos" has more than one item with status "in_progress"; at most one may be in progress`)
			}
			return ToolOutput{Text: fmt.Sprintf("The todo list is updated: %d of %d steps completed. Keep it current as you work.", steps["completed"], len(in.Todos))}, nil
		},
	}.Tool()
}
