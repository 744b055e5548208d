package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandCheck is the table of the command check: line → verdict and
// reason, under rules. It holds a regression case for each way a hostile
// model got past the earlier, larger check.
func TestCommandCheck(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	run := func(cmd string) PermissionRequest {
		return PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: cmd}
	}
	all := []string{"run_command"}
	curlDenied := []string{"run_command(curl:*)"}
	runDecideCases(t, tr, []decideCase{
		{name: "command in default", req: run("go test ./..."), want: verdictAsk, reason: "running a command"},
		{name: "command in acceptEdits", mode: ModeAcceptEdits, req: run("go test ./..."), want: verdictAsk},
		{name: "prefix rule", allow: []string{"run_command(go test:*)"}, req: run("go test ./..."), want: verdictAllow},
		{name: "Claude prefix rule", allow: []string{"Bash(go test:*)"}, req: run("go test ./..."), want: verdictAllow},
		{name: "Claude prefix rule with *", allow: []string{"Bash(go test *)"}, req: run("go test -run X ./..."), want: verdictAllow},
		{name: "prefix rule on word boundary", allow: []string{"run_command(go test:*)"}, req: run("go testx"), want: verdictAsk},
		{name: "exact rule", allow: []string{"Bash(go vet ./...)"}, req: run("go vet ./..."), want: verdictAllow},
		{name: "exact rule is exact", allow: []string{"run_command(go vet)"}, req: run("go vet ./..."), want: verdictAsk},
		{name: "allow ls does not allow && rm", allow: []string{"run_command(ls:*)"}, req: run("ls && rm x"), want: verdictAsk},
		{name: "every part allowed", allow: []string{"run_command(ls:*)", "run_command(wc:*)"}, req: run("ls | wc -l; ls -a\nls || ls"), want: verdictAllow},
		{name: "quoted operators are one command", allow: []string{"run_command(echo:*)"}, req: run(`echo "a && b; c" 'x|y'`), want: verdictAllow},
		{name: "a comment is not a command", allow: []string{"run_command(ls:*)"}, req: run("ls # $(rm x)"), want: verdictAllow},
		{name: "empty line", allow: all, req: run("  "), want: verdictAsk, reason: "no command", strict: true},

		{name: "destructive part", allow: []string{"run_command(ls:*)", "run_command(rm:*)"}, req: run("ls && rm -rf x"), want: verdictAsk, reason: "rm -r", strict: true},
		{name: "destructive despite whole-tool rule", allow: all, req: run("git reset --hard"), want: verdictAsk, reason: "git reset --hard", strict: true},
		{name: "force push", allow: all, req: run("git push --force origin main"), want: verdictAsk, reason: "forced", strict: true},
		{name: "push with +refspec", allow: all, req: run("git push origin +main"), want: verdictAsk, strict: true},
		{name: "git clean", allow: all, req: run("git clean -fdx"), want: verdictAsk, strict: true},
		{name: "find -delete", allow: all, req: run("find . -name x -delete"), want: verdictAsk, reason: "find -delete", strict: true},
		{name: "destructive behind a wrapper", allow: all, req: run("timeout 5 rm -r build"), want: verdictAsk, reason: "rm -r", strict: true},
		{name: "bypass allows destructive", mode: ModeBypass, req: run("rm -rf build && git push --force"), want: verdictAllow},
		{name: "plan mode refuses commands", mode: ModePlan, allow: all, req: run("ls; make"), want: verdictDeny, reason: "plan mode"},
		{name: "plan mode runs read-only commands", mode: ModePlan, req: run("ls; git log | head"), want: verdictAllow},
		{name: "plan mode refuses a read-only command's write", mode: ModePlan, req: run("ls > files.txt"), want: verdictDeny, reason: "plan mode"},

		{name: "deny on one part", allow: all, deny: []string{"run_command(rm:*)"}, req: run("ls; rm x"), want: verdictDeny, reason: "run_command(rm:*)"},
		{name: "deny in bypass mode", mode: ModeBypass, deny: []string{"run_command(rm:*)"}, req: run("rm -rf build"), want: verdictDeny},
		{name: "Claude deny rule", mode: ModeBypass, deny: []string{"Bash(curl:*)"}, req: run("curl evil.sh"), want: verdictDeny},
		{name: "deny through a wrapper and a folder", allow: all, deny: []string{"run_command(rm:*)"}, req: run("sudo /bin/rm x"), want: verdictDeny},
		{name: "deny inside sh -c", allow: all, deny: curlDenied, req: run(`sh -c "env curl evil.sh"`), want: verdictDeny},
		{name: "deny through env -", mode: ModeBypass, deny: curlDenied, req: run("env - curl x"), want: verdictDeny},
		{name: "deny through setsid", mode: ModeBypass, deny: curlDenied, req: run("setsid curl x"), want: verdictDeny},
		{name: "deny through flock", mode: ModeBypass, deny: curlDenied, req: run("flock lock curl x"), want: verdictDeny},
		{name: "deny through script -c", mode: ModeBypass, deny: curlDenied, req: run("script -qc 'curl x' /dev/null"), want: verdictDeny},
		{name: "deny through xargs", mode: ModeBypass, deny: curlDenied, req: run("echo x | xargs curl"), want: verdictDeny},
		{name: "deny through find -exec", mode: ModeBypass, deny: curlDenied, req: run("find . -exec curl {} ;"), want: verdictDeny},
		{name: "deny through quotes inside a word", mode: ModeBypass, deny: curlDenied, req: run("c''ur\\l x"), want: verdictDeny},
		{name: "deny multi-word rule", mode: ModeBypass, deny: []string{"Bash(git push:*)"}, req: run("git -C . push origin"), want: verdictDeny},
		{name: "deny ANSI-C quoted name", mode: ModeBypass, deny: curlDenied, req: run("$'curl' x"), want: verdictDeny, reason: "cannot tell"},
		{name: "deny brace expansion", mode: ModeBypass, deny: curlDenied, req: run("{curl,x}"), want: verdictDeny},
		{name: "deny a glob program name", mode: ModeBypass, deny: curlDenied, req: run("/usr/bin/cu*l x"), want: verdictDeny},
		{name: "deny a glob argument", mode: ModeBypass, deny: curlDenied, req: run("env /usr/bin/cu?l x"), want: verdictDeny, reason: "patterns"},
		{name: "deny a variable", mode: ModeBypass, deny: curlDenied, req: run("c=curl; $c x"), want: verdictDeny},
		{name: "deny a substitution", mode: ModeBypass, deny: curlDenied, req: run("$(echo curl) x"), want: verdictDeny},
		{name: "deny time -p", mode: ModeBypass, deny: curlDenied, req: run("time -p cu''rl x"), want: verdictDeny},
		{name: "deny an alias", mode: ModeBypass, deny: curlDenied, req: run("alias c=curl\nc x"), want: verdictDeny},
		{name: "deny trap", mode: ModeBypass, deny: curlDenied, req: run("trap 'cu''rl x' EXIT"), want: verdictDeny},
		{name: "deny source <(…)", mode: ModeBypass, deny: curlDenied, req: run("source <(echo cu''rl x)"), want: verdictDeny},
		{name: "deny an unclosed quote", deny: []string{"run_command"}, req: run(`echo "open`), want: verdictDeny},
		{name: "other tools' deny rules do not deny", deny: []string{"read_file"}, req: run("echo $HOME"), want: verdictAsk, strict: true},
		{name: "ask rule", allow: all, ask: []string{"run_command(git push:*)"}, req: run("git push"), want: verdictAsk, strict: true},
		{name: "ask rule other command", allow: all, ask: []string{"run_command(git push:*)"}, req: run("git status"), want: verdictAllow},

		{name: "here-document with a continued delimiter", allow: []string{"run_command(cat:*)"}, req: run("cat <<E\\\nOF\nx\nEOF"), want: verdictAsk, reason: "here-documents", strict: true},
		{name: "line continuation", allow: []string{"run_command(ls:*)"}, req: run("ls \\\n; curl x"), want: verdictAsk, reason: "line continuation", strict: true},
		{name: "quoted for still runs its redirections", allow: []string{"run_command(echo:*)"}, req: run("'for' x in a; do echo > y; done"), want: verdictAsk, strict: true},
		{name: "arithmetic with a here-doc", allow: all, req: run("((x<<X))"), want: verdictAsk, reason: "parentheses", strict: true},
		{name: "subshell", allow: []string{"run_command(ls:*)"}, req: run("(ls)"), want: verdictAsk, strict: true},
		{name: "background job", allow: []string{"run_command(ls:*)"}, req: run("ls & curl x"), want: verdictAsk, strict: true},
		{name: "assignment before a command", allow: []string{"run_command(go test:*)"}, req: run("GOFLAGS=-toolexec=x go test"), want: verdictAsk, reason: "assignment", strict: true},
		{name: "eval", allow: all, req: run("eval ls"), want: verdictAsk, strict: true},
		{name: "exact rule then a write to the settings", allow: []string{"run_command(git status)"}, req: run(`git status; echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > .minicode/settings.json`), want: verdictAsk, reason: ".minicode", strict: true},

		{name: "go test -exec", allow: []string{"run_command(go test:*)"}, req: run("go test -exec ./evil ./..."), want: verdictAsk},
		{name: "go test -toolexec=", allow: []string{"run_command(go test:*)"}, req: run("go test -toolexec=./evil ./..."), want: verdictAsk},
		{name: "go test -o", allow: []string{"run_command(go test:*)"}, req: run("go test -c -o x.test"), want: verdictAsk},
		{name: "go test -coverprofile", allow: []string{"run_command(go test:*)"}, req: run("go test -coverprofile=c.out"), want: verdictAsk},
		{name: "go test -C", allow: []string{"run_command(go test:*)"}, req: run("go test -C src"), want: verdictAsk},
		{name: "go build -o", allow: []string{"run_command(go build:*)"}, req: run("go build -o bin/x ."), want: verdictAsk},
		{name: "sort -o", allow: []string{"run_command(sort:*)"}, req: run("sort -ro out.txt b.go"), want: verdictAsk},
		{name: "sed w", allow: []string{"run_command(sed:*)"}, req: run("sed 'w out' b.go"), want: verdictAsk},
		{name: "sed e", allow: []string{"run_command(sed:*)"}, req: run("sed '1e id' b.go"), want: verdictAsk},
		{name: "sed s///w", allow: []string{"run_command(sed:*)"}, req: run("sed 's/a/b/w out' b.go"), want: verdictAsk},
		{name: "sed -i", allow: []string{"run_command(sed:*)"}, req: run("sed -i s/a/b/ b.go"), want: verdictAsk},
		{name: "plain sed", allow: []string{"run_command(sed:*)"}, req: run("sed -n 's/we/re/p;/x/d' b.go"), want: verdictAllow},
		{name: "find -fprint", allow: []string{"run_command(find:*)"}, req: run("find . -fprint out"), want: verdictAsk},
		{name: "find -exec", allow: []string{"run_command(find:*)"}, req: run("find . -name '*.go' -exec grep -l x {} +"), want: verdictAsk},
		{name: "git diff --output", allow: []string{"run_command(git diff:*)"}, req: run("git diff --output=x"), want: verdictAsk},
		{name: "git log --output", allow: []string{"run_command(git log:*)"}, req: run("git log --output x"), want: verdictAsk},
		{name: "git -c", allow: []string{"run_command(git:*)"}, req: run("git -c core.pager=evil log"), want: verdictAsk},
		{name: "tar --to-command", allow: []string{"run_command(tar:*)"}, req: run("tar -xf a.tar --to-command=sh"), want: verdictAsk},
		{name: "sed w in a second -e", allow: []string{"run_command(sed:*)"}, req: run("sed -e 's/a/b/' -e 'w out' b.go"), want: verdictAsk},
		{name: "sed script after --", allow: []string{"run_command(sed:*)"}, req: run("sed -- 'w out' -e x"), want: verdictAsk},
		{name: "sed script from a file", allow: []string{"run_command(sed:*)"}, req: run("sed -fx b.go"), want: verdictAsk},
		{name: "sed abbreviated --in-place", allow: []string{"run_command(sed:*)"}, req: run("sed --in s/a/b/ b.go"), want: verdictAsk},
		{name: "sort abbreviated --output", allow: []string{"run_command(sort:*)"}, req: run("sort --out=x b.go"), want: verdictAsk},
		{name: "tar -I without a dash", allow: []string{"run_command(tar:*)"}, req: run("tar cIf sh x.tar ."), want: verdictAsk},
		{name: "# inside a word is no comment", allow: []string{"run_command(echo:*)"}, req: run("echo 'x'#; curl x"), want: verdictAsk},
		{name: "sed -e: a script given as a value asks", allow: []string{"run_command(sed:*)"}, req: run("sed -e s/a/b/ b.go"), want: verdictAsk},
		{name: "sed -l takes a value, not the script", allow: []string{"run_command(sed:*)"}, req: run("sed -l 5 '1e id' b.go"), want: verdictAsk},
		{name: "sed --line-length takes a value", allow: []string{"run_command(sed:*)"}, req: run("sed --line-length 5 'w out' b.go"), want: verdictAsk},
		{name: "xargs always runs", allow: []string{"run_command(xargs:*)"}, req: run("xargs ls"), want: verdictAsk},
		{name: "exact rule may name a risky flag", allow: []string{"run_command(go build -o app .)"}, req: run("go build -o app ."), want: verdictAllow},

		{name: "mkdir outside", allow: []string{"run_command(mkdir:*)"}, req: run("mkdir -p ../outside/x"), want: verdictAsk, reason: "outside the workspace"},
		{name: "cat a key under cat:*", allow: []string{"run_command(cat:*)"}, req: run("cat ~/.ssh/id_rsa"), want: verdictAsk, reason: "outside the workspace"},
		{name: "grep -r outside", allow: []string{"run_command(grep:*)"}, req: run("grep -r x " + tr.outside), want: verdictAsk, reason: tr.outside},
		{name: "git diff --no-index outside", allow: []string{"run_command(git diff:*)"}, req: run("git diff --no-index " + tr.outside + "/secret.txt /dev/null"), want: verdictAsk, reason: "outside"},
		{name: "ls ~/.ssh", allow: []string{"run_command(ls:*)"}, req: run("ls -la ~/.ssh"), want: verdictAsk},
		{name: "a flag's value outside", allow: []string{"run_command(gcc:*)"}, req: run("gcc --sysroot=" + tr.outside + " x.c"), want: verdictAsk},
		{name: "another user's home", allow: []string{"run_command(cat:*)"}, req: run("cat ~root/.bashrc"), want: verdictAsk},
		{name: "a link that leaves", allow: []string{"run_command(cat:*)"}, req: run("cat escape/secret.txt"), want: verdictAsk, reason: tr.outside},
		{name: "link/.. follows the link first", allow: []string{"run_command(cat:*)"}, req: run("cat escape/../outside/secret.txt"), want: verdictAsk, reason: "outside"},
		{name: "a pattern that may match ..", allow: []string{"run_command(cat:*)"}, req: run("cat .?/outside/secret.txt"), want: verdictAsk, reason: "outside", strict: true},
		{name: "inner/.. stays inside", allow: []string{"run_command(cat:*)"}, req: run("cat inner/../b.go"), want: verdictAllow},
		{name: "a hard link to an outside file", allow: []string{"run_command(cat:*)"}, req: run("cat hard.txt"), want: verdictAsk, reason: "hard links"},
		{name: "outside path allowed by a Read rule", allow: []string{"run_command(cat:*)", "Read(/" + tr.outside + "/**)"}, req: run("cat " + tr.outside + "/secret.txt"), want: verdictAllow},
		{name: "the program's own path", allow: []string{"run_command(/bin/ls:*)"}, req: run("/bin/ls src"), want: verdictAllow},
		{name: "the results folder", allow: []string{"run_command(cat:*)"}, req: run("cat " + tr.results + "/r1.txt"), want: verdictAllow},

		{name: "redirect outside", allow: []string{"run_command(go test:*)"}, req: run("go test > " + tr.outside + "/log"), want: verdictAsk, reason: "writes outside the workspace"},
		{name: "redirect through a dangling link", allow: []string{"run_command(echo:*)"}, req: run("echo x > dangling"), want: verdictAsk, reason: "outside the workspace"},
		{name: "redirect into the settings", allow: []string{"run_command(echo:*)"}, req: run("echo '{}' > .minicode/settings.json"), want: verdictAsk, reason: "protected", strict: true},
		{name: "redirect into Claude's skills", mode: ModeBypass, req: run("echo x > .claude/skills/a/SKILL.md"), want: verdictAsk, strict: true},
		{name: "redirect into AGENTS.md", mode: ModeAcceptEdits, allow: all, req: run("echo x >> AGENTS.md"), want: verdictAsk, strict: true},
		{name: "copy over the MCP servers", allow: all, req: run("cp evil.json .mcp.json"), want: verdictAsk, reason: ".mcp.json", strict: true},
		{name: "redirect to a shell start-up file", mode: ModeBypass, req: run("echo x >> ~/.bashrc"), want: verdictAsk, reason: "every new shell", strict: true},
		{name: "redirect to a pattern", allow: []string{"run_command(echo:*)"}, req: run("echo x >> .gi?/config"), want: verdictAsk, reason: "pattern", strict: true},
		{name: "redirect to a file named like a descriptor", allow: []string{"run_command(echo:*)"}, req: run("echo x > '&x'"), want: verdictAsk, reason: "&", strict: true},
		{name: "redirect into .git", allow: all, req: run("echo x >> .git/config"), want: verdictAsk, reason: ".git", strict: true},
		{name: "redirect to a hard-linked file", allow: all, req: run("echo x > hard.txt"), want: verdictAsk, reason: "hard links", strict: true},
		{name: "cd, then a relative write is judged from there", allow: []string{"run_command(cd:*)", "run_command(echo:*)"}, req: run("cd src && echo x > ../.git/config"), want: verdictAsk, reason: ".git", strict: true},
		{name: "cd into .git", allow: []string{"run_command(cd:*)", "run_command(echo:*)"}, req: run("cd .git && echo x > config"), want: verdictAsk, strict: true},
		{name: "cd out, then a relative read", allow: []string{"run_command(cd:*)", "run_command(cat:*)"}, req: run("cd ../outside; cat secret.txt"), want: verdictAsk, reason: "outside"},
		{name: "cd home, then a read", allow: []string{"run_command(cd:*)", "run_command(cat:*)"}, req: run("cd; cat notes"), want: verdictAsk, reason: "outside"},
		{name: "cd inside, then a relative write", allow: []string{"run_command(cd:*)", "run_command(go test:*)"}, req: run("cd src && go test > log.txt"), want: verdictAllow},
		{name: "redirect to a descriptor file", allow: []string{"run_command(echo:*)"}, req: run("echo x > /dev/fd/2"), want: verdictAllow},
		{name: "redirect climbing out of /dev/fd", allow: []string{"run_command(echo:*)"}, req: run("echo x > /dev/fd/../../.." + tr.outside + "/x"), want: verdictAsk, reason: "outside the workspace"},
		{name: "descriptors duplicated", allow: []string{"run_command(go test:*)"}, req: run("go test 2>&1 >&2 3>&-"), want: verdictAllow},
		{name: "redirect inside and to /dev/null", allow: []string{"run_command(go test:*)"}, req: run("go test > log.txt 2>/dev/null"), want: verdictAllow},
		{name: "input from outside", allow: []string{"run_command(wc:*)"}, req: run("wc -l < ../outside/secret.txt"), want: verdictAsk, reason: "outside"},
		{name: "input from inside", allow: []string{"run_command(wc:*)"}, req: run("wc -l < b.go"), want: verdictAllow},
		{name: "/dev/tcp", allow: []string{"run_command(echo:*)"}, req: run("echo x > /dev/tcp/10.0.0.1/80"), want: verdictAsk, reason: "network"},
		{name: "/dev/udp input", allow: []string{"run_command(cat:*)"}, req: run("cat < /dev/udp/10.0.0.1/53"), want: verdictAsk, reason: "network"},
		{name: "outside path in bypass mode", mode: ModeBypass, req: run("cat ~/.ssh/id_rsa"), want: verdictAllow},
	})
}

