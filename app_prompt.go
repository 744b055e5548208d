package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// systemPrompt is what the model is told about its job and its place.
func (app *App) systemPrompt() string {
	prompt := defaultSystemPrompt
	style, keepCoding := app.outputStyle()
	if !keepCoding { // a custom style replaces how to work, as in Claude Code
		prompt, _, _ = strings.Cut(prompt, "\nHow to work:")
	}
	if app.Opts.SystemPrompt != "" {
		prompt = app.Opts.SystemPrompt + "\n"
	}
	prompt += fmt.Sprintf("\nWorkspace: %s\nToday: %s\n", app.Workspace, time.Now().Format("2006-01-02"))
	sections := []string{style, app.Skills.PromptSection(), app.Env.Memory.PromptSection(), app.Opts.AppendSystemPrompt}
	if app.structured != nil {
		sections = append(sections, "When the task is done, deliver the answer by calling the structured_output tool with it as the input (it must match the tool's schema), then end with a one-line message.")
	}
	for _, section := range sections {
		if section != "" {
			prompt += "\n" + section
		}
	}
	return prompt
}

// defaultSystemPrompt is the built-in part of the system prompt.
const defaultSystemPrompt = `You are minicode, a coding agent working in the user's terminal. You read, search, edit and run code in the workspace with the tools you are given, and you answer concisely.

How to work:
- Use tools to look before you change anything; never guess a file's contents.
- When you need several independent reads or searches, request them together in one reply.
- While you are still working, you may send a short progress update marked <progress>...</progress> followed by tool calls.
- When the task is done, reply with your final answer and no tool calls.
- If you cannot go on without the user, use ask_user.
- For a task of several steps, keep a todo list with todo_write, one step in progress at a time.
- In plan mode you may only read: study the code, then present your plan with exit_plan_mode and wait for approval.
`

// builtinOutputStyles are the styles besides the default, by the names
// Claude Code gives them; a teaching one suits minicode, itself a textbook.
var builtinOutputStyles = map[string]string{
	"explanatory": "Explain as you work: besides doing the task, share short insights into why the code is the way it is (this codebase's design choices, the trade-offs of your approach, patterns worth knowing), each on lines starting with \"★ Insight\". The task still comes first.",
	"learning":    "Teach as you work, for a user who learns by doing: explain your reasoning and the codebase's patterns briefly as you go (lines starting with \"★ Insight\"). Where a change holds a small piece of logic worth writing oneself (a condition, a loop, a function of a few lines), write what surrounds it, leave that piece to the user as a TODO(human) comment, say exactly what it must do, and stop so they can write it; then review what they wrote.",
}

// outputStyle returns the instructions of the outputStyle setting, a built-in style or a file in an
// output-styles folder (.claude/output-styles, ~/.claude/output-styles, or minicode's), and whether the
// built-in coding instructions stay (the file's front matter says keep-coding-instructions: true).
func (app *App) outputStyle() (instructions string, keepCoding bool) {
	name := app.Settings.OutputStyle
	switch text, builtin := builtinOutputStyles[strings.ToLower(name)]; {
	case builtin:
		return "# Output style: " + name + "\n\n" + text, true
	case name == "" || strings.EqualFold(name, "default"):
		return "", true
	}
	for _, dir := range definitionDirs("output-styles", app.Home, userHome(app.getenv), app.Workspace) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, path := range files {
			meta, body, err := readDefinition(path, false)
			if err == nil && (meta["name"] == name || strings.TrimSuffix(filepath.Base(path), ".md") == name) {
				return "# Output style: " + name + "\n\n" + body, meta["keep-coding-instructions"] == true
			}
		}
	}
	app.notice(fmt.Sprintf("outputStyle %q: no such style (built in: default, Explanatory, Learning; or a file in .claude/output-styles/)", name))
	return "", true
}
