package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// collectWarnings returns a warn function and the warnings it received.
func collectWarnings() (func(string), *[]string) {
	var got []string
	return func(msg string) { got = append(got, msg) }, &got
}

// toolCallMessage is an assistant reply asking for one tool call.
func toolCallMessage(id, name, input string) Message {
	return Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "Looking."}, {Type: BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}}}
}

// toolResultMessage is the user message carrying one tool result.
func toolResultMessage(id, content string) Message {
	return Message{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: id, Content: content}}}
}

// readRecords decodes every line of a journal.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var records []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		records = append(records, r)
	}
	return records
}

func TestJournalRoundTripOfEveryRecordType(t *testing.T) {
	dir := t.TempDir()
	warn, warnings := collectWarnings()
	s := newSession(dir, newSessionID(), warn)
	call := toolCallMessage("toolu_1", "read_file", `{"path":"a.txt"}`)
	call.Content = append(call.Content, Block{Type: BlockToolUse, ID: "toolu_2", Name: "read_file", Input: json.RawMessage(`{"path":"b.txt"}`)})
	results := toolResultMessage("toolu_1", "hello")
	results.Content = append(results.Content, Block{Type: BlockToolResult, ToolUseID: "toolu_2", Content: "bye"})
	summary := userText("Summary of the conversation so far: read a.txt.")
	s.RecordSettings("claude-sonnet-4-5", ModeDefault)
	s.Rename("reading files")
	s.AddUser(userText("read a.txt"))
	s.Event(Event{Kind: EventAssistant, Message: &call})
	s.Event(Event{Kind: EventToolStart, Call: &call.Content[1]})
	s.Event(Event{Kind: EventToolEnd, Call: &call.Content[1], Result: &results.Content[0]})
	s.Event(Event{Kind: EventToolResults, Message: &results})
	s.Sync([]Message{summary})
	final := assistantText("a.txt says hello")
	s.Event(Event{Kind: EventAssistant, Message: &final})
	s.RecordSettings("claude-sonnet-4-5", ModeAcceptEdits)
	s.RecordSettings("claude-sonnet-4-5", ModeAcceptEdits) // unchanged: not recorded again
	s.Close()
	if len(*warnings) > 0 {
		t.Fatalf("warnings: %q", *warnings)
	}

	records := readRecords(t, s.Path)
	var types []string
	parent := ""
	for _, r := range records {
		types = append(types, r.Type)
		if r.Version != journalVersion || r.ID == "" || r.ParentID != parent || r.Time.IsZero() {
			t.Errorf("record %+v: want version %d, an id, parent %q and a time", r, journalVersion, parent)
		}
		parent = r.ID
	}
	wantTypes := []string{recordSettings, recordRename, recordUser, recordAssistant, recordToolStarted, recordToolFinished,
		recordUser, recordCompaction, recordAssistant, recordSettings}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("record types = %q, want %q", types, wantTypes)
	}
	if p := records[9].Payload; p.PermissionMode != "acceptEdits" || p.Model != "claude-sonnet-4-5" {
		t.Errorf("settings record = %+v, want the model and the new mode", p)
	}

	j, err := readJournal(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Message{summary, final}; !reflect.DeepEqual(j.View, want) {
		t.Errorf("view after load = %+v, want the compacted view %+v", j.View, want)
	}
	wantTranscript := []Message{userText("read a.txt"), call, results, final}
	if !reflect.DeepEqual(j.Transcript, wantTranscript) {
		t.Errorf("transcript = %+v, want every message %+v", j.Transcript, wantTranscript)
	}
	if j.Title != "reading files" || j.firstPrompt() != "read a.txt" || len(j.Warnings) > 0 {
		t.Errorf("title %q, first prompt %q, warnings %q", j.Title, j.firstPrompt(), j.Warnings)
	}
}

// TestLoneCallResultRecordedOnce checks that the result of a reply's only
// call is written once, in the results message, while each result of a
// reply with several calls is also written when its call ends.
func TestLoneCallResultRecordedOnce(t *testing.T) {
	s := newSession(t.TempDir(), newSessionID(), nil)
	call := toolCallMessage("toolu_1", "read_file", `{"path":"a.txt"}`)
	results := toolResultMessage("toolu_1", "hello")
	s.AddUser(userText("read a.txt"))
	s.Event(Event{Kind: EventAssistant, Message: &call})
	s.Event(Event{Kind: EventToolStart, Call: &call.Content[1]})
	s.Event(Event{Kind: EventToolEnd, Call: &call.Content[1], Result: &results.Content[0]})
	s.Event(Event{Kind: EventToolResults, Message: &results})
	s.Close()
	var types []string
	for _, r := range readRecords(t, s.Path) {
		types = append(types, r.Type)
	}
	if want := []string{recordUser, recordAssistant, recordToolStarted, recordUser}; !reflect.DeepEqual(types, want) {
		t.Errorf("record types = %q, want %q", types, want)
	}
}

