package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

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
	In   *LineReader
	Out  io.Writer
	Fold int // diff lines shown before folding; 0 means defaultDiffFold
}

// Ask prints the prompt and reads answers until one is valid.
func (a *LineAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	a.printPrompt(p, cmp.Or(a.Fold, defaultDiffFold))
	var keys []string
	for _, c := range p.Choices {
		keys = append(keys, c.Key)
	}
	for {
		fmt.Fprintf(a.Out, "choice [%s]: ", strings.Join(keys, "/"))
		line, err := a.readAnswer(ctx, "the answer")
		if err != nil {
			return Answer{}, err
		}
		key, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		if key == "d" && p.Diff != "" {
			text, _ := renderDiff(p.Diff, false, 0)
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
		text, _ := renderDiff(p.Diff, false, fold)
		fmt.Fprint(a.Out, text)
	}
	for _, c := range p.Choices {
		fmt.Fprintf(a.Out, "  %s  %-26s %s\n", c.Key, c.Label, c.Meaning)
	}
}

// findChoice returns the choice picked by a key.
func findChoice(choices []Choice, key string) (Choice, bool) {
	i := slices.IndexFunc(choices, func(c Choice) bool { return c.Key == key })
	if i < 0 {
		return Choice{}, false
	}
	return choices[i], true
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
		i := slices.IndexFunc(p.SaveTargets, func(o SaveOption) bool { return line == string(o.Target[:1]) || line == string(o.Target) })
		if i >= 0 {
			ans.SaveTo = p.SaveTargets[i].Target
		}
		if i >= 0 || line == "" {
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
