package main

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// simpleCommand is one command of a line: plain words and redirections.
type simpleCommand struct {
	Words     []string
	Redirects []string // ">file" or "<file", or a descriptor copy such as ">&1"
	Globbed   bool     // some word or file holds an unquoted *, ? or [, which the shell expands
}

// errNotSimple says why a line is beyond the check; such a line asks.
type errNotSimple string

// Error says what the check did not understand.
func (e errNotSimple) Error() string { return "the command uses " + string(e) }

// shellToken matches the tokens of a line, one after another; its groups are 1 blanks (and a comment),
// 2 a construct the check never analyses, 3 a separator (and a comment), 4 a redirection, the pieces
// of a word: 5 single-quoted, 6 double-quoted, 7 escaped, 8 plain, and 9 any other character, which stops the check too.
var shellToken = regexp.MustCompile(`([ \t]+(?:#[^\n]*)?|^#[^\n]*)|([0-9]*(?:<<|<>|[<>]\(|&>|[<>]&[0-9-][^ \t\n;|&])|\|&|[$` + "`" + `()}!]|\{(?:[^}]|$))|((?:&&|\|\||[;|\n])(?:[ \t]*#[^\n]*)?)|([0-9]*(?:>>|>\||[<>]&[0-9-]|[<>]))|'([^']*)'|"((?:[^"\\$` + "`" + `]|\\[^\n$` + "`" + `])*)"|\\([^\n])|((?:\{\}|[^\s'"\\;&|<>$` + "`" + `(){}!])+)|([\s\S])`)

// stopReasons say what stops the check, by the first character of the token.
var stopReasons = map[byte]string{
	'<': "here-documents, <>, process substitution or a descriptor copy that is not &0 to &9 or &-",
	'>': "process substitution or a descriptor copy that is not &0 to &9 or &-", '|': "|&",
	'&': "& (a background job) or &> (write the two redirections separately)", '!': "! (negation or history)",
	'$': "$ (variables, substitutions or expansions)", '`': "backquotes (command substitution)",
	'(': "parentheses (subshells, functions, arithmetic or process substitution)", ')': "parentheses (subshells, functions, arithmetic)",
	'{': "braces (groups or brace expansion)", '}': "braces (groups or brace expansion)", '\\': "a line continuation",
	'\'': "an unclosed quote", '"': "an unclosed quote, or $, backquotes or a line continuation inside double quotes",
}

// stopReason is the error for a token that stops the check, by its first character after any digits.
func stopReason(token string) error {
	return errNotSimple(cmp.Or(stopReasons[strings.TrimLeft(token, "0123456789")[0]], "the character "+strconv.Quote(token)))
}

// parseCommandLine splits a line into simple commands joined by ;, &&, ||, | and newlines; else errNotSimple.
func parseCommandLine(line string) ([]simpleCommand, error) {
	var cmds []simpleCommand
	var cur simpleCommand
	var word, pending string // the word being read; a redirection waiting for its file
	inWord := false
	for _, m := range append(shellToken.FindAllStringSubmatchIndex(line, -1), nil) {
		group, text := 3, "" // nil: the end of the line ends the last command
		if m != nil {
			for group = 1; m[2*group] < 0; group++ {
			}
			text = line[m[2*group]:m[2*group+1]]
		}
		if group == 2 || group == 9 {
			return nil, stopReason(text)
		}
		if group >= 5 {
			if group == 6 {
				text = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text)
			} else if group == 8 {
				cur.Globbed = cur.Globbed || strings.ContainsAny(text, "*?[")
				if strings.Contains(text, "~") && (strings.Contains(word+text, "=~") || strings.Contains(word+text, ":~")) {
					return nil, errNotSimple("~ after = or :")
				}
			}
			word, inWord = word+text, true
			continue
		}
		if inWord {
			switch {
			case group == 4:
				return nil, errNotSimple("a redirection glued to a word")
			case pending == "":
				cur.Words = append(cur.Words, word)
			case strings.IndexAny(word, "&#") == 0:
				return nil, errNotSimple("& or # as the file of a redirection")
			default:
				cur.Redirects, pending = append(cur.Redirects, pending+word), ""
			}
			word, inWord = "", false
		}
		switch op := text[strings.IndexAny(text+"<", "<>"):]; {
		case group == 1:
		case pending != "":
			return nil, errNotSimple("a redirection without a file")
		case group == 3 && len(cur.Words) == 0 && len(cur.Redirects) > 0:
			return nil, errNotSimple("a redirection without a command")
		case group == 3:
			if len(cur.Words) > 0 {
				cmds = append(cmds, cur)
			}
			cur = simpleCommand{}
		case strings.Contains(op, "&"):
			cur.Redirects = append(cur.Redirects, op)
		default:
			pending = op[:1]
		}
	}
	return cmds, nil
}

// unanalysedPrograms are keywords and builtins that run unknown commands
// or set variables (PATH, CDPATH, BASH_CMDS) that change what later ones do.
var unanalysedPrograms = strings.Fields(`if then else elif fi for while until do done case esac select function time coproc [[
	eval source . exec trap alias unalias builtin command enable set shopt declare typeset local export readonly unset hash let pushd popd fc
	read mapfile readarray getopts`)

