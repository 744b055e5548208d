package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// demoRequest is one kind of request the demo model understands: an example and what it does.
type demoRequest struct{ example, does string }

// demoRequests lists what the demo model understands, for help and suggestions.
func demoRequests() []demoRequest {
	return []demoRequest{
		{"list files", "list the workspace"},
		{"read FILE", "show a file"},
		{"search for TEXT", "search the workspace for TEXT"},
		{"find TEXT and show me the first file", "search, then read the first file found"},
		{"run COMMAND", "run a shell command (asks permission unless it only reads)"},
		{"replace OLD with NEW in FILE", "edit a file (shows the diff and asks)"},
		{"create FILE with TEXT", "create a file (shows the diff and asks)"},
		{"ask me something", "put a question to you and use your answer"},
		{"demo compaction", "fill the context window and watch each compaction layer run"},
		{"demo big output", "a tool result too large for the context, stored on disk"},
		{"demo error", "a tool call with bad input, the validation error, and a retry"},
		{"demo permissions", "an edit and a command that each need your approval"},
		{"demo resume", "how to continue this session later"},
		{"demo rewind", "an edit and a command's file, which /rewind takes back"},
		{"demo todo", "a task worked through with a todo list"},
		{"demo plan", "a plan presented for approval (in plan mode: Shift-Tab)"},
		{"demo image", "read a PNG of the workspace and describe it (or attach one: @shot.png)"},
		{"explain yourself", "say how this reply was produced"},
		{"help", "this list"},
	}
}

// demoHelpText is what the demo model says it understands.
func demoHelpText() string {
	var b strings.Builder
	b.WriteString("I am minicode's offline demo model: no API key is needed, and I answer through the real agent loop, with real tools.\nI understand these requests:\n")
	for _, r := range demoRequests() {
		fmt.Fprintf(&b, "  %-38s %s\n", r.example, r.does)
	}
	b.WriteString("To use a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY (or pass --provider and --model).")
	return b.String()
}

// demoSuggest answers a request it does not understand with the closest ones it does.
func demoSuggest(request string) ScriptedReply {
	words := strings.Fields(strings.ToLower(request))
	score := func(r demoRequest) (n int) {
		known := strings.Fields(strings.ToLower(r.example + " " + r.does))
		for _, w := range words {
			if len(w) > 2 && slices.Contains(known, w) {
				n++
			}
		}
		return n
	}
	ranked := demoRequests()
	slices.SortStableFunc(ranked, func(a, b demoRequest) int { return score(b) - score(a) })
	picks := mapped(ranked[:3], func(r demoRequest) string { return "`" + r.example + "`" })
	return ScriptedReply{Text: "I am the offline demo model and did not understand that; the closest things I can do are " +
		strings.Join(picks, ", ") + " (type help for the full list)."}
}

// demoChain finds the request that started the current tool calls, and those calls.
func demoChain(msgs []Message) (request string, calls []Block) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == RoleAssistant {
			calls = append(m.ToolUses(), calls...)
			continue
		}
		text := m.Text()
		if isSummary(m) {
			// A compaction summary repeats the request it continues, if any.
			_, text, _ = strings.Cut(text, "The user's latest request, to continue with: ")
		}
		if text != "" && len(m.ToolResults()) == 0 {
			return normaliseRequest(text), calls
		}
	}
	return "", calls
}

// normaliseRequest trims quotes and spaces.
func normaliseRequest(text string) string {
	return strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(text), "\"'")), " ")
}

// lowerRequest is a request in lower case without final punctuation.
func lowerRequest(request string) string {
	return strings.ToLower(strings.TrimRight(request, ".!?"))
}

