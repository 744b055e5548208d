package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// Asker puts a permission question to the user and returns the answer.
// The terminal UI draws it as a menu; LineAsker prints it and reads a line.
type Asker interface {
	Ask(ctx context.Context, p Prompt) (Answer, error)
}

// PromptKind says what a question is about; it decides the choices.
type PromptKind string

// The kinds of permission question.
const (
	PromptEdit    PromptKind = "edit"    // a change to a file, shown as a diff
	PromptCommand PromptKind = "command" // a shell command
	PromptPath    PromptKind = "path"    // reading outside the workspace
	PromptNetwork PromptKind = "network" // fetching from the web
	PromptTool    PromptKind = "tool"    // another tool, such as an MCP tool
)

// ChoiceID identifies an answer to a permission question.
type ChoiceID string

// The answers. What each one promises is exactly what it does: "once"
// covers this call only, "this turn" ends when the turn ends, "always"
// is saved where the user says.
const (
	ChoiceAllowOnce      ChoiceID = "allow_once"       // allow this call only
	ChoiceAllowFileTurn  ChoiceID = "allow_file_turn"  // allow edits to this file until the turn ends
	ChoiceAllowEditsTurn ChoiceID = "allow_edits_turn" // allow every edit inside the workspace until the turn ends
	ChoiceAllowAlways    ChoiceID = "allow_always"     // save an allow rule
	ChoiceDenyOnce       ChoiceID = "deny_once"        // refuse this call only
	ChoiceDenyGuidance   ChoiceID = "deny_guidance"    // refuse it and tell the model what to do instead
	ChoiceDenyAlways     ChoiceID = "deny_always"      // save a deny rule
)

// Choice is one answer offered in a prompt: the key that picks it in line
// mode, a short label and a sentence saying what it does.
type Choice struct {
	ID      ChoiceID
	Key     string
	Label   string
	Meaning string
}

// SaveTarget says where an "always" answer is kept.
type SaveTarget string

// The places an "always" answer can be kept.
const (
	SaveProject SaveTarget = "project" // <workspace>/.minicode/permissions.json
	SaveUser    SaveTarget = "user"    // $MINICODE_HOME/permissions.json
	SaveSession SaveTarget = "session" // in memory until the program ends
)

// Prompt is one permission question.
type Prompt struct {
	Request PermissionRequest
	Kind    PromptKind
	Title   string // what the call wants to do, in one line
	Reason  string // why it needs asking ("rm -r deletes files ...")
	Warning string // what the user must not miss, such as a write outside the workspace
	Diff    string // unified diff of an edit
	Choices []Choice
	// SaveTargets are where an "always" answer can be kept, the first
	// being the default, with the file each one writes to.
	SaveTargets []SaveOption
}

// SaveOption is one place an "always" answer can be kept.
type SaveOption struct {
	Target SaveTarget
	File   string // "" for SaveSession
}

// Answer is the user's reply to a prompt.
type Answer struct {
	Choice   ChoiceID
	Guidance string     // for ChoiceDenyGuidance: returned to the model
	SaveTo   SaveTarget // for the "always" choices
}

// prompt builds the question for a request that asks.
func (p *Permissions) prompt(req PermissionRequest, d Decision) Prompt {
	kind := promptKind(req, d)
	var saved []string
	for _, r := range p.grantRules(req, d.asking, SaveProject) {
		saved = append(saved, r.String())
	}
	title := req.Summary
	if title == "" {
		title = describeCall(req)
	}
	var targets []SaveOption
	for _, o := range []SaveOption{{SaveProject, p.projectFile}, {SaveUser, p.userFile}, {SaveSession, ""}} {
		if o.File != "" || o.Target == SaveSession {
			targets = append(targets, o)
		}
	}
	return Prompt{Request: req, Kind: kind, Title: title, Reason: d.Reason, Warning: d.Warning,
		Diff: req.Diff, Choices: choicesFor(kind, d.Strict, strings.Join(saved, ", ")), SaveTargets: targets}
}

