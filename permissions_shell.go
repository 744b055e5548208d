package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// shellCommand is one simple command of a shell command line: what a
// permission rule is matched against and what the destructive-command check
// looks at. A line such as `go build && go test ./... | tee log` holds three.
type shellCommand struct {
	Text      string     // the command as written, from its first word
	Words     []string   // its words with quotes removed, redirections left out
	Redirects []redirect // its redirections, in order
	// Nested is set for commands inside a substitution or subshell.
	Nested bool
}

// redirect is one redirection of a simple command, such as `> out.txt`.
type redirect struct {
	Op     string // ">", ">>", ">|", "&>", "&>>", "<>", "<", "<<", "<<-", "<<<", ">&", "<&"
	Target string // the file, descriptor or here-document delimiter
}

// writes reports whether the redirection writes to a file (rather than
// reading one or duplicating a descriptor). `>&` followed by anything but
// a descriptor number or "-" writes both outputs to that file, like `&>`.
func (r redirect) writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		return strings.TrimRight(strings.Trim(r.Target, "0123456789"), "-") != ""
	}
	return false
}

// leadingKeywords are shell words that may start a command without being
// the program it runs; they are dropped so that `then go test` is judged
// as `go test`.
var leadingKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true,
	"do": true, "done": true, "while": true, "until": true,
	"!": true, "{": true, "}": true, "time": true, "esac": true,
}

// leadingWords is how many words at the start of a command are shell
// syntax rather than the program: a keyword, `function NAME` or
// `coproc NAME {` defining what runs after them.
func leadingWords(words []string) int {
	switch {
	case len(words) == 0:
		return 0
	case leadingKeywords[words[0]]:
		return 1
	case words[0] == "function" && len(words) > 1:
		return 2
	case words[0] == "coproc" && len(words) > 2 && words[2] == "{":
		return 2
	case words[0] == "coproc":
		return 1
	}
	return 0
}

// shellPrograms are shells whose here-document input is itself a script.
var shellPrograms = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// splitCommands splits a shell command line into the simple commands it
// runs. It separates on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, and
// also returns the commands inside `$(…)`, backticks, `<(…)`, `>(…)`,
// subshells and here-documents fed to a shell, because they run too.
// Quotes are respected: `echo "a && b"` is one command. A line that cannot
// be parsed (an unterminated quote, an unbalanced parenthesis) is an
// error, so that it is never mistaken for something a rule allows.
func splitCommands(line string) ([]shellCommand, error) {
	s := &shellScanner{src: line}
	if err := s.parseList(0); err != nil {
		return nil, err
	}
	return s.out, nil
}

// shellScanner walks a command line once, collecting simple commands.
type shellScanner struct {
	src      string
	i        int
	out      []shellCommand
	heredocs []heredoc // here-documents whose bodies start after the next newline
	depth    int       // how many substitutions or subshells enclose the scanner
}

// heredoc is a pending here-document: its delimiter, whether leading tabs
// are stripped (<<-), whether its body is expanded (the delimiter is not
// quoted), and whether the command reading it is a shell.
type heredoc struct {
	delim  string
	strip  bool
	expand bool
	shell  bool
}

// commandBuilder accumulates the words and redirections of one simple
// command while the scanner reads it.
type commandBuilder struct {
	words     []string
	starts    []int // source offset of each word
	redirs    []redirect
	heredocs  []heredoc
	word      strings.Builder
	inWord    bool
	quoted    bool // the open word holds quotes or backslashes
	wordAt    int
	pendingOp string // a redirection waiting for its target word
	end       int    // source offset just after the last word
}

// begin marks the start of a word at offset at, if none is open.
func (c *commandBuilder) begin(at int) {
	if !c.inWord {
		c.inWord, c.wordAt = true, at
	}
}

// endWord closes the open word, making it a word or a redirection target.
func (c *commandBuilder) endWord(at int) {
	if !c.inWord {
		return
	}
	w, quoted := c.word.String(), c.quoted
	c.word.Reset()
	c.inWord, c.quoted = false, false
	c.end = at
	if c.pendingOp == "" {
		c.words = append(c.words, w)
		c.starts = append(c.starts, c.wordAt)
		return
	}
	if c.pendingOp == "<<" || c.pendingOp == "<<-" {
		c.heredocs = append(c.heredocs, heredoc{delim: w, strip: c.pendingOp == "<<-", expand: !quoted})
	}
	c.redirs = append(c.redirs, redirect{Op: c.pendingOp, Target: w})
	c.pendingOp = ""
}

