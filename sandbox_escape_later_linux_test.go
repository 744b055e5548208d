package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file plant what takes effect outside the sandbox only
// later: at the user's next git command in a repository's state of a
// rebase or a nested repository's settings, or when the user's editor or
// tool manager opens the workspace.

// tryScript is the start of an attack script: try runs a command and
// prints ESCAPED when it succeeds.
const tryScript = `try() { if (eval "$1") 2>/dev/null; then echo "ESCAPED: $1"; fi; }
`

// TestSandboxProtectsRebasesInProgress plants exec lines in a rebase's
// todo list, which the user's git rebase --continue runs: in the user's
// rebase stopped before the command, the list is read-only; a rebase, a
// cherry-pick's sequence or a git am the command leaves stopped itself is
// moved out, so the user's git continues nothing planted.
func TestSandboxProtectsRebasesInProgress(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		stop := `GIT_SEQUENCE_EDITOR="sed -i s/^pick/edit/" git rebase -q -i HEAD~1`
		r.shell(t, `git config user.name t && git config user.email t@t && echo two >> main.go && git commit -qam two && `+stop+` &&
mkdir vendored && cd vendored && git init -q && git config user.name t && git config user.email t@t && echo v > v && git add v &&
git commit -qm v1 && echo w >> v && git commit -qam v2 && git init -q ../lib`)
		todo := readFileString(t, filepath.Join(r.ws, ".git/rebase-merge/git-rebase-todo"))
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`try 'echo "exec touch $PWD/PWNED" >> .git/rebase-merge/git-rebase-todo'
g=.gi; g=${g}t; mkdir -p lib/$g/rebase-apply && echo "touch $PWD/PWNED" > lib/$g/rebase-apply/patch
cd vendored && `+stop+` && echo "exec touch $PWD/PWNED" >> .git/rebase-merge/git-rebase-todo && echo STOPPED
mkdir -p $g/sequencer && echo "exec touch $PWD/PWNED" > $g/sequencer/todo`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "STOPPED") {
			t.Errorf("attack output: %s", out)
		}
		mustContain(t, out, "The sandbox removed", "vendored/.git/rebase-merge", "vendored/.git/sequencer", "lib/.git/rebase-apply")
		if got := readFileString(t, filepath.Join(r.ws, ".git/rebase-merge/git-rebase-todo")); got != todo {
			t.Errorf("the user's rebase's todo list = %q, want %q", got, todo)
		}
		r.shell(t, "git rebase --continue >/dev/null 2>&1; git -C vendored rebase --continue >/dev/null 2>&1; git -C vendored cherry-pick --continue >/dev/null 2>&1; true")
		for _, planted := range []string{"PWNED", "vendored/PWNED"} {
			if _, err := os.Lstat(filepath.Join(r.ws, planted)); err == nil {
				t.Errorf("the user's git ran what the attack planted (%s): %s", planted, out)
			}
		}
	})
}

// TestSandboxFollowsNestedRepositoriesConfig gives a nested repository
// its own hooks folder (core.hooksPath, from its work tree) and an
// included config file (include.path, from its git folder): both are
// read-only, and the user's git there runs nothing planted.
func TestSandboxFollowsNestedRepositoriesConfig(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.ws, map[string]string{"vendored/.githooks/pre-commit": "#!/bin/sh\nexit 0\n", "vendored/shared.gitconfig": ""})
		r.chown(t)
		r.shell(t, `cd vendored && git init -q && chmod +x .githooks/pre-commit && git config core.hooksPath .githooks && git config include.path ../shared.gitconfig`)
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`try 'echo "touch $PWD/PWNED" >> vendored/.githooks/pre-commit'
try 'printf "[core]\n\tfsmonitor = touch %s/PWNED\n" "$PWD" >> vendored/shared.gitconfig'
echo TRIED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "TRIED") {
			t.Errorf("attack output: %s", out)
		}
		r.shell(t, "cd vendored && git status >/dev/null 2>&1; git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x >/dev/null 2>&1; true")
		if _, err := os.Lstat(filepath.Join(r.ws, "PWNED")); err == nil {
			t.Errorf("the user's git ran what the attack planted: %s", out)
		}
	})
}

// TestSandboxProtectsWorkspaceFilesOfEditorsAndTools covers files that
// editors and tool managers act on when the user opens or enters the
// workspace: an editor's workspace file (its tasks and settings), a dev
// container's configuration (initializeCommand runs on the host), mise's
// (its hooks run on entering the folder), asdf's .tool-versions (a path:
// version makes every shim run a program of the workspace), and the local
// settings of Emacs and Vim. Those that exist stay as they were, those a
// command makes are removed.
func TestSandboxProtectsWorkspaceFilesOfEditorsAndTools(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		existing := map[string]string{"app.code-workspace": `{"folders": [{"path": "."}]}`, "mise.toml": "[tools]\n", ".devcontainer/devcontainer.json": "{}\n",
			".tool-versions": "nodejs 20.11.0\n", ".dir-locals.el": "((nil . ((fill-column . 80))))\n"}
		writeTree(t, r.ws, existing)
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`for f in app.code-workspace mise.toml .devcontainer/devcontainer.json; do try "echo planted >> $f"; done
try 'echo "nodejs path:$PWD/evil-node" > .tool-versions'
try 'echo "((nil . ((compile-command . \"touch PWNED\"))))" > .dir-locals.el'
echo '!touch PWNED' > .exrc
echo '{"tasks": {"version": "2.0.0", "tasks": [{"label": "x", "command": "touch PWNED", "runOptions": {"runOn": "folderOpen"}}]}}' > tasks.code-workspace
printf '[hooks]\nenter = "touch PWNED"\n' > .mise.toml
echo '{"initializeCommand": "touch PWNED"}' > .devcontainer.json
echo PLANTED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "PLANTED") {
			t.Errorf("attack output: %s", out)
		}
		mustContain(t, out, "The sandbox removed", "tasks.code-workspace", ".mise.toml", ".devcontainer.json", ".exrc")
		for path, want := range existing {
			if got := readFileString(t, filepath.Join(r.ws, path)); got != want {
				t.Errorf("%s = %q, want %q", path, got, want)
			}
		}
		for _, planted := range []string{"tasks.code-workspace", ".mise.toml", ".devcontainer.json", ".exrc"} {
			if _, err := os.Lstat(filepath.Join(r.ws, planted)); err == nil {
				t.Errorf("%s exists after the attack", planted)
			}
		}
	})
}

