package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandBody(t *testing.T) {
	tests := []struct{ body, args, want string }{
		{"Review PR $ARGUMENTS now.", "123 high", "Review PR 123 high now."},
		// $0 is the first argument and $1 the second, as $ARGUMENTS[0] and $ARGUMENTS[1] (Claude Code's numbering).
		{"Fix issue $0 with priority $1.", "42 low", "Fix issue 42 with priority low."},
		{"Fix $ARGUMENTS[0] with priority $ARGUMENTS[1].", "42 low", "Fix 42 with priority low."},
		{"Fix $0 and $2.", "a", "Fix a and ."},
		{"All: $ARGUMENTS; second: $1", "x y", "All: x y; second: y"},
		{"Title: $0, body: $1", `"fix the bug" 'it crashes'`, "Title: fix the bug, body: it crashes"},
		{"Cost: $10 for $0", "tea", "Cost:  for tea"},
		{"Price $1x of $0", "a b", "Price $1x of a"},
		{"Summarise the changes.\n", "in French", "Summarise the changes.\n\nARGUMENTS: in French"},
		{"Summarise the changes.", "", "Summarise the changes."},
	}
	for _, tc := range tests {
		if got := expandBody(tc.body, tc.args); got != tc.want {
			t.Errorf("expandBody(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestLoadCustomCommands(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	writeFiles(t, project, map[string]string{
		"review.md":     "---\ndescription: Review a pull request\nargument-hint: [pr-number] [priority]\nallowed-tools: Bash(git diff:*), Read\nmodel: claude-haiku-4-5\n---\nReview PR $ARGUMENTS.\n",
		"git/commit.md": "Write a commit message.\n",
		"broken.md":     "---\ndescription: unclosed\nbody\n",
		"notes.txt":     "not a command\n",
	})
	writeFiles(t, user, map[string]string{"review.md": "the user's review\n", "mine.md": "Mine.\n"})
	cmds := loadCustomCommands([]string{project, user, filepath.Join(t.TempDir(), "missing")})
	got := map[string]*CustomCommand{}
	for _, c := range cmds {
		got[c.Name] = c
	}
	if len(cmds) != 4 || got["review"] == nil || got["git:commit"] == nil || got["mine"] == nil || got["broken"] == nil {
		t.Fatalf("commands %v, want review, git:commit, mine and broken", got)
	}
	r := got["review"]
	if r.Description != "Review a pull request" || r.ArgumentHint != "[pr-number] [priority]" || r.Model != "claude-haiku-4-5" ||
		strings.Join(r.AllowedTools, "|") != "Bash(git diff:*)|Read" || r.Body != "Review PR $ARGUMENTS.\n" {
		t.Errorf("review = %+v", r)
	}
	if got["broken"].Problem == "" {
		t.Error("broken front matter was not reported")
	}
	rules, err := grantRules(r.AllowedTools)
	if err != nil || len(rules) != 4 || rules[0].String() != "run_command(git diff:*)" || rules[3].String() != "read_file" {
		t.Errorf("grants %v (%v), want run_command(git diff:*), command_output, command_kill and read_file", rules, err)
	}
}

// TestCustomCommandArgumentHint checks that argument hints in brackets are
// shown as written, whether or not they read as a YAML list.
func TestCustomCommandArgumentHint(t *testing.T) {
	for _, hint := range []string{"[message]", "[pr] [priority]", "add [tag] | remove [tag]", "[a, b]"} {
		path := filepath.Join(t.TempDir(), "c.md")
		if err := os.WriteFile(path, []byte("---\nargument-hint: "+hint+"\n---\nDo it.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readCustomCommand("c", path).ArgumentHint; got != hint {
			t.Errorf("argument-hint: %s gives %q, want %q", hint, got, hint)
		}
	}
}

// commandWorkspace is a workspace with custom commands and a skill.
func commandWorkspace(t *testing.T) string {
	t.Helper()
	return workspaceWith(t, map[string]string{
		"notes.txt":                              "alpha beta\n",
		".claude/commands/review.md":             "---\ndescription: Review a PR\nmodel: haiku\n---\nReview PR $0 with priority $1 (all: $ARGUMENTS).\n",
		".claude/commands/git/log.md":            "---\nallowed-tools: Bash(echo:*)\n---\nRecent: !`echo one-two-three`\nAnd @notes.txt please.\n",
		".claude/commands/nope.md":               "Run !`echo hi`\n",
		".claude/commands/fails.md":              "---\nallowed-tools: Bash(ls:*)\n---\nListing: !`ls no-such-file`\n",
		".claude/commands/bad.md":                "---\nallowed-tools: Bash(\n---\nx\n",
		".claude/skills/touch-it/SKILL.md":       "---\nname: touch-it\ndescription: Touch a file.\nallowed-tools: Bash(touch:*)\n---\nTouch the file $ARGUMENTS. Helper: ${CLAUDE_SKILL_DIR}/scripts/run.sh, session ${CLAUDE_SESSION_ID}.\n",
		".claude/skills/touch-it/scripts/run.sh": "true\n",
	})
}

func TestCustomCommandsInHeadlessMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		task, wantPrompt, wantModel, wantErr string
	}{
		{"/review 123 high", "Review PR 123 with priority high (all: 123 high).", resolveModelAlias("haiku"), ""},
		{"/git:log", "Recent: one-two-three\nAnd ", "claude-sonnet-5", ""},
		{"/fails", "Listing: ls: cannot access 'no-such-file': No such file or directory\n(exit status 2)\n", "", ""},
		{"/git:log", "Contents of notes.txt:", "", ""},
		{"/unknown-thing do it", "/unknown-thing do it", "claude-sonnet-5", ""},
		{"/nope", "", "", "its allowed-tools do not include Bash"},
		{"/bad", "", "", "/bad cannot be used"},
		{"/touch-it a.txt", "Touch the file a.txt.", "", ""},
		{"/touch-it @notes.txt", "Contents of notes.txt:", "", ""},
		{"/touch-it b.txt", "/.claude/skills/touch-it/scripts/run.sh, session ", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.task, func(t *testing.T) {
			t.Parallel()
			srv, requests := anthropicServer(t, answerOnce())
			ws := commandWorkspace(t)
			res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)}, "", "-p", tc.task, "--workspace", ws)
			reqs := requests()
			if tc.wantErr != "" {
				if len(reqs) != 0 || !strings.Contains(res.stderr, tc.wantErr) {
					t.Errorf("%d requests, stderr %q; want none and %q", len(reqs), res.stderr, tc.wantErr)
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1; stderr %q", len(reqs), res.stderr)
			}
			if got := reqs[0].Messages[0].Text(); !strings.Contains(got, tc.wantPrompt) || strings.Contains(got, "${CLAUDE_") {
				t.Errorf("prompt %q, want it to hold %q", got, tc.wantPrompt)
			}
			if want := limitsFor(tc.wantModel, nil).MaxOutput; tc.wantModel != "" && (reqs[0].Model != tc.wantModel || reqs[0].MaxTokens != want) {
				t.Errorf("model %q asked for %d output tokens, want %q and its %d", reqs[0].Model, reqs[0].MaxTokens, tc.wantModel, want)
			}
		})
	}
}

