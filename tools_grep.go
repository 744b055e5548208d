package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Limits of grep_files.
const (
	grepMaxLineChars = 200       // matching lines are cut to this
	grepChunkBytes   = 256 << 10 // each worker reads files in chunks this big
	grepMaxLineBytes = 4 << 20   // a longer line is searched in pieces
	grepBatchFiles   = 32        // files handed to a worker at a time
)

// grepFilesInput is the input of grep_files.
type grepFilesInput struct {
	Pattern    string `json:"pattern" validate:"required" desc:"Regular expression in Go (RE2) syntax, matched against each line."`
	Path       string `json:"path,omitempty" desc:"File or folder to search, relative to the workspace or absolute. Default: the workspace."`
	Glob       string `json:"glob,omitempty" desc:"Only search files matching this glob: *.go matches names at any depth, src/**/*.ts matches paths below the searched folder."`
	IgnoreCase bool   `json:"ignore_case,omitempty" desc:"Match letters regardless of case."`
	Limit      int    `json:"limit,omitempty" default:"200" validate:"min=1,max=5000" desc:"Most matching lines to return. Default 200."`
}

// grepFilesTool searches file contents with a regular expression.
func grepFilesTool() *Tool {
	return ToolDef[grepFilesInput]{
		Name: "grep_files",
		Description: "Search file contents with a regular expression (Go RE2 syntax). Prints path:line:text for each matching line, " +
			"sorted by path, at most 200 lines (change with limit), lines cut at 200 characters. " +
			"Skips binary files, .git, node_modules and what .gitignore excludes.",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in grepFilesInput) (PermissionRequest, error) {
			return readPermission(env, in.Path, "search")
		},
		Run: runGrepFiles,
	}.Tool()
}

// runGrepFiles performs one grep_files call.
func runGrepFiles(ctx context.Context, env *ToolEnv, in grepFilesInput) (ToolOutput, error) {
	expr := "(?m)" + in.Pattern
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("invalid regular expression %q: %s", in.Pattern, syntaxMessage(err, expr))
	}
	if _, err := path.Match(in.Glob, ""); err != nil {
		return ToolOutput{}, fmt.Errorf("invalid glob %q: %v", in.Glob, err)
	}
	root, info, err := searchRoot(ctx, env, "grep_files", in.Path, true)
	if err != nil {
		return ToolOutput{}, err
	}
	g := &grepSearch{re: re, walked: info.IsDir(), shown: firstN[grepMatch]{n: in.Limit, cmp: func(a, b grepMatch) int {
		return cmp.Or(strings.Compare(a.path, b.path), a.line-b.line)
	}}}
	g.literal, g.fold, g.rare = requiredLiteral(expr)
	err = g.run(ctx, func(add func(file string)) error {
		if !info.IsDir() {
			add(root)
			return nil
		}
		g.passed, err = walkTree(ctx, env.Workspace, root, walkHidden(env, "grep_files"), func(rel string, d fs.DirEntry) error {
			if d.Type().IsRegular() && globMatches(in.Glob, rel) {
				add(filepath.Join(root, filepath.FromSlash(rel)))
			}
			return nil
		})
		return err
	})
	if err != nil {
		return ToolOutput{}, fmt.Errorf("grep_files: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return ToolOutput{}, err
	}
	return ToolOutput{Text: g.format(env, in.Pattern, root)}, nil
}

// grepSearch is one grep_files search, shared by its workers: only lines
// holding the literal meet the expression.
type grepSearch struct {
	re      *regexp.Regexp
	literal []byte // text every match contains, or nil
	fold    bool   // literal is lower case, to match regardless of case
	rare    int    // the literal's byte that bytes.IndexByte looks for (rarityOf), or -1: search a lower-cased copy
	walked  bool   // the files come from a folder's walk, not named by the call
	mu      sync.Mutex
	shown   firstN[grepMatch] // the first matching lines in path order
	files   int               // files with a match
	total   int               // matching lines
	failed  int               // files that could not be read
	passed  int               // entries the walk passed over for the permission rules
}

// cores counts the searches running: while any runs, Go's scheduler has every core. It is
// package state because what it guards, GOMAXPROCS, is the process's own.
var cores struct {
	sync.Mutex
	users, saved int
}