func TestEmptySessionLeavesNoFile(t *testing.T) {
	s := newSession(t.TempDir(), newSessionID(), nil)
	s.RecordSettings("mock", ModeDefault)
	s.Rename("nothing yet")
	s.Close()
	if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
		t.Errorf("stat %s: %v; want no file for a session without messages", s.Path, err)
	}
}

// writeJournal stores a session with the given messages and returns its
// path.
func writeJournal(t *testing.T, dir string, messages ...Message) string {
	t.Helper()
	s := newSession(dir, newSessionID(), func(msg string) { t.Errorf("warning: %s", msg) })
	s.Sync(messages)
	s.Close()
	return s.Path
}

func TestJournalDamage(t *testing.T) {
	first, reply, second := userText("first"), assistantText("one"), userText("second")
	tests := []struct {
		name        string
		damage      func(data string) string
		wantView    []Message
		wantWarning string
	}{
		{"torn last line", func(d string) string { return d + `{"version":1,"type":"assistant","id":"x","payload":{"mess` },
			[]Message{first, reply, second}, "incomplete last line 4"},
		{"corrupt middle line", func(d string) string {
			lines := strings.SplitAfter(d, "\n")
			return lines[0] + "{not json\n" + strings.Join(lines[1:], "")
		}, []Message{first, reply, second}, "line 2 is damaged"},
		{"middle line cut in two", func(d string) string {
			lines := strings.SplitAfter(d, "\n")
			return lines[0] + lines[1][:20] + "\n" + lines[2]
		}, []Message{first, second}, "line 2 is damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeJournal(t, t.TempDir(), first, reply, second)
			data, _ := os.ReadFile(path)
			writeFile(t, path, tt.damage(string(data)))
			j, err := readJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(j.View, tt.wantView) {
				t.Errorf("view = %+v, want %+v", j.View, tt.wantView)
			}
			if len(j.Warnings) != 1 || !strings.Contains(j.Warnings[0], tt.wantWarning) {
				t.Errorf("warnings = %q, want one containing %q", j.Warnings, tt.wantWarning)
			}
		})
	}
}

func TestResumeAfterTornLineAppendsOnANewLine(t *testing.T) {
	dir := t.TempDir()
	path := writeJournal(t, dir, userText("first"), assistantText("one"))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"version":1,"type":"user","pay`)
	f.Close()
	app := &App{Home: t.TempDir(), Env: &ToolEnv{}, stderr: io.Discard}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	app.Workspace = "/ws"
	dir = app.sessionsDir()
	os.MkdirAll(dir, 0o700)
	os.Rename(path, filepath.Join(dir, id+".jsonl"))
	s, err := app.loadSession(id, false, "")
	if err != nil {
		t.Fatal(err)
	}
	s.AddUser(userText("second"))
	s.Close()
	j, err := readJournal(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{userText("first"), assistantText("one"), userText("second")}
	if !reflect.DeepEqual(j.View, want) || len(j.Warnings) != 1 {
		t.Errorf("view = %+v (warnings %q), want %+v and one warning for the torn line", j.View, j.Warnings, want)
	}
}

func TestUnfinishedToolCallsOnLoad(t *testing.T) {
	dir := t.TempDir()
	s := newSession(dir, newSessionID(), nil)
	batch := Message{Role: RoleAssistant, Content: []Block{
		{Type: BlockToolUse, ID: "done", Name: "read_file", Input: json.RawMessage(`{}`)},
		{Type: BlockToolUse, ID: "running", Name: "run_command", Input: json.RawMessage(`{"command":"make deploy"}`)},
		{Type: BlockToolUse, ID: "waiting", Name: "write_file", Input: json.RawMessage(`{}`)},
	}}
	finished := Block{Type: BlockToolResult, ToolUseID: "done", Content: "file text"}
	s.AddUser(userText("deploy"))
	s.Event(Event{Kind: EventAssistant, Message: &batch})
	s.Event(Event{Kind: EventToolStart, Call: &batch.Content[0]})
	s.Event(Event{Kind: EventToolEnd, Call: &batch.Content[0], Result: &finished})
	s.Event(Event{Kind: EventToolStart, Call: &batch.Content[1]})
	s.Close() // the process died here

	j, err := readJournal(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.View) != 3 {
		t.Fatalf("view has %d messages, want 3 (the results added): %+v", len(j.View), j.View)
	}
	got := map[string]string{}
	for _, b := range j.View[2].Content {
		got[b.ToolUseID] = b.Content
	}
	want := map[string]string{"done": "file text", "running": unknownOutcomeText, "waiting": notRunText}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results = %q, want %q", got, want)
	}
}

func TestNewerJournalIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), newSessionID()+".jsonl")
	writeFile(t, path, `{"version":99,"type":"user","id":"a","time":"2030-01-01T00:00:00Z","payload":{}}`+"\n")
	_, err := readJournal(path)
	if err == nil || !strings.Contains(err.Error(), "newer minicode") {
		t.Errorf("readJournal = %v, want an error saying a newer minicode wrote it", err)
	}
}

func TestJournalWriteFailureKeepsTheSessionInMemory(t *testing.T) {
	id := newSessionID()
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) (dir string)
		want  string
	}{
		{"full disk", func(t *testing.T, root string) string {
			if err := os.Symlink("/dev/full", filepath.Join(root, id+".jsonl")); err != nil {
				t.Skip(err)
			}
			return root
		}, "no space left on device"},
		{"folder cannot be made", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "projects"), "a file where the sessions folder belongs")
			return filepath.Join(root, "projects", "-ws")
		}, "creating the sessions folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warn, warnings := collectWarnings()
			s := newSession(tt.setup(t, t.TempDir()), id, warn)
			s.AddUser(userText("hello"))
			s.AddUser(userText("again"))
			if hint := s.ResumeHint(); hint != "This session was not saved." || len(*warnings) != 1 || !strings.Contains((*warnings)[0], tt.want) || !strings.Contains((*warnings)[0], "not being saved") {
				t.Errorf("hint %q, warnings %q; want one warning with %q saying the session is not saved", hint, *warnings, tt.want)
			}
			if got := s.View(); len(got) != 2 {
				t.Errorf("view = %+v, want both messages kept in memory", got)
			}
		})
	}
}

func TestSyncRecordsWhatTheEventsMissed(t *testing.T) {
	s := newSession(t.TempDir(), newSessionID(), nil)
	progress := assistantText("<progress>looking</progress>")
	s.AddUser(userText("task"))
	s.Event(Event{Kind: EventAssistant, Message: &progress})
	turn := []Message{userText("task"), progress, userText(progressNudge), assistantText("done")}
	s.Sync(turn)
	s.Sync([]Message{assistantText("replaced")})
	s.Close()
	var types []string
	for _, r := range readRecords(t, s.Path) {
		types = append(types, r.Type+":"+r.Payload.Kind)
	}
	want := []string{"user:", "assistant:", "user:", "assistant:", "compaction:sync"}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("records = %q, want %q", types, want)
	}
}