func TestCustomCommandsInLineMode(t *testing.T) {
	t.Parallel()
	srv, requests := anthropicServer(t, answerOnce())
	ws := commandWorkspace(t)
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)},
		"/help\n/review 7 low\n/unknown-thing\n", "--workspace", ws)
	reqs := requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Text(), "Review PR 7 with priority low") {
		t.Fatalf("requests %+v, want one with the expanded /review", reqs)
	}
	for _, want := range []string{"/review", "Review a PR", "/git:log", "/touch-it", "skill: Touch a file.", "/bad", "(broken: allowed-tools:", "answer 1", "unknown command /unknown-thing"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("line mode printed %q, want it to hold %q", res.stdout, want)
		}
	}
}

// TestMentionsInLineMode checks that line mode attaches a file a prompt
// mentions with @, says so, and that a mention it may not read stops the
// prompt with the reason instead of sending it.
func TestMentionsInLineMode(t *testing.T) {
	t.Parallel()
	srv, requests := anthropicServer(t, answerOnce())
	ws := commandWorkspace(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)},
		"read @"+secret+" please\nsummarise @notes.txt, then stop\n", "--workspace", ws, "--disallowedTools", "read_file("+secret+")")
	reqs := requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Text(), "Contents of notes.txt:\nnotes.txt: ") || strings.Contains(reqs[0].Messages[0].Text(), "top secret") {
		t.Fatalf("requests %+v, want one with notes.txt attached and nothing of the denied file", reqs)
	}
	for _, want := range []string{"error: @" + secret + ": ", "attached notes.txt"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("line mode printed %q, want it to hold %q", res.stdout, want)
		}
	}
}

func TestSkillAllowedToolsGrantWithinDenyRules(t *testing.T) {
	t.Parallel()
	// The model asks to touch a file. Headless, nobody can approve it; the
	// skill's allowed-tools let it run, but never past a deny rule.
	// In a workspace that is not trusted, the project's skill grants nothing.
	for _, tc := range []struct {
		args    []string
		trusted bool
		ran     bool
	}{{nil, true, true}, {[]string{"--disallowedTools", "run_command(touch:*)"}, true, false}, {nil, false, false}} {
		ws, home := commandWorkspace(t), t.TempDir()
		if tc.trusted {
			home = trustingHome(t, ws)
		}
		srv, _ := anthropicServer(t, touchThenAnswer)
		res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + home}, "",
			append([]string{"-p", "/touch-it ran.txt", "--workspace", ws}, tc.args...)...)
		_, err := os.Stat(filepath.Join(ws, "ran.txt"))
		if ran := err == nil; ran != tc.ran {
			t.Errorf("with %q (trusted %v) the command ran = %v, want %v; stdout %q", tc.args, tc.trusted, ran, tc.ran, res.stdout)
		}
	}
	// Without the skill, the same call is denied.
	ws := commandWorkspace(t)
	srv, _ := anthropicServer(t, touchThenAnswer)
	runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "touch ran.txt", "--workspace", ws)
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the call ran without the skill's grant")
	}
}

