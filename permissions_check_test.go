package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testTree is a workspace with an outside folder next to it, built in a
// temporary folder:
//
//	root/ws/src/a.go, root/ws/b.go, root/ws/notes.txt, root/ws/.git/config
//	root/ws/escape -> root/outside     (a link that leaves the workspace)
//	root/ws/inner  -> root/ws/src      (a link that stays inside)
//	root/outside/secret.txt
//	root/results/r1.txt                (the tool-results folder)
//	root/wslink -> root/ws             (a symlinked workspace)
//	root/ws/dangling -> root/outside/new.txt   (dangling links that leave,
//	root/ws/reldangling -> ../outside/new.txt   absolute and relative)
//	root/ws/gitlink -> .git/config
//	root/ws/hard.txt = root/outside/linked.txt  (a hard link)
type testTree struct {
	root, ws, outside, results, wslink string
}

// newTestTree builds a testTree; all paths are resolved.
func newTestTree(t *testing.T) testTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := testTree{root: root, ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"),
		results: filepath.Join(root, "results"), wslink: filepath.Join(root, "wslink")}
	for _, f := range []string{"ws/src/a.go", "ws/b.go", "ws/notes.txt", "ws/.git/config", "outside/secret.txt", "outside/linked.txt", "results/r1.txt"} {
		path := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"ws/escape": tr.outside, "ws/inner": filepath.Join(tr.ws, "src"), "wslink": tr.ws,
		"ws/dangling": filepath.Join(tr.outside, "new.txt"), "ws/reldangling": "../outside/new.txt", "ws/gitlink": ".git/config"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(tr.outside, "linked.txt"), filepath.Join(tr.ws, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	return tr
}

// verdictNames shows verdicts in test messages.
var verdictNames = map[verdict]string{verdictAllow: "allow", verdictDeny: "deny", verdictAsk: "ask"}

// decideCase is one row of a decision table: the settings, the request,
// and the verdict, a part of its reason and whether it is strict.
type decideCase struct {
	name             string
	mode             PermissionMode
	allow, ask, deny []string
	req              PermissionRequest
	want             verdict
	reason           string
	strict           bool
}

// runDecideCases checks each case against a Permissions for tree tr.
func runDecideCases(t *testing.T, tr testTree, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := newPermissions(PermissionConfig{Mode: tt.mode, Workspace: tr.ws, ReadableDirs: []string{tr.results},
				Home: tr.home(), UserFile: filepath.Join(tr.root, "mchome", "permissions.json"),
				Settings: []RuleSet{{Source: "settings.json", Allow: tt.allow, Ask: tt.ask, Deny: tt.deny}}})
			if err != nil {
				t.Fatal(err)
			}
			d := p.decide(tt.req)
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("decide(%q %q) = %s %q, want %s with %q", tt.req.Command, tt.req.Paths, verdictNames[d.Verdict], d.Reason, verdictNames[tt.want], tt.reason)
			}
			if d.Verdict == verdictAsk && d.Strict != tt.strict {
				t.Errorf("strict = %v, want %v (reason %q)", d.Strict, tt.strict, d.Reason)
			}
		})
	}
}

// home is the fake home folder of a test tree.
func (tr testTree) home() string { return filepath.Join(tr.root, "home") }