// demoFollowUp is the next step of a request once tools have run, or its final answer.
func demoFollowUp(req ModelRequest, results []Block) ScriptedReply {
	request, calls := demoChain(req.Messages)
	lower, first := lowerRequest(request), results[0]
	next := "The result tells me the next step."
	denied := slices.DeleteFunc(slices.Clone(results), func(r Block) bool {
		return !r.IsError || !strings.HasPrefix(r.Content, "permission ") && !strings.HasPrefix(r.Content, "the user rejected")
	})
	switch {
	case len(denied) > 0:
		return ScriptedReply{Text: fmt.Sprintf("The permission check refused %d of my %d calls, so they did not run. It said: %s", len(denied), len(results), denied[0].Content)}
	case demoFindFirst.MatchString(request) && len(calls) == 1 && !first.IsError:
		file, _, ok := strings.Cut(first.Content, ":")
		if !ok || strings.Contains(file, "\n") {
			return ScriptedReply{Text: "The search found nothing, so there is no first file to show:\n" + first.Content}
		}
		return demoCall(next, "The first match is in "+file+"; I'll read it.", "read_file", map[string]string{"path": file})
	case demoFindFirst.MatchString(request) && len(calls) == 2 && !first.IsError:
		var read struct{ Path string }
		_ = json.Unmarshal(calls[1].Input, &read)
		return ScriptedReply{Text: fmt.Sprintf("The first file that mentions %s is %s:\n%s", demoFindFirst.FindStringSubmatch(request)[1], read.Path, first.Content)}
	case lower == "demo error" && len(calls) == 1 && first.IsError:
		return demoCall(next, "The call failed validation: "+first.Content+"\nI misspelt the field; retrying with `pattern`.", "grep_files", map[string]string{"pattern": "TODO"})
	case lower == "demo error":
		return ScriptedReply{Text: "My first grep_files call named the field `patern`, so input validation rejected it before the tool ran and told me which field was missing. I corrected the input and the retry worked:\n" + first.Content}
	case lower == "demo compaction":
		return demoCompactionStep(req.Messages)
	case lower == "demo rewind" || lower == "demo todo" || lower == "demo plan":
		return demoStepsNext(lower, calls, first)
	case lower == "demo big output":
		var stored []string
		for _, r := range results {
			for _, m := range demoStored.FindAllStringSubmatch(r.Content, -1) {
				if m[1] == "" { // a full disk, say
					return ScriptedReply{Text: "The outputs were too large for the context, and minicode cut them to a preview, as " + m[0] + "."}
				}
				stored = append(stored, m[1])
			}
		}
		return ScriptedReply{Text: fmt.Sprintf("Together the outputs passed the %d characters one batch may add to the context (a single result may hold %d), so minicode stored the largest on disk and handed me only a preview of each: %s. read_file can page through them.",
			maxBatchResultChars, maxResultChars, strings.Join(stored, ", "))}
	case lower == "demo image" && len(calls) == 1:
		for _, path := range strings.Split(first.Content, "\n") {
			if strings.HasSuffix(path, ".png") {
				return demoCall(next, "I'll read "+path+"; an image comes back to me as an image.", "read_file", map[string]string{"path": path})
			}
		}
		return ScriptedReply{Text: "There is no PNG in this workspace to read. Put one here, or attach an image with @path/to/shot.png and I will describe it."}
	case lower == "demo image":
		return ScriptedReply{Text: first.Content + "\n" + demoDescribe(first.Media)}
	case lower == "demo permissions" && len(calls) == 1 && !first.IsError:
		return demoCall(next, "The edit was approved; now a command, which runs in the sandbox and removes the file again.", "run_command", map[string]string{"command": "cat minicode-demo.txt && rm minicode-demo.txt"})
	case lower == "demo permissions":
		return ScriptedReply{Text: "Both steps went through the permission check: the file change is shown as a diff before you approve it, and the command ran inside the sandbox, which keeps its writes to the workspace; it removed minicode-demo.txt, so the workspace is as it was.\n" + demoSummary(req.Messages, results).Text}
	}
	return demoSummary(req.Messages, results)
}

