package main

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// simpleCommand is one command of a line the check understands: plain
// words (quotes removed) and its redirections.
type simpleCommand struct {
	Words     []string
	Redirects []redirect
	Globbed   bool // some word holds an unquoted *, ? or [, which the shell expands
}

// redirect is one redirection: to or from a file, or "&N".
type redirect struct {
	Out    bool
	Target string
}

// errNotSimple says why a line is beyond the check; such a line asks.
type errNotSimple string

// Error says what the check did not understand.
func (e errNotSimple) Error() string { return "the command uses " + string(e) }

// parseCommandLine splits a line into simple commands joined by ;, &&,
// ||, | and newlines; anything else (expansions, substitutions, groups,
// here-documents, line continuations, ...) is an errNotSimple.
func parseCommandLine(line string) ([]simpleCommand, error) {
	p := &lineParser{}
	for i := 0; i < len(line); i++ {
		n, err := p.step(line, i)
		if err != nil {
			return nil, err
		}
		i += n
	}
	if err := p.endCommand(); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

// lineParser is the state of parseCommandLine.
type lineParser struct {
	cmds    []simpleCommand
	cur     simpleCommand
	word    strings.Builder
	inWord  bool
	quoted  bool  // the current word has a quoted part
	globbed bool  // the current word has an unquoted pattern character
	pending *bool // a redirection waits for its file: whether it writes
}

// step consumes line[i] and what belongs to it, returning how many more
// bytes it used.
func (p *lineParser) step(line string, i int) (int, error) {
	c, rest := line[i], line[i+1:]
	switch {
	case c == '\'':
		end := strings.IndexByte(rest, '\'')
		if end < 0 {
			return 0, errNotSimple("an unclosed quote")
		}
		p.word.WriteString(rest[:end])
		p.inWord, p.quoted = true, true
		return end + 1, nil
	case c == '"':
		n, err := doubleQuoted(rest, &p.word)
		p.inWord, p.quoted = true, true
		return n, err
	case c == '\\':
		if rest == "" || rest[0] == '\n' {
			return 0, errNotSimple("a line continuation")
		}
		p.word.WriteByte(rest[0])
		p.inWord = true
		return 1, nil
	case c == ' ' || c == '\t':
		return 0, p.endWord()
	case c == '#' && !p.inWord:
		if end := strings.IndexByte(rest, '\n'); end >= 0 {
			return end, nil
		}
		return len(rest), nil
	case c == '\n' || c == ';' || c == '|' || c == '&':
		return p.separator(c, rest)
	case c == '>' || c == '<':
		return p.redirection(line[i:])
	case c == '{' && !p.inWord && strings.HasPrefix(rest, "}") && (len(rest) == 1 || strings.IndexByte(" \t\n;|&", rest[1]) >= 0):
		p.word.WriteString("{}") // find's placeholder, not a group
		p.inWord = true
		return 1, nil
	case strings.IndexByte("$`(){}!", c) >= 0:
		return 0, errNotSimple(describeSpecial(c))
	case c == '~' && p.inWord && !p.quoted && strings.HasSuffix(p.word.String(), "=") || c == '~' && strings.HasSuffix(p.word.String(), ":"):
		return 0, errNotSimple("~ after = or :")
	default:
		if c == '*' || c == '?' || c == '[' && strings.Contains(rest, "]") {
			p.cur.Globbed, p.globbed = true, true
		}
		p.word.WriteByte(c)
		p.inWord = true
	}
	return 0, nil
}

// separator ends the current command at ;, &&, ||, | or a newline.
func (p *lineParser) separator(c byte, rest string) (int, error) {
	if err := p.endWord(); err != nil {
		return 0, err
	}
	next := byte(0)
	if rest != "" {
		next = rest[0]
	}
	switch {
	case c == '&' && next == '>':
		return 0, errNotSimple("&> (write the two redirections separately)")
	case c == '&' && next != '&':
		return 0, errNotSimple("& (a background job)")
	case c == '|' && next == '&':
		return 0, errNotSimple("|&")
	}
	if err := p.endCommand(); err != nil {
		return 0, err
	}
	if (c == '&' || c == '|') && next == c {
		return 1, nil
	}
	return 0, nil
}

// endWord finishes a command word or the file of a pending redirection.
func (p *lineParser) endWord() error {
	if !p.inWord {
		return nil
	}
	w := p.word.String()
	p.word.Reset()
	globbed := p.globbed
	p.inWord, p.quoted, p.globbed = false, false, false
	if p.pending != nil && globbed {
		return errNotSimple("a pattern as the file of a redirection")
	}
	if p.pending != nil {
		p.cur.Redirects = append(p.cur.Redirects, redirect{Out: *p.pending, Target: w})
		p.pending = nil
		return nil
	}
	p.cur.Words = append(p.cur.Words, w)
	return nil
}

// endCommand finishes the current simple command.
func (p *lineParser) endCommand() error {
	if err := p.endWord(); err != nil {
		return err
	}
	if p.pending != nil {
		return errNotSimple("a redirection without a file")
	}
	if len(p.cur.Words) > 0 || len(p.cur.Redirects) > 0 {
		p.cmds = append(p.cmds, p.cur)
	}
	p.cur = simpleCommand{}
	return nil
}

// redirection reads a redirection operator at the start of s (a word of
// digits before it is its descriptor), returning the bytes used beyond
// the first.
func (p *lineParser) redirection(s string) (int, error) {
	if p.inWord {
		if p.quoted || strings.Trim(p.word.String(), "0123456789") != "" {
			return 0, errNotSimple("a redirection glued to a word")
		}
		p.word.Reset()
		p.inWord = false
	}
	if p.pending != nil {
		return 0, errNotSimple("a redirection without a file")
	}
	out := s[0] == '>'
	n := 1
	switch {
	case strings.HasPrefix(s, "<<"), strings.HasPrefix(s, "<>"), strings.HasPrefix(s, "<("), strings.HasPrefix(s, ">("):
		return 0, errNotSimple("here-documents, <> or process substitution")
	case strings.HasPrefix(s, ">>"), strings.HasPrefix(s, ">|"):
		n = 2
	case strings.HasPrefix(s, ">&"), strings.HasPrefix(s, "<&"):
		if len(s) > 2 && strings.IndexByte("0123456789-", s[2]) >= 0 && (len(s) == 3 || strings.IndexByte(" \t\n;|&", s[3]) >= 0) {
			p.cur.Redirects = append(p.cur.Redirects, redirect{Out: out, Target: "&" + s[2:3]})
			return 2, nil
		}
		return 0, errNotSimple("a descriptor copy that is not &0 to &9 or &-")
	}
	p.pending = &out
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n - 1, nil
}

// doubleQuoted copies a double-quoted string's text into word and returns
// the bytes used, closing quote included; $ and backquotes are beyond the
// check.
func doubleQuoted(s string, word *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i + 1, nil
		case '$', '`':
			return 0, errNotSimple(describeSpecial(c) + " inside double quotes")
		case '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				return 0, errNotSimple("a line continuation")
			}
			if i+1 < len(s) && strings.IndexByte("\"\\", s[i+1]) >= 0 {
				i++
			}
			word.WriteByte(s[i])
		default:
			word.WriteByte(c)
		}
	}
	return 0, errNotSimple("an unclosed quote")
}

