package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Ask prints a permission question, waits for the answer picked in the live region's menu and notes it; questions take turns.
func (u *tui) Ask(ctx context.Context, p Prompt) (Answer, error) {
	u.asking.Lock()
	defer u.asking.Unlock()
	u.mu.Lock()
	d := &approvalDialog{prompt: p, tr: &u.tr, done: make(chan struct{}), quietSince: u.typedAt, opened: time.Now()}
	d.folded = u.tr.printQuestion(p, max(5, u.height-16)) > 0
	u.dialog = d
	activity := u.activity
	u.activity, u.activityAt = "waiting for approval", time.Now()
	u.draw()
	u.mu.Unlock()
	select {
	case <-d.done:
	case <-ctx.Done():
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.dialog, u.activity, u.activityAt = nil, activity, time.Now()
	defer u.draw()
	if ctx.Err() != nil { // said to the model and shown in the call's result, which "context canceled" would not explain
		return Answer{}, errors.New("the user interrupted the turn before answering")
	}
	said, a := string(d.answer.Choice), d.answer
	if i := slices.IndexFunc(p.Choices, func(c Choice) bool { return c.ID == a.Choice }); i >= 0 {
		said = p.Choices[i].Label
	}
	if a.SaveTo != "" {
		said += " (saved: " + string(a.SaveTo) + ")"
	}
	if a.Guidance != "" {
		said += ": " + visibleControls(a.Guidance)
	}
	u.tr.println(u.tr.style(ansiDim, "  → "+said))
	return a, nil
}

// approvalDialog is the menu of one permission question, then of its follow-up (guidance, or where to save the rule).
type approvalDialog struct {
	prompt   Prompt
	tr       *Transcript
	sel      int // the highlighted choice (or save place)
	answer   Answer
	guidance lineEditor
	folded   bool          // the diff was shown folded, so d shows it whole
	done     chan struct{} // closed when answered, and the dialog closes

	quietSince time.Time // the last key typed before the menu came, or since, as part of that typing
	opened     time.Time
}

// typeAheadPause is how long the keyboard must rest before a key answers a menu that came while the user
// typed: keys that come sooner belong to that typing (the next prompt, as a turn runs) and go to the input.
const typeAheadPause = 400 * time.Millisecond

// typedAhead reports whether a key handled at now, read from the terminal at read (zero: now), belongs to
// typing begun before the menu came: it was read before the menu opened, or the keyboard has not rested since.
func (d *approvalDialog) typedAhead(now, read time.Time) bool {
	if (read.IsZero() || !read.Before(d.opened)) && now.Sub(d.quietSince) >= typeAheadPause {
		return false
	}
	d.quietSince = now
	return true
}

// printQuestion prints what a permission prompt asks, why, and its diff folded to fold lines; it returns the diff lines folded away.
func (t *Transcript) printQuestion(p Prompt, fold int) (hidden int) {
	if p.Body != "" {
		t.text(p.Body + "\n")
		t.endText()
	}
	t.println(t.style(ansiBold+ansiYellow, "? "+cmp.Or(p.Heading, "Permission needed")+": ") + t.style(ansiBold, visibleControls(p.Title)))
	if p.Reason != "" {
		t.println("  why: " + visibleControls(p.Reason))
	}
	if p.Warning != "" {
		t.println(t.style(ansiRed, "  warning: "+visibleControls(p.Warning)))
	}
	text, hidden := renderDiff(p.Diff, t.color, fold)
	if text != "" {
		t.printRaw(strings.TrimSuffix(text, "\n"))
	}
	return hidden
}

// handle applies a key to the dialog and reports whether it has its answer.
func (d *approvalDialog) handle(k key) (answered bool) {
	switch {
	case k.name == "esc" && d.answer.Choice != "":
		d.answer.Choice, d.sel = "", 0
	case d.answer.Choice == ChoiceDenyGuidance && k.name == "enter":
		d.answer.Guidance = strings.TrimSpace(d.guidance.text())
		return true
	case d.answer.Choice == ChoiceDenyGuidance:
		d.guidance.handle(k)
	case d.answer.Choice != "":
		i, ok := menuKey(k, &d.sel, len(d.prompt.SaveTargets))
		if j := slices.IndexFunc(d.prompt.SaveTargets, func(o SaveOption) bool { return k == key{"rune", string(o.Target[:1])} }); j >= 0 {
			i, ok = j, true // the letter it shows: [p]roject, [u]ser, [s]ession
		}
		if ok {
			d.answer.SaveTo = d.prompt.SaveTargets[i].Target
		}
		return ok
	case k.name == "esc":
		d.answer.Choice = ChoiceDenyOnce
		return true
	case k == key{"rune", "d"} && d.folded:
		text, _ := renderDiff(d.prompt.Diff, d.tr.color, 0)
		d.tr.printRaw(strings.TrimSuffix(text, "\n"))
		d.folded = false
	default:
		if i, ok := menuKey(k, &d.sel, len(d.prompt.Choices)); ok {
			return d.pick(d.prompt.Choices[i])
		} else if c, ok := findChoice(d.prompt.Choices, k.text); ok && k.name == "rune" {
			return d.pick(c)
		}
	}
	return false
}

// menuKey moves a menu's selection with the arrows and reports the entry Enter or a number picks.
func menuKey(k key, sel *int, n int) (int, bool) {
	switch {
	case k.name == "up":
		*sel = (*sel + n - 1) % n
	case k.name == "down" || k.name == "tab":
		*sel = (*sel + 1) % n
	case k.name == "enter":
		return *sel, true
	case k.name == "rune" && len(k.text) == 1 && k.text[0] >= '1' && int(k.text[0]-'0') <= n:
		return int(k.text[0] - '1'), true
	}
	return 0, false
}

// pick takes a choice and reports whether it answers the question (else a follow-up comes).
func (d *approvalDialog) pick(c Choice) (answered bool) {
	d.answer.Choice, d.sel = c.ID, 0
	targets := d.prompt.SaveTargets
	if !savesRule(c.ID) {
		return c.ID != ChoiceDenyGuidance
	}
	if len(targets) == 1 {
		d.answer.SaveTo = targets[0].Target
	}
	return len(targets) <= 1
}

// lines draws the dialog, and where the cursor goes (row < 0: hidden).
func (d *approvalDialog) lines(width int) (lines []string, row, col int) {
	tr := d.tr
	switch d.answer.Choice {
	case ChoiceDenyGuidance:
		in, r, c := inputLines(&d.guidance, width, "> ")
		return append([]string{tr.style(ansiBold, "Tell the model what to do instead (Enter sends, Esc goes back):")}, in...), r + 1, c
	case "":
		longest := slices.MaxFunc(d.prompt.Choices, func(a, b Choice) int { return cmp.Compare(len(a.Label), len(b.Label)) })
		labelWidth := len(longest.Label) + 4
		for i, c := range d.prompt.Choices {
			lines = append(lines, tr.menuEntry(fmt.Sprintf("%d. %-*s  %s", i+1, labelWidth, c.Label+" ("+c.Key+")", c.Meaning), i == d.sel, width))
		}
		help := "↑↓ Enter, a number or a letter picks · Esc rejects" + map[bool]string{true: " · d shows the whole diff"}[d.folded]
		if time.Since(d.quietSince) < typeAheadPause {
			help = "you were typing: keys go to the input until you pause"
		}
		return append(lines, tr.style(ansiDim, truncateWidth(help, width))), -1, 0
	}
	lines = append(lines, tr.style(ansiBold, "Save the rule where? (Esc goes back)"))
	for i, o := range d.prompt.SaveTargets {
		lines = append(lines, tr.menuEntry(fmt.Sprintf("%d. %s", i+1, saveOptionText(o)), i == d.sel, width))
	}
	return lines, -1, 0
}

// defaultDiffFold is how many diff lines a prompt shows before folding.
const defaultDiffFold = 40

// renderDiff prepares a diff for the terminal, folded after fold lines, each line in the colour its start calls for.
func renderDiff(diff string, color bool, fold int) (text string, hidden int) {
	lines := slices.Collect(strings.Lines(diff))
	if fold > 0 && len(lines) > fold {
		hidden = len(lines) - fold
		lines = append(lines[:fold], fmt.Sprintf("… %d more lines (press d to show all)", hidden))
	}
	colors := []struct{ prefix, code string }{{"+++ ", ansiBold}, {"--- ", ansiBold}, {"@@", ansiCyan}, {"+", ansiGreen}, {"-", ansiRed}, {`\`, ansiDim}, {"…", ansiDim}}
	var b strings.Builder
	for _, line := range lines {
		line = visibleControls(strings.TrimSuffix(line, "\n"))
		if i := slices.IndexFunc(colors, func(c struct{ prefix, code string }) bool { return strings.HasPrefix(line, c.prefix) }); color && i >= 0 {
			line = colors[i].code + line + ansiReset
		}
		b.WriteString(line + "\n")
	}
	return b.String(), hidden
}
