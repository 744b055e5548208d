package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// readKeys reads the terminal's input, applies each key and redraws after
// every read, until the input closes and the session ends.
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
	case u.editor.handle(k):
		u.submit()
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
		u.armedAt, u.hint = now, exitHint
	}
}

// submit sends the input: as the answer to a question that waits for one,
// else as a task, at once when idle or after the running turn.
func (u *tui) submit() {
	text := strings.TrimSpace(u.editor.text())
	switch {
	case u.answers != nil:
		u.echo(text)
		u.answers <- text
		u.answers, u.hint = nil, ""
		u.editor.reset()
		return
	case text == "":
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

// expandLatest prints in full (up to its last 400 lines) the newest folded
// entry: a tool's result or the model's thinking.
func (u *tui) expandLatest() {
	if u.tr.latest == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(u.tr.latest, "\n"), "\n")
	if n := len(lines) - 400; n > 0 {
		lines = append(lines[n:], fmt.Sprintf("(%d earlier lines not shown)", n))
	}
	for _, l := range lines {
		u.tr.println(u.tr.style(ansiDim, "  │ ") + visibleControls(l))
	}
}

// frame lays out the live region: what is still arriving, the running
// tools, the dialog or the input box with its menu, and the status line.
func (u *tui) frame(now time.Time) frame {
	w, tr := max(u.width-1, 10), &u.tr
	var lines []string
	if p := stripTags(tr.partial, true); p != "" {
		rows := wrapWidth(visibleControls(p), w)
		lines = append(lines, rows[max(0, len(rows)-3):]...)
	}
	if thought := strings.TrimRight(tr.thinking.String(), "\n "); thought != "" {
		thought = thought[strings.LastIndexByte(thought, '\n')+1:]
		lines = append(lines, tr.style(ansiDim, truncateWidth("∴ thinking… "+visibleControls(thought), w)))
	}
	spin := spinnerFrames[int(now.Sub(u.activityAt)/spinnerTick)%len(spinnerFrames)]
	for _, r := range tr.running {
		lines = append(lines, truncateWidth(fmt.Sprintf("%s %s %s %s%s", tr.style(ansiYellow, spin), tr.style(ansiBold, r.name),
			visibleControls(r.arg), tr.style(ansiDim, formatDuration(now.Sub(r.start))), r.calls()), w))
	}
	for _, q := range u.queued {
		lines = append(lines, tr.style(ansiDim, truncateWidth("queued: "+visibleControls(strings.ReplaceAll(q, "\n", "↵")), w)))
	}
	lines = append(lines, u.statusLine(now, spin, w))
	if u.dialog != nil {
		d, row, col := u.dialog.lines(w)
		if row >= 0 {
			row += len(lines)
		}
		return frame{lines: append(lines, d...), row: row, col: col}
	}
	in, row, col := inputLines(&u.editor, w, tr.style(ansiBold+ansiCyan, "›")+" ")
	f := frame{lines: append(append(lines, in...), u.menu.lines(w, tr.color)...), row: len(lines) + row, col: col}
	if u.hint != "" {
		f.lines = append(f.lines, tr.style(ansiDim, truncateWidth(u.hint, w)))
	}
	return f
}

// statusLine is one line: what is happening now, then the model, context
// use, tokens and cost, session, MCP servers, permission mode and sandbox.
func (u *tui) statusLine(now time.Time, spin string, width int) string {
	app := u.app
	var parts []string
	if u.activity != "" {
		parts = append(parts, fmt.Sprintf("%s %s %s", spin, u.activity, formatDuration(now.Sub(u.activityAt))))
	}
	tokens := formatTokens(u.usage.InputTokens+u.usage.OutputTokens) + " tokens"
	if u.cost > 0 {
		tokens += fmt.Sprintf(" $%.2f", u.cost)
	}
	parts = append(parts, fmt.Sprintf("%s (%s)", app.Model, app.Provider.Name()), fmt.Sprintf("ctx %.0f%%", app.Agent.ContextUsage().Percent),
		tokens, "session "+app.SessionID[:min(8, len(app.SessionID))])
	if mcp := app.MCP.StatusLine(); mcp != "" {
		parts = append(parts, mcp)
	}
	sandbox := map[bool]string{true: "sandboxed", false: "no sandbox"}[app.Sandbox.Sandboxed()]
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
