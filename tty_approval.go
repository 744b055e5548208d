package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Ask puts a permission question: the question and its diff go into the
// transcript and the answer is picked in a menu in the live region, until
// ctx ends (Ctrl-C cancels the turn). Parallel questions wait their turn.
func (u *tui) Ask(ctx context.Context, p Prompt) (Answer, error) {
	u.asking.Lock()
	defer u.asking.Unlock()
	d := &approvalDialog{prompt: p, tr: &u.tr, done: make(chan Answer, 1)}
	u.mu.Lock()
	d.printQuestion(max(5, u.height-16))
	u.dialog = d
	activity := u.activity
	u.setActivity("waiting for approval")
	u.draw()
	u.mu.Unlock()
	var ans Answer
	var err error
	select {
	case ans = <-d.done:
	case <-ctx.Done():
		err = fmt.Errorf("waiting for an answer: %w", ctx.Err())
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.dialog = nil
	u.setActivity(activity)
	if err == nil {
		u.tr.println(u.tr.style(ansiDim, "  → "+d.describe(ans)))
	}
	u.draw()
	return ans, err
}

// The steps of an approval dialog.
const (
	stageChoose   = iota // picking one of the choices
	stageGuidance        // typing what the model should do instead
	stageSave            // picking where an "always" answer is kept
)

// approvalDialog is the menu of one permission question.
type approvalDialog struct {
	prompt   Prompt
	tr       *transcript
	stage    int
	sel      int // the highlighted choice (or save place)
	answer   Answer
	guidance lineEditor
	done     chan Answer
	answered bool
}

// printQuestion prints what is asked, why, and the diff folded to fold lines.
func (d *approvalDialog) printQuestion(fold int) {
	p, tr := d.prompt, d.tr
	tr.println(tr.style(ansiBold+ansiYellow, "? Permission needed: ") + tr.style(ansiBold, visibleControls(p.Title)))
	if p.Reason != "" {
		tr.println("  why: " + visibleControls(p.Reason))
	}
	if p.Warning != "" {
		tr.println(tr.style(ansiRed, "  warning: "+visibleControls(p.Warning)))
	}
	d.printDiff(fold)
}

// printDiff prints the question's diff, folded to fold lines unless fold is 0.
func (d *approvalDialog) printDiff(fold int) {
	if d.prompt.Diff != "" {
		text, _ := renderDiff(d.prompt.Diff, d.tr.color, fold)
		d.tr.out.WriteString(text)
	}
}

// handle applies a key to the dialog.
func (d *approvalDialog) handle(k key) {
	choices, targets := d.prompt.Choices, d.prompt.SaveTargets
	switch {
	case d.answered:
	case d.stage == stageGuidance && k.name == "enter":
		d.answer.Guidance = strings.TrimSpace(d.guidance.text())
		d.finish()
	case d.stage == stageGuidance && k.name == "esc":
		d.stage = stageChoose
	case d.stage == stageGuidance:
		d.guidance.handle(k)
	case d.stage == stageSave && k.name == "esc":
		d.stage, d.sel = stageChoose, 0
	case d.stage == stageSave:
		if i, ok := menuKey(k, &d.sel, len(targets)); ok {
			d.answer.SaveTo = targets[i].Target
			d.finish()
		}
	case k.name == "esc":
		d.answer.Choice = ChoiceDenyOnce
		d.finish()
	case k.name == "rune" && k.r == 'd' && d.prompt.Diff != "":
		d.printDiff(0)
	default:
		if i, ok := menuKey(k, &d.sel, len(choices)); ok {
			d.pick(choices[i])
		} else if c, ok := findChoice(choices, string(k.r)); ok && k.name == "rune" {
			d.pick(c)
		}
	}
}

// menuKey moves a menu's selection with the arrows and reports the entry
// picked by Enter or by its number.
func menuKey(k key, sel *int, n int) (int, bool) {
	switch {
	case k.name == "up":
		*sel = (*sel + n - 1) % n
	case k.name == "down" || k.name == "tab":
		*sel = (*sel + 1) % n
	case k.name == "enter":
		return *sel, true
	case k.name == "rune" && k.r >= '1' && int(k.r-'0') <= n:
		return int(k.r - '1'), true
	}
	return 0, false
}

// pick takes a choice, moving on to its follow-up question if it has one.
func (d *approvalDialog) pick(c Choice) {
	d.answer.Choice = c.ID
	targets := d.prompt.SaveTargets
	switch {
	case c.ID == ChoiceDenyGuidance:
		d.stage = stageGuidance
	case c.ID != ChoiceAllowAlways && c.ID != ChoiceDenyAlways || len(targets) == 0:
		d.finish()
	case len(targets) == 1:
		d.answer.SaveTo = targets[0].Target
		d.finish()
	default:
		d.stage, d.sel = stageSave, 0
	}
}

// finish hands the answer to the waiting question.
func (d *approvalDialog) finish() {
	d.answered = true
	d.done <- d.answer
}

// describe says in a few words what was answered.
func (d *approvalDialog) describe(a Answer) string {
	text := string(a.Choice)
	if i := slices.IndexFunc(d.prompt.Choices, func(c Choice) bool { return c.ID == a.Choice }); i >= 0 {
		text = d.prompt.Choices[i].Label
	}
	if a.SaveTo != "" {
		text += " (saved: " + string(a.SaveTo) + ")"
	}
	if a.Guidance != "" {
		text += ": " + visibleControls(a.Guidance)
	}
	return text
}

// lines draws the dialog, and where the cursor goes (row < 0: hidden).
func (d *approvalDialog) lines(width int) (lines []string, row, col int) {
	tr := d.tr
	entry := func(i int, text string) string {
		line := truncateWidth(fmt.Sprintf("  %d. %s", i+1, text), width)
		if i == d.sel {
			return tr.style(ansiReverse, ">"+line[1:])
		}
		return line
	}
	switch d.stage {
	case stageGuidance:
		in, r, c := inputLines(&d.guidance, width, "> ")
		return append([]string{tr.style(ansiBold, "Tell the model what to do instead (Enter sends, Esc goes back):")}, in...), r + 1, c
	case stageSave:
		lines = append(lines, tr.style(ansiBold, "Save the rule where? (Esc goes back)"))
		for i, o := range d.prompt.SaveTargets {
			lines = append(lines, entry(i, saveOptionText(o)))
		}
		return lines, -1, 0
	}
	labelWidth := 0
	for _, c := range d.prompt.Choices {
		labelWidth = max(labelWidth, len(c.Label)+4)
	}
	for i, c := range d.prompt.Choices {
		lines = append(lines, entry(i, fmt.Sprintf("%-*s  %s", labelWidth, c.Label+" ("+c.Key+")", c.Meaning)))
	}
	help := "↑↓ Enter, a number or a letter picks · Esc rejects"
	if d.prompt.Diff != "" {
		help += " · d shows the whole diff"
	}
	return append(lines, tr.style(ansiDim, truncateWidth(help, width))), -1, 0
}
