package main

import (
	"cmp"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The command reader: commandTargets turns a command line into the targets the check judges, each simple
// command parseCommandLine reads and each path it names; a line it cannot read is one target that asks.
// Below it, what a command is: read-only (readOnly), destructive (destructiveReason), showing git history.

// simpleCommand is one command of a line: plain words and redirections.
type simpleCommand struct {
	Words     []string
	Redirects []string // ">file" or "<file", or a descriptor copy such as ">&1"
	Globbed   bool     // some word or file holds an unquoted *, ? or [, which the shell expands
}

// commandTargets are a line's simple commands and the paths they name.
func (p *Permissions) commandTargets(line string) []target {
	cmds, err := parseCommandLine(line)
	for _, c := range cmds {
		err = cmp.Or(err, checkProgram(c))
	}
	if err == nil && len(cmds) == 0 {
		err = errNotSimple("no command at all")
	}
	if err != nil {
		return []target{commandTarget{unreadable: err}}
	}
	dirs := []string{p.workspace} // every folder an earlier cd may have moved to
	var targets []target
	for _, c := range cmds {
		targets = append(targets, commandTarget{cmd: c})
		for _, r := range c.Redirects {
			switch file := r[1:]; {
			case strings.HasPrefix(file, "/dev/tcp/"), strings.HasPrefix(file, "/dev/udp/"):
				targets = append(targets, socketTarget{device: file})
			case !strings.HasPrefix(file, "&"):
				targets, _ = p.namedTargets(targets, dirs, file, r[0] == '>')
			}
		}
		cdTo := []string{p.home} // where a cd goes: the last path it names, or home
		for _, w := range c.Words[1:] {
			if v := pathInWord(w); v != "" {
				targets, cdTo = p.namedTargets(targets, dirs, v, false)
			}
		}
		if readsHere(c, dirs) {
			targets, _ = p.namedTargets(targets, dirs, ".", false) // it reads where it runs
		}
		if c.Words[0] == "cd" {
			dirs = append(dirs, cdTo...)
		}
	}
	return targets
}

// pathInWord is the path an argument may name (x, file://x, --out=x, -I/x, -t.git).
func pathInWord(w string) string {
	_, value, ok := strings.Cut(w, "=")
	switch {
	case !strings.HasPrefix(w, "-"):
		return strings.TrimPrefix(w, "file://")
	case ok:
		return strings.TrimPrefix(value, "file://")
	case len(w) > 2 && w[1] != '-':
		return w[2:]
	}
	return ""
}

// harmlessDevice matches the files a command may name without reaching anything.
var harmlessDevice = regexp.MustCompile(`^/dev/(null|zero|stdin|stdout|stderr|tty|random|urandom|fd/[0-9]+)$`)

// dotPattern matches a path with a pattern that older shells let match "..".
var dotPattern = regexp.MustCompile(`(^|/)\.[?*[]`)

// namedTargets appends the targets of a path a command names, from each folder, and returns where they lead.
func (p *Permissions) namedTargets(targets []target, dirs []string, name string, write bool) ([]target, []string) {
	if harmlessDevice.MatchString(name) {
		return targets, nil
	}
	var leads []string
	for _, dir := range dirs {
		t, err := p.newPathTarget(dir, name, write)
		if err != nil || dotPattern.MatchString(name) {
			t = pathTarget{abs: name, lexical: name, write: write}
		}
		t.inside = t.inside || p.tempDir != "" && within(p.tempDir, t.abs)
		targets, leads = append(targets, t), append(leads, t.abs)
	}
	return targets, leads
}

// walksHere are the programs that read the whole folder they run in when no operand names a path, with the
// number of operands that come first and are not paths (the pattern); grep and ls only when told to recurse.
var walksHere = map[string]int{"rg": 1, "ag": 1, "ack": 1, "fd": 1, "fdfind": 1, "grep": 1, "egrep": 1, "fgrep": 1, "find": 0, "tree": 0, "du": 0, "ls": 0}

// readsHere reports whether c reads the folder it runs in, all of it, as it names no path that exists from
// any of dirs past its pattern: rg KEY, grep -rn KEY, find -name '*.env', ls -R.
func readsHere(c simpleCommand, dirs []string) bool {
	skip, ok := walksHere[filepath.Base(c.Words[0])]
	recurses := slices.ContainsFunc(c.Words[1:], func(w string) bool {
		return w == "--recursive" || w == "--dereference-recursive" || len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w, "rR")
	})
	if !ok || slices.Contains([]string{"grep", "egrep", "fgrep", "ls"}, filepath.Base(c.Words[0])) && !recurses {
		return false
	}
	var operands []string
	for _, w := range c.Words[1:] {
		if !strings.HasPrefix(w, "-") {
			operands = append(operands, w)
		}
	}
	return !slices.ContainsFunc(operands[min(skip, len(operands)):], func(name string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool {
			_, err := os.Lstat(filepath.Join(map[bool]string{false: d}[filepath.IsAbs(name)], name))
			return err == nil
		})
	})
}

