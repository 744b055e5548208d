package main

import (
	"slices"
	"strings"
)

// The demos of checkpoints, the todo list and plan mode: "demo rewind" makes changes a rewind
// takes back, "demo todo" works through a todo list, "demo plan" presents a plan for approval.

// demoStepsStart starts one of these demos, or reports false.
func demoStepsStart(lower string, msgs []Message) (ScriptedReply, bool) {
	switch {
	case lower == "demo rewind" && !slices.ContainsFunc(msgs, func(m Message) bool { return strings.HasPrefix(m.Text(), "Created rewind-demo.txt.") }):
		return demoCall("The edit needs a file made before its turn.", "First I'll create rewind-demo.txt; the next `demo rewind` changes it.",
			"write_file", map[string]string{"path": "rewind-demo.txt", "content": "the first version\n"}), true
	case lower == "demo rewind":
		return demoCall("An edit and a command's file: a checkpoint covers both.", "<progress>I'll edit rewind-demo.txt, then run a command that writes a file.</progress>",
			"edit_file", map[string]string{"path": "rewind-demo.txt", "old_string": "the first version", "new_string": "the second version, edited"}), true
	case lower == "demo todo":
		return demoTodo("<progress>A task of two steps: I'll keep a todo list, which you see while I work.</progress>", "in_progress", "pending"), true
	case lower == "demo plan":
		return demoCall("In plan mode I only read; the plan goes to the user for approval.", "My plan is ready.", "exit_plan_mode",
			map[string]string{"plan": "## Plan\n\n1. Read the workspace.\n2. Report what happened.\n\nNothing changes until you approve."}), true
	}
	return ScriptedReply{}, false
}

// demoStepsNext is the next step of these demos once a tool ran.
func demoStepsNext(lower string, calls []Block, result Block) ScriptedReply {
	last := calls[len(calls)-1].Name
	_, feedback, revise := strings.Cut(result.Content, "The user said: ")
	switch {
	case result.IsError && last != "exit_plan_mode":
		return ScriptedReply{Text: last + " did not go through (" + result.Content + "), so the demo stops here."}
	case last == "write_file" && lower == "demo rewind":
		return ScriptedReply{Text: "Created rewind-demo.txt. Now type `demo rewind` again: I'll edit it and run a command that writes a file, and /rewind will take both back."}
	case last == "edit_file":
		return demoCall("Now a change no file tool makes.", "<progress>Edited; now a command that writes a file.</progress>", "run_command",
			map[string]string{"command": "echo 'written by a command' > rewind-demo-command.txt"})
	case last == "run_command":
		return ScriptedReply{Text: "Both changes are made. Now press Esc twice at the empty prompt (or type /rewind), pick the newest `demo rewind` and choose code only: " +
			"rewind-demo.txt gets its first version back and rewind-demo-command.txt, which a command wrote, is removed. The checkpoint before each prompt records every file of the workspace, however it changes."}
	case last == "todo_write" && len(calls) == 1:
		return demoCall("Step one.", "", "list_files", map[string]any{})
	case last == "list_files":
		return demoTodo("", "completed", "in_progress")
	case last == "todo_write" && len(calls) == 3:
		return demoCall("Step two.", "", "grep_files", map[string]string{"pattern": "TODO"})
	case last == "grep_files":
		return demoTodo("", "completed", "completed")
	case last == "todo_write":
		return ScriptedReply{Text: "Both steps are done. The list above the input (in line mode, the lines printed when it changed) is todo_write's input: the whole list each time, one step in progress at most."}
	case last == "exit_plan_mode" && result.IsError:
		return ScriptedReply{Text: "exit_plan_mode refused: " + result.Content + ". Press Shift-Tab until the status line says plan (or type /permissions plan), then ask `demo plan` again."}
	case revise:
		return demoCall("The user wants changes.", "I revised the plan.", "exit_plan_mode",
			map[string]string{"plan": "## Plan, revised\n\n1. Take your feedback into account: " + feedback + "\n2. Report what happened."})
	}
	return ScriptedReply{Text: "exit_plan_mode answered: " + result.Content + " (Plan mode ends only with your approval; a real model would now carry out the plan.)"}
}

// demoTodo writes the todo list of "demo todo", its two steps in the states given.
func demoTodo(text, list, search string) ScriptedReply {
	return ScriptedReply{Text: text, ToolCalls: []scriptedToolCall{demoInput("todo_write", map[string]any{"todos": []map[string]string{
		{"content": "List the workspace", "activeForm": "Listing the workspace", "status": list},
		{"content": "Search it for TODO", "activeForm": "Searching for TODO", "status": search}}})}}
}
