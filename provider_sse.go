package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// SSEEvent is one event of a Server-Sent Events stream, as the HTML standard defines it.
type SSEEvent struct {
	Event string        // the event type; "message" when the stream gave none
	Data  string        // the data lines joined with "\n"
	ID    string        // the last event ID seen so far in the stream
	Retry time.Duration // the latest valid retry field, or 0
}

// SSEReader reads the events of a Server-Sent Events stream, each as soon as its blank line comes.
type SSEReader struct {
	lines   *bufio.Scanner
	maxLine int
	skipLF  bool  // the last line ended in CR: a following LF belongs to it
	started bool  // the first line (which may carry a byte-order mark) is done
	err     error // the sticky error, once reading has failed

	data      []byte // the data lines of the event being built, each ending in "\n"
	eventType string
	lastID    string
	retry     time.Duration
}

// errSSETooLong reports a line or an event past the reader's limit.
var errSSETooLong = errors.New("event stream: a line or event is too long")

// newSSEReader returns a reader of the events in r, lines and events at most maxLine bytes.
func newSSEReader(r io.Reader, maxLine int) *SSEReader {
	s := &SSEReader{lines: bufio.NewScanner(r), maxLine: maxLine}
	s.lines.Buffer(make([]byte, min(4096, maxLine+2)), maxLine+2) // a skipped LF, the line, its end
	s.lines.Split(s.splitLine)
	return s
}

// splitLine splits lines at CR, LF or CRLF, returning a line at its CR at once
// and skipping an LF after it when it comes; an unterminated last line is dropped.
func (s *SSEReader) splitLine(data []byte, atEOF bool) (int, []byte, error) {
	skip := 0
	if s.skipLF && len(data) > 0 && data[0] == '\n' {
		skip = 1 // the scanner stops at the end of input on an advance without a token
	}
	line := data[skip:]
	i, end := bytes.IndexByte(line, '\n'), line // two IndexByte scans are faster than one IndexAny
	if i >= 0 {
		end = line[:i]
	}
	if j := bytes.IndexByte(end, '\r'); j >= 0 {
		i = j
	}
	switch {
	case i > s.maxLine || (i < 0 && len(line) > s.maxLine):
		return 0, nil, fmt.Errorf("%w (over %d bytes)", errSSETooLong, s.maxLine)
	case i < 0:
		return 0, nil, nil
	}
	s.skipLF = line[i] == '\r'
	return skip + i + 1, line[:i], nil
}

// Next returns the next event, or io.EOF at the end (an unfinished event is
// dropped); a read error is returned by this and every later call.
func (s *SSEReader) Next() (SSEEvent, error) {
	for s.err == nil {
		if !s.lines.Scan() {
			s.err = io.EOF
			if err := s.lines.Err(); errors.Is(err, errSSETooLong) {
				s.err = err
			} else if err != nil {
				s.err = fmt.Errorf("reading event stream: %w", err)
			}
			break
		}
		line := s.lines.Bytes()
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark
		}
		if len(line) > 0 {
			s.err = s.processField(line)
			continue
		}
		// A blank line ends the event; one without data is dropped.
		if len(s.data) == 0 {
			s.eventType = ""
			continue
		}
		ev := SSEEvent{Event: cmp.Or(s.eventType, "message"), Data: string(s.data[:len(s.data)-1]), ID: s.lastID, Retry: s.retry}
		s.data, s.eventType = s.data[:0], ""
		return ev, nil
	}
	return SSEEvent{}, s.err
}

// processField applies one field line (or comment) to the event being built.
func (s *SSEReader) processField(line []byte) error {
	if line[0] == ':' {
		return nil // a comment
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if found {
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(field) {
	case "event":
		s.eventType = string(value)
	case "data":
		if len(s.data)+len(value)+1 > s.maxLine {
			return fmt.Errorf("%w (over %d bytes)", errSSETooLong, s.maxLine)
		}
		s.data = append(append(s.data, value...), '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	case "retry":
		if ms, err := strconv.ParseInt(string(value), 10, 32); err == nil && value[0] != '+' && value[0] != '-' {
			s.retry = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}