// parseList reads commands until the end of input or the byte stop (the
// ')' closing a substitution or subshell), which it consumes.
func (s *shellScanner) parseList(stop byte) error {
	c := &commandBuilder{}
	for s.i < len(s.src) {
		ch := s.src[s.i]
		var err error
		switch {
		case stop != 0 && ch == stop:
			s.i++
			return s.finish(c, s.i-1)
		case ch == ' ' || ch == '\t':
			c.endWord(s.i)
			s.i++
		case ch == '\\':
			s.escape(c)
		case ch == '\n':
			if err = s.finish(c, s.i); err == nil {
				s.i++
				err = s.readHeredocs()
			}
			c = &commandBuilder{}
		case ch == '#' && !c.inWord:
			s.skipComment()
		case ch == ';' || ch == '|' || (ch == '&' && !strings.HasPrefix(s.src[s.i:], "&>")):
			err = s.finish(c, s.i)
			s.i += operatorLen(s.src[s.i:])
			c = &commandBuilder{}
		case ch == '>' || ch == '<' || ch == '&':
			err = s.redirection(c)
		case ch == '(' && !c.inWord && len(c.words) == 0:
			s.i++
			err = s.nested(')')
		case ch == '(' || ch == ')':
			err = fmt.Errorf("unexpected %q at offset %d", ch, s.i)
		default:
			err = s.wordPart(c)
		}
		if err != nil {
			return err
		}
	}
	if stop != 0 {
		return fmt.Errorf("missing closing %q", stop)
	}
	return s.finish(c, s.i)
}

// maxNesting bounds how deeply substitutions and subshells may nest; a
// deeper line is refused as unparseable rather than parsed slowly.
const maxNesting = 64

// nested reads an enclosed command list closed by stop.
func (s *shellScanner) nested(stop byte) error {
	return s.descend(func() error { return s.parseList(stop) })
}

// descend runs read one level of nesting deeper, refusing to go deeper
// than maxNesting.
func (s *shellScanner) descend(read func() error) error {
	if s.depth >= maxNesting {
		return fmt.Errorf("substitutions nested more than %d deep at offset %d", maxNesting, s.i)
	}
	s.depth++
	defer func() { s.depth-- }()
	return read()
}

// operatorLen is the length of the control operator at the start of rest.
func operatorLen(rest string) int {
	for _, op := range []string{"&&", "||", ";;", "|&"} {
		if strings.HasPrefix(rest, op) {
			return 2
		}
	}
	return 1
}

// escape handles a backslash outside quotes: a line continuation or a
// literal next character.
func (s *shellScanner) escape(c *commandBuilder) {
	if s.i+1 < len(s.src) && s.src[s.i+1] == '\n' {
		s.i += 2
		return
	}
	c.begin(s.i)
	c.quoted = true
	if s.i+1 < len(s.src) {
		c.word.WriteByte(s.src[s.i+1])
		s.i += 2
		return
	}
	s.i++
}

// skipComment skips from '#' to the end of the line.
func (s *shellScanner) skipComment() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

// wordPart reads the next piece of a word: a quoted string, a
// substitution, or a plain character.
func (s *shellScanner) wordPart(c *commandBuilder) error {
	c.begin(s.i)
	c.quoted = c.quoted || s.src[s.i] == '\'' || s.src[s.i] == '"'
	switch s.src[s.i] {
	case '\'':
		end := strings.IndexByte(s.src[s.i+1:], '\'')
		if end < 0 {
			return fmt.Errorf("unterminated single quote at offset %d", s.i)
		}
		c.word.WriteString(s.src[s.i+1 : s.i+1+end])
		s.i += end + 2
		return nil
	case '"':
		return s.doubleQuoted(c)
	case '`':
		return s.backquoted(c)
	case '$':
		return s.dollar(c, false)
	}
	c.word.WriteByte(s.src[s.i])
	s.i++
	return nil
}

