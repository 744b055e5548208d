package main

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file: globs, "**", "!"
// to re-include, a trailing "/" for folders only, and a leading or inner
// "/" to anchor the pattern to the folder holding the .gitignore.
type ignoreRule struct {
	base     string   // folder of the .gitignore, slash-separated, relative to the match root ("" for the root)
	segments []string // the pattern split at "/"
	negate   bool     // the pattern started with "!"
	dirOnly  bool     // the pattern ended with "/"
	anchored bool     // the pattern held a "/": it matches paths below base, not names at any depth
}

// parseGitignore reads the rules of a .gitignore whose folder is base,
// relative to the match root.
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
		r := ignoreRule{base: base}
		if line, r.negate = strings.CutPrefix(line, "!"); !r.negate && (strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`)) {
			line = line[1:]
		}
		r.dirOnly = strings.HasSuffix(line, "/")
		line = strings.TrimRight(line, "/")
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		r.segments = splitPattern(strings.TrimPrefix(line, "/"))
		rules = append(rules, r)
	}
	return rules
}

// splitPattern splits a slash-separated glob or path into its names,
// dropping empty ones (a leading "/", doubled slashes).
func splitPattern(pattern string) []string {
	return slices.DeleteFunc(strings.Split(pattern, "/"), func(s string) bool { return s == "" })
}

// matches reports whether the rule applies to rel, a slash-separated path
// relative to the match root.
func (r ignoreRule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base != "" {
		if !strings.HasPrefix(rel, r.base+"/") {
			return false
		}
		rel = rel[len(r.base)+1:]
	}
	if !r.anchored {
		ok, _ := path.Match(r.segments[0], path.Base(rel))
		return ok
	}
	return matchSegments(r.segments, splitPattern(rel))
}

// matchGlob reports whether the slash-separated path name matches glob,
// minicode's one glob: `*`, `?` and `[…]` work within one name as in
// path.Match, and `**` stands for any number of names, at least one at the
// end ("src/**" is what is inside src, not src itself).
func matchGlob(glob, name string) bool {
	return matchSegments(splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(name)))
}

// matchSegments matches path names against glob names, backtracking only
// to the latest "**", so that its time stays within the product of the
// two lengths.
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

// ignoreSet is the rules in force in one folder: those of every
// .gitignore from the match root down to it, in order.
type ignoreSet []ignoreRule

// ignored reports whether rel is excluded: the last rule that matches it
// decides.
func (s ignoreSet) ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].matches(rel, isDir) {
			return !s[i].negate
		}
	}
	return false
}

// enter returns the rules in force inside dir (absolute), whose path
// relative to the match root is rel: s plus dir's own .gitignore, if any.
func (s ignoreSet) enter(dir, rel string) ignoreSet {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return s
	}
	rules := parseGitignore(rel, string(data))
	if len(rules) == 0 {
		return s
	}
	return append(s[:len(s):len(s)], rules...)
}
