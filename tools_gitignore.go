package main

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file. It supports the
// subset of gitignore that covers nearly every real file: globs (* ? [..]),
// "**" for any number of folders, "!" to re-include, a trailing "/" for
// folders only, and a leading or inner "/" to anchor the pattern to the
// folder holding the .gitignore.
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
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		r.segments = splitPattern(strings.TrimPrefix(line, "/"))
		rules = append(rules, r)
	}
	return rules
}

// splitPattern splits a slash-separated pattern into segments, folding
// runs of "**" into one.
func splitPattern(pattern string) []string {
	var segs []string
	for _, s := range strings.Split(pattern, "/") {
		if s == "" || (s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**") {
			continue
		}
		segs = append(segs, s)
	}
	return segs
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
	return matchSegments(r.segments, splitPath(rel))
}

// matchSegments matches path segments against pattern segments, where
// "**" stands for any number of folders (at least one when it ends the
// pattern, as "dir/**" means what is inside dir).
func matchSegments(pattern, segs []string) bool {
	for len(pattern) > 0 {
		if pattern[0] == "**" {
			rest := pattern[1:]
			start := 0
			if len(rest) == 0 {
				start = 1
			}
			for i := start; i <= len(segs); i++ {
				if matchSegments(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pattern[0], segs[0]); !ok {
			return false
		}
		pattern, segs = pattern[1:], segs[1:]
	}
	return len(segs) == 0
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

// splitPath splits a slash-separated relative path into its names.
func splitPath(rel string) []string {
	return strings.Split(rel, "/")
}
