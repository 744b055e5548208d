package main

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
)

// mcpSSEEvent is one server-sent event of an MCP stream. ID is the last
// event id seen on the stream so far (what a reconnect sends as
// Last-Event-ID); Retry is the reconnection delay in milliseconds when the
// event set one, else 0.
type mcpSSEEvent struct {
	Event string
	Data  string
	ID    string
	Retry int
}

// mcpReadSSE parses a text/event-stream body and calls onEvent for each
// event, including events that carry only an id or a retry delay, until
// the body ends or onEvent returns false. It follows the WHATWG rules:
// lines end in LF, CRLF or CR; a leading space after the colon is dropped;
// data lines join with LF; comments start with a colon.
func mcpReadSSE(r io.Reader, onEvent func(mcpSSEEvent) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	sc.Split(splitSSELines)
	var ev mcpSSEEvent
	var data []string
	lastID, seen := "", false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if seen {
				ev.Data, ev.ID = strings.Join(data, "\n"), lastID
				if !onEvent(ev) {
					return nil
				}
			}
			ev, data, seen = mcpSSEEvent{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Event, seen = value, true
		case "data":
			data, seen = append(data, value), true
		case "id":
			if !strings.ContainsRune(value, 0) {
				lastID, seen = value, true
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 {
				ev.Retry, seen = n, true
			}
		}
	}
	return sc.Err()
}

// splitSSELines is a bufio.SplitFunc for SSE lines, which may end in LF,
// CRLF or a lone CR.
func splitSSELines(data []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0 && atEOF && len(data) > 0:
		return len(data), data, nil
	case i < 0:
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // a CR at the end: wait to see whether LF follows
}
