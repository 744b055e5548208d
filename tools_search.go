package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// skippedDirs are huge folders no search looks into.
var skippedDirs = map[string]bool{".git": true, "node_modules": true}

// walkTree calls visit with the slash-separated path below root of each entry, in name order, skipping .git,
// node_modules, unreadable folders, what .gitignore files exclude and, counting them, the paths hidden reports
// (nil: none); fs.SkipDir and fs.SkipAll work as in WalkDir.
func walkTree(ctx context.Context, workspace, root string, hidden func(abs string) bool, visit func(rel string, d fs.DirEntry) error) (passed int, err error) {
	matchRoot, prefix := root, "" // where .gitignore paths start, and root's path from there
	if rel, err := filepath.Rel(workspace, root); err == nil && rel != "." && within(workspace, root) {
		matchRoot, prefix = workspace, filepath.ToSlash(rel)
	}
	rules, rel := ignoreSet(nil).enter(matchRoot, ""), ""
	for _, name := range splitPattern(prefix) {
		rel = path.Join(rel, name)
		rules = rules.enter(filepath.Join(matchRoot, rel), rel)
	}
	dir, err := openNoFollow(root, syscall.O_RDONLY|syscall.O_DIRECTORY, 0) // not a link to elsewhere swapped in since the check
	if err != nil {
		return 0, describeOpenError(err)
	}
	w := treeWalk{ctx: ctx, root: root, prefix: prefix, hidden: hidden, visit: visit}
	err = w.walk(dir, "", rules)
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return w.passed, err
}

// treeWalk is one walkTree: where it started, that folder's path from the match root, what it
// passes over (counting in passed) and what it calls.
type treeWalk struct {
	ctx          context.Context
	root, prefix string
	hidden       func(abs string) bool
	passed       int
	visit        func(rel string, d fs.DirEntry) error
}

// walk visits the entries of the open folder dir, at rel below the root, and what the folders
// among them hold, each opened by its whole path following no link; it closes dir. A folder of
// an os.Root would cost a stat of each entry, and each open one more call per name on its path.
func (w *treeWalk) walk(dir *os.File, rel string, rules ignoreSet) error {
	entries, _ := dir.ReadDir(-1) // a folder that cannot be read to the end shows what could be
	dir.Close()
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, d := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		entry, isDir := path.Join(rel, d.Name()), d.IsDir()
		matchRel := path.Join(w.prefix, entry)
		abs := filepath.Join(w.root, filepath.FromSlash(entry))
		if isDir && skippedDirs[d.Name()] || rules.ignored(matchRel, isDir) {
			continue
		}
		if w.hidden != nil && w.hidden(abs) {
			w.passed++
			continue
		}
		switch err := w.visit(entry, d); {
		case errors.Is(err, fs.SkipDir) && isDir:
			continue
		case errors.Is(err, fs.SkipDir):
			return nil
		case err != nil:
			return err
		case !isDir:
			continue
		}
		if sub, err := openNoFollow(abs, syscall.O_RDONLY|syscall.O_DIRECTORY, 0); err == nil {
			if err := w.walk(sub, entry, rules.enter(abs, matchRel)); err != nil {
				return err
			}
		}
	}
	return nil
}

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

// ignoreSet is the rules in force in one folder, outermost first.
type ignoreSet []ignoreRule