// demoMechanism starts one of the mechanism demos, given the session and its conversation msgs, or reports false.
func demoMechanism(lower string, s *Session, msgs []Message) (ScriptedReply, bool) {
	switch lower {
	case "demo compaction":
		return ScriptedReply{Thinking: "To show compaction I must fill my context window; the workspace's files will do.",
			Text:      "<progress>I'll fill my context window by reading this workspace's files, some myself and some through subagents, and you will see each compaction layer run as the window fills.</progress>",
			ToolCalls: []scriptedToolCall{demoListCall}}, true
	case "demo big output":
		calls := slices.Repeat([]scriptedToolCall{{Name: "run_command", Input: json.RawMessage(`{"command":"seq 1 9000; seq 1 9000 >&2"}`)}}, 7)
		return ScriptedReply{Thinking: "Seven long outputs in one batch pass the batch limit.", Text: "<progress>Running seven commands that each print about 32,000 characters.</progress>", ToolCalls: calls}, true
	case "demo error":
		return demoCall("Searching for TODO shows how a bad tool input is caught.", "I'll search for TODO.", "grep_files", map[string]string{"patern": "TODO"}), true
	case "demo permissions":
		return ScriptedReply{Thinking: "Writing a file needs approval; the diff is shown first.", Text: "I'll create minicode-demo.txt; you will see the diff and be asked.",
			ToolCalls: []scriptedToolCall{{Name: "write_file", Input: json.RawMessage(`{"path":"minicode-demo.txt","content":"written by the demo model\n"}`)}}}, true
	case "demo image":
		return ScriptedReply{Thinking: "An image in the workspace shows how read_file hands pictures to the model.", Text: "I'll look for a PNG.",
			ToolCalls: []scriptedToolCall{{Name: "glob_files", Input: json.RawMessage(`{"pattern":"**/*.png","limit":1}`)}}}, true
	case "demo resume":
		if path, notSaved := s.Saving(); notSaved != nil {
			return ScriptedReply{Text: fmt.Sprintf("This conversation is not saved: %v. It cannot be resumed; the sessions of this workspace that are saved are in %s.", notSaved, filepath.Dir(path))}, true
		}
		return ScriptedReply{Thinking: "The session id is what --resume needs.", Text: fmt.Sprintf(
			"This conversation is session %s. Every message is appended to its journal, %s, so you can quit at any time and continue later with:\n\n    %s --resume %s\n\nor `%[3]s -c` to continue the newest session of this workspace.", s.ID, s.Path, selfCommand(), s.ID)}, true
	}
	return demoStepsStart(lower, msgs)
}

// "demo compaction" lists the workspace and reads its files, one a step with read_file (whose results
// micro compact may clear) and the others through subagents (whose reports stay until snip and auto
// compact remove them), until every layer has run; it knows where it is from what it still sees.

// demoLayerMarks are the texts the compaction layers leave in the history.
var demoLayerMarks = []struct{ layer, mark string }{
	{LayerMicro, microPlaceholderPrefix},
	{LayerSnip, "were removed to save context"},
	{LayerCollapse, "were collapsed into this summary"},
	{LayerCompact, "was compacted into this summary"},
}

// demoListCall lists every file of the workspace, the files the compaction demo reads.
var demoListCall = scriptedToolCall{Name: "list_files", Input: json.RawMessage(`{"recursive":true,"limit":10000}`)}

