package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDestructiveReason checks which commands count as destroying work,
// and that the reason names what they do. want "" means harmless.
func TestDestructiveReason(t *testing.T) {
	t.Parallel()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ command, want string }{
		{"rm -rf build", "rm -r deletes"},
		{"rm -fr build", "rm -r deletes"},
		{"rm -r build", "rm -r deletes"},
		{"rm -R build", "rm -r deletes"},
		{"rm --recursive build", "rm -r deletes"},
		{"/bin/rm -rf build", "rm -r deletes"},
		{"sudo rm -rf /", "rm -r deletes"},
		{"FOO=1 env -i BAR=2 nice -n 5 rm -rf x", "rm -r deletes"},
		{"xargs -n 1 rm -rf", "rm -r deletes"},
		{"timeout 5 rm -rf x", "rm -r deletes"},
		{"rm file.txt", ""},
		{"rm -- -r", ""},
		{"git reset --hard HEAD~1", "git reset --hard"},
		{"git -C sub reset --hard", "git reset --hard"},
		{"git reset --soft HEAD~1", ""},
		{"git clean -fdx", "git clean"},
		{"git clean -n", ""},
		{"git push --force origin main", "git push --force"},
		{"git push -f", "git push --force"},
		{"git push --force-with-lease", "git push --force"},
		{"git push origin +main", "git push --force"},
		{"git push origin main", ""},
		{"git checkout -- file.go", "discards"},
		{"git checkout .", "discards"},
		{"git checkout -b feature", ""},
		{"git restore file.go", "git restore"},
		{"git restore --staged file.go", ""},
		{"git branch -D old", "git branch -D"},
		{"git branch -d old", ""},
		{"git stash drop", "git stash drop"},
		{"git status", ""},
		{"sed -i s/a/b/ /etc/hosts", "outside the workspace"},
		{"sed -i.bak -e s/a/b/ ../other/file", "outside the workspace"},
		{"sed -i s/a/b/ $HOME/file", "outside the workspace"},
		{"sed -i s/a/b/ main.go", ""},
		{"sed -n s/a/b/p /etc/hosts", ""},
		{"find . -name '*.o' -delete", "find -delete"},
		{"find . -exec rm {} ;", "find -exec rm"},
		{"find . -type f -print", ""},
		{"chmod -R 777 .", "chmod -R"},
		{"chown --recursive me .", "chown -R"},
		{"chmod +x run.sh", ""},
		{"dd if=/dev/zero of=/dev/sda", "dd overwrites"},
		{"mkfs.ext4 /dev/sdb1", "mkfs"},
		{"shred -u secret", "shred"},
		{"echo x > .git/HEAD", ".git"},
		{"cp hook .git/hooks/pre-commit", ".git"},
		{"echo x >> .gi?/config", ".git"},
		{"tee .{git/config,x} < evil", ".git"},
		{"touch .{f..h}it/hooks/x", ".git"},
		{"cp x .g*/hooks/pre-commit", ".git"},
		{"cp x */hooks/pre-commit", ""},
		{"touch {a,b}.txt", ""},
		{"sed -i s/a/b/ ~root/file", "outside the workspace"},
		{"sed -i s/a/b/ *.go src/*.go", ""},
		{"sed -i s/a/b/ {a,../b}.go", "outside the workspace"},
		{"sed -i s/a/b/ e*/x.conf", "outside the workspace"},
		{"cat .git/config", ""},
		{"echo x > .gitignore", ""},
		{`bash -c "cd x && rm -rf y"`, "rm -r deletes"},
		{`sh -c 'git reset --hard'`, "git reset --hard"},
		{`eval "rm -rf x"`, "rm -r deletes"},
		{"env -S 'rm -rf x'", "rm -r deletes"},
		{"env -i --split-string='git clean -fd'", "git clean"},
		{"timeout --signal KILL 5 rm -rf x", "rm -r deletes"},
		{"nice --adjustment 5 git reset --hard", "git reset --hard"},
		{"bash", "its input"},
		{"sudo sh -s", "its input"},
		{"bash -o pipefail", "its input"},
		{"bash -x build.sh", ""},
		{`bash -c 'echo x | sh'`, "its input"},
		{`bash -c 'echo "unterminated'`, "cannot be parsed"},
		{"go test ./...", ""},
	}
	for _, tt := range tests {
		cmds, err := splitCommands(tt.command)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("splitCommands(%q) = %v, %v; want one command", tt.command, cmds, err)
		}
		got := destructiveReason(cmds[0], ws)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("destructiveReason(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}
