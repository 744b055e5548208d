package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// simpleCommand is one command of a line: plain words and redirections.
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

// shellToken matches blanks, a separator, a redirection, or a quoted,
// escaped or plain piece of a word.
var shellToken = regexp.MustCompile(`^(?:([ \t]+)|(&&|\|\||[;|\n])|([0-9]*(?:>>|>\||[<>]&[0-9-]|[<>]))|'([^']*)'|"((?:[^"\\$` + "`" + `]|\\[^\n$` + "`" + `])*)"|\\([^\n])|([^\s'"\\;&|<>$` + "`" + `(){}!]+))`)

// forbiddenTokens start what the check never analyses.
var forbiddenTokens = []struct{ prefix, what string }{
	{"<<", "here-documents, <> or process substitution"}, {"<>", "here-documents, <> or process substitution"},
	{"<(", "here-documents, <> or process substitution"}, {">(", "here-documents, <> or process substitution"},
	{"&>", "&> (write the two redirections separately)"}, {"|&", "|&"}, {"$", "$ (variables, substitutions or expansions)"},
	{"`", "backquotes (command substitution)"}, {"(", "parentheses (subshells, functions, arithmetic or process substitution)"},
	{")", "parentheses (subshells, functions, arithmetic or process substitution)"},
	{"{", "braces (groups or brace expansion)"}, {"}", "braces (groups or brace expansion)"}, {"!", "! (negation or history)"},
}

// lexeme is a word, or an operator: a separator or a redirection.
type lexeme struct {
	text         string
	op, redirect bool
	globbed      bool // a word with an unquoted *, ? or [
}

// lexLine splits a line into tokens, or says why it is beyond the check.
func lexLine(line string) ([]lexeme, error) {
	var toks []lexeme
	var word *lexeme // the word being read
	for i := 0; i < len(line); {
		g, text, n, err := nextToken(line[i:], word != nil)
		if err != nil {
			return nil, err
		}
		i += n
		switch {
		case g == 3 && word != nil:
			return nil, errNotSimple("a redirection glued to a word")
		case g <= 3:
			if word != nil {
				toks, word = append(toks, *word), nil
			}
			if g > 1 {
				toks = append(toks, lexeme{text: text, op: true, redirect: g == 3})
			}
			continue
		case word == nil:
			word = &lexeme{}
		}
		switch g {
		case 5:
			text = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text)
		case 7:
			word.globbed = word.globbed || strings.ContainsAny(text, "*?[")
			if so := word.text + text; strings.Contains(text, "~") && (strings.Contains(so, "=~") || strings.Contains(so, ":~")) {
				return nil, errNotSimple("~ after = or :")
			}
		}
		word.text += text
	}
	if word != nil {
		toks = append(toks, *word)
	}
	return toks, nil
}

// nextToken reads the token at the start of rest: its group in
// shellToken (a comment counts as blanks), its text and its length.
func nextToken(rest string, inWord bool) (group int, text string, n int, err error) {
	switch {
	case rest[0] == '#' && !inWord:
		return 1, "", strings.IndexByte(rest+"\n", '\n'), nil
	case !inWord && strings.HasPrefix(rest, "{}") && (len(rest) == 2 || strings.IndexByte(" \t\n;|&", rest[2]) >= 0):
		return 7, "{}", 2, nil // find's placeholder, not a group
	}
	for _, f := range forbiddenTokens {
		if strings.HasPrefix(strings.TrimLeft(rest, "0123456789"), f.prefix) {
			return 0, "", 0, errNotSimple(f.what)
		}
	}
	m := shellToken.FindStringSubmatchIndex(rest)
	if m == nil {
		return 0, "", 0, errNotSimple(unknownToken(rest))
	}
	for group = 1; m[2*group] < 0; group++ {
	}
	text = rest[m[2*group]:m[2*group+1]]
	if group == 3 && strings.Contains(text, "&") && len(rest) > m[1] && strings.IndexByte(" \t\n;|&", rest[m[1]]) < 0 {
		return 0, "", 0, errNotSimple("a descriptor copy that is not &0 to &9 or &-")
	}
	return group, text, m[1], nil
}

// unknownToken names what stops the tokens of a line at rest.
func unknownToken(rest string) string {
	switch rest[0] {
	case '&':
		return "& (a background job)"
	case '>', '<':
		return "a descriptor copy that is not &0 to &9 or &-"
	case '\\':
		return "a line continuation"
	case '"':
		if strings.Contains(rest[1:], `"`) {
			return "$, backquotes or a line continuation inside double quotes"
		}
	}
	if rest[0] == '\'' || rest[0] == '"' {
		return "an unclosed quote"
	}
	return "the character " + strconv.Quote(rest[:1])
}