// demoCompactionStep is the compaction demo's next step after tools ran.
func demoCompactionStep(msgs []Message) ScriptedReply {
	seen := demoLayersSeen(msgs)
	if seen[LayerCompact] > 0 {
		return ScriptedReply{Text: "Auto compact has run, so the demo is complete: everything before the newest round is now one summary, and the task goes on from it. " +
			"Each line marked · above was one layer making room as the window filled: micro compact replaces old read_file results with a note naming the call, " +
			"snip compact drops a run of old messages, context collapse (when snip cannot make enough room) has me summarise old spans, and auto compact rewrote the history as a summary. " +
			"The session journal keeps every original message; /compact, /snip and /collapse run a layer by hand."}
	}
	files, listed := demoListedFiles(msgs)
	if !listed {
		return ScriptedReply{Thinking: "The file list is no longer in my context.", Text: "<progress>My file list was compacted away; I'll list the workspace again.</progress>",
			ToolCalls: []scriptedToolCall{demoListCall}}
	}
	next := files[demoFilesRead(msgs, files):]
	if len(next) == 0 {
		var ran []string
		for _, l := range demoLayerMarks {
			if seen[l.layer] > 0 {
				ran = append(ran, l.layer)
			}
		}
		return ScriptedReply{Text: fmt.Sprintf("I have read all %d files of this workspace and my context window never filled up enough for every layer (seen: %s). "+
			"Try demo compaction in a larger project, or set a small contextWindow (tokens) in .minicode/settings.json.", len(files), orNone(ran, ", "))}
	}
	// Once snip has run, ever larger batches push past the higher thresholds.
	batch := max(2, min(20, 6*seen[LayerSnip]))
	next = next[:min(len(next), batch)]
	calls := []scriptedToolCall{demoInput("read_file", map[string]string{"path": next[0]})}
	for _, f := range next[1:] {
		calls = append(calls, demoInput("task", map[string]string{"description": "read " + f, "prompt": "read " + f}))
	}
	return ScriptedReply{Thinking: "More of the workspace fills the window further.",
		Text: fmt.Sprintf("<progress>Reading %s.</progress>", strings.Join(next, ", ")), ToolCalls: calls}
}

// demoInput is a tool call with the given input.
func demoInput(tool string, input any) scriptedToolCall {
	raw, _ := encodeJSON(input, 0)
	return scriptedToolCall{Name: tool, Input: raw}
}

// orNone joins a list with sep, or says "none".
func orNone(list []string, sep string) string {
	return cmp.Or(strings.Join(list, sep), "none")
}

// demoLayersSeen counts the marks each layer has left in msgs.
func demoLayersSeen(msgs []Message) map[string]int {
	seen := map[string]int{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if strings.HasPrefix(b.Content, microPlaceholderPrefix) {
				seen[LayerMicro]++
			}
		}
		for _, l := range demoLayerMarks[1:] {
			if isSummary(m) && strings.Contains(m.Text(), l.mark) {
				seen[l.layer]++
			}
		}
	}
	return seen
}

// demoListedFiles reads the files (not folders) of the newest whole list_files result in msgs.
func demoListedFiles(msgs []Message) ([]string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, r := range msgs[i].ToolResults() {
			if toolNameOf(msgs, r.ToolUseID) != "list_files" || r.IsError || strings.HasPrefix(r.Content, microPlaceholderPrefix) {
				continue
			}
			var files []string
			for _, line := range strings.Split(r.Content, "\n")[1:] {
				if line != "" && !strings.HasSuffix(line, "/") && !strings.HasPrefix(line, "[") {
					files = append(files, line)
				}
			}
			return files, true
		}
	}
	return nil, false
}

// demoFilesRead is the position in files after the newest one a read_file or task call named.
func demoFilesRead(msgs []Message, files []string) int {
	for _, m := range slices.Backward(msgs) {
		for _, call := range slices.Backward(m.ToolUses()) {
			var in struct{ Path, Prompt string }
			_ = json.Unmarshal(call.Input, &in)
			if k := slices.Index(files, cmp.Or(in.Path, strings.TrimPrefix(in.Prompt, "read "))); k >= 0 {
				return k + 1
			}
		}
	}
	return 0
}

// demoDescribe says what images show in numbers, which is all the demo model can see.
func demoDescribe(images []Block) string {
	var seen []string
	for _, b := range images {
		if b.Type == BlockImage && b.Source != nil {
			seen = append(seen, describeImage(b.Source))
		}
	}
	if len(seen) == 0 {
		return "I was given no image I can look at."
	}
	return "I see " + strings.Join(seen, ", and ") + ". (A real model would describe what the image shows; I can only measure it.)"
}

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
		return ScriptedReply{Text: "exit_plan_mode refused: " + result.Content + ". Press Shift-Tab until the status line says plan (or type /permissions plan; with -p, add --permission-mode plan), then ask `demo plan` again."}
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
