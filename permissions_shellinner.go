package main

import (
	"path/filepath"
	"slices"
	"strings"
)

// innerCommands returns the commands a simple command runs on its behalf,
// found up to maxShellDepth deep: the command after a wrapper (`sudo rm x`
// runs `rm x`), what find runs with -exec, and the commands of a script
// given to a shell with -c or to eval. They are parts of a request like
// the commands of a chain, so a rule that allows the wrapper, find or the
// shell does not allow what they run.
func innerCommands(cmd shellCommand, depth int) []shellCommand {
	words := cmd.Words
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 || depth >= maxShellDepth {
		return nil
	}
	program := filepath.Base(words[0])
	var inner []shellCommand
	switch {
	case hasKey(commandWrappers, program):
		inner = wordCommands([][]string{unwrapCommand(words)}, cmd.Redirects)
	case program == "find":
		inner = wordCommands(findPayloads(words[1:]), nil)
	case shellPrograms[program] || program == "eval":
		script, ok := innerScript(program, words[1:])
		if !ok {
			return nil
		}
		// A script that cannot be parsed is refused by destructiveReason.
		inner, _ = splitCommands(script)
	}
	var out []shellCommand
	for _, c := range inner {
		c.Nested = true
		out = append(out, c)
		out = append(out, innerCommands(c, depth+1)...)
	}
	return out
}

// wordCommands makes commands of word lists, leaving out empty ones; the
// redirections are those of the command that runs them.
func wordCommands(lists [][]string, redirects []redirect) []shellCommand {
	var cmds []shellCommand
	for _, words := range lists {
		if len(words) > 0 {
			cmds = append(cmds, shellCommand{Text: quoteWords(words), Words: words, Redirects: redirects})
		}
	}
	return cmds
}

// quoteWords writes words back as shell text that splits into the same
// words, single-quoting those that need it.
func quoteWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = w
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return !isPlainShellRune(r) }) {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// isPlainShellRune reports whether r needs no quoting in a shell word.
func isPlainShellRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@%+,", r)
}

// commandViews returns the forms in which deny and ask rules look for a
// command, so that they are not slipped past: as written, and as the
// program that really runs, without wrappers, assignments or its folder
// (`FOO=1 /bin/rm x` is `rm x`).
func commandViews(cmd shellCommand) []shellCommand {
	views := []shellCommand{cmd}
	if words := unwrapCommand(cmd.Words); len(words) > 0 {
		views = append(views, shellCommand{Words: slices.Concat([]string{filepath.Base(words[0])}, words[1:]), Redirects: cmd.Redirects})
	}
	return views
}