// errNotSimple says why a line is beyond the check; such a line asks.
type errNotSimple string

// Error says what the check did not understand.
func (e errNotSimple) Error() string { return "the command uses " + string(e) }

// shellToken matches a line's tokens one after another; each alternative's group name says what it is.
var shellToken = regexp.MustCompile(strings.Join([]string{
	`(?P<blank>[ \t]+(?:#[^\n]*)?|^#[^\n]*)`, // blanks, and a comment after them
	// a construct the check never reads: a here-document, <>, process substitution, &>, a descriptor
	// copy followed by more than a blank or separator, |&, $, a backquote (\x60), a parenthesis, !, a brace
	`(?P<stop>[0-9]*(?:<<|<>|[<>]\(|&>|[<>]&[0-9-][^ \t\n;|&])|\|&|[$\x60()}!]|\{(?:[^}]|$))`,
	`(?P<separator>(?:&&|\|\||[;|\n])(?:[ \t]*#[^\n]*)?)`, // ;, &&, ||, | or a newline, and a comment after it
	`(?P<redirect>[0-9]*(?:>>|>\||[<>]&[0-9-]|[<>]))`,     // >, >>, >|, <, or a descriptor copy such as 2>&1
	`'(?P<single>[^']*)'`,                           // the pieces of a word: single-quoted,
	`"(?P<double>(?:[^"\\$\x60]|\\[^\n$\x60])*)"`,   // double-quoted without $, backquotes or a line continuation,
	`\\(?P<escaped>[^\n])`,                          // one escaped character,
	`(?P<plain>(?:\{\}|[^\s'"\\;&|<>$\x60(){}!])+)`, // or plain ({} is find's, not a group)
	`(?P<other>[\s\S])`,                             // anything else stops the check too
}, "|"))

// tokenAt returns the name of the group a match of shellToken took, and its text.
func tokenAt(line string, m []int) (kind, text string) {
	for i, name := range shellToken.SubexpNames() {
		if i > 0 && m[2*i] >= 0 {
			return name, line[m[2*i]:m[2*i+1]]
		}
	}
	return "", ""
}

// stopReasons say what stops the check, by the first character of the token after any digits.
var stopReasons = map[byte]string{
	'<': "here-documents, <>, process substitution or a descriptor copy that is not &0 to &9 or &-",
	'>': "process substitution or a descriptor copy that is not &0 to &9 or &-", '|': "|&",
	'&': "& (a background job) or &> (write the two redirections separately)", '!': "! (negation or history)",
	'$': "$ (variables, substitutions or expansions)", '`': "backquotes (command substitution)",
	'(': "parentheses (subshells, functions, arithmetic or process substitution)", ')': "parentheses (subshells, functions, arithmetic)",
	'{': "braces (groups or brace expansion)", '}': "braces (groups or brace expansion)", '\\': "a line continuation",
	'\'': "an unclosed quote", '"': "an unclosed quote, or $, backquotes or a line continuation inside double quotes",
}