func TestUntrustedProjectCommandsRunNothing(t *testing.T) {
	t.Parallel()
	srv, requests := anthropicServer(t, answerOnce())
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "/git:log", "--workspace", commandWorkspace(t))
	if len(requests()) != 0 || !strings.Contains(res.stderr, "this workspace is not trusted, so its commands run nothing") {
		t.Errorf("%d requests, stderr %q; want none and a message about trust", len(requests()), res.stderr)
	}
}

func TestCommandMentionsAreAttachedOnceInTheTUI(t *testing.T) {
	u := plainTUI(t, io.Discard)
	ws := u.app.Workspace
	writeFiles(t, ws, map[string]string{"notes.txt": "remember the milk\n", ".claude/commands/notes.md": "Summarise @notes.txt for me.\n"})
	u.app.Commands = loadCustomCommands([]string{filepath.Join(ws, ".claude", "commands")})
	for _, input := range []string{"/notes", "Summarise @notes.txt for me."} {
		prompt := u.command(t.Context(), input)
		if prompt == nil {
			t.Fatalf("%q gave no prompt; transcript %q", input, u.scroll.String())
		}
		u.history = nil
		u.turn(t.Context(), *prompt)
		if got := u.history[0].Text(); strings.Count(got, "remember the milk") != 1 {
			t.Errorf("%q sent %q, want the file attached once", input, got)
		}
	}
}

// TestMentionsInHeadlessMode checks that -p attaches a file the task
// mentions with @ in every output format, and that a mention it may not
// read stops the task with the reason instead of sending it.
func TestMentionsInHeadlessMode(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deny := []string{"--disallowedTools", "read_file(" + secret + ")"}
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv, requests := anthropicServer(t, answerOnce())
			ws := commandWorkspace(t)
			run := func(task string) runResult {
				return runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + t.TempDir()}, "",
					append([]string{"-p", task, "--workspace", ws, "--output-format", format}, deny...)...)
			}
			if res := run("summarise @notes.txt, then stop"); res.code != exitOK {
				t.Fatalf("exit code %d, want 0; stderr %q", res.code, res.stderr)
			}
			reqs := requests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Text(), "Contents of notes.txt:\nnotes.txt: ") {
				t.Fatalf("requests %+v, want one with notes.txt attached", reqs)
			}
			res := run("read @" + secret + " please")
			if len(requests()) != 1 || res.code != exitFailed || !strings.Contains(res.stderr, "@"+secret+": ") {
				t.Errorf("%d requests, exit code %d, stderr %q; want no new request, exit 1 and the reason", len(requests()), res.code, res.stderr)
			}
			if format != "text" && (!strings.Contains(res.stdout, `"is_error":true`) || !strings.Contains(res.stdout, "@"+secret+": ")) {
				t.Errorf("stdout %q, want an error result with the reason", res.stdout)
			}
		})
	}
}

// TestMentionsInStreamInput checks that a program's user message attaches
// the files it mentions, and that a mention that cannot be read ends that
// turn with an error result while the session goes on.
func TestMentionsInStreamInput(t *testing.T) {
	srv, requests := anthropicServer(t, textReplies("one", "two"))
	p := startSDK(t, srv.URL, "--disallowedTools", "read_file(secret.txt)")
	for name, text := range map[string]string{"notes.txt": "remember the milk\n", "secret.txt": "top secret\n"} {
		writeFile(t, filepath.Join(p.ws, name), text)
	}
	p.user("read @secret.txt")
	if r := p.await("a result", isType("result", ""), nil); r["is_error"] != true || !strings.Contains(fmt.Sprint(r["errors"]), "@secret.txt: ") {
		t.Errorf("result %v, want an error naming @secret.txt", r)
	}
	p.user("summarise @notes.txt")
	if r := p.await("a result", isType("result", ""), nil); r["result"] != "one" {
		t.Errorf("result %v, want one", r)
	}
	p.finish()
	if reqs := requests(); len(reqs) != 1 || !strings.Contains(lastUserText(reqs[0].Messages), "remember the milk") || strings.Contains(fmt.Sprint(reqs), "top secret") {
		t.Errorf("requests %+v, want one with notes.txt attached and nothing of secret.txt", reqs)
	}
}