// describeSpecial names what a special character starts.
func describeSpecial(c byte) string {
	parens, braces := "parentheses (subshells, functions, arithmetic or process substitution)", "braces (groups or brace expansion)"
	return cmp.Or(map[byte]string{'$': "$ (variables, substitutions or expansions)", '`': "backquotes (command substitution)",
		'(': parens, ')': parens, '{': braces, '}': braces}[c], string(c))
}

// unanalysedPrograms are shell keywords and builtins after which the
// check cannot know what runs.
var unanalysedPrograms = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "while": true, "until": true, "do": true,
	"done": true, "case": true, "esac": true, "select": true, "function": true, "time": true, "coproc": true, "[[": true,
	"eval": true, "source": true, ".": true, "exec": true, "trap": true, "alias": true, "unalias": true, "builtin": true,
	"command": true, "enable": true, "set": true, "shopt": true, "declare": true, "typeset": true, "local": true,
	"export": true, "readonly": true, "unset": true, "hash": true, "let": true, "pushd": true, "popd": true, "fc": true,
}

// checkProgram returns why a command's program is beyond the check.
func checkProgram(c simpleCommand) error {
	if len(c.Words) == 0 {
		return errNotSimple("a redirection without a command")
	}
	name := c.Words[0]
	switch {
	case unanalysedPrograms[name]:
		return errNotSimple(name + ", which runs or changes other commands")
	case strings.Contains(name, "=") && !strings.HasPrefix(name, "="):
		return errNotSimple("a variable assignment")
	case strings.ContainsAny(name, "*?[]"), name == "":
		return errNotSimple("a program name that is not a plain word")
	}
	return nil
}

