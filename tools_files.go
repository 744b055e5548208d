package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of read_file.
const (
	readDefaultLimit = 2_000    // lines returned when no limit is given
	readMaxLineChars = 2_000    // longer lines are cut
	readBudgetChars  = 40_000   // a longer answer keeps its head and tail
	binarySniffBytes = 8_192    // a NUL byte in this much marks a binary file; later, where its binary part begins
	readBufferBytes  = 64 << 10 // bytes read from the file at a time
)

// ReadFileInput is the input of read_file.
type ReadFileInput struct {
	Path   string `json:"path" validate:"required" desc:"File to read, relative to the workspace or absolute."`
	Offset *int   `json:"offset,omitempty" validate:"omitempty,min=1" desc:"First line to return, counting from 1. Default 1."`
	Limit  *int   `json:"limit,omitempty" validate:"omitempty,min=1,max=10000" desc:"Most lines to return. Default 2000, at most 10000."`
}

// readFileTool reads a window of lines from a text file.
func readFileTool() *Tool {
	return ToolDef[ReadFileInput]{
		Name: "read_file",
		Description: "Read a text file. Returns up to 2000 lines (change with offset and limit), each prefixed with its line number; " +
			"lines over 2000 characters are cut. The header gives the total line count and, when there is more, the offset to continue from. " +
			"Very long results keep their head and tail. Binary files and folders are refused (use list_files for folders).",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in ReadFileInput) (PermissionRequest, error) {
			return readPermission(env, in.Path, "read")
		},
		Run: runReadFile,
	}.Tool()
}

// runReadFile performs one read_file call.
func runReadFile(ctx context.Context, env *ToolEnv, in ReadFileInput) (ToolOutput, error) {
	abs, err := resolveInput(env, in.Path)
	if err != nil {
		return ToolOutput{}, err
	}
	name := displayPath(env, abs)
	offset := optInt(in.Offset, 1)
	w, err := readWindow(ctx, abs, offset, optInt(in.Limit, readDefaultLimit))
	if err != nil {
		return ToolOutput{}, fmt.Errorf("read_file %s: %w", name, err)
	}
	if w.total == 0 {
		return ToolOutput{Text: name + ": empty file (0 lines)"}, nil
	}
	if offset > w.total {
		return ToolOutput{}, fmt.Errorf("read_file %s: offset %d is past the end of the file (%s)", name, offset, plural(w.total, "line", "lines"))
	}
	return ToolOutput{Text: w.header(name) + "\n" + w.body()}, nil
}

// fileWindow is the part of a file that read_file returns.
type fileWindow struct {
	lines       []string // the selected lines, long ones already cut
	first       int      // line number of lines[0]
	total       int      // lines in the whole file
	cutLines    int      // how many selected lines were cut
	invalidUTF8 bool     // some selected line was not valid UTF-8
	binaryAt    int64    // where binary data begins after the text; -1 if nowhere
}

// readWindow streams the file at path, keeping limit lines from line
// offset and only counting the rest; the text ends at the first NUL byte.
func readWindow(ctx context.Context, path string, offset, limit int) (fileWindow, error) {
	w := fileWindow{first: offset, binaryAt: -1}
	info, err := os.Stat(path)
	if err != nil {
		return w, describeOpenError(err)
	}
	if err := requireRegular(info); err != nil {
		return w, err
	}
	f, err := os.Open(path)
	if err != nil {
		return w, describeOpenError(err)
	}
	defer f.Close()
	size := min(readBufferBytes, max(binarySniffBytes, info.Size()+1)) // a small file needs no large buffer
	br := bufio.NewReaderSize(&textReader{r: f, binaryAt: &w.binaryAt}, int(size))
	var text []byte // the current line, in a buffer reused for every line
	if br.Peek(binarySniffBytes); w.binaryAt >= 0 && w.binaryAt < binarySniffBytes {
		return w, fmt.Errorf("is a binary file (%d bytes); read_file shows text only", info.Size())
	}
	for w.total < offset-1+limit {
		if w.total%4096 == 0 && ctx.Err() != nil {
			return w, ctx.Err()
		}
		keep := w.total+1 >= offset
		var full int
		var ok bool
		text, full, ok, err = nextLine(br, keep, text[:0])
		if err != nil {
			return w, err
		}
		if !ok {
			return w, nil
		}
		w.total++
		if keep {
			w.add(text, full)
		}
	}
	rest, err := countLines(ctx, br)
	w.total += rest
	return w, err
}