// parseCommandLine splits a line into simple commands joined by ;, &&,
// ||, | and newlines; anything else is an errNotSimple.
func parseCommandLine(line string) ([]simpleCommand, error) {
	toks, err := lexLine(line)
	if err != nil {
		return nil, err
	}
	var cmds []simpleCommand
	var cur simpleCommand
	for i := 0; i <= len(toks); i++ {
		switch {
		case i == len(toks) || toks[i].op && !toks[i].redirect:
			if len(cur.Words) > 0 || len(cur.Redirects) > 0 {
				cmds = append(cmds, cur)
			}
			cur = simpleCommand{}
		case !toks[i].op:
			cur.Words = append(cur.Words, toks[i].text)
			cur.Globbed = cur.Globbed || toks[i].globbed
		case strings.Contains(toks[i].text, "&"):
			op := toks[i].text
			cur.Redirects = append(cur.Redirects, redirect{Out: strings.Contains(op, ">"), Target: op[strings.IndexByte(op, '&'):]})
		case i+1 == len(toks) || toks[i+1].op:
			return nil, errNotSimple("a redirection without a file")
		case toks[i+1].globbed:
			return nil, errNotSimple("a pattern as the file of a redirection")
		default:
			cur.Redirects = append(cur.Redirects, redirect{Out: strings.Contains(toks[i].text, ">"), Target: toks[i+1].text})
			i++
		}
	}
	return cmds, nil
}

// unanalysedPrograms are keywords and builtins that run unknown commands.
var unanalysedPrograms = strings.Fields(`if then else elif fi for while until do done case esac select function time coproc [[
	eval source . exec trap alias unalias builtin command enable set shopt declare typeset local export readonly unset hash let pushd popd fc`)

// checkProgram returns why a command's program is beyond the check.
func checkProgram(c simpleCommand) error {
	if len(c.Words) == 0 {
		return errNotSimple("a redirection without a command")
	}
	switch name := c.Words[0]; {
	case slices.Contains(unanalysedPrograms, name):
		return errNotSimple(name + ", which runs or changes other commands")
	case strings.Contains(name, "=") && !strings.HasPrefix(name, "="):
		return errNotSimple("a variable assignment")
	case strings.ContainsAny(name, "*?[]"), name == "":
		return errNotSimple("a program name that is not a plain word")
	}
	return nil
}

// programTokens are the base names of every word and piece of a word
// (`bash -c 'curl x'`), matched against deny rules.
func programTokens(c simpleCommand) []string {
	var tokens []string
	for _, w := range c.Words {
		for _, t := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`$'\"{},=", r) }) {
			tokens = append(tokens, filepath.Base(t))
		}
	}
	return tokens
}

// riskyFlags make programs run others or write files, so prefix rules
// do not cover them; GNU long flags count abbreviated too.
var riskyFlags = map[string]struct {
	long   []string
	short  string
	abbrev bool
}{
	"go": {long: []string{"-exec", "-toolexec", "-o", "-C", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
		"-mutexprofile", "-trace", "-outputdir", "-modfile", "-overlay", "-pkgdir", "-w"}},
	"git": {long: []string{"-c", "--config-env", "--exec-path", "--output", "--output-directory", "-o", "--upload-pack",
		"--receive-pack", "--exec", "-x", "--ext-diff", "--git-dir", "--work-tree", "--template", "-C"}, abbrev: true},
	"find":  {long: []string{"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-delete"}},
	"sed":   {long: []string{"--in-place", "--file"}, short: "if", abbrev: true},
	"sort":  {long: []string{"--output", "--compress-program"}, short: "o", abbrev: true},
	"tar":   {long: []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rmt-command", "--rsh-command"}, short: "IF", abbrev: true},
	"xargs": {},
}

// riskyFlag returns the first of a command's flags in riskyFlags, or "".
func riskyFlag(words []string) string {
	prog := filepath.Base(words[0])
	flags, ok := riskyFlags[prog]
	switch {
	case !ok:
		return ""
	case prog == "xargs":
		return prog
	case prog == "sed" && slices.ContainsFunc(sedScripts(words[1:]), func(s string) bool {
		return strings.ContainsAny(sedDelimited.ReplaceAllString(s, ""), "wWeRr")
	}):
		return "a w, e or r command in the sed script"
	}
	for i, w := range words[1:] {
		name, _, _ := strings.Cut(w, "=")
		bare := strings.TrimLeft(name, "-")
		long := strings.HasPrefix(w, "-") && slices.ContainsFunc(flags.long, func(f string) bool {
			f = strings.TrimLeft(f, "-")
			return bare == f || flags.abbrev && strings.HasPrefix(name, "--") && bare != "" && strings.HasPrefix(f, bare)
		})
		cluster := len(w) > 1 && w[0] == '-' && w[1] != '-' || prog == "tar" && i == 0 && !strings.HasPrefix(w, "-")
		if long || cluster && strings.ContainsAny(bare, flags.short) {
			return w
		}
	}
	return ""
}

// sedDelimited matches the s, y and /address/ parts of a sed script.
var sedDelimited = regexp.MustCompile(`[sy]/(?:[^\\/]|\\.)*/(?:[^\\/]|\\.)*/[gpiImM0-9]*|/(?:[^\\/]|\\.)*/`)

// sedScripts returns the values of -e and --expression, or else the first operand.
func sedScripts(args []string) []string {
	var scripts, operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
			continue
		case len(name) > 2 && strings.HasPrefix("--expression", name):
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "e"):
			value, hasValue = a[strings.IndexByte(a, 'e')+1:], strings.IndexByte(a, 'e')+1 < len(a)
		case !strings.HasPrefix(a, "-"):
			operands = append(operands, a)
			continue
		default:
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		scripts = append(scripts, value)
	}
	if len(scripts) == 0 && len(operands) > 0 {
		return operands[:1]
	}
	return scripts
}

// destructiveReason returns why a command destroys work for good, or "".
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
