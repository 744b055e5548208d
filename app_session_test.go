package main

import (
	"testing"
)

func TestExportMarkdown(t *testing.T) {
	got := exportMarkdown("demo", "id-1", []Message{
		userText("read a.txt"),
		toolCallMessage("t1", "read_file", `{"path": "a.txt"}`),
		toolResultMessage("t1", "has ``` inside"),
		assistantText("done"),
	}, []JournalMark{{At: 3, Kind: LayerCompact, Summary: "[minicode context: a summary]"}, {At: 4, Kind: "clear"}})
	want := "# demo\n\nminicode session id-1\n\n## User\n\nread a.txt\n\n## Assistant\n\nLooking.\n\n**Tool call** `read_file`\n\n```\n{\"path\":\"a.txt\"}\n```\n" +
		"\n**Result**\n\n````\nhas ``` inside\n````\n" +
		"\n---\n\n*compaction: the model's view changed here; every message stays in this transcript*\n\n```\n[minicode context: a summary]\n```\n" +
		"\n## Assistant\n\ndone\n" +
		"\n---\n\n*the conversation was cleared: the model's view changed here; every message stays in this transcript*\n"
	if got != want {
		t.Errorf("export =\n%q\nwant\n%q", got, want)
	}
}
