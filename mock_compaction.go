package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// "demo compaction" lists the workspace and reads its files, one a step with
// read_file (whose results micro compact may clear) and the others through
// subagents (whose reports stay until snip and auto compact remove them),
// until every layer has run; it knows where it is from what it still sees.

// demoLayerMarks are the texts the compaction layers leave in the history.
var demoLayerMarks = []struct{ layer, mark string }{
	{LayerMicro, microPlaceholderPrefix},
	{LayerSnip, "were removed to save context"},
	{LayerCollapse, "were collapsed into this summary"},
	{LayerCompact, "was compacted into this summary"},
}

// demoListCall lists every file of the workspace, the files the compaction demo reads.
var demoListCall = ScriptedToolCall{Name: "list_files", Input: json.RawMessage(`{"recursive":true,"limit":10000}`)}

// demoCompactionStart is the compaction demo's first step.
func demoCompactionStart() ScriptedReply {
	return ScriptedReply{Thinking: "To show compaction I must fill my context window; the workspace's files will do.",
		Text:      "<progress>I'll fill my context window by reading this workspace's files, some myself and some through subagents, and you will see each compaction layer run as the window fills.</progress>",
		ToolCalls: []ScriptedToolCall{demoListCall}}
}

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
			ToolCalls: []ScriptedToolCall{demoListCall}}
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
	calls := []ScriptedToolCall{demoInput("read_file", map[string]string{"path": next[0]})}
	for _, f := range next[1:] {
		calls = append(calls, demoInput("task", map[string]string{"description": "read " + f, "prompt": "read " + f}))
	}
	return ScriptedReply{Thinking: "More of the workspace fills the window further.",
		Text: fmt.Sprintf("<progress>Reading %s.</progress>", strings.Join(next, ", ")), ToolCalls: calls}
}

// demoInput is a tool call with the given input.
func demoInput(tool string, input any) ScriptedToolCall {
	raw, _ := json.Marshal(input)
	return ScriptedToolCall{Name: tool, Input: raw}
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
		for _, r := range toolResults(msgs[i]) {
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
	for i := len(msgs) - 1; i >= 0; i-- {
		calls := msgs[i].ToolUses()
		for j := len(calls) - 1; j >= 0; j-- {
			var in struct{ Path, Prompt string }
			_ = json.Unmarshal(calls[j].Input, &in)
			name := cmp.Or(in.Path, strings.TrimPrefix(in.Prompt, "read "))
			for k, f := range files {
				if f == name {
					return k + 1
				}
			}
		}
	}
	return 0
}
