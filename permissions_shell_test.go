package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSplitCommands checks which simple commands a command line runs,
// each shown as its words joined by "|" (nested commands marked with ^).
func TestSplitCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{"ls", []string{"ls"}},
		{"  go   test ./...  ", []string{"go|test|./..."}},
		{"ls && rm -rf x", []string{"ls", "rm|-rf|x"}},
		{"a || b; c | d |& e & f", []string{"a", "b", "c", "d", "e", "f"}},
		{"a\nb\n\nc", []string{"a", "b", "c"}},
		{`echo "a && b"`, []string{"echo|a && b"}},
		{`echo 'a; b' c\;d`, []string{"echo|a; b|c;d"}},
		{"echo $(rm -rf x)", []string{"^rm|-rf|x", "echo|$(rm -rf x)"}},
		{"echo `rm -rf x`", []string{"^rm|-rf|x", "echo|`rm -rf x`"}},
		{`echo "$(date) and ` + "`whoami`" + `"`, []string{"^date", "^whoami", "echo|$(date) and `whoami`"}},
		{"echo $(echo $(id))", []string{"^id", "^echo|$(id)", "echo|$(echo $(id))"}},
		{"echo `echo \\`rm x\\``", []string{"^rm|x", "^echo|`rm x`", "echo|`echo \\`rm x\\``"}},
		{`echo "` + "`echo \\\\$HOME \\`id\\``" + `"`, []string{"^id", "^echo|$HOME|`id`", "echo|`echo \\\\$HOME \\`id\\``"}},
		{"(cd sub && make)", []string{"^cd|sub", "^make"}},
		{"diff <(ls a) >(wc -l)", []string{"^ls|a", "^wc|-l", "diff|<(ls a)|>(wc -l)"}},
		{"echo $((1 + 2)) ${HOME} $'a\\'b'", []string{"echo|$((1 + 2))|${HOME}|$'a\\'b'"}},
		{"echo ${x:-$(rm -rf x)} ${y:-`id`}", []string{"^rm|-rf|x", "^id", "echo|${x:-$(rm -rf x)}|${y:-`id`}"}},
		{"echo ${x:-'}'$(id)}", []string{"^id", "echo|${x:-'}'$(id)}"}},
		{"echo ${x:-{a}b}", []string{"echo|${x:-{a}b}"}},
		{"echo $(( $(id) + (1) ))", []string{"^id", "echo|$(( $(id) + (1) ))"}},
		{"echo $(( '$(id)' ))", []string{"^id", "echo|$(( '$(id)' ))"}},
		{"echo $((echo hi); rm -rf x)", []string{"^echo|hi", "^rm|-rf|x", "echo|$((echo hi); rm -rf x)"}},
		{`echo "$'$(id)'"`, []string{"^id", "echo|$'$(id)'"}},
		{"go test ./... > out.txt 2>&1", []string{"go|test|./..."}},
		{"go test&>log", []string{"go|test"}},
		{"if make; then go test; fi", []string{"make", "go|test"}},
		{"for f in *.go; do gofmt -l $f; done", []string{"gofmt|-l|$f"}},
		{"ls # && rm -rf /", []string{"ls"}},
		{"ls \\\n  -la", []string{"ls|-la"}},
		{"cat <<EOF > f\nrm -rf /\nEOF\nls", []string{"cat", "ls"}},
		{"cat <<EOF\n$(rm -rf x) `id` \\$(no)\nEOF", []string{"cat", "^rm|-rf|x", "^id"}},
		{"cat <<'EOF'\n$(rm -rf x)\nEOF\ncat <<\\E\n`id`\nE\ncat <<\"E\"\n$(id)\nE", []string{"cat", "cat", "cat"}},
		{"bash <<'EOF'\nrm -rf /\nEOF", []string{"bash", "^rm|-rf|/"}},
		{"cat <<-END\n\trm -rf /\n\tEND\necho done", []string{"cat", "echo|done"}},
		{"FOO=1 go test", []string{"FOO=1|go|test"}},
		{"function f { rm -rf x; }; f", []string{"rm|-rf|x", "f"}},
		{"coproc rm -rf x; coproc C { git clean -fd; }", []string{"rm|-rf|x", "git|clean|-fd"}},
		{"bash <<< 'rm -rf x; ls'", []string{"^rm|-rf|x", "^ls", "bash"}},
		{"cat <<< 'rm -rf x'", []string{"cat"}},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := splitCommands(tt.line)
		if err != nil {
			t.Errorf("splitCommands(%q): %v", tt.line, err)
			continue
		}
		var shown []string
		for _, c := range got {
			s := strings.Join(c.Words, "|")
			if c.Nested {
				s = "^" + s
			}
			shown = append(shown, s)
		}
		if !slices.Equal(shown, tt.want) {
			t.Errorf("splitCommands(%q)\n got %q\nwant %q", tt.line, shown, tt.want)
		}
	}
}

// TestSplitCommandsTextAndRedirects checks the text kept for each command
// and the redirections recorded apart from the words.
func TestSplitCommandsTextAndRedirects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line      string
		text      string
		redirects string
	}{
		{"go test ./... > out.txt 2>&1", "go test ./... > out.txt 2>&1", "[{> out.txt} {>& 1}]"},
		{"then  go vet ./...  ", "go vet ./...", "[]"},
		{"sort < in >> out", "sort < in >> out", "[{< in} {>> out}]"},
		{"echo hi >.git/config", "echo hi >.git/config", "[{> .git/config}]"},
		{"cmd &>> log", "cmd &>> log", "[{&>> log}]"},
	}
	for _, tt := range tests {
		got, err := splitCommands(tt.line)
		if err != nil || len(got) != 1 {
			t.Errorf("splitCommands(%q) = %v, %v; want one command", tt.line, got, err)
			continue
		}
		if got[0].Text != tt.text {
			t.Errorf("text of %q = %q, want %q", tt.line, got[0].Text, tt.text)
		}
		if r := fmt.Sprint(nonNilRedirects(got[0].Redirects)); r != tt.redirects {
			t.Errorf("redirects of %q = %q, want %q", tt.line, r, tt.redirects)
		}
	}
}

// nonNilRedirects turns nil into an empty list, so both print as [].
func nonNilRedirects(r []redirect) []redirect {
	if r == nil {
		return []redirect{}
	}
	return r
}

// TestSplitCommandsErrors checks that lines that cannot be parsed are
// errors, never one harmless-looking command.
func TestSplitCommandsErrors(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`echo "unterminated`,
		`echo 'unterminated`,
		"echo $(ls",
		"echo `ls",
		"ls )",
		"echo ${HOME",
		"ls >",
		"cat <<EOF\nno end",
		"echo a(b)",
		strings.Repeat("$(", 65) + "ls" + strings.Repeat(")", 65),
		strings.Repeat("${x:-", 65) + strings.Repeat("}", 65),
		"echo $((echo hi); rm x)\necho ))",
		"echo $((1 + 2)",
	} {
		if got, err := splitCommands(line); err == nil {
			t.Errorf("splitCommands(%q) = %v, want an error", line, got)
		}
	}
}

// FuzzSplitCommands checks that no input makes the splitter panic or
// loop, and that every command it returns has words or redirections.
func FuzzSplitCommands(f *testing.F) {
	for _, seed := range []string{"ls && rm -rf x", `echo "$(a)" 'b' \c`, "cat <<E\nx\nE", "(a|b)>c 2>&1", "$((1))${x}$'y'"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := splitCommands(line)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if len(c.Words) == 0 && len(c.Redirects) == 0 {
				t.Errorf("splitCommands(%q) returned an empty command", line)
			}
		}
	})
}