// redirection reads a redirection operator. Digits just before it (`2>`)
// name a descriptor and are not a word; `<(…)` and `>(…)` are process
// substitutions, whose commands are collected.
func (s *shellScanner) redirection(c *commandBuilder) error {
	rest := s.src[s.i:]
	if strings.HasPrefix(rest, "<(") || strings.HasPrefix(rest, ">(") {
		c.begin(s.i)
		return s.substitution(c, 2, ')')
	}
	if c.inWord {
		if w := c.word.String(); w != "" && strings.Trim(w, "0123456789") == "" && c.wordAt+len(w) == s.i {
			c.word.Reset()
			c.inWord = false
		} else {
			c.endWord(s.i)
		}
	}
	if c.pendingOp != "" {
		return fmt.Errorf("redirection %q without a target", c.pendingOp)
	}
	for _, op := range []string{"&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<<", "<&", "<>", ">", "<"} {
		if strings.HasPrefix(rest, op) {
			c.pendingOp = op
			s.i += len(op)
			return nil
		}
	}
	return fmt.Errorf("unexpected %q at offset %d", rest[0], s.i)
}

// finish closes the command being built, ending at offset end, and adds
// it to the output unless it holds nothing to judge.
func (s *shellScanner) finish(c *commandBuilder, end int) error {
	c.endWord(end)
	if c.pendingOp != "" {
		return fmt.Errorf("redirection %q without a target", c.pendingOp)
	}
	words, starts := c.words, c.starts
	for n := leadingWords(words); n > 0; n = leadingWords(words) {
		words, starts = words[n:], starts[n:]
	}
	shell := len(words) > 0 && shellPrograms[filepath.Base(words[0])]
	for _, h := range c.heredocs {
		h.shell = shell
		s.heredocs = append(s.heredocs, h)
	}
	if shell {
		if err := s.hereStrings(c.redirs); err != nil {
			return err
		}
	}
	if len(words) > 0 && (words[0] == "for" || words[0] == "select") {
		return nil
	}
	if len(words) == 0 && len(c.redirs) == 0 {
		return nil
	}
	text := ""
	if len(starts) > 0 {
		text = strings.TrimSpace(s.src[starts[0]:max(c.end, starts[0])])
	}
	s.out = append(s.out, shellCommand{Text: text, Words: words, Redirects: c.redirs, Nested: s.depth > 0})
	return nil
}

// bodySubstitutions collects the commands of the substitutions in the
// body of a here-document whose delimiter is not quoted: bash expands it
// as it would a double-quoted string, running them.
func (s *shellScanner) bodySubstitutions(body string) error {
	sub := &shellScanner{src: body, depth: s.depth + 1}
	scratch := &commandBuilder{}
	for sub.i < len(body) {
		var err error
		switch body[sub.i] {
		case '\\':
			sub.i += 2
		case '$', '`':
			err = sub.expansionPart(scratch, true)
		default:
			sub.i++
		}
		if err != nil {
			return fmt.Errorf("here-document: %w", err)
		}
	}
	s.out = append(s.out, sub.out...)
	return nil
}

// hereStrings collects the commands of here-strings (`bash <<< 'cmd'`)
// fed to a shell, whose text is a script.
func (s *shellScanner) hereStrings(redirs []redirect) error {
	for _, r := range redirs {
		if r.Op != "<<<" {
			continue
		}
		inner, err := splitCommands(r.Target)
		if err != nil {
			return fmt.Errorf("here-string script: %w", err)
		}
		for _, c := range inner {
			c.Nested = true
			s.out = append(s.out, c)
		}
	}
	return nil
}

// readHeredocs skips the bodies of pending here-documents, which start
// after a newline. A body fed to a shell is a script, so its commands are
// collected too.
func (s *shellScanner) readHeredocs() error {
	pending := s.heredocs
	s.heredocs = nil
	for _, h := range pending {
		var body strings.Builder
		found := false
		for s.i < len(s.src) && !found {
			end := strings.IndexByte(s.src[s.i:], '\n')
			if end < 0 {
				end = len(s.src) - s.i
			}
			line := s.src[s.i : s.i+end]
			s.i = min(len(s.src), s.i+end+1)
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if found = line == h.delim; !found {
				body.WriteString(line + "\n")
			}
		}
		if !found {
			return fmt.Errorf("here-document not closed by %q", h.delim)
		}
		if h.expand && !h.shell {
			if err := s.bodySubstitutions(body.String()); err != nil {
				return err
			}
		}
		if h.shell {
			inner, err := splitCommands(body.String())
			if err != nil {
				return fmt.Errorf("here-document script: %w", err)
			}
			for _, c := range inner {
				c.Nested = true
				s.out = append(s.out, c)
			}
		}
	}
	return nil
}