// ignored reports whether rel is excluded: the last matching rule decides.
func (s ignoreSet) ignored(rel string, isDir bool) bool {
	if len(s) == 0 {
		return false
	}
	names := splitPattern(rel)
	for _, r := range slices.Backward(s) {
		inBase := len(names) > len(r.base) && slices.Equal(names[:len(r.base)], r.base)
		if (isDir || !r.dirOnly) && inBase && matchSegments(r.segments, names[len(r.base):]) {
			return !r.negate
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

// listFilesInput is the input of list_files.
type listFilesInput struct {
	Path      string `json:"path,omitempty" desc:"Folder to list, relative to the workspace or absolute. Default: the workspace."`
	Recursive bool   `json:"recursive,omitempty" desc:"List everything below the folder, not just its own entries."`
	Limit     int    `json:"limit,omitempty" default:"500" validate:"min=1,max=10000" desc:"Most entries to return. Default 500."`
}

// listFilesTool lists the entries of a folder.
func listFilesTool() *Tool {
	return ToolDef[listFilesInput]{
		Name: "list_files",
		Description: "List a folder's files and subfolders (subfolders end with /), sorted by name, optionally recursive. " +
			"Skips .git, node_modules and what .gitignore excludes. Returns at most 500 entries (change with limit) and says how many more there are.",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in listFilesInput) (PermissionRequest, error) {
			return readPermission(env, in.Path, "list")
		},
		Run: runListFiles,
	}.Tool()
}

// runListFiles performs one list_files call.
func runListFiles(ctx context.Context, env *ToolEnv, in listFilesInput) (ToolOutput, error) {
	root, _, err := searchRoot(ctx, env, "list_files", in.Path, false)
	if err != nil {
		return ToolOutput{}, err
	}
	name := displayPath(env, root)
	label := strings.TrimSuffix(name, "/") + "/" // "/" stays "/"
	var shown []string
	total := 0
	passed, err := walkTree(ctx, env.Workspace, root, walkHidden(env, "list_files"), func(rel string, d fs.DirEntry) error {
		total++
		if len(shown) < in.Limit {
			if d.IsDir() {
				rel += "/"
			}
			shown = append(shown, rel)
		}
		if d.IsDir() && !in.Recursive {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return ToolOutput{}, fmt.Errorf("list_files %s: %w", name, err)
	}
	if total == 0 {
		return ToolOutput{Text: label + ": empty folder (or everything in it is ignored)\n" + passedNote(passed)}, nil
	}
	text := fmt.Sprintf("%s: %s\n%s\n", label, plural(total, "entry", "entries"), strings.Join(shown, "\n"))
	if more := total - len(shown); more > 0 {
		text += fmt.Sprintf("[... %d more not shown; raise limit or list a subfolder ...]\n", more)
	}
	return ToolOutput{Text: text + passedNote(passed)}, nil
}

// walkHidden is what a walk by tool passes over: the paths the permission rules deny or ask before reading.
func walkHidden(env *ToolEnv, tool string) func(abs string) bool {
	if env.Perms == nil {
		return nil
	}
	return env.Perms.WalkFilter(tool)
}

// passedNote says how many entries a walk passed over for the permission rules, naming none; "" for none.
func passedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("[not shown, as permission rules deny or ask for reading: %s]\n", plural(n, "entry", "entries"))
}

// searchRoot is the folder that tool lists or searches, as judged, and what was found there; with
// files, a regular file passes too, searched alone.
func searchRoot(ctx context.Context, env *ToolEnv, tool, path string, files bool) (string, fs.FileInfo, error) {
	root, info, err := judgedPath(ctx, env, path)
	switch {
	case err != nil:
		return "", nil, err
	case info == nil && files:
		err = errors.New("no such file")
	case info == nil:
		err = errors.New("no such folder")
	case info.IsDir():
	case files:
		err = requireRegular(info)
	default:
		err = errors.New("is a file, not a folder; use read_file to read it")
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s %s: %w", tool, displayPath(env, root), err)
	}
	return root, info, nil
}

// globFilesInput is the input of glob_files.
type globFilesInput struct {
	Pattern string `json:"pattern" validate:"required" desc:"Glob matched against paths relative to path: * and ? within a name, ** for any number of folders. *.go matches only the top folder; **/*.go matches at any depth."`
	Path    string `json:"path,omitempty" desc:"Folder to search, relative to the workspace or absolute. Default: the workspace."`
	Limit   int    `json:"limit,omitempty" default:"200" validate:"min=1,max=10000" desc:"Most paths to return. Default 200."`
}

// globFilesTool finds files by name pattern.
func globFilesTool() *Tool {
	return ToolDef[globFilesInput]{
		Name: "glob_files",
		Description: "Find files whose paths match a glob such as **/*.go or src/**/test_*.py. Returns paths, most recently modified first, " +
			"at most 200 (change with limit). Skips .git, node_modules and what .gitignore excludes.",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in globFilesInput) (PermissionRequest, error) {
			return readPermission(env, in.Path, "search")
		},
		Run: runGlobFiles,
	}.Tool()
}

// globHit is one file found by glob_files.
type globHit struct {
	path    string
	modTime int64
}

// firstN keeps the first n items of a stream in cmp's order, holding at most about 2n.
type firstN[T any] struct {
	n     int
	cmp   func(a, b T) int
	items []T
}

// add records one item.
func (f *firstN[T]) add(item T) {
	f.items = append(f.items, item)
	if len(f.items) > 2*f.n {
		f.trim()
	}
}

// trim sorts the items and keeps the first n.
func (f *firstN[T]) trim() {
	slices.SortFunc(f.items, f.cmp)
	f.items = f.items[:min(f.n, len(f.items))]
}

// runGlobFiles performs one glob_files call.
func runGlobFiles(ctx context.Context, env *ToolEnv, in globFilesInput) (ToolOutput, error) {
	if _, err := path.Match(in.Pattern, ""); err != nil {
		return ToolOutput{}, fmt.Errorf("invalid glob %q: %v", in.Pattern, err)
	}
	pattern := splitPattern(strings.TrimPrefix(in.Pattern, "./"))
	root, _, err := searchRoot(ctx, env, "glob_files", in.Path, false)
	if err != nil {
		return ToolOutput{}, err
	}
	found := firstN[globHit]{n: in.Limit, cmp: func(a, b globHit) int {
		return cmp.Or(cmp.Compare(b.modTime, a.modTime), strings.Compare(a.path, b.path))
	}}
	total := 0
	passed, err := walkTree(ctx, env.Workspace, root, walkHidden(env, "glob_files"), func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !matchSegments(pattern, splitPattern(rel)) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		total++
		found.add(globHit{path: filepath.Join(root, filepath.FromSlash(rel)), modTime: info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return ToolOutput{}, fmt.Errorf("glob_files: %w", err)
	}
	if total == 0 {
		return ToolOutput{Text: fmt.Sprintf("No files match %q in %s\n%s", in.Pattern, displayPath(env, root), passedNote(passed))}, nil
	}
	found.trim()
	var b strings.Builder
	for _, h := range found.items {
		fmt.Fprintln(&b, displayPath(env, h.path))
	}
	if more := total - len(found.items); more > 0 {
		fmt.Fprintf(&b, "[... %d more not shown; narrow the pattern or raise limit ...]\n", more)
	}
	return ToolOutput{Text: b.String() + passedNote(passed)}, nil
}