// programTokens are the names a deny rule is matched against: the base
// names of every word, and of every piece of a word a shell could split
// again (`bash -c 'curl x'`).
func programTokens(c simpleCommand) []string {
	var tokens []string
	for _, w := range c.Words {
		for _, t := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`$'\"{},=", r) }) {
			tokens = append(tokens, filepath.Base(t))
		}
	}
	return tokens
}

// riskyFlags are the flags that make programs run other programs or write
// files, which prefix rules do not cover; long flags match alone or with
// "=value", short letters inside a cluster such as -no.
var riskyFlags = map[string]struct {
	long  []string
	short string
	all   bool // every use runs other programs
}{
	"go": {long: []string{"-exec", "-toolexec", "-o", "-C", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
		"-mutexprofile", "-trace", "-outputdir", "-modfile", "-overlay", "-pkgdir", "-w"}},
	"git": {long: []string{"-c", "--config-env", "--exec-path", "--output", "--output-directory", "-o", "--upload-pack",
		"--receive-pack", "--exec", "-x", "--ext-diff", "--git-dir", "--work-tree", "--template", "-C"}},
	"find":  {long: []string{"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-delete"}},
	"sed":   {long: []string{"--in-place"}, short: "i"},
	"sort":  {long: []string{"--output", "--compress-program"}, short: "o"},
	"tar":   {long: []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rmt-command", "--rsh-command"}, short: "IF"},
	"xargs": {all: true},
}

// riskyFlag returns the first of a command's flags in riskyFlags, or "".
func riskyFlag(words []string) string {
	prog := filepath.Base(words[0])
	flags, ok := riskyFlags[prog]
	if !ok {
		return ""
	}
	if flags.all {
		return prog
	}
	for _, w := range words[1:] {
		name, _, _ := strings.Cut(w, "=")
		if slices.Contains(flags.long, name) || slices.Contains(flags.long, strings.TrimPrefix(name, "-")) {
			return w
		}
		if len(w) > 1 && w[0] == '-' && w[1] != '-' && flags.short != "" && strings.ContainsAny(strings.TrimLeft(name, "-"), flags.short) {
			return w
		}
	}
	if prog == "sed" && sedScriptWrites(words[1:]) {
		return "a w, e or r command in the sed script"
	}
	return ""
}

// sedScriptWrites reports whether a sed script may write or read files or
// run commands (w, W, e, r, R, or s with w or e); what it cannot follow
// counts as writing.
func sedScriptWrites(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		for i := 0; i < len(a); i++ {
			switch c := a[i]; {
			case c == 's' || c == 'y':
				if i+1 >= len(a) {
					return true
				}
				end, ok := skipDelimited(a, i+1, 2)
				if !ok {
					return true
				}
				for i = end; i < len(a) && strings.IndexByte("gpiImM0123456789", a[i]) >= 0; i++ {
				}
				if i < len(a) && (a[i] == 'w' || a[i] == 'e') {
					return true
				}
				i--
			case c == '/' || c == '\\':
				end, ok := skipDelimited(a, i, 1)
				if !ok {
					return true
				}
				i = end - 1
			case strings.IndexByte("wWeRr", c) >= 0:
				return true
			}
		}
		return false // only the first operand is the script
	}
	return false
}

// skipDelimited skips n parts delimited by s[start] (as in s/a/b/) and
// returns the index after the last delimiter.
func skipDelimited(s string, start, n int) (int, bool) {
	delim := s[start]
	if delim == '\\' && start+1 < len(s) {
		start, delim = start+1, s[start+1]
	}
	i := start + 1
	for ; n > 0 && i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			n--
		}
	}
	return i, n == 0
}

// destructiveReason returns why a command destroys work beyond recovery,
// or ""; every word counts as a possible program, so wrappers do not hide
// it.
func destructiveReason(words []string) string {
	for i, w := range words {
		args := words[i+1:]
		has := func(flags ...string) bool {
			return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(flags, a) })
		}
		switch filepath.Base(w) {
		case "rm":
			if slices.ContainsFunc(args, func(a string) bool {
				return a == "--recursive" || a == "--force" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "rRf")
			}) {
				return "rm -r or -f deletes files for good"
			}
		case "git":
			switch {
			case has("reset") && has("--hard"), has("clean"), has("checkout") && (has("--", ".") || has("-f", "--force")),
				has("restore"), has("branch") && has("-D"), has("stash") && has("drop", "clear"), has("filter-branch"):
				return "git " + strings.Join(args, " ") + " discards work that cannot be recovered"
			case has("push") && (has("-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d") ||
				slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") })):
				return "a forced or deleting git push rewrites the remote"
			}
		case "find":
			if has("-delete") {
				return "find -delete deletes files for good"
			}
		case "shred", "dd", "mkfs", "wipefs", "truncate":
			return filepath.Base(w) + " destroys data"
		}
	}
	return ""
}
