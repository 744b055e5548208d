package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	base     []string // the names of the folder of the .gitignore, from the match root
	segments []string // the pattern split at "/", after "**" unless it held a "/"
	negate   bool     // the pattern started with "!"
	dirOnly  bool     // the pattern ended with "/"
}

// parseGitignore reads the rules of a .gitignore in the folder base.
func parseGitignore(base, content string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " \t")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: splitPattern(base)}
		if line, r.negate = strings.CutPrefix(line, "!"); !r.negate && (strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`)) {
			line = line[1:]
		}
		r.dirOnly = strings.HasSuffix(line, "/")
		line = strings.TrimRight(line, "/")
		if line == "" {
			continue
		}
		if r.segments = splitPattern(line); !strings.Contains(line, "/") {
			r.segments = append([]string{"**"}, r.segments...)
		}
		rules = append(rules, r)
	}
	return rules
}

// matches reports whether the rule applies to the path of these names.
func (r ignoreRule) matches(names []string, isDir bool) bool {
	return (isDir || !r.dirOnly) && len(names) > len(r.base) && slices.Equal(names[:len(r.base)], r.base) &&
		matchSegments(r.segments, names[len(r.base):])
}

// ignoreSet is the rules in force in one folder, outermost first.
type ignoreSet []ignoreRule

// ignored reports whether rel is excluded: the last matching rule decides.
func (s ignoreSet) ignored(rel string, isDir bool) bool {
	if len(s) == 0 {
		return false
	}
	names := splitPattern(rel)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].matches(names, isDir) {
			return !s[i].negate
		}
	}
	return false
}

// enter returns the rules in force inside dir, at rel: s and dir's .gitignore.
func (s ignoreSet) enter(dir, rel string) ignoreSet {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return s
	}
	return append(s[:len(s):len(s)], parseGitignore(rel, string(data))...)
}