func TestPruneSessions(t *testing.T) {
	home := t.TempDir()
	old, current, recent, inMemory, resumed := newSessionID(), newSessionID(), newSessionID(), newSessionID(), newSessionID()
	for _, id := range []string{old, current, recent, resumed} {
		writeFile(t, filepath.Join(home, "projects", "-ws", id+".jsonl"), "{}\n")
		writeFile(t, filepath.Join(home, "tool-results", id, "result.txt"), "big")
	}
	long := time.Now().Add(-40 * 24 * time.Hour)
	for _, id := range []string{old, current, recent, inMemory, resumed} { // checkpoint stores, unused since, but recent's
		writeFile(t, filepath.Join(home, "checkpoints", id, "HEAD"), "ref: refs/heads/main\n")
		if id != recent {
			os.Chtimes(filepath.Join(home, "checkpoints", id), long, long)
		}
	}
	for _, id := range []string{old, current} {
		os.Chtimes(filepath.Join(home, "projects", "-ws", id+".jsonl"), long, long)
	}
	if n := pruneSessions(home, time.Now().AddDate(0, 0, -30), current); n != 1 {
		t.Errorf("pruned %d sessions, want 1", n)
	}
	for id, want := range map[string]bool{old: false, current: true, recent: true, resumed: true} { // resumed: its journal is recent
		_, errFile := os.Stat(filepath.Join(home, "projects", "-ws", id+".jsonl"))
		_, errResults := os.Stat(filepath.Join(home, "tool-results", id))
		_, errStore := os.Stat(filepath.Join(home, "checkpoints", id))
		if (errFile == nil) != want || (errResults == nil) != want || (errStore == nil) != want {
			t.Errorf("session %s: file kept %v, results kept %v, checkpoints kept %v; want %v", id, errFile == nil, errResults == nil, errStore == nil, want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "checkpoints", inMemory)); err == nil {
		t.Error("the checkpoints of a session kept in memory, unused for 40 days, are kept")
	}
}

// panickingProvider fails the way a bug would: by panicking.
type panickingProvider struct{}

// Name names the provider.
func (panickingProvider) Name() string { return "panicking" }

// Stream panics.
func (panickingProvider) Stream(context.Context, ModelRequest, func(Delta)) (ModelResponse, error) {
	panic("provider bug")
}

func TestPanicInTurnStillCleansUp(t *testing.T) {
	app := testApp(t, t.TempDir(), Options{})
	app.Agent.Provider = panickingProvider{}
	res := app.runPrompt(context.Background(), nil, SlashPrompt{Prompt: "hello"})
	if res.End != EndError || !strings.Contains(res.Text, "provider bug") {
		t.Errorf("turn = %v %q, want an error naming the panic", res.End, res.Text)
	}
	j, err := readJournal(app.Session.Path)
	if err != nil || len(j.View) != 1 || j.View[0].Text() != "hello" {
		t.Errorf("saved view = %+v (%v), want the user's message kept", j, err)
	}
}

func TestLoopPromptsAreJournaledAsTheyHappen(t *testing.T) {
	s := newSession(t.TempDir(), newSessionID(), nil)
	agent := &Agent{Provider: &MockProvider{script: []ScriptedReply{{Text: "<progress>looking</progress>"}, {Text: "done"}}}, Record: s.Event}
	agent.RunTurn(context.Background(), nil, TurnInput{Text: "task"})
	s.Close()
	var got []string
	for _, r := range readRecords(t, s.Path) {
		if r.Type == recordUsage {
			got = append(got, r.Type)
			continue
		}
		got = append(got, r.Type+":"+r.Payload.Message.Text())
	}
	want := []string{"usage", "assistant:<progress>looking</progress>", "user:" + progressNudge, "usage", "assistant:done"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records = %q, want %q", got, want)
	}
}

func TestCompactionRecords(t *testing.T) {
	call := toolCallMessage("toolu_1", "read_file", `{"path":"a.txt"}`)
	before := []Message{userText("read a.txt"), call, toolResultMessage("toolu_1", strings.Repeat("long text ", 100)), assistantText("read it")}
	placeholder := toolResultMessage("toolu_1", "[old read_file result cleared]")
	micro := Splice{From: 2, To: 3, With: []Message{placeholder}}
	after := []Message{before[0], call, placeholder, before[3]}
	tests := []struct {
		name         string
		compaction   Compaction
		wantSplices  bool
		wantView     []Message
		wantWarnings int
	}{
		{"splices that fit are recorded alone", Compaction{Layer: LayerMicro, Splices: []Splice{micro}, View: after}, true, after, 0},
		{"splices that do not give the view: the view is recorded", Compaction{Layer: LayerSnip, Splices: []Splice{micro}, View: after[1:]}, false, after[1:], 0},
		{"splices beyond the view: the view is recorded", Compaction{Layer: LayerCompact, Splices: []Splice{{From: 3, To: 9}}, View: after[:1]}, false, after[:1], 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t.TempDir(), newSessionID(), nil)
			s.Sync(before)
			s.Event(Event{Kind: EventCompact, Compaction: &tt.compaction})
			s.Close()
			records := readRecords(t, s.Path)
			last := records[len(records)-1].Payload
			if gotSplices := last.Splices != nil && last.Messages == nil; gotSplices != tt.wantSplices || last.Kind != tt.compaction.Layer {
				t.Errorf("record %+v: splices only = %v, want %v, kind %q", last, gotSplices, tt.wantSplices, tt.compaction.Layer)
			}
			j, err := readJournal(s.Path)
			if err != nil || !reflect.DeepEqual(j.View, tt.wantView) || !reflect.DeepEqual(j.Transcript, before) {
				t.Errorf("loaded view %+v, transcript %+v (%v); want view %+v and the original transcript", j.View, j.Transcript, err, tt.wantView)
			}
		})
	}
}

