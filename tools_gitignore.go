package main

import (
	"os"
	"path"
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

// splitPattern splits a slash-separated glob or path into its names.
func splitPattern(pattern string) []string {
	return slices.DeleteFunc(strings.Split(pattern, "/"), func(s string) bool { return s == "" })
}

// matches reports whether the rule applies to the path of these names.
func (r ignoreRule) matches(names []string, isDir bool) bool {
	return (isDir || !r.dirOnly) && len(names) > len(r.base) && slices.Equal(names[:len(r.base)], r.base) &&
		matchSegments(r.segments, names[len(r.base):])
}

// matchGlob reports whether the slash-separated path name matches glob:
// `*`, `?` and `[…]` work within one name, and `**` stands for any number
// of names, at least one at the end ("src/**" is what is inside src).
func matchGlob(glob, name string) bool {
	return matchSegments(splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(name)))
}

// matchSegments matches path names against glob names, backtracking only
// to the latest "**", in time within the product of the two lengths.
func matchSegments(glob, names []string) bool {
	if len(glob) > 0 && glob[len(glob)-1] == "**" {
		glob = append(glob[:len(glob)-1:len(glob)-1], "*", "**")
	}
	g, n := 0, 0
	star, starN := -1, 0 // the latest "**" and the names it has taken so far
	for g < len(glob) || n < len(names) {
		switch {
		case g < len(glob) && glob[g] == "**":
			star, starN = g, n
			g++
		case g < len(glob) && n < len(names) && matchName(glob[g], names[n]):
			g++
			n++
		case star >= 0 && starN < len(names):
			starN++
			g, n = star+1, starN
		default:
			return false
		}
	}
	return true
}

// matchName matches one name against one element of a glob.
func matchName(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return ok && err == nil
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