// parseCommandLine splits a line into simple commands joined by ;, &&, ||, | and newlines; else errNotSimple.
func parseCommandLine(line string) ([]simpleCommand, error) {
	var r commandReader
	for _, m := range shellToken.FindAllStringSubmatchIndex(line, -1) {
		if err := r.take(tokenAt(line, m)); err != nil {
			return nil, err
		}
	}
	if err := r.take("separator", ""); err != nil { // the end of the line ends the last command
		return nil, err
	}
	return r.cmds, nil
}

// commandReader builds a line's simple commands from its tokens.
type commandReader struct {
	cmds    []simpleCommand
	cur     simpleCommand // the command being read
	word    string        // the word being read, its pieces joined
	inWord  bool          // a piece of a word has been read (it may be empty: '')
	pending string        // "<" or ">": a redirection waiting for its file
}

// take reads the next token, by the name of its group in shellToken.
func (r *commandReader) take(kind, text string) error {
	switch kind {
	case "stop", "other":
		return errNotSimple(cmp.Or(stopReasons[strings.TrimLeft(text, "0123456789")[0]], "the character "+strconv.Quote(text)))
	case "single", "escaped":
		r.word, r.inWord = r.word+text, true
		return nil
	case "double":
		r.word, r.inWord = r.word+strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text), true
		return nil
	case "plain":
		r.cur.Globbed = r.cur.Globbed || strings.ContainsAny(text, "*?[")
		if strings.Contains(text, "~") && (strings.Contains(r.word+text, "=~") || strings.Contains(r.word+text, ":~")) {
			return errNotSimple("~ after = or :")
		}
		r.word, r.inWord = r.word+text, true
		return nil
	}
	if err := r.endWord(kind); err != nil {
		return err
	}
	switch op := strings.TrimLeft(text, "0123456789"); { // a redirection's operator, without its descriptor
	case kind == "blank":
	case r.pending != "":
		return errNotSimple("a redirection without a file")
	case kind == "separator" && len(r.cur.Words) == 0 && len(r.cur.Redirects) > 0:
		return errNotSimple("a redirection without a command")
	case kind == "separator":
		if len(r.cur.Words) > 0 {
			r.cmds = append(r.cmds, r.cur)
		}
		r.cur = simpleCommand{}
	case strings.Contains(op, "&"): // a descriptor copy such as >&1 needs no file
		r.cur.Redirects = append(r.cur.Redirects, op)
	default:
		r.pending = op[:1]
	}
	return nil
}

// endWord ends the word being read before a token of kind: a pending redirection's file, or the next word.
func (r *commandReader) endWord(kind string) error {
	if !r.inWord {
		return nil
	}
	switch {
	case kind == "redirect":
		return errNotSimple("a redirection glued to a word")
	case r.pending == "":
		r.cur.Words = append(r.cur.Words, r.word)
	case strings.IndexAny(r.word, "&#") == 0:
		return errNotSimple("& or # as the file of a redirection")
	default:
		r.cur.Redirects, r.pending = append(r.cur.Redirects, r.pending+r.word), ""
	}
	r.word, r.inWord = "", false
	return nil
}

// unanalysedPrograms are keywords and builtins that run unknown commands or set variables (PATH,
// CDPATH, BASH_CMDS) that change what later ones do. The sandbox confines what a command can reach,
// not which command a rule vouches for: a rule allowing "eval x" vouches for whatever x turns out to be.
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

// flagSet names flags without dashes: long (also with one dash, or two abbreviated) and short (also clustered).
type flagSet struct{ long, short string }