// TestSandboxFollowsGitConfigAsGitReadsIt sets what git takes from
// outside a repository's config or in any letter case: a relative
// core.hooksPath in the user's global config (each repository runs the
// hooks of that folder of its own work tree, a nested one's too), and an
// include written [include] Path. Each named file is read-only, and the
// user's git runs nothing planted.
func TestSandboxFollowsGitConfigAsGitReadsIt(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		hook := "#!/bin/sh\nexit 0\n"
		writeTree(t, r.home, map[string]string{".gitconfig": "[core]\n\thooksPath = .githooks\n"})
		writeTree(t, r.ws, map[string]string{".githooks/pre-commit": hook, "vendored/.githooks/pre-commit": hook, "shared.gitconfig": ""})
		r.chown(t)
		r.shell(t, `chmod +x .githooks/pre-commit vendored/.githooks/pre-commit && git -C vendored init -q && printf '[include]\n\tPath = ../shared.gitconfig\n' >> .git/config`)
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`for f in .githooks/pre-commit vendored/.githooks/pre-commit; do try "echo 'touch $PWD/PWNED' >> $f"; done
try 'printf "[core]\n\tfsmonitor = touch %s/PWNED\n" "$PWD" >> shared.gitconfig'
echo TRIED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "TRIED") {
			t.Errorf("attack output: %s", out)
		}
		r.shell(t, "for d in . vendored; do git -C $d -c user.name=t -c user.email=t@t commit -q --allow-empty -m x >/dev/null 2>&1; done; true")
		if _, err := os.Lstat(filepath.Join(r.ws, "PWNED")); err == nil {
			t.Errorf("the user's git ran what the attack planted: %s", out)
		}
	})
}

// TestSandboxTellsWhatGitHoldsOfProtectedPaths has commands make git hold a planted version of a
// protected file they cannot write: staged in the index, and committed on a new branch; the user's
// checkout of either would write it. Each command's result says which path and where; a command that
// commits other work says nothing, though the user's own change to the file is not committed.
func TestSandboxTellsWhatGitHoldsOfProtectedPaths(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.ws, map[string]string{".husky/pre-commit": "npm test\n"})
		r.chown(t)
		r.shell(t, "git config user.name t && git config user.email t@t && git add .husky && git commit -qm husky && echo 'npm run lint' >> .husky/pre-commit")
		out := r.minicode(t, nil, "echo more >> main.go && git commit -qam more && git checkout -qb work && git commit -q --allow-empty -m empty",
			`b=$(echo 'touch PWNED' | git hash-object -w --stdin) && git update-index --cacheinfo 100755,$b,.husky/pre-commit && echo STAGED`,
			`git update-ref refs/heads/fix $(git commit-tree $(git write-tree) -p HEAD -m fix) && git reset -q && echo BRANCHED`)
		if len(out) != 3 {
			t.Fatalf("results: %q", out)
		}
		if strings.Contains(out[0], "Git now holds") {
			t.Errorf("a commit of other work was reported: %s", out[0])
		}
		mustContain(t, out[1], "STAGED", "Git now holds", ".husky/pre-commit (the index)")
		mustContain(t, out[2], "BRANCHED", ".husky/pre-commit (fix)")
		if strings.Contains(out[2], "the index") {
			t.Errorf("the index, reset, was reported: %s", out[2])
		}
	})
}

// TestSandboxRemovesWhatGitConfigNamesOnceMade has the repository's and
// the user's global config name paths of the work tree that do not exist
// yet: a hooks folder (core.hooksPath), an fsmonitor script and an
// included config file. A command that makes them has them moved out when
// it ends, and the user's git then runs nothing planted.
func TestSandboxRemovesWhatGitConfigNamesOnceMade(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.home, map[string]string{".gitconfig": "[core]\n\thooksPath = .globalhooks\n"})
		r.chown(t)
		r.shell(t, `git config core.fsmonitor .fsmonitor.sh && git config include.path ../extra.gitconfig && git -C vendored init -q 2>/dev/null || (mkdir vendored && git -C vendored init -q) && git -C vendored config core.hooksPath .githooks`)
		writeFile(t, filepath.Join(r.ws, "attack.sh"), `for d in .globalhooks vendored/.githooks; do mkdir -p $d && printf '#!/bin/sh\ntouch %s/PWNED\n' "$PWD" > $d/pre-commit && chmod +x $d/pre-commit; done
printf '#!/bin/sh\ntouch %s/PWNED\n' "$PWD" > .fsmonitor.sh && chmod +x .fsmonitor.sh
printf '[core]\n\tsshCommand = touch %s/PWNED\n' "$PWD" > .git/../extra.gitconfig
echo PLANTED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		mustContain(t, out, "PLANTED", "The sandbox removed", ".globalhooks", "vendored/.githooks", ".fsmonitor.sh", "extra.gitconfig")
		r.shell(t, "for d in . vendored; do git -C $d status >/dev/null 2>&1; git -C $d -c user.name=t -c user.email=t@t commit -q --allow-empty -m x >/dev/null 2>&1; done; true")
		if _, err := os.Lstat(filepath.Join(r.ws, "PWNED")); err == nil {
			t.Errorf("the user's git ran what the attack planted: %s", out)
		}
	})
}