// allCores gives the scheduler every core until the function it returns is called.
func allCores() (release func()) {
	cores.Lock()
	defer cores.Unlock()
	if cores.users == 0 {
		cores.saved = runtime.GOMAXPROCS(max(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	}
	cores.users++
	return func() {
		cores.Lock()
		defer cores.Unlock()
		cores.users--
		if cores.users == 0 {
			runtime.GOMAXPROCS(cores.saved)
		}
	}
}

// grepMatch is one matching line.
type grepMatch struct {
	path string // absolute
	line int
	text string
}

// run searches the files feed adds with one worker per CPU, handing them over in batches: a
// hand-over a file cost more in the scheduler's wake-ups than the search of a small file.
func (g *grepSearch) run(ctx context.Context, feed func(add func(file string)) error) error {
	defer allCores()()
	files := make(chan []string, 16)
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			w := &grepWorker{grepSearch: g}
			for batch := range files {
				for _, file := range batch {
					err := w.searchFile(ctx, file)
					if ctx.Err() != nil || err == nil && w.count == 0 {
						continue
					}
					g.mu.Lock()
					if err != nil {
						g.failed++
					} else {
						g.files++
						g.total += w.count
						for _, match := range w.shown {
							g.shown.add(match)
						}
					}
					g.mu.Unlock()
				}
			}
		})
	}
	var batch []string
	err := feed(func(file string) {
		if batch = append(batch, file); len(batch) == grepBatchFiles {
			files <- batch
			batch = nil
		}
	})
	if len(batch) > 0 {
		files <- batch
	}
	close(files)
	wg.Wait()
	g.shown.trim()
	return err
}

// grepWorker is one worker of a search: buffers reused from file to file, and its last file's matches.
type grepWorker struct {
	*grepSearch
	chunk, lower []byte      // the part of the file being searched, and its ASCII lower-case copy
	shown        []grepMatch // the file's first matching lines
	count        int         // the file's matching lines
}

