package main

import (
	"fmt"
	"strings"
)

// doubleQuoted reads a "…" string; substitutions inside it still run, so
// their commands are collected.
func (s *shellScanner) doubleQuoted(c *commandBuilder) error {
	open := s.i
	s.i++
	for s.i < len(s.src) {
		var err error
		switch ch := s.src[s.i]; ch {
		case '"':
			s.i++
			return nil
		case '\\':
			if s.i+1 < len(s.src) && strings.IndexByte("$`\"\\\n", s.src[s.i+1]) >= 0 {
				if s.src[s.i+1] != '\n' {
					c.word.WriteByte(s.src[s.i+1])
				}
				s.i += 2
				continue
			}
			c.word.WriteByte(ch)
			s.i++
		case '`':
			err = s.backquoted(c)
		case '$':
			err = s.dollar(c, true)
		default:
			c.word.WriteByte(ch)
			s.i++
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("unterminated double quote at offset %d", open)
}

// dollar reads a `$` expansion: `$(…)` holds commands, `$((…))`
// arithmetic, `${…}` a parameter, and `$'…'` a quoted string unless the
// expansion is itself inside double quotes, where bash leaves `$'`
// literal and so still runs what follows it.
func (s *shellScanner) dollar(c *commandBuilder, quoted bool) error {
	rest := s.src[s.i:]
	switch {
	case strings.HasPrefix(rest, "$(("):
		return s.descend(func() error { return s.arithmetic(c) })
	case strings.HasPrefix(rest, "$("):
		return s.substitution(c, 2, ')')
	case strings.HasPrefix(rest, "${"):
		return s.descend(func() error { return s.parameter(c) })
	case strings.HasPrefix(rest, "$'") && !quoted:
		return s.ansiQuoted(c)
	}
	c.word.WriteByte('$')
	s.i++
	return nil
}

// parameter reads a `${…}` expansion, which ends at the first `}` that is
// not quoted or escaped. Its text stays in the word, and the commands of
// substitutions inside it (`${x:-$(cmd)}`) are collected, since they run.
func (s *shellScanner) parameter(c *commandBuilder) error {
	start := s.i
	s.i += 2
	inner := &commandBuilder{}
	for s.i < len(s.src) {
		var err error
		switch ch := s.src[s.i]; ch {
		case '}':
			s.i++
			c.word.WriteString(s.src[start:s.i])
			return nil
		case '\\':
			s.i = min(len(s.src), s.i+2)
		case '\'':
			err = s.wordPart(inner)
		default:
			err = s.expansionPart(inner, false)
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("unterminated parameter expansion at offset %d", start)
}

// arithmetic reads a `$((…))` expansion, whose substitutions are collected
// like a parameter's (quotes do not hide them there). When its parentheses
// do not close with `))`, bash reads it as a command substitution starting
// with a subshell, `$( (…) …)`, and so does arithmetic.
func (s *shellScanner) arithmetic(c *commandBuilder) error {
	start, found := s.i, len(s.out)
	s.i += 3
	inner := &commandBuilder{}
	for depth := 0; s.i < len(s.src); {
		var err error
		switch ch := s.src[s.i]; {
		case ch == '(':
			depth++
			s.i++
		case ch == ')' && depth > 0:
			depth--
			s.i++
		case ch == ')' && strings.HasPrefix(s.src[s.i:], "))"):
			s.i += 2
			c.word.WriteString(s.src[start:s.i])
			return nil
		case ch == ')':
			s.i, s.out = start, s.out[:found]
			return s.substitution(c, 2, ')')
		case ch == '\\':
			s.i = min(len(s.src), s.i+2)
		default:
			err = s.expansionPart(inner, true)
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("unterminated arithmetic expansion at offset %d", start)
}

// expansionPart reads one piece of the inside of an expansion into the
// scratch builder inner: a double-quoted string, a substitution, another
// expansion, or a plain character.
func (s *shellScanner) expansionPart(inner *commandBuilder, quoted bool) error {
	switch s.src[s.i] {
	case '"':
		return s.doubleQuoted(inner)
	case '`':
		return s.backquoted(inner)
	case '$':
		return s.dollar(inner, quoted)
	}
	s.i++
	return nil
}

// substitution reads a command substitution opened by skip bytes and
// closed by stop; its commands are collected and its text stays in the word.
func (s *shellScanner) substitution(c *commandBuilder, skip int, stop byte) error {
	start := s.i
	s.i += skip
	if err := s.nested(stop); err != nil {
		return err
	}
	c.word.WriteString(s.src[start:s.i])
	return nil
}

// backquoted reads a `…` substitution. Inside it a backslash before $, `
// or \ quotes just that character, so its text is unescaped first and then
// split as a command line of its own, in which \`…\` is a substitution
// again; the raw text stays in the word.
func (s *shellScanner) backquoted(c *commandBuilder) error {
	var script strings.Builder
	for j := s.i + 1; j < len(s.src); j++ {
		switch ch := s.src[j]; {
		case ch == '\\' && j+1 < len(s.src) && strings.IndexByte("$`\\", s.src[j+1]) >= 0:
			script.WriteByte(s.src[j+1])
			j++
		case ch == '`':
			c.word.WriteString(s.src[s.i : j+1])
			s.i = j + 1
			return s.descend(func() error {
				inner := &shellScanner{src: script.String(), depth: s.depth}
				err := inner.parseList(0)
				s.out = append(s.out, inner.out...)
				return err
			})
		default:
			script.WriteByte(ch)
		}
	}
	return fmt.Errorf("missing closing '`' at offset %d", s.i)
}

// ansiQuoted copies a $'…' string, in which \' does not end it, into
// the word.
func (s *shellScanner) ansiQuoted(c *commandBuilder) error {
	for j := s.i + 2; j < len(s.src); j++ {
		switch s.src[j] {
		case '\\':
			j++
		case '\'':
			c.word.WriteString(s.src[s.i : j+1])
			s.i = j + 1
			return nil
		}
	}
	return fmt.Errorf("unterminated quoted string at offset %d", s.i)
}