// TestSandboxProtectsOtherRepositoriesAndAgents plants what other version
// control systems and coding agents run from a workspace: a Mercurial
// repository's hgrc (hooks and extensions) that exists stays read-only,
// while its store stays writable for commits; a Jujutsu repository's
// config and other agents' project settings (MCP servers, hooks, plugins),
// existing or new, are kept as they were or moved out.
func TestSandboxProtectsOtherRepositoriesAndAgents(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		existing := map[string]string{".hg/hgrc": "[paths]\n", ".hg/store/00changelog.i": "", ".cursor/mcp.json": "{}\n", ".gemini/settings.json": "{}\n"}
		writeTree(t, r.ws, existing)
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`try 'printf "[hooks]\npre-status = touch PWNED\n" >> .hg/hgrc'
try 'echo "{\"mcpServers\": {\"x\": {\"command\": \"touch\", \"args\": [\"PWNED\"]}}}" > .cursor/mcp.json'
try 'echo "{\"hooks\": {}}" > .gemini/settings.json'
echo more >> .hg/store/00changelog.i && echo STORED
mkdir -p .jj/repo .opencode/plugin && printf '[ui]\npager = "touch PWNED"\n' > .jj/repo/config.toml
echo 'touch("PWNED")' > .opencode/plugin/x.js && echo '{"mcp": {}}' > opencode.json && echo 'lint-cmd: touch PWNED' > .aider.conf.yml
echo PLANTED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "PLANTED") || !strings.Contains(out, "STORED") {
			t.Errorf("attack output: %s", out)
		}
		mustContain(t, out, "The sandbox removed", ".jj/repo/config.toml", ".opencode", "opencode.json", ".aider.conf.yml")
		for path, want := range existing {
			if got := readFileString(t, filepath.Join(r.ws, path)); got != want && path != ".hg/store/00changelog.i" {
				t.Errorf("%s = %q, want %q", path, got, want)
			}
		}
		for _, planted := range []string{".jj/repo/config.toml", ".opencode", "opencode.json", ".aider.conf.yml"} {
			if _, err := os.Lstat(filepath.Join(r.ws, planted)); err == nil {
				t.Errorf("%s exists after the attack", planted)
			}
		}
	})
}

// TestSandboxKeepsWhatMinicodeRunsReadOnly names workspace scripts in what
// minicode itself runs outside the sandbox: a hook (through the project
// folder's variable and plainly) and an MCP server's script. A command
// cannot rewrite them, so the hook that runs after it runs nothing planted.
func TestSandboxKeepsWhatMinicodeRunsReadOnly(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.ws, map[string]string{"hooks/after.sh": "true\n", "hooks/before.sh": "true\n", "mcp/server.sh": "exit 0\n"})
		writeTree(t, r.minicodeHome, map[string]string{"settings.json": `{"hooks": {
			"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR\"/hooks/after.sh"}]}],
			"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "bash hooks/before.sh"}]}]}}`})
		r.args = []string{"--mcp-config", `{"mcpServers": {"s": {"command": "sh", "args": ["mcp/server.sh"]}}}`}
		writeFile(t, filepath.Join(r.ws, "attack.sh"), tryScript+`for f in hooks/after.sh hooks/before.sh mcp/server.sh; do try "echo 'touch $PWD/PWNED' >> $f"; done
echo TRIED`)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "bash attack.sh"), "\n")
		if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "TRIED") {
			t.Errorf("attack output: %s", out)
		}
		if _, err := os.Lstat(filepath.Join(r.ws, "PWNED")); err == nil {
			t.Errorf("a hook ran what the attack planted: %s", out)
		}
	})
}