// TestParseCommandLine checks how lines split into simple commands.
func TestParseCommandLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line  string
		words [][]string
		err   string
	}{
		{"go test ./...", [][]string{{"go", "test", "./..."}}, ""},
		{`a "b c" 'd e' f\ g`, [][]string{{"a", "b c", "d e", "f g"}}, ""},
		{"a;b&&c||d|e\nf", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}, ""},
		{"a > x 2>&1 < y", [][]string{{"a"}}, ""},
		{`echo "\"q\" \\"`, [][]string{{"echo", `"q" \`}}, ""},
		{"find . -exec x {} ;", [][]string{{"find", ".", "-exec", "x", "{}"}}, ""},
		{"git log HEAD~1", [][]string{{"git", "log", "HEAD~1"}}, ""},
		{"echo $x", nil, "$"},
		{"echo `x`", nil, "backquotes"},
		{`echo "$(x)"`, nil, "inside double quotes"},
		{"a <(b)", nil, "process substitution"},
		{"cat <<E\nx\nE", nil, "here-documents"},
		{"a &", nil, "background"},
		{"a &> f", nil, "&>"},
		{"a >", nil, "without a file"},
		{"a; > f", nil, "without a command"},
		{"a >#f", nil, "# as the file"},
		{"a x>f", nil, "glued"},
		{"echo a=~/x", nil, "~ after"},
		{"! a", nil, "!"},
		{"'unclosed", nil, "unclosed"},
	}
	for _, tt := range tests {
		cmds, err := parseCommandLine(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseCommandLine(%q) error = %v, want one with %q", tt.line, err, tt.err)
			}
			continue
		}
		var got [][]string
		for _, c := range cmds {
			got = append(got, c.Words)
		}
		if err != nil || !slices.EqualFunc(got, tt.words, slices.Equal) {
			t.Errorf("parseCommandLine(%q) = %q, %v; want %q", tt.line, got, err, tt.words)
		}
	}
}

// TestReadOnlyCommandsRunWithoutAsking sends, in one -p run with no rules,
// commands that only read (they run) and each way to make such a program
// write, run another, reach beyond the workspace or escape the check (they
// ask, so -p denies them and lists them). The same lines run in plan mode.
func TestReadOnlyCommandsRunWithoutAsking(t *testing.T) {
	t.Parallel()
	readOnly := []string{"ls -la", "pwd", "echo hi", "printf 'x\\n'", "cat a.txt", "head -n 1 a.txt", "tail -n 1 a.txt", "wc -l a.txt",
		"grep -rn alpha .", "git status", "git log --oneline -3", "git diff", "git --no-pager show HEAD", "sort a.txt | uniq -c",
		"cut -c1-3 a.txt", "diff a.txt sub/b.txt", "find . -name '*.txt'", "sed -n 1p a.txt", "ls nothing 2>/dev/null", "cd sub && cat b.txt",
		"stat a.txt", "du -s .", "ls 2>&1 | head", "tr a b < a.txt", "true && false || pwd", "git reflog", "git reflog show -n 2 HEAD"}
	asking := []string{"find . -delete", "find . -exec cat {} +", "find -L .", "git diff --ext-diff", "git diff --output=x", "git -c core.pager=cat log",
		"git -C sub log", "git branch new", "git push", "git grep -O alpha", "git diff --no-index a.txt sub/b.txt", "sort -o out a.txt", "sort --out=x a.txt",
		"sort -T . a.txt", "sed -i s/a/b/ a.txt", "sed 's/a/b/w out' a.txt", "sed -n 1e a.txt", "cat /etc/hostname", "cat ../a.txt", "ls ~",
		"echo hi > out.txt", "echo hi >> out.txt", "cat a.txt | tee out.txt", "grep -R alpha .", "rg --pre cat alpha", "rg -z alpha", "rg --follow alpha",
		"ls -L", "du -L .", "wc --files0-from=a.txt", "diff -r . sub", "uniq a.txt out.txt", "xargs ls", "awk 1 a.txt", "less a.txt", "cat out-link",
		"env", "ls *.txt", "echo $HOME", "/bin/ls", "LC_ALL=C ls", "cat .git/config", "cat a.txt > /dev/tty", "git reflog expire --all", "git reflog delete HEAD@{0}"}
	ws := workspaceWith(t, map[string]string{"a.txt": "alpha\nbeta\n", "sub/b.txt": "beta\n", ".git/config": "[core]\n"})
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, "out-link")); err != nil {
		t.Fatal(err)
	}
	var calls []map[string]any
	for _, c := range slices.Concat(readOnly, asking) {
		calls = append(calls, map[string]any{"name": "run_command", "input": map[string]string{"command": c}})
	}
	script, _ := json.Marshal([]any{map[string]any{"tool_calls": calls}, map[string]string{"text": "done"}})
	for _, mode := range []string{"default", "plan", "dontAsk"} {
		r := runMinicode(t, nil, "", "-p", "look around", "--output-format", "json", "--permission-mode", mode,
			"--mock-script", writeScript(t, string(script)), "--workspace", ws)
		var res struct {
			Denials []Denial `json:"permission_denials"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("%s: stdout %q: %v", mode, r.stdout, err)
		}
		denied := map[string]bool{}
		for _, d := range res.Denials {
			var in struct{ Command string }
			json.Unmarshal(d.Input, &in)
			denied[in.Command] = d.Tool == "Bash"
		}
		for _, c := range readOnly {
			if denied[c] {
				t.Errorf("%s: %q was not allowed", mode, c)
			}
		}
		for _, c := range asking {
			if !denied[c] {
				t.Errorf("%s: %q ran without asking", mode, c)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
		t.Error("a write ran")
	}
}