// TestDecide is the table of the decision for the file, web and MCP
// tools: modes × rules × paths × hosts.
func TestDecide(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	read := func(paths ...string) PermissionRequest {
		return PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: paths}
	}
	edit := func(tool string, paths ...string) PermissionRequest {
		return PermissionRequest{Tool: tool, Access: AccessWrite, Paths: paths}
	}
	mcp := PermissionRequest{Tool: "mcp__gh__create_issue", Access: AccessExternal}
	fetch := func(u string) PermissionRequest {
		return PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: u}
	}
	runDecideCases(t, tr, []decideCase{
		{name: "read inside", req: read("src/a.go"), want: verdictAllow},
		{name: "read inside, absolute", req: read(filepath.Join(tr.ws, "b.go")), want: verdictAllow},
		{name: "read inside through the symlinked workspace", req: read(filepath.Join(tr.wslink, "b.go")), want: verdictAllow},
		{name: "read inside through an inner link", req: read("inner/a.go"), want: verdictAllow},
		{name: "read with no path", req: read(), want: verdictAllow},
		{name: "read ../", req: read("../outside/secret.txt"), want: verdictAsk, reason: "outside the workspace"},
		{name: "read ../ that comes back", req: read("src/../../ws/b.go"), want: verdictAllow},
		{name: "read link/.. goes where the link leads", req: read("escape/../outside/secret.txt"), want: verdictAsk, reason: "outside the workspace"},
		{name: "read link/.. is not the workspace", req: read("escape/../ws/b.go"), want: verdictAllow},
		{name: "read inner/.. lands in the workspace", req: read("inner/../b.go"), want: verdictAllow},
		{name: "read absolute outside", req: read(filepath.Join(tr.outside, "secret.txt")), want: verdictAsk, reason: "outside the workspace: " + tr.outside},
		{name: "read through a link that escapes", req: read("escape/secret.txt"), want: verdictAsk, reason: tr.outside},
		{name: "read a new file under a link that escapes", req: read("escape/new.txt"), want: verdictAsk, reason: "outside"},
		{name: "read one inside one outside", req: read("b.go", "../outside/secret.txt"), want: verdictAsk},
		{name: "read the results folder", req: read(filepath.Join(tr.results, "r1.txt")), want: verdictAllow},
		{name: "read a hard link to an outside file", req: read("hard.txt"), want: verdictAsk, reason: "2 hard links"},
		{name: "unresolvable path", req: read("b.go/x"), want: verdictDeny, reason: `cannot check path "b.go/x"`},
		{name: "read outside in plan mode asks", mode: ModePlan, req: read("../outside/secret.txt"), want: verdictAsk},
		{name: "bare allow rule stays inside", allow: []string{"read_file"}, req: read("../outside/secret.txt"), want: verdictAsk},
		{name: "outside glob allows outside", allow: []string{"read_file(" + tr.outside + "/*)"}, req: read("../outside/secret.txt"), want: verdictAllow},
		{name: "Claude // glob allows outside", allow: []string{"Read(/" + tr.outside + "/**)"}, req: read("../outside/secret.txt"), want: verdictAllow},
		{name: "Claude / glob is relative to the project", allow: []string{"Read(" + tr.outside + "/**)"}, req: read("../outside/secret.txt"), want: verdictAsk},
		{name: "Read covers grep_files", deny: []string{"Read(./src/**)"}, req: PermissionRequest{Tool: "grep_files", Access: AccessRead, Paths: []string{"src"}}, want: verdictDeny},
		{name: "Read covers list_files", deny: []string{"Read(src)"}, req: PermissionRequest{Tool: "list_files", Access: AccessRead, Paths: []string{"src/a.go"}}, want: verdictDeny},
		{name: "a name without a slash matches at any depth", deny: []string{"Read(a.go)"}, req: read("src/a.go"), want: verdictDeny},
		{name: "~ in a rule is home", deny: []string{"Read(~/.ssh/**)"}, req: read(tr.home() + "/.ssh/id_rsa"), want: verdictDeny},
		{name: "relative ../ glob allows outside", allow: []string{"read_file(../outside/**)"}, req: read("escape/secret.txt"), want: verdictAllow},
		{name: "allow glob does not follow links lexically", allow: []string{"read_file(escape/**)"}, req: read("escape/secret.txt"), want: verdictAsk},
		{name: "deny glob matches the path as written", deny: []string{"read_file(escape/**)"}, req: read("escape/secret.txt"), want: verdictDeny, reason: "read_file(escape/**)"},
		{name: "deny glob matches the resolved path", deny: []string{"read_file(src/**)"}, req: read("inner/a.go"), want: verdictDeny},
		{name: "deny bare rule", deny: []string{"read_file"}, req: read("b.go"), want: verdictDeny, reason: "(settings.json)"},

		{name: "edit in default", req: edit("edit_file", "b.go"), want: verdictAsk, reason: "edits need approval in default mode"},
		{name: "edit in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", "src/a.go"), want: verdictAllow},
		{name: "new file in acceptEdits", mode: ModeAcceptEdits, req: edit("write_file", "src/new/c.go"), want: verdictAllow},
		{name: "edit ../ in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", "../outside/secret.txt"), want: verdictAsk, reason: "writes outside the workspace"},
		{name: "edit through escaping link in acceptEdits", mode: ModeAcceptEdits, req: edit("write_file", "escape/new.txt"), want: verdictAsk, reason: "writes outside"},
		{name: "write through a dangling link that leaves", mode: ModeAcceptEdits, req: edit("write_file", "dangling"), want: verdictAsk, reason: "writes outside the workspace: " + tr.outside},
		{name: "write through a relative dangling link", mode: ModeAcceptEdits, req: edit("write_file", "reldangling"), want: verdictAsk, reason: "writes outside the workspace: " + tr.outside},
		{name: "write a hard-linked file", mode: ModeAcceptEdits, allow: []string{"Edit"}, req: edit("write_file", "hard.txt"), want: verdictAsk, reason: "2 hard links", strict: true},
		{name: "edit .git in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", ".git/config"), want: verdictAsk, reason: ".git", strict: true},
		{name: "edit .git allowed by a rule", allow: []string{"Edit"}, req: edit("edit_file", ".git/config"), want: verdictAsk, strict: true},
		{name: "edit .git in bypass mode", mode: ModeBypass, req: edit("edit_file", ".git/config"), want: verdictAsk, strict: true},
		{name: "edit the permission rules", mode: ModeAcceptEdits, req: edit("write_file", ".minicode/permissions.json"), want: verdictAsk, reason: "protected", strict: true},
		{name: "edit the settings", mode: ModeAcceptEdits, req: edit("write_file", ".minicode/settings.json"), want: verdictAsk, strict: true},
		{name: "edit Claude's settings", mode: ModeAcceptEdits, req: edit("write_file", ".claude/settings.local.json"), want: verdictAsk, strict: true},
		{name: "edit a project skill", mode: ModeAcceptEdits, req: edit("edit_file", ".minicode/skills/x/SKILL.md"), want: verdictAsk, strict: true},
		{name: "edit a Claude skill", mode: ModeAcceptEdits, req: edit("edit_file", ".claude/skills/x/SKILL.md"), want: verdictAsk, strict: true},
		{name: "edit the MCP servers", mode: ModeAcceptEdits, req: edit("edit_file", ".mcp.json"), want: verdictAsk, strict: true},
		{name: "edit AGENTS.md", mode: ModeAcceptEdits, req: edit("edit_file", "AGENTS.md"), want: verdictAsk, reason: "configures git, agents or editors", strict: true},
		{name: "edit CLAUDE.md", mode: ModeBypass, req: edit("write_file", "CLAUDE.md"), want: verdictAsk, strict: true},
		{name: "edit CLAUDE.local.md and MINI.md", mode: ModeAcceptEdits, req: edit("write_file", "CLAUDE.local.md", "MINI.md"), want: verdictAsk, strict: true},
		{name: "edit an editor's workspace file", mode: ModeBypass, req: edit("write_file", "App.Code-Workspace"), want: verdictAsk, reason: "configures git, agents or editors", strict: true},
		{name: "edit another repository's settings", mode: ModeBypass, req: edit("write_file", ".hg/hgrc"), want: verdictAsk, reason: "configures a repository", strict: true},
		{name: "edit another agent's settings", mode: ModeAcceptEdits, req: edit("write_file", ".cursor/mcp.json"), want: verdictAsk, reason: "configures git, agents or editors", strict: true},
		{name: "edit a shell start-up file", mode: ModeBypass, req: edit("write_file", tr.home()+"/.bashrc"), want: verdictAsk, reason: "every new shell", strict: true},
		{name: "edit minicode's home", mode: ModeBypass, req: edit("write_file", tr.root+"/mchome/settings.json"), want: verdictAsk, strict: true},
		{name: "edit through a link into .git", mode: ModeAcceptEdits, req: edit("edit_file", "gitlink"), want: verdictAsk, reason: ".git", strict: true},
		{name: "edit allowed by glob", allow: []string{"edit_file(src/**)"}, req: edit("edit_file", "src/a.go"), want: verdictAllow},
		{name: "edit glob misses", allow: []string{"edit_file(src/**)"}, req: edit("edit_file", "b.go"), want: verdictAsk},
		{name: "edit rule is per tool", allow: []string{"edit_file(src/**)"}, req: edit("write_file", "src/a.go"), want: verdictAsk},
		{name: "Edit alias covers every writer", allow: []string{"Edit(src/**)"}, req: edit("patch_file", "src/a.go"), want: verdictAllow},
		{name: "Write alias covers every writer", allow: []string{"Write(./src/)"}, req: edit("edit_file", "src/a.go"), want: verdictAllow},
		{name: "edit ask rule beats acceptEdits", mode: ModeAcceptEdits, ask: []string{"edit_file(src/**)"}, req: edit("edit_file", "src/a.go"), want: verdictAsk, reason: "the rule edit_file(src/**) (settings.json) asks", strict: true},
		{name: "deny beats allow", allow: []string{"edit_file"}, deny: []string{"edit_file(b.go)"}, req: edit("edit_file", "b.go"), want: verdictDeny},

		{name: "plan mode refuses edits", mode: ModePlan, allow: []string{"edit_file"}, req: edit("edit_file", "b.go"), want: verdictDeny, reason: "plan mode"},
		{name: "plan mode refuses MCP", mode: ModePlan, req: mcp, want: verdictDeny, reason: "plan mode"},
		{name: "plan mode reads", mode: ModePlan, req: read("b.go"), want: verdictAllow},
		{name: "plan mode fetch asks", mode: ModePlan, req: fetch("https://go.dev/doc"), want: verdictAsk},
		{name: "bypass outside write", mode: ModeBypass, req: edit("write_file", "../outside/x"), want: verdictAllow},

		{name: "MCP asks", req: mcp, want: verdictAsk, reason: "calling mcp__gh__create_issue"},
		{name: "MCP server wildcard", allow: []string{"mcp__gh__*"}, req: mcp, want: verdictAllow},
		{name: "MCP server deny", deny: []string{"mcp__gh"}, req: mcp, want: verdictDeny},
		{name: "fetch asks", req: fetch("https://pkg.go.dev/x"), want: verdictAsk, reason: "pkg.go.dev"},
		{name: "fetch domain rule", allow: []string{"web_fetch(domain:go.dev)"}, req: fetch("https://pkg.go.dev/x"), want: verdictAllow},
		{name: "WebFetch domain rule", allow: []string{"WebFetch(domain:go.dev)"}, req: fetch("https://go.dev/x"), want: verdictAllow},
		{name: "WebFetch deny", allow: []string{"web_fetch"}, deny: []string{"WebFetch(domain:evil.test)"}, req: fetch("https://a.evil.test/x"), want: verdictDeny},
		{name: "WebSearch", allow: []string{"WebSearch"}, req: PermissionRequest{Tool: "web_search", Access: AccessNetwork, URL: "https://html.duckduckgo.com/html/?q=x"}, want: verdictAllow},
		{name: "fetch without host", req: fetch("not a url"), want: verdictDeny, reason: "no host"},
		{name: "loopback needs a rule naming it", allow: []string{"web_fetch"}, req: fetch("http://127.0.0.1:8080/"), want: verdictAsk, reason: "loopback"},
		{name: "localhost is loopback", allow: []string{"web_fetch"}, req: fetch("http://localhost/"), want: verdictAsk, reason: "127.0.0.1"},
		{name: "private address", allow: []string{"web_fetch"}, req: fetch("http://10.1.2.3/"), want: verdictAsk, reason: "private"},
		{name: "link-local address", allow: []string{"web_fetch"}, req: fetch("http://169.254.169.254/latest"), want: verdictAsk, reason: "link-local"},
		{name: "loopback allowed by a rule naming it", allow: []string{"web_fetch(domain:localhost)"}, req: fetch("http://[::ffff:127.0.0.1]/"), want: verdictAllow},
		{name: "a bare deny rule covers loopback too", deny: []string{"web_fetch"}, req: fetch("http://localhost/"), want: verdictDeny},
		{name: "deny on 127.0.0.1 covers localhost", allow: []string{"web_fetch"}, deny: []string{"web_fetch(domain:127.0.0.1)"}, req: fetch("http://localhost:9/"), want: verdictDeny},
		{name: "deny on 127.0.0.1 covers IPv4-mapped IPv6", deny: []string{"web_fetch(domain:127.0.0.1)"}, req: fetch("http://[::ffff:127.0.0.1]/"), want: verdictDeny},
		{name: "deny on 127.0.0.1 covers decimal", deny: []string{"WebFetch(domain:127.0.0.1)"}, req: fetch("http://2130706433/"), want: verdictDeny},
		{name: "deny on 127.0.0.1 covers octal", deny: []string{"web_fetch(domain:127.0.0.1)"}, req: fetch("http://0177.0.0.1/"), want: verdictDeny},
		{name: "deny on 127.0.0.1 covers short hex", deny: []string{"web_fetch(domain:127.0.0.1)"}, req: fetch("http://0x7f.1/"), want: verdictDeny},
		{name: "::1 is loopback", allow: []string{"web_fetch"}, req: fetch("http://[::1]/"), want: verdictAsk, reason: "loopback"},
	})
}