// searchFile searches one file in chunks of whole lines, skipping binary files.
func (w *grepWorker) searchFile(ctx context.Context, file string) error {
	w.shown, w.count = nil, 0
	// A name swapped for a link to elsewhere is not read. The descriptor is used as it is, without an
	// *os.File, whose poller registration costs two system calls a file (a third of a search's).
	fd, err := openNoFollowFD(file, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || w.walked && st.Nlink > 1 {
		return err // a file with another name, maybe outside the workspace, is passed over: reading it asks
	}
	f := &fdReader{fd: fd, left: cmp.Or(st.Size, math.MaxInt64)} // a size of 0 may be a file of /proc
	b, line := slices.Grow(w.chunk[:0], grepChunkBytes), 1
	defer func() { w.chunk = b[:0] }()
	for first := true; ; first = false {
		n, err := io.ReadFull(f, b[len(b):cap(b)])
		b = b[:len(b)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		switch {
		case err != nil && !eof:
			return err
		case first && bytes.IndexByte(b[:min(len(b), binarySniffBytes)], 0) >= 0:
			return nil
		}
		end := len(b)
		if !eof {
			end = bytes.LastIndexByte(b, '\n') + 1
			if end == 0 && len(b) < grepMaxLineBytes {
				b = slices.Grow(b, len(b))
				continue
			}
			end = cmp.Or(end, len(b))
		}
		line = w.searchChunk(b[:end], file, line)
		b = b[:copy(b, b[end:])]
		if eof {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// fdReader reads a file descriptor up to the file's size, sparing the read that would find its end.
type fdReader struct {
	fd   int
	left int64 // bytes still to read
}

// Read reads what is left, up to len(p) bytes.
func (r *fdReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.left)]
	n, err := syscall.Read(r.fd, p)
	for err == syscall.EINTR {
		n, err = syscall.Read(r.fd, p)
	}
	switch {
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	r.left -= int64(n)
	return n, nil
}

// searchChunk records the matches of chunk, whose first line is line, and returns the next line's number.
func (w *grepWorker) searchChunk(chunk []byte, file string, line int) int {
	next := line + bytes.Count(chunk, []byte{'\n'})
	haystack, literal := chunk, w.literal
	if w.fold && w.rare < 0 {
		w.lower = asciiLower(w.lower[:0], chunk)
		haystack = w.lower
	}
	if w.fold && (bytes.Contains(chunk, []byte("\u017f")) || bytes.Contains(chunk, []byte("\u212a"))) {
		literal = nil // the long s and the Kelvin sign match s and k
	}
	for pos := 0; pos < len(chunk); {
		start := 0
		switch {
		case literal == nil:
		case w.rare >= 0:
			start = w.indexLiteral(chunk[pos:])
		default:
			start = bytes.Index(haystack[pos:], literal)
		}
		if start < 0 {
			break
		}
		start += pos
		if start == len(chunk) && chunk[start-1] == '\n' {
			break // an empty match after the last newline is on no line
		}
		lineStart := bytes.LastIndexByte(chunk[:start], '\n') + 1
		lineEnd := len(chunk)
		if i := bytes.IndexByte(chunk[start:], '\n'); i >= 0 {
			lineEnd = start + i
		}
		line += bytes.Count(chunk[pos:lineStart], []byte{'\n'})
		if text := bytes.TrimSuffix(chunk[lineStart:lineEnd], []byte{'\r'}); w.re.Match(text) {
			if w.count++; len(w.shown) < w.grepSearch.shown.n {
				text = text[:min(len(text), grepMaxLineChars+utf8.UTFMax)]
				w.shown = append(w.shown, grepMatch{file, line, cutBytes(strings.ToValidUTF8(string(text), "\uFFFD"), grepMaxLineChars, "...")})
			}
		}
		pos = lineEnd + 1
		line++
	}
	return next
}

// indexLiteral is the index of the literal's first instance in s, or -1: bytes.IndexByte finds its
// rare byte, and the bytes around it are compared, regardless of case under fold (the literal is ASCII).
func (g *grepSearch) indexLiteral(s []byte) int {
	lit, k := g.literal, g.rare
	for from := 0; from+len(lit) <= len(s); {
		i := bytes.IndexByte(s[from+k:len(s)-len(lit)+k+1], lit[k])
		if i < 0 {
			return -1
		}
		start := from + i
		if g.fold && bytes.EqualFold(s[start:start+len(lit)], lit) || !g.fold && bytes.Equal(s[start:start+len(lit)], lit) {
			return start
		}
		from = start + 1
	}
	return -1
}

// rarityOf ranks how seldom a byte appears in code and prose, higher for rarer: bytes.IndexByte
// stops less often at a rarer one. Under fold only a byte without case can be looked for.
func rarityOf(c byte, fold bool) int {
	switch {
	case fold && ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'):
		return -1
	case strings.IndexByte(" \t\netaoinsrlcdhu", c) >= 0:
		return 0
	case 'a' <= c && c <= 'z' || strings.IndexByte(".,()_:;=\"*/", c) >= 0:
		return 1
	}
	return 2
}

// asciiLower appends b to dst with the ASCII letters in lower case.
func asciiLower(dst, b []byte) []byte {
	dst = append(dst, b...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// format prints the matches shown in path order, and the totals.
func (g *grepSearch) format(env *ToolEnv, pattern, root string) string {
	notes := passedNote(g.passed)
	if g.failed > 0 {
		notes += fmt.Sprintf("[%s could not be read]\n", plural(g.failed, "file", "files"))
	}
	if g.files == 0 {
		return fmt.Sprintf("No matches for %q in %s\n%s", pattern, displayPath(env, root), notes)
	}
	var b strings.Builder
	for _, m := range g.shown.items {
		fmt.Fprintf(&b, "%s:%d:%s\n", displayPath(env, m.path), m.line, m.text)
	}
	if more := g.total - len(g.shown.items); more > 0 {
		fmt.Fprintf(&b, "[... %d more matching lines not shown; narrow the pattern, path or glob, or raise limit ...]\n", more)
	}
	fmt.Fprintf(&b, "(%s in %s)\n", plural(g.total, "matching line", "matching lines"), plural(g.files, "file", "files"))
	return b.String() + notes
}

// globMatches reports whether rel passes the glob: one without a slash matches names at any depth.
func globMatches(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		glob = "**/" + glob
	}
	return glob == "**/" || matchGlob(strings.TrimPrefix(glob, "./"), rel) // ./ is the folder searched
}

// requiredLiteral returns text every match of expr contains, in lower case under ignore case (fold), where
// only letters with ASCII variants count; of the pieces of text expr requires, the one whose rarest byte is
// rarest (rarityOf), then the longest. rare is where that byte is, or -1 (all letters under fold, or none).
func requiredLiteral(expr string) (lit []byte, fold bool, rare int) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false, -1
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	pieces, rare, best := []*syntax.Regexp{re}, -1, -2
	if re.Op == syntax.OpConcat {
		pieces = re.Sub
	}
	for _, p := range pieces {
		if p.Op != syntax.OpLiteral {
			continue
		}
		text, folded := []byte(string(p.Rune)), p.Flags&syntax.FoldCase != 0
		if folded {
			text = longestASCIIFoldRun(p.Rune)
		}
		at, rarity := -1, -1
		for i, c := range text {
			if r := rarityOf(c, folded); r > rarity {
				at, rarity = i, r
			}
		}
		if len(text) > 0 && (rarity > best || rarity == best && len(text) > len(lit)) {
			lit, fold, rare, best = text, folded, at, rarity
		}
	}
	return lit, fold, rare
}

// longestASCIIFoldRun is the longest run of runes whose case variants are
// ASCII, the Kelvin sign or the long s, in lower case.
func longestASCIIFoldRun(runes []rune) []byte {
	var best, run []byte
	for _, r := range append(runes, utf8.RuneError) {
		ok := r < utf8.RuneSelf
		for f := unicode.SimpleFold(r); ok && f != r; f = unicode.SimpleFold(f) {
			ok = f < utf8.RuneSelf || f == '\u017f' || f == '\u212a'
		}
		if ok {
			run = append(run, byte(unicode.ToLower(r)))
			continue
		}
		if len(run) > len(best) {
			best = run
		}
		run = nil
	}
	return best
}

// syntaxMessage is why expr did not compile, naming the offending part.
func syntaxMessage(err error, expr string) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	if se.Expr == "" || se.Expr == expr {
		return string(se.Code)
	}
	return fmt.Sprintf("%s: %s", se.Code, se.Expr)
}
