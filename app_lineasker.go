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

// lineSource gives lines one at a time: stdin's LineReader, or the terminal UI's input box.
type lineSource interface {
	ReadLine(ctx context.Context) (string, error)
}

// LineReader reads lines for several users in turn (tasks, then answers): a line a cancelled caller gave up on goes to the next.
type LineReader struct {
	r     *bufio.Reader
	ready chan struct{} // while a line is being read; closed once line and err hold it
	line  string
	err   error
}

// NewLineReader returns a LineReader reading r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReader(r)}
}

// ReadLine returns the next line without its line ending, io.EOF at the end of input, or ctx's error when ctx ends first.
func (l *LineReader) ReadLine(ctx context.Context) (string, error) {
	if l.ready == nil {
		ready := make(chan struct{})
		l.ready = ready
		go func() {
			line, err := l.r.ReadString('\n')
			if err == io.EOF && line != "" {
				err = nil
			}
			l.line, l.err = strings.TrimRight(line, "\r\n"), err
			close(ready)
		}()
	}
	select {
	case <-l.ready:
		l.ready = nil
		return l.line, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// LineAsker asks permission questions in line mode, answered by a line ("d" shows the whole diff).
type LineAsker struct {
	In   lineSource
	Out  io.Writer
	Fold int // diff lines shown before folding; 0 means defaultDiffFold
}

// Ask prints the prompt and reads answers until one is valid.
func (a *LineAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	var b strings.Builder
	(&transcript{out: &b}).printQuestion(p, cmp.Or(a.Fold, defaultDiffFold))
	fmt.Fprint(a.Out, "\n"+b.String())
	var keys []string
	for _, c := range p.Choices {
		fmt.Fprintf(a.Out, "  %s  %-26s %s\n", c.Key, c.Label, c.Meaning)
		keys = append(keys, c.Key)
	}
	for {
		line, err := a.read(ctx, "choice ["+strings.Join(keys, "/")+"]: ", "the answer")
		if err != nil {
			return Answer{}, err
		}
		key, guidance, _ := strings.Cut(line, " ")
		if key == "d" && p.Diff != "" {
			text, _ := renderDiff(p.Diff, false, 0)
			fmt.Fprint(a.Out, text)
		} else if choice, ok := findChoice(p.Choices, key); ok {
			return a.complete(ctx, p, Answer{Choice: choice.ID, Guidance: strings.TrimSpace(guidance)})
		} else {
			fmt.Fprintf(a.Out, "unknown choice %q\n", line)
		}
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

// read prints a question and reads its answer, trimmed, and echoes it, as line mode's input is not a terminal.
func (a *LineAsker) read(ctx context.Context, question, what string) (string, error) {
	fmt.Fprint(a.Out, question)
	line, err := a.In.ReadLine(ctx)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	fmt.Fprintln(a.Out, line)
	return strings.TrimSpace(line), nil
}

// complete asks a choice's follow-up questions: the guidance for the model, or where to save an "always" answer.
func (a *LineAsker) complete(ctx context.Context, p Prompt, ans Answer) (Answer, error) {
	var err error
	if ans.Choice == ChoiceDenyGuidance && ans.Guidance == "" {
		if ans.Guidance, err = a.read(ctx, "guidance for the model: ", "the guidance"); err != nil {
			return Answer{}, err
		}
	}
	if !savesRule(ans.Choice) || len(p.SaveTargets) == 0 {
		return ans, nil
	}
	ans.SaveTo = p.SaveTargets[0].Target
	var places []string
	for _, o := range p.SaveTargets {
		places = append(places, saveOptionText(o))
	}
	for len(p.SaveTargets) > 1 {
		line, err := a.read(ctx, fmt.Sprintf("save to %s (Enter: %s)? ", strings.Join(places, ", "), ans.SaveTo), "where to save")
		if err != nil {
			return Answer{}, err
		}
		i := slices.IndexFunc(p.SaveTargets, func(o SaveOption) bool { return line == string(o.Target[:1]) || line == string(o.Target) })
		if i >= 0 || line == "" {
			ans.SaveTo = p.SaveTargets[max(i, 0)].Target
			break
		}
		fmt.Fprintf(a.Out, "unknown place %q\n", line)
	}
	return ans, nil
}

// savesRule reports whether a choice keeps a rule, and so needs a place to save it.
func savesRule(c ChoiceID) bool { return c == ChoiceAllowAlways || c == ChoiceDenyAlways }

// saveOptionText shows a save option with its key and file.
func saveOptionText(o SaveOption) string {
	text := "[" + string(o.Target[:1]) + "]" + string(o.Target[1:])
	if o.File != "" {
		text += " (" + o.File + ")"
	}
	return text
}
