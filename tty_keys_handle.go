package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// readKeys reads the terminal's input and applies each key, redrawing
// after every read: a keystroke reaches the screen at once. It ends the
// session when the input closes.
func (u *tui) readKeys(in *os.File) {
	defer u.restoreOnPanic()
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := in.Read(chunk)
		if err != nil {
			u.exit()
			return
		}
		buf = append(buf, chunk[:n]...)
		u.mu.Lock()
		for len(buf) > 0 {
			k, used := decodeKey(buf, true)
			if used == 0 {
				break
			}
			buf = buf[used:]
			u.handleKey(k)
		}
		u.draw()
		u.mu.Unlock()
	}
}

// handleKey applies one key: to the approval dialog when one is open,
// else to the input box, its menu, or the running turn.
func (u *tui) handleKey(k key) {
	if k.name != "ctrl-c" {
		u.hint = ""
	}
	switch {
	case k.name == "ctrl-c":
		u.interrupt()
	case u.dialog != nil:
		u.dialog.handle(k)
	case k.name == "esc" && u.cancel != nil:
		u.cancel()
	case k.name == "esc":
		u.menu.hidden = true
	case k.name == "ctrl-d" && len(u.editor.buf) == 0 && u.cancel == nil:
		u.exit()
	case k.name == "ctrl-d":
		u.editor.handle(key{name: "delete"})
	case k.name == "ctrl-o":
		u.expandLatest()
	case u.menu.handle(k, &u.editor):
	default:
		if u.editor.handle(k) {
			u.submit()
		}
	}
	if k.name != "esc" {
		u.menu.update(&u.editor, u.app)
	}
}

// interrupt is Ctrl-C: it cancels what runs, or clears the input, or,
// pressed twice at an empty prompt, ends the session.
func (u *tui) interrupt() {
	now := time.Now()
	switch {
	case u.cancel != nil:
		u.cancel()
	case len(u.editor.buf) > 0:
		u.editor.reset()
	case now.Sub(u.armedAt) < exitArmTimeout:
		u.exit()
	default:
		u.armedAt = now
		u.hint = exitHint
	}
}

// submit sends the input: as the answer to a question that waits for one,
// else as a task, at once when idle or after the running turn.
func (u *tui) submit() {
	text := strings.TrimSpace(u.editor.text())
	if u.answers != nil {
		u.tr.println(u.tr.style(ansiBold, "› "+visibleControls(text)))
		u.answers <- text
		u.answers, u.hint = nil, ""
		u.editor.reset()
		return
	}
	if text == "" {
		return
	}
	u.editor.remember(text)
	if err := u.hist.Add(text); err != nil {
		u.tr.println(u.tr.style(ansiYellow, "! "+err.Error()))
	}
	select {
	case u.inputs <- text:
		u.queued = append(u.queued, text)
		u.editor.reset()
	default:
		u.hint = "Too many inputs are waiting; this one was kept in the input box."
	}
}

// expandLatest prints in full the newest folded entry: a tool's result
// or the model's thinking.
func (u *tui) expandLatest() {
	if u.tr.latest == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(u.tr.latest, "\n"), "\n")
	const most = 400
	if len(lines) > most {
		lines = append(lines[len(lines)-most:], fmt.Sprintf("(%d earlier lines not shown)", len(lines)-most))
	}
	for _, l := range lines {
		u.tr.println(u.tr.style(ansiDim, "  │ ") + visibleControls(l))
	}
}

// frame lays out the live region: what is still arriving, the running
// tools, the dialog or the input box with its menu, and the status line.
func (u *tui) frame(now time.Time) frame {
	w := max(u.width-1, 10)
	var lines []string
	if p := stripTags(u.tr.partial, true); p != "" {
		rows := wrapWidth(visibleControls(p), w)
		lines = append(lines, rows[max(0, len(rows)-3):]...)
	}
	if u.tr.thinking.Len() > 0 {
		lines = append(lines, u.tr.style(ansiDim, truncateWidth("∴ thinking… "+visibleControls(lastLine(u.tr.thinking.String())), w)))
	}
	spin := spinnerFrames[int(now.Sub(u.activityAt)/spinnerTick)%len(spinnerFrames)]
	for _, r := range u.tr.running {
		lines = append(lines, truncateWidth(fmt.Sprintf("%s %s %s %s%s", u.tr.style(ansiYellow, spin), u.tr.style(ansiBold, r.name),
			visibleControls(r.arg), u.tr.style(ansiDim, formatDuration(now.Sub(r.start))), r.calls()), w))
	}
	for _, q := range u.queued {
		lines = append(lines, u.tr.style(ansiDim, truncateWidth("queued: "+visibleControls(strings.ReplaceAll(q, "\n", "↵")), w)))
	}
	lines = append(lines, u.statusLine(now, spin, w))
	if u.dialog != nil {
		d, row, col := u.dialog.lines(w)
		if row >= 0 {
			row += len(lines)
		}
		return frame{lines: append(lines, d...), row: row, col: col}
	}
	marker := u.tr.style(ansiBold+ansiCyan, "›") + " "
	in, row, col := inputLines(&u.editor, w, marker)
	f := frame{lines: append(lines, in...), row: len(lines) + row, col: col}
	f.lines = append(f.lines, u.menu.lines(w, u.tr.color)...)
	if u.hint != "" {
		f.lines = append(f.lines, u.tr.style(ansiDim, truncateWidth(u.hint, w)))
	}
	return f
}

// statusLine is one line: what is happening now, then the model, context
// use, tokens and cost, session, MCP servers, permission mode and sandbox.
func (u *tui) statusLine(now time.Time, spin string, width int) string {
	var parts []string
	if u.activity != "" {
		parts = append(parts, fmt.Sprintf("%s %s %s", spin, u.activity, formatDuration(now.Sub(u.activityAt))))
	}
	app := u.app
	parts = append(parts, fmt.Sprintf("%s (%s)", app.Model, app.Provider.Name()), fmt.Sprintf("ctx %.0f%%", app.Agent.ContextUsage().Percent),
		formatTokens(u.usage.InputTokens+u.usage.OutputTokens)+" tokens", "session "+app.SessionID[:min(8, len(app.SessionID))])
	if u.cost > 0 {
		parts[len(parts)-2] += fmt.Sprintf(" $%.2f", u.cost)
	}
	if app.MCP != nil {
		if st := app.MCP.Status(); len(st) > 0 {
			ready := 0
			for _, s := range st {
				if s.State == MCPReady {
					ready++
				}
			}
			parts = append(parts, fmt.Sprintf("MCP %d/%d", ready, len(st)))
		}
	}
	sandbox := "no sandbox"
	if app.Sandbox.Sandboxed() {
		sandbox = "sandboxed"
	}
	parts = append(parts, string(app.Perms.Mode()), sandbox)
	return u.tr.style(ansiDim, truncateWidth(strings.Join(parts, " · "), width))
}

// formatTokens shows a token count briefly: 950, 12.3k, 1.2M.
func formatTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n ")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