func TestCompactionThatDoesNotFitIsSkipped(t *testing.T) {
	path := writeJournal(t, t.TempDir(), userText("one"), assistantText("two"))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"version":1,"type":"compaction","id":"c","payload":{"kind":"snip","splices":[{"from":1,"to":7,"with":[]}]}}` + "\n")
	f.Close()
	j, err := readJournal(path)
	if err != nil || len(j.View) != 2 || len(j.Warnings) != 1 || !strings.Contains(j.Warnings[0], "line 3: a snip compaction does not fit") {
		t.Errorf("view %+v, warnings %q (%v); want the view before the compaction and a warning naming line 3", j.View, j.Warnings, err)
	}
}

func TestFormatSessionList(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	infos := []SessionInfo{
		{ID: "11111111-1111-4111-8111-111111111111", Title: "release", Modified: now.Add(-90 * time.Minute), Messages: 12, FirstPrompt: "write the\nrelease notes"},
		{ID: "22222222-2222-4222-8222-222222222222", Modified: now.Add(-50 * time.Hour), Messages: 3, FirstPrompt: "fix the bug"},
	}
	want := `  1. 11111111-1111-4111-8111-111111111111  1h ago     12 messages  "release": write the release notes
  2. 22222222-2222-4222-8222-222222222222  2d ago      3 messages  fix the bug`
	if got := formatSessionList(infos, now); got != want {
		t.Errorf("list =\n%s\nwant\n%s", got, want)
	}
	if got := formatSessionList(nil, now); got != "No saved sessions in this workspace." {
		t.Errorf("empty list = %q", got)
	}
}

// BenchmarkJournalRecord measures writing one reply record as it happens.
func BenchmarkJournalRecord(b *testing.B) {
	s := newSession(b.TempDir(), newSessionID(), func(msg string) { b.Fatal(msg) })
	defer s.Close()
	reply := toolCallMessage("toolu_1", "read_file", `{"path":"main.go"}`)
	for b.Loop() {
		s.Event(Event{Kind: EventAssistant, Message: &reply})
	}
}

// BenchmarkResumeLongSession measures loading a session of 2,000 messages.
func BenchmarkResumeLongSession(b *testing.B) {
	s := newSession(b.TempDir(), newSessionID(), nil)
	for i := range 1000 {
		id := fmt.Sprintf("toolu_%d", i)
		call, result := toolCallMessage(id, "read_file", `{"path":"main.go"}`), toolResultMessage(id, strings.Repeat("package main\n", 80))
		s.Event(Event{Kind: EventAssistant, Message: &call})
		s.Event(Event{Kind: EventToolResults, Message: &result})
	}
	s.Close()
	for b.Loop() {
		if j, err := readJournal(s.Path); err != nil || len(j.View) != 2000 {
			b.Fatalf("view of %d messages, %v", len(j.View), err)
		}
	}
}

// TestSessionListOrdersByRecordTime lists sessions whose files carry the
// same modification time (the file clock is coarse; quick turns tie) by
// the time of their newest record, and -c picks the newest that way,
// whichever comes first in the folder.
func TestSessionListOrdersByRecordTime(t *testing.T) {
	for _, newerFirst := range []bool{false, true} {
		dir, same := t.TempDir(), time.Now().Truncate(time.Second)
		var ids []string
		for i := range 2 {
			id := fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i)
			at := same.Add(time.Duration(i+1) * time.Millisecond)
			if newerFirst {
				at = same.Add(time.Duration(2-i) * time.Millisecond)
			}
			rec := fmt.Sprintf(`{"version":1,"type":"user","id":"r%d","time":%q,"payload":{"message":{"role":"user","content":[{"type":"text","text":"task %d"}]}}}`,
				i, at.Format(time.RFC3339Nano), i)
			path := filepath.Join(dir, id+".jsonl")
			if err := os.WriteFile(path, []byte(rec+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, same, same); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if newerFirst {
			ids[0], ids[1] = ids[1], ids[0] // ids[1] is the newer
		}
		infos, err := listSessions(dir)
		if err != nil || len(infos) != 2 || infos[0].ID != ids[1] || infos[1].ID != ids[0] {
			t.Fatalf("listSessions = %+v, %v; want %s (newer record) first, then %s", infos, err, ids[1], ids[0])
		}
	}
}

// TestMediaFileStaysInTheMediaFolder stores a picture whose media type names other folders (as a
// stream-json client may send it): its file is named by the last part, inside the media folder.
func TestMediaFileStaysInTheMediaFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "session", "media")
	img := Block{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: "image/x/../../../escaped", Data: "iVBORw0KGgo="}}
	p := withMediaFiles(dir, RecordPayload{Message: &Message{Role: RoleUser, Content: []Block{img}}})
	name := p.Message.Content[0].Source.File
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil || filepath.Base(name) != name {
		t.Errorf("the picture is stored as %q in %s (%v), want a file of that folder", name, dir, err)
	}
	if found, _ := filepath.Glob(filepath.Join(root, "a", "*escaped")); len(found) > 0 {
		t.Errorf("a file was written outside the media folder: %v", found)
	}
}