// promptKind classifies a question by the parts of the request that ask.
func promptKind(req PermissionRequest, d Decision) PromptKind {
	if req.Access == AccessWrite {
		return PromptEdit
	}
	kind := PromptTool
	for _, t := range d.asking {
		switch t.kind {
		case targetCommand:
			return PromptCommand
		case targetHost:
			kind = PromptNetwork
		case targetPath:
			if kind == PromptTool {
				kind = PromptPath
			}
		}
	}
	return kind
}

// choicesFor lists the answers to a question of a kind. A strict question
// (a destructive command, an ask rule) offers no grant that would be
// ignored next time; saved names the rules an "always" answer saves, and
// without any, no "always" answer is offered.
func choicesFor(kind PromptKind, strict bool, saved string) []Choice {
	var all []Choice
	if kind == PromptEdit {
		all = []Choice{
			{ChoiceAllowOnce, "y", "apply once", "apply this change; the next one asks again"},
			{ChoiceAllowFileTurn, "f", "allow this file this turn", "apply, and apply further edits to this file without asking until this turn ends"},
			{ChoiceAllowEditsTurn, "e", "allow all edits this turn", "apply, and apply every edit inside the workspace without asking until this turn ends"},
			{ChoiceAllowAlways, "a", "always allow this file", "apply, and save the rule " + saved + " so edits to this file never ask"},
			{ChoiceDenyOnce, "n", "reject once", "do not apply this change"},
			{ChoiceDenyGuidance, "g", "reject with guidance", "do not apply it, and tell the model what to do instead"},
			{ChoiceDenyAlways, "x", "always reject this file", "do not apply it, and save the deny rule " + saved},
		}
	} else {
		all = []Choice{
			{ChoiceAllowOnce, "y", "allow once", "allow this call; the next one asks again"},
			{ChoiceAllowAlways, "a", "allow always", "allow, and save the rule " + saved},
			{ChoiceDenyOnce, "n", "deny", "refuse this call"},
			{ChoiceDenyAlways, "x", "deny always", "refuse, and save the deny rule " + saved},
			{ChoiceDenyGuidance, "g", "deny with guidance", "refuse, and tell the model what to do instead"},
		}
	}
	var out []Choice
	for _, c := range all {
		grant := c.ID == ChoiceAllowFileTurn || c.ID == ChoiceAllowEditsTurn || c.ID == ChoiceAllowAlways
		saves := c.ID == ChoiceAllowAlways || c.ID == ChoiceDenyAlways
		if strict && grant || saves && saved == "" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// LineReader reads lines from a reader on behalf of several users in
// turn (the app reading tasks, the asker reading answers). A read that a
// cancelled caller gave up on is handed to the next caller rather than
// lost. It serves one caller at a time.
type LineReader struct {
	r       *bufio.Reader
	pending chan lineResult
}

// lineResult is one line read, or the error that ended reading.
type lineResult struct {
	line string
	err  error
}

// NewLineReader returns a LineReader reading r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReader(r)}
}

// ReadLine returns the next line without its line ending. It returns
// io.EOF at the end of input and ctx's error when ctx ends first.
func (l *LineReader) ReadLine(ctx context.Context) (string, error) {
	if l.pending == nil {
		ch := make(chan lineResult, 1)
		l.pending = ch
		go func() {
			line, err := l.r.ReadString('\n')
			if err == io.EOF && line != "" {
				err = nil
			}
			ch <- lineResult{strings.TrimRight(line, "\r\n"), err}
		}()
	}
	select {
	case res := <-l.pending:
		l.pending = nil
		return res.line, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// LineAsker asks permission questions in line mode: it prints the
// question, the diff (folded when long; "d" shows all of it) and the
// choices, and reads the answer as one line.
type LineAsker struct {
	In    *LineReader
	Out   io.Writer
	Color bool // colour the diff with ANSI escapes
	Fold  int  // diff lines shown before folding; 0 means defaultDiffFold
}

// Ask prints the prompt and reads answers until one is valid.
func (a *LineAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	fold := a.Fold
	if fold == 0 {
		fold = defaultDiffFold
	}
	a.printPrompt(p, fold)
	keys := make([]string, len(p.Choices))
	for i, c := range p.Choices {
		keys[i] = c.Key
	}
	for {
		fmt.Fprintf(a.Out, "choice [%s]: ", strings.Join(keys, "/"))
		line, err := a.readAnswer(ctx, "the answer")
		if err != nil {
			return Answer{}, err
		}
		key, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		if key == "d" && p.Diff != "" {
			text, _ := renderDiff(p.Diff, a.Color, 0)
			fmt.Fprint(a.Out, text)
			continue
		}
		choice, ok := findChoice(p.Choices, key)
		if !ok {
			fmt.Fprintf(a.Out, "unknown choice %q\n", line)
			continue
		}
		return a.complete(ctx, p, Answer{Choice: choice.ID, Guidance: strings.TrimSpace(rest)})
	}
}

// printPrompt writes the question, its reasons, the folded diff and the
// choices.
func (a *LineAsker) printPrompt(p Prompt, fold int) {
	fmt.Fprintf(a.Out, "\nPermission needed: %s\n", p.Title)
	if p.Reason != "" {
		fmt.Fprintf(a.Out, "  why: %s\n", p.Reason)
	}
	if p.Warning != "" {
		fmt.Fprintf(a.Out, "  warning: %s\n", p.Warning)
	}
	if p.Diff != "" {
		text, _ := renderDiff(p.Diff, a.Color, fold)
		fmt.Fprint(a.Out, text)
	}
	for _, c := range p.Choices {
		fmt.Fprintf(a.Out, "  %s  %-26s %s\n", c.Key, c.Label, c.Meaning)
	}
}

// findChoice returns the choice picked by a key.
func findChoice(choices []Choice, key string) (Choice, bool) {
	for _, c := range choices {
		if c.Key == key {
			return c, true
		}
	}
	return Choice{}, false
}

// readAnswer reads one answer line and echoes it: line mode's input is
// not a terminal, so nothing else shows what was answered.
func (a *LineAsker) readAnswer(ctx context.Context, what string) (string, error) {
	line, err := a.In.ReadLine(ctx)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	fmt.Fprintln(a.Out, line)
	return line, nil
}

// complete asks the follow-up questions of a choice: the guidance for
// the model, or where to save an "always" answer.
func (a *LineAsker) complete(ctx context.Context, p Prompt, ans Answer) (Answer, error) {
	if ans.Choice == ChoiceDenyGuidance && ans.Guidance == "" {
		fmt.Fprint(a.Out, "guidance for the model: ")
		line, err := a.readAnswer(ctx, "the guidance")
		if err != nil {
			return Answer{}, err
		}
		ans.Guidance = strings.TrimSpace(line)
	}
	if (ans.Choice != ChoiceAllowAlways && ans.Choice != ChoiceDenyAlways) || len(p.SaveTargets) == 0 {
		return ans, nil
	}
	ans.SaveTo = p.SaveTargets[0].Target
	if len(p.SaveTargets) == 1 {
		return ans, nil
	}
	var opts []string
	for _, o := range p.SaveTargets {
		opts = append(opts, saveOptionText(o))
	}
	for {
		fmt.Fprintf(a.Out, "save to %s (Enter: %s)? ", strings.Join(opts, ", "), p.SaveTargets[0].Target)
		line, err := a.readAnswer(ctx, "where to save")
		if err != nil {
			return Answer{}, err
		}
		line = strings.TrimSpace(line)
		for _, o := range p.SaveTargets {
			if line == string(o.Target[:1]) || line == string(o.Target) {
				ans.SaveTo = o.Target
				return ans, nil
			}
		}
		if line == "" {
			return ans, nil
		}
		fmt.Fprintf(a.Out, "unknown place %q\n", line)
	}
}

// saveOptionText shows a save option with its key and file.
func saveOptionText(o SaveOption) string {
	text := "[" + string(o.Target[:1]) + "]" + string(o.Target[1:])
	if o.File != "" {
		text += " (" + o.File + ")"
	}
	return text
}