// checkProgram returns why a command's program or its patterns are beyond the check.
func checkProgram(c simpleCommand) error {
	switch name := c.Words[0]; {
	case c.Globbed:
		return errNotSimple("patterns (*, ? or [) outside quotes, which may match paths outside the workspace, links, protected files or flags")
	case slices.Contains(unanalysedPrograms, name):
		return errNotSimple(name + ", which runs or changes other commands")
	case name == "printf" && slices.ContainsFunc(c.Words, func(w string) bool { return strings.HasPrefix(w, "-v") }):
		return errNotSimple("printf -v, which sets a variable that changes other commands")
	case strings.Contains(name, "=") && !strings.HasPrefix(name, "="):
		return errNotSimple("a variable assignment")
	case strings.ContainsAny(name, "*?[]"), name == "":
		return errNotSimple("a program name that is not a plain word")
	}
	return nil
}

// riskyFlags are the flags (without dashes) that make programs run others or write files, so prefix
// rules do not cover them; short ones count in a cluster, and long ones written with -- also abbreviated.
var riskyFlags = map[string]struct{ long, short string }{
	"go":   {long: "exec toolexec vettool ldflags compiler o C coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir modfile overlay pkgdir w"},
	"git":  {long: "c config-env exec-path output output-directory o upload-pack receive-pack exec extcmd open-files-in-pager ext-diff git-dir work-tree template C", short: "xO"},
	"find": {long: "exec execdir ok okdir fprint fprint0 fprintf fls delete"},
	"sed":  {long: "expression in-place file line-length", short: "eifl"},
	"sort": {long: "output compress-program", short: "o"},
	"tar":  {long: "to-command use-compress-program checkpoint-action info-script new-volume-script rmt-command rsh-command", short: "IF"},
	"rg":   {long: "pre"},
}

// riskyFlag returns the first of a command's flags in riskyFlags, or the
// program when it runs others whatever its flags (xargs, awk, sed's w, e and r).
func riskyFlag(words []string) string {
	prog, flags := filepath.Base(words[0]), riskyFlags[filepath.Base(words[0])]
	script := 1 + slices.IndexFunc(words[1:], func(w string) bool { return !strings.HasPrefix(w, "-") }) // sed's first operand
	if prog == "xargs" || strings.HasSuffix(prog, "awk") ||
		prog == "sed" && script > 0 && strings.ContainsAny(sedDelimited.ReplaceAllString(words[script], ""), "wWeRr") {
		return prog
	}
	if prog == "git" && slices.ContainsFunc(words, func(w string) bool { return w == "clone" || w == "ls-remote" }) {
		flags.short += "u" // their -u names the upload-pack program
	}
	for i, w := range words[1:] {
		name, _, _ := strings.Cut(w, "=")
		bare := strings.TrimLeft(name, "-")
		long := strings.HasPrefix(w, "-") && slices.ContainsFunc(strings.Fields(flags.long), func(f string) bool {
			return bare == f || strings.HasPrefix(name, "--") && bare != "" && strings.HasPrefix(f, bare)
		})
		cluster := len(w) > 1 && w[0] == '-' && w[1] != '-' || prog == "tar" && i == 0 && !strings.HasPrefix(w, "-")
		if long || cluster && strings.ContainsAny(bare, flags.short) {
			return w
		}
	}
	return ""
}

// sedDelimited matches the s, y and /address/ parts of a sed script, its
// first operand (the flags that take a value, -e among them, are risky).
var sedDelimited = regexp.MustCompile(`[sy]/(?:[^\\/]|\\.)*/(?:[^\\/]|\\.)*/[gpiImM0-9]*|/(?:[^\\/]|\\.)*/`)

// destructiveReason returns why a command, or a script in its words (sh -c), destroys work for good, or "".
func destructiveReason(words []string) string {
	var tokens []string
	for _, w := range words {
		tokens = append(tokens, strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`$'\"{}", r) })...)
	}
	for i, w := range tokens {
		args := tokens[i+1:]
		has := func(flags ...string) bool {
			return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(flags, a) })
		}
		switch prog := filepath.Base(w); {
		case prog == "rm" && slices.ContainsFunc(args, func(a string) bool {
			return a == "--recursive" || a == "--force" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "rRf")
		}):
			return "rm -r or -f deletes files for good"
		case prog == "git" && (has("reset") && has("--hard") || has("clean") || has("checkout", "switch") && (has("--", ".") || has("-f", "--force", "--discard-changes")) ||
			has("restore") || has("branch") && (has("-D") || has("-d", "--delete") && has("-f", "--force")) || has("stash") && has("drop", "clear") || has("filter-branch")):
			return "git " + strings.Join(args, " ") + " discards work that cannot be recovered"
		case prog == "git" && has("push") && (has("-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d") ||
			slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") })):
			return "a forced or deleting git push rewrites the remote"
		case prog == "find" && has("-delete"):
			return "find -delete deletes files for good"
		case slices.Contains([]string{"shred", "dd", "mkfs", "wipefs", "truncate"}, prog):
			return prog + " destroys data"
		}
	}
	return ""
}