// riskyFlags make programs run others or write files, so prefix rules such as "go test:*" do not cover
// them: the sandbox keeps such a program in the workspace, not from running or rewriting what the user never
// meant the rule to allow, and where there is no sandbox (macOS, or sandbox:false) the rule is all there is.
var riskyFlags = map[string]flagSet{
	"go":   {long: "exec toolexec vettool ldflags compiler o C coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir modfile overlay pkgdir w"},
	"git":  {long: "c config-env exec-path output output-directory o upload-pack receive-pack exec extcmd open-files-in-pager ext-diff git-dir work-tree template C", short: "xO"},
	"find": {long: "exec execdir ok okdir fprint fprint0 fprintf fls delete"},
	"sed":  {long: "expression in-place file line-length", short: "eifl"},
	"sort": {long: "output compress-program", short: "o"},
	"tar":  {long: "to-command use-compress-program checkpoint-action info-script new-volume-script rmt-command rsh-command", short: "IF"},
	"rg":   {long: "pre"},
}

// riskyFlag returns a command's first flag in riskyFlags or more, or the program when it runs
// others whatever its flags (xargs, awk, sed's w, e and r).
func riskyFlag(words []string, more flagSet) string {
	prog, flags := filepath.Base(words[0]), riskyFlags[filepath.Base(words[0])]
	flags.long, flags.short = flags.long+" "+more.long, flags.short+more.short
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

// readOnlyPrograms run without asking in every mode, as Claude Code's read-only commands do: they
// change nothing, and their paths are judged as a file tool's (the sandbox bounds them too). Each lists
// the flags, besides riskyFlags, that would have it write, run programs, follow links out of the
// workspace or read files the check does not see, which ask.
var readOnlyPrograms = map[string]flagSet{
	"ls": {"dereference", "L"}, "cat": {}, "head": {}, "tail": {}, "wc": {long: "files0-from"}, "echo": {}, "printf": {},
	"pwd": {}, "cd": {}, "true": {}, "false": {}, "grep": {"dereference-recursive", "R"}, "rg": {"follow search-zip hostname-bin", "Lz"},
	"find": {long: "L follow"}, "sort": {"files0-from temporary-directory", "T"}, "uniq": {}, "cut": {}, "tr": {}, "nl": {},
	"tac": {}, "comm": {}, "diff": {"recursive", "r"}, "stat": {}, "du": {"dereference files0-from", "L"}, "sed": {},
	"basename": {}, "dirname": {}, "realpath": {}, "which": {}, "git status": {}, "git log": {}, "git diff": {long: "no-index"},
	"git show": {}, "git blame": {}, "git grep": {}, "git ls-files": {}, "git rev-parse": {}, "git shortlog": {}, "git describe": {},
	"git reflog": {}, // but not its expire, delete and drop, which change the reflog
}

// readOnly reports whether a command only reads: a program of readOnlyPrograms by its bare name (git by its
// subcommand, after any --no-pager), without the flags that ask, uniq's output file or redirections that
// write (but to /dev/null); its paths are judged apart.
func readOnly(c simpleCommand) bool {
	if len(c.Words) == 0 {
		return false
	}
	name, args := c.Words[0], slices.DeleteFunc(slices.Clone(c.Words[1:]), func(w string) bool { return w == "--no-pager" })
	if name == "git" && len(args) > 0 {
		name += " " + args[0]
	}
	flags, known := readOnlyPrograms[name]
	operands := slices.DeleteFunc(args, func(w string) bool { return strings.HasPrefix(w, "-") })
	changesReflog := name == "git reflog" && len(operands) > 1 && slices.Contains([]string{"expire", "delete", "drop"}, operands[1])
	return known && riskyFlag(c.Words, flags) == "" && (name != "uniq" || len(operands) <= 1) && !changesReflog &&
		!slices.ContainsFunc(c.Redirects, func(r string) bool { return r[0] == '>' && r[1] != '&' && r != ">/dev/null" })
}

// sedDelimited matches the s, y and /address/ parts of a sed script, its first operand (-e is risky).
var sedDelimited = regexp.MustCompile(`[sy]/(?:[^\\/]|\\.)*/(?:[^\\/]|\\.)*/[gpiImM0-9]*|/(?:[^\\/]|\\.)*/`)

// historyReaders are the git subcommands that print what the repository holds of files (their contents or
// names), its history, the index or stashes; a verbose status or commit shows the staged changes too, and
// git log and git reflog (a log of the reflog) do with an option not among quietLogFlags.
var historyReaders = strings.Fields("show diff diff-tree diff-index diff-files blame annotate grep cat-file archive stash whatchanged format-patch range-diff ls-files ls-tree rev-list fast-export")

// quietLogFlags are the options of git log that leave it printing only what commits say of themselves (hash,
// message, author, date, refs, graph), with -<count>, -n<count> and --; any other may print diffs or file names
// (-p, --stat, --name-only, -L), or find commits by what a file held (-S, -G).
var quietLogFlags = regexp.MustCompile(`^(-[0-9]+|-n[0-9]*|-[iEFPs]|--|--(oneline|graph|(no-)?decorate|all|branches|tags|remotes|max-count|skip|since|after|until|before|` +
	`author|committer|grep|invert-grep|all-match|regexp-ignore-case|extended-regexp|fixed-strings|perl-regexp|pretty|format|(no-)?abbrev-commit|abbrev|` +
	`date|relative-date|(no-)?merges|first-parent|reverse|(topo|date|author-date)-order|(no-)?color|parents|children|left-right|boundary|no-walk|` +
	`ancestry-path|simplify-by-decoration|full-history|show-signature|(use-)?mailmap|no-patch|follow)(=.*)?)$`)

// showsHistory reports whether a command, or the git command it runs (env git …), may print files' contents
// or names from the repository; git with an option before its subcommand may.
func showsHistory(words []string) bool {
	i := slices.IndexFunc(words, func(w string) bool { return filepath.Base(w) == "git" })
	if i < 0 {
		return false
	}
	args := slices.DeleteFunc(slices.Clone(words[i+1:]), func(w string) bool { return w == "--no-pager" })
	has := func(flag func(string) bool) bool { return slices.ContainsFunc(args, flag) }
	verbose := has(func(w string) bool { return w == "--verbose" || strings.HasPrefix(w, "-v") })
	patch := has(func(w string) bool { return strings.HasPrefix(w, "-") && !quietLogFlags.MatchString(w) })
	return len(args) > 0 && (strings.HasPrefix(args[0], "-") || slices.Contains(historyReaders, args[0]) ||
		verbose && (args[0] == "status" || args[0] == "commit") || patch && (args[0] == "log" || args[0] == "reflog"))
}

// destructiveGit are the git subcommands that discard uncommitted work for good, which the sandbox lets
// a command do inside the workspace: always (nil) or with all the words of one of its lists, anywhere
// after git (a|b: either).
var destructiveGit = map[string][][]string{
	"reset": {{"--hard"}}, "clean": nil, "restore": nil, "filter-branch": nil,
	"checkout": {{"--|."}, {"-f|--force|--discard-changes"}}, "switch": {{"--|."}, {"-f|--force|--discard-changes"}},
	"branch": {{"-D"}, {"-d|--delete", "-f|--force"}}, "stash": {{"drop|clear"}},
}

// destructiveReason returns why a command, or a script in its words (sh -c), destroys work for good, or "".
// The sandbox lets commands write the workspace, where the work is, so these ask whatever the rules say.
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
		case prog == "git" && slices.ContainsFunc(slices.Collect(maps.Keys(destructiveGit)), func(sub string) bool {
			return has(sub) && (destructiveGit[sub] == nil || slices.ContainsFunc(destructiveGit[sub], func(words []string) bool {
				return !slices.ContainsFunc(words, func(w string) bool { return !has(strings.Split(w, "|")...) })
			}))
		}):
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

// subcommand matches words that read as a subcommand, such as "test".
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// suggestPrefix proposes a prefix rule: the program and its subcommand.
func suggestPrefix(words []string) string {
	if len(words) >= 2 && subcommand.MatchString(words[1]) {
		return words[0] + " " + words[1] + ":*"
	}
	return words[0] + ":*"
}