// TestDecideSymlinkedWorkspace checks that in a workspace given through a
// symlink (resolved at start) files are inside whichever way they are named.
func TestDecideSymlinkedWorkspace(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	ws, err := resolveWorkspace(tr.wslink)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPermissions(PermissionConfig{Workspace: ws, Mode: ModeAcceptEdits})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"b.go", filepath.Join(tr.ws, "b.go"), filepath.Join(tr.wslink, "src/a.go")} {
		if d := p.decide(PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{path}}); d.Verdict != verdictAllow {
			t.Errorf("edit %q in a symlinked workspace = %s %q, want allow", path, verdictNames[d.Verdict], d.Reason)
		}
	}
	if d := p.decide(PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{"escape/secret.txt"}}); d.Verdict != verdictAsk {
		t.Errorf("edit through an escaping link = %s, want ask", verdictNames[d.Verdict])
	}
}

// FuzzAuthorize checks that no command line or path, however odd, makes
// the permission check panic, and that a line is never allowed by a
// prefix rule unless it parses into commands that all start with it.
func FuzzAuthorize(f *testing.F) {
	for _, seed := range []string{"ls && rm -rf x", "ls `rm x`", `ls "$(rm x)"`, "ls\nrm x", "ls; cat <<E\nx\nE", "../../etc/passwd", "ls \\\ncurl x"} {
		f.Add(seed)
	}
	root := f.TempDir()
	p, err := newPermissions(PermissionConfig{Workspace: root, AllowedTools: []string{"run_command(ls:*),read_file"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := p.Authorize(context.Background(), PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: s})
		if err == nil {
			cmds, perr := parseCommandLine(s)
			if perr != nil {
				t.Fatalf("allowed %q, which cannot be parsed", s)
			}
			for _, c := range cmds {
				if len(c.Words) == 0 || c.Words[0] != "ls" {
					t.Fatalf("allowed %q, whose part %q is not ls", s, c.Words)
				}
			}
		}
		_ = p.Authorize(context.Background(), PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{s}})
	})
}