// add appends one selected line, cutting it and replacing invalid UTF-8.
func (w *fileWindow) add(text []byte, full int) {
	cut := full > readMaxLineChars
	if cut {
		n := readMaxLineChars
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	line := string(text)
	if !utf8.ValidString(line) {
		w.invalidUTF8 = true
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	if cut {
		w.cutLines++
		line += fmt.Sprintf(" [... line cut: %d characters in all]", full)
	}
	w.lines = append(w.lines, line)
}

// header is the first line of the answer: which lines these are, of how
// many, and where to continue.
func (w fileWindow) header(name string) string {
	last := w.first + len(w.lines) - 1
	var b strings.Builder
	if w.first == 1 && last == w.total {
		fmt.Fprintf(&b, "%s: %s", name, plural(w.total, "line", "lines"))
	} else {
		fmt.Fprintf(&b, "%s: lines %d-%d of %d", name, w.first, last, w.total)
	}
	if last < w.total {
		fmt.Fprintf(&b, "; more follows, continue with offset=%d", last+1)
	}
	if w.cutLines > 0 {
		fmt.Fprintf(&b, "; %s cut at %d characters", plural(w.cutLines, "long line", "long lines"), readMaxLineChars)
	}
	if w.invalidUTF8 {
		b.WriteString("; not valid UTF-8, invalid bytes shown as \uFFFD")
	}
	if w.binaryAt >= 0 {
		fmt.Fprintf(&b, "; binary data from byte %d on is not shown", w.binaryAt)
	}
	return b.String()
}

// textReader reads a file up to its first NUL byte, where its binary part
// begins, and ends there as if the file ended.
type textReader struct {
	r        io.Reader
	read     int64
	binaryAt *int64 // set to the NUL's offset once found
}

// Read implements io.Reader.
func (t *textReader) Read(p []byte) (int, error) {
	if *t.binaryAt >= 0 {
		return 0, io.EOF
	}
	n, err := t.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		*t.binaryAt = t.read + int64(i)
		n, err = i, io.EOF
	}
	t.read += int64(n)
	return n, err
}

// body numbers the selected lines. When they exceed readBudgetChars, the
// head and tail are kept and a note says which lines to read next.
func (w fileWindow) body() string {
	var b strings.Builder
	ends := make([]int, len(w.lines)+1) // line i is all[ends[i]:ends[i+1]]
	for _, line := range w.lines {
		ends[0] += len(line) + 8
	}
	b.Grow(ends[0])
	for i, line := range w.lines {
		num := strconv.Itoa(w.first + i)
		b.WriteString("      "[min(6, len(num)):])
		b.WriteString(num)
		b.WriteByte('\t')
		b.WriteString(line)
		b.WriteByte('\n')
		ends[i+1] = b.Len()
	}
	all := b.String()
	if len(all) <= readBudgetChars {
		return all
	}
	head := 0
	for head < len(w.lines) && ends[head+1] <= readBudgetChars/2 {
		head++
	}
	tail := len(w.lines)
	for tail > head && len(all)-ends[tail-1] <= readBudgetChars/2 {
		tail--
	}
	from, to := w.first+head, w.first+tail-1
	note := fmt.Sprintf("[... lines %d-%d omitted to keep this result short; read them with offset=%d limit=%d ...]\n", from, to, from, to-from+1)
	return all[:ends[head]] + note + all[ends[tail]:]
}

// nextLine reads one line from br without its line ending. When keep is
// false the line is only skipped. At most a few bytes past readMaxLineChars
// are kept; full is the line's real length. ok is false at the end of the
// file. The line is appended to text.
func nextLine(br *bufio.Reader, keep bool, text []byte) (_ []byte, full int, ok bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		full += len(chunk)
		if keep && len(text) <= readMaxLineChars {
			text = append(text, chunk[:min(len(chunk), readMaxLineChars+utf8.UTFMax-len(text))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return text, full, full > 0, nil
		case err != nil:
			return nil, 0, false, err
		}
		full--
		if len(chunk) >= 2 && chunk[len(chunk)-2] == '\r' {
			full--
		}
		if len(text) > full {
			text = text[:full]
		}
		return text, full, true, nil
	}
}

// countLines counts the lines left in br: newlines, plus one for a last
// line without a newline.
func countLines(ctx context.Context, br *bufio.Reader) (int, error) {
	n, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		chunk, err := br.Peek(max(1, br.Buffered()))
		if len(chunk) > 0 {
			n += bytes.Count(chunk, []byte{'\n'})
			last = chunk[len(chunk)-1]
			br.Discard(len(chunk))
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// requireRegular refuses folders, devices, pipes and sockets: only
// regular files can be read whole without blocking or running forever.
func requireRegular(info fs.FileInfo) error {
	switch {
	case info.IsDir():
		return errors.New("is a folder, not a file; use list_files to see its contents")
	case info.Mode()&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file; only files can be read")
	case info.Mode()&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file; only files can be read")
	case !info.Mode().IsRegular():
		return errors.New("is a socket or other special file, not a regular file; only files can be read")
	}
	return nil
}

// describeOpenError turns a failure to open a file into a short sentence.
func describeOpenError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied by the file system")
	default:
		return err
	}
}

// maxEditBytes bounds the files the writing tools load whole.
const maxEditBytes = 10 << 20

// WriteFileInput is the input of write_file.
type WriteFileInput struct {
	Path    string  `json:"path" validate:"required" desc:"File to write, relative to the workspace or absolute. Missing folders are created."`
	Content *string `json:"content" validate:"required" desc:"The complete new content of the file."`
}

// writeFileTool creates a file or replaces its whole content.
func writeFileTool() *Tool {
	return ToolDef[WriteFileInput]{
		Name: "write_file",
		Description: "Create a file, or replace the whole content of an existing one, creating missing folders. " +
			"To change part of a file prefer edit_file or patch_file. Files keep their permissions.",
		Permission: func(env *ToolEnv, in WriteFileInput) (PermissionRequest, error) {
			abs, err := resolveInput(env, in.Path)
			if err != nil {
				return PermissionRequest{}, err
			}
			name, verb := displayPath(env, abs), "create"
			if _, err := os.Lstat(abs); err == nil {
				verb = "overwrite"
			}
			return PermissionRequest{
				Access:  AccessWrite,
				Paths:   []string{abs},
				Summary: fmt.Sprintf("%s %s (%s)", verb, name, plural(countTextLines(*in.Content), "line", "lines")),
				Plan: func() (string, string, error) { // read only once the write is not refused
					_, before, _, err := loadForWrite(env, in.Path)
					return unifiedDiff(name, before, *in.Content), "", err
				},
			}, nil
		},
		Run: runWriteFile,
	}.Tool()
}

// runWriteFile performs one write_file call.
func runWriteFile(ctx context.Context, env *ToolEnv, in WriteFileInput) (ToolOutput, error) {
	abs, before, existed, err := loadForWrite(env, in.Path)
	if err != nil {
		return ToolOutput{}, err
	}
	name := displayPath(env, abs)
	after := *in.Content
	lines := plural(countTextLines(after), "line", "lines")
	if existed && before == after {
		return ToolOutput{Text: fmt.Sprintf("%s unchanged: it already has this content (%s)", name, lines)}, nil
	}
	if err := writeAtomic(abs, after); err != nil {
		return ToolOutput{}, fmt.Errorf("write_file %s: %w", name, err)
	}
	if existed {
		return ToolOutput{Text: fmt.Sprintf("Changed %s: now %s (was %d)", name, lines, countTextLines(before))}, nil
	}
	return ToolOutput{Text: fmt.Sprintf("Created %s (%s)", name, lines)}, nil
}

// loadForWrite resolves path and reads what it holds now, if anything.
func loadForWrite(env *ToolEnv, path string) (abs, content string, existed bool, err error) {
	abs, err = resolveInput(env, path)
	if err != nil {
		return "", "", false, err
	}
	content, err = loadText(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("%s: %w", displayPath(env, abs), err)
	}
	return abs, content, true, nil
}

// loadText reads a whole text file to change it, refusing binary and huge ones.
func loadText(abs string) (string, error) {
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if err := requireRegular(info); err != nil {
		return "", err
	}
	if info.Size() > maxEditBytes {
		return "", fmt.Errorf("is %d bytes, too large to edit here (limit %d); use run_command", info.Size(), maxEditBytes)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", describeOpenError(err)
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffBytes)], 0) >= 0 {
		return "", errors.New("is a binary file; only text files can be edited")
	}
	return string(data), nil
}

// writeAtomic is writeFileAtomic for text; a new file gets mode 0644.
func writeAtomic(abs, content string) error {
	return writeFileAtomic(abs, []byte(content), 0o644)
}

// writeFileAtomic replaces path through a synced temporary file renamed
// over it, keeping an existing file's mode; a new file gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return replaceFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFile is writeFileAtomic with the content written by write.
func replaceFile(path string, perm fs.FileMode, write func(io.Writer) error) error {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return describeOpenError(err)
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// countTextLines counts lines the way read_file numbers them.
func countTextLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
