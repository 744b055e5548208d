package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Limits of read_file.
const (
	readMaxLineChars = 2_000    // longer lines are cut
	readBudgetChars  = 40_000   // a longer answer keeps its head and tail
	binarySniffBytes = 8_192    // a NUL byte in this much marks a binary file; later, where its binary part begins
	readBufferBytes  = 64 << 10 // bytes read from the file at a time
	readCountBytes   = 8 << 20  // past the lines shown, read at most this much to count the rest
)

// readFileInput is the input of read_file.
type readFileInput struct {
	Path   string `json:"path" validate:"required" desc:"File to read, relative to the workspace or absolute."`
	Offset int    `json:"offset,omitempty" default:"1" desc:"First line to return, counting from 1; a negative offset counts from the end (-20: the last 20 lines). Default 1."`
	Limit  int    `json:"limit,omitempty" default:"2000" validate:"min=1,max=10000" desc:"Most lines to return. Default 2000, at most 10000."`
	Pages  string `json:"pages,omitempty" desc:"PDF only: the pages to read, such as \"3\" or \"1-20\", for a PDF too long to read whole."`
}

// readFileTool reads a window of lines from a text file.
func readFileTool() *Tool {
	return ToolDef[readFileInput]{
		Name: "read_file",
		Description: "Read a text file. Returns up to 2000 lines (change with offset and limit), each prefixed with its line number and a tab; " +
			"lines over 2000 characters are cut. The header gives the line count (\"at least\" for a huge file) and, when there is more, the offset to continue from. " +
			"Very long results keep their head and tail. Images (PNG, JPEG, GIF, WebP) are shown to you as images, scaled down if large; " +
			"PDFs as documents where the provider takes them (pages reads part of a long one). Other binary files and folders are refused (use list_files for folders).",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in readFileInput) (PermissionRequest, error) {
			return readPermission(env, in.Path, "read")
		},
		Run: runReadFile,
	}.Tool()
}

// runReadFile performs one read_file call, adding the memory that applies to the file; the
// same lines of an unchanged file read again while their result is in view become a note.
func runReadFile(ctx context.Context, env *ToolEnv, in readFileInput) (ToolOutput, error) {
	abs, found, err := judgedPath(ctx, env, in.Path)
	if err != nil {
		return ToolOutput{}, err
	}
	name := displayPath(env, abs)
	out, err := readNumbered(ctx, env, abs, found, name, in)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("read_file %s: %w", name, err)
	}
	if out.Media == nil {
		out.Text = env.Reads.reread(ctx, fileRead{fmt.Sprintf("%d %d %s", in.Offset, in.Limit, abs), found}, name, out.Text)
	}
	if env.Memory != nil {
		out.Text += env.Memory.ForRead(abs)
	}
	return out, nil
}

// FileReads remembers what each read_file call of a conversation read, by call id, so that the
// same lines of an unchanged file read again can be answered with a note instead of the text.
type FileReads struct {
	mu   sync.Mutex
	seen map[string]fileRead
}

// fileRead is one read_file call's file (its path and the lines asked) and what it was then.
type fileRead struct {
	key  string
	info fs.FileInfo
}

// rereadNotePrefix starts the note that answers a re-read; the call id that holds the text follows.
const rereadNotePrefix = "[Unchanged since read_file call "

// reread records this call's read and returns its text, or a note when a result in the conversation (from
// the context) holds this text whole and came from the same lines of the same file, size and modification time.
func (r *FileReads) reread(ctx context.Context, read fileRead, name, text string) string {
	id := contextValue[string](ctx, keyToolUseID)
	if r == nil || id == "" || read.info == nil {
		return text
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]fileRead{}
	}
	r.seen[id] = read
	for _, m := range slices.Backward(contextValue[[]Message](ctx, keyHistory)) {
		for _, b := range m.Content {
			was, ok := r.seen[b.ToolUseID]
			if ok && b.Type == BlockToolResult && !b.IsError && strings.HasPrefix(b.Content, text) && was.key == read.key &&
				os.SameFile(was.info, read.info) && was.info.Size() == read.info.Size() && was.info.ModTime().Equal(read.info.ModTime()) {
				return fmt.Sprintf("%s%s returned it]: %s has not changed since (same lines asked, same size, modification time and text), "+
					"so the text is not repeated here; it is in that call's result above (should that be gone, read the file again).", rereadNotePrefix, b.ToolUseID, name)
			}
		}
	}
	return text
}

// readNumbered returns lines offset to offset+limit-1 (a negative offset counts from the end) of the file found
// at path when the call was checked, numbered under a header, in one pass that keeps at most twice the budget
// and counts the lines after them only as far as readCountBytes; an image or a PDF becomes a media block.
func readNumbered(ctx context.Context, env *ToolEnv, path string, info fs.FileInfo, name string, in readFileInput) (ToolOutput, error) {
	offset, limit := cmp.Or(in.Offset, 1), in.Limit
	f, err := openText(env, path, info)
	if err != nil {
		return ToolOutput{}, err
	}
	defer f.Close()
	buffered := bufio.NewReaderSize(f, readBufferBytes)
	sniffed, _ := buffered.Peek(binarySniffBytes)
	switch typ, err := mediaType(name, sniffed); {
	case err != nil:
		return ToolOutput{}, err
	case typ != "":
		return readMedia(ctx, buffered, path, name, typ, in.Pages, env.Media)
	case bytes.IndexByte(sniffed, 0) >= 0:
		return ToolOutput{}, fmt.Errorf("is a binary file (%d bytes); read_file shows text only", f.size)
	}
	r := &lineReader{ctx: ctx, file: buffered, binaryAt: -1}
	if offset < 0 {
		if r.read, r.n, err = tailStart(f, f.size, -offset); err != nil {
			return ToolOutput{}, err
		}
		r.file = io.NewSectionReader(f, r.read, f.size-r.read)
		if r.read == 0 { // the whole file: numbered from the start
			offset, r.n = 1, 0
		}
	}
	r.br = bufio.NewReaderSize(r, int(min(readBufferBytes, f.size+1)))
	text := make([]byte, 0, min(f.size+f.size/4, readBudgetChars))
	head := -1 // the length of the head once lines are left out
	for r.n < offset-1+limit && r.next() {
		if r.n >= offset {
			if text = r.appendNumbered(text); len(text) > 2*readBudgetChars {
				text, head = keepEnds(text, head)
			}
		}
	}
	last := r.n
	rest, counted := r.countRest()
	total := last + rest
	switch {
	case r.err != nil:
		return ToolOutput{}, r.err
	case total == 0:
		return ToolOutput{Text: name + ": empty file (0 lines)"}, nil
	case offset > total:
		return ToolOutput{}, fmt.Errorf("offset %d is past the end of the file (%s)", offset, plural(total, "line", "lines"))
	}
	return ToolOutput{Text: r.numbered(name, text, head, offset, last, total, counted)}, nil
}

// numbered is read_file's text: a header saying which lines these are (offset to last) of how many (at
// least total when not counted), where to continue and what is not shown as it is; then the lines read,
// saying which were left out from head on and how to read them.
func (r *lineReader) numbered(name string, text []byte, head, offset, last, total int, counted bool) string {
	if head >= 0 || len(text) > readBudgetChars {
		text, head = keepEnds(text, head)
	}
	var b strings.Builder
	b.Grow(len(name) + 250 + len(text))
	switch {
	case offset < 0:
		fmt.Fprintf(&b, "%s: lines %d to %d, numbered from the end (-1 is the last line)", name, offset, last)
	case offset == 1 && last == total && counted:
		fmt.Fprintf(&b, "%s: %s", name, plural(total, "line", "lines"))
	case !counted:
		fmt.Fprintf(&b, "%s: lines %d-%d of at least %d", name, offset, last, total)
	default:
		fmt.Fprintf(&b, "%s: lines %d-%d of %d", name, offset, last, total)
	}
	if last < total || !counted {
		fmt.Fprintf(&b, "; more follows, continue with offset=%d", last+1)
	}
	if r.cut > 0 {
		fmt.Fprintf(&b, "; %s cut at %d characters", plural(r.cut, "long line", "long lines"), readMaxLineChars)
	}
	if r.invalid {
		b.WriteString("; not valid UTF-8, invalid bytes shown as \uFFFD")
	}
	if r.binaryAt >= 0 {
		fmt.Fprintf(&b, "; binary data from byte %d on is not shown", r.binaryAt)
	}
	b.WriteByte('\n')
	if head < 0 {
		b.Write(text)
		return b.String()
	}
	first, end := offset+bytes.Count(text[:head], []byte{'\n'}), last-bytes.Count(text[head:], []byte{'\n'})
	fmt.Fprintf(&b, "%s[... lines %d-%d omitted to keep this result short; read them with offset=%d limit=%d ...]\n%s",
		text[:head], first, end, first, end-first+1, text[head:])
	return b.String()
}

// readMedia is read_file's answer for an image or a PDF read from r: the media block, within the
// provider's limits, and a line saying what was sent; pages picks pages of a PDF (with qpdf).
func readMedia(ctx context.Context, r io.Reader, path, name, typ, pages string, limits MediaLimits) (ToolOutput, error) {
	if limits.MaxEdge == 0 {
		limits = mediaLimitsFor("this", "chat")
	}
	data, err := []byte(nil), error(nil)
	switch {
	case pages != "" && typ != "application/pdf":
		return ToolOutput{}, errors.New("pages is for PDF files; this is an image")
	case pages != "":
		data, err = pdfPages(ctx, path, pages)
		name += ", pages " + pages
	default:
		data, err = io.ReadAll(io.LimitReader(r, maxMediaFileBytes+1))
		if len(data) > maxMediaFileBytes {
			err = fmt.Errorf("is over the %s minicode loads as an image or document", sizeText(maxMediaFileBytes))
		}
	}
	if err != nil {
		return ToolOutput{}, err
	}
	block, said, err := mediaBlock(data, typ, limits)
	if err != nil {
		return ToolOutput{}, err
	}
	return ToolOutput{Text: name + ": " + said, Media: []Block{block}}, nil
}

// tailStart is where the last n lines of a file of size bytes begin, read back from its end, and the line
// number of the first of them counted from the end (-n, or fewer when the file is shorter).
func tailStart(f io.ReaderAt, size int64, n int) (start int64, line int, err error) {
	buf, found := make([]byte, min(readBufferBytes, size)), 0
	for end := max(0, size-1); end > 0; end -= int64(len(buf)) { // a final newline starts no line
		chunk := buf[max(0, int64(len(buf))-end):]
		if _, err := f.ReadAt(chunk, end-int64(len(chunk))); err != nil {
			return 0, 0, err
		}
		for i := len(chunk); ; found++ {
			if i = bytes.LastIndexByte(chunk[:i], '\n'); i < 0 {
				break
			}
			if found+1 == n {
				return end - int64(len(chunk)-i-1), -n - 1, nil
			}
		}
	}
	return 0, 0, nil
}

// keepEnds drops the middle of numbered lines, keeping the lines that fit
// half the budget from the head, whose length is head once known, and from the tail.
func keepEnds(text []byte, head int) ([]byte, int) {
	if head < 0 {
		head = bytes.LastIndexByte(text[:readBudgetChars/2], '\n') + 1
	}
	tail := len(text) - readBudgetChars/2
	if tail <= head {
		return text, head
	}
	tail += bytes.IndexByte(text[tail-1:], '\n')
	return append(text[:head], text[tail:]...), head
}

// lineReader reads a file's lines up to its first NUL byte, where its
// binary part begins; the first error ends the reading and stays in err.
type lineReader struct {
	ctx      context.Context
	file     io.Reader
	br       *bufio.Reader
	err      error
	read     int64  // bytes read from the file
	binaryAt int64  // where the first NUL byte is; -1 until one is found
	n        int    // number of the line read last
	line     []byte // the line without its ending, cut a rune past readMaxLineChars
	full     int    // its length before the cut
	cut      int    // lines appendNumbered cut
	invalid  bool   // appendNumbered met invalid UTF-8
}

// Read reads the file up to its first NUL byte.
func (r *lineReader) Read(p []byte) (int, error) {
	if r.binaryAt >= 0 {
		return 0, io.EOF
	}
	n, err := r.file.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		r.binaryAt, n, err = r.read+int64(i), i, io.EOF
	}
	r.read += int64(n)
	return n, err
}

// next reads the next line; it returns false at the end of the text.
func (r *lineReader) next() bool {
	if r.n%4096 == 0 && r.err == nil {
		r.err = r.ctx.Err()
	}
	r.line, r.full = r.line[:0], 0
	for r.err == nil {
		chunk, err := r.br.ReadSlice('\n')
		r.full += len(chunk)
		if room := readMaxLineChars + utf8.UTFMax - len(r.line); room > 0 {
			r.line = append(r.line, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil: // a whole line: drop its ending
			r.full--
			if len(chunk) > 1 && chunk[len(chunk)-2] == '\r' {
				r.full--
			}
			r.line = r.line[:min(len(r.line), r.full)]
		case !errors.Is(err, io.EOF):
			r.err = err
			return false
		case r.full == 0: // nothing after the last newline
			return false
		}
		r.n++
		return true
	}
	return false
}

// appendNumbered appends the line numbered and cut, invalid UTF-8 replaced.
func (r *lineReader) appendNumbered(dst []byte) []byte {
	dst = append(strconv.AppendInt(dst, int64(r.n), 10), '\t')
	text := r.line
	if r.full > readMaxLineChars {
		text = text[:runeFloor(text, readMaxLineChars)]
	}
	if utf8.Valid(text) {
		dst = append(dst, text...)
	} else {
		r.invalid = true
		dst = append(dst, bytes.ToValidUTF8(text, []byte("\uFFFD"))...)
	}
	if r.full > readMaxLineChars {
		r.cut++
		dst = fmt.Appendf(dst, " [... line cut: %d characters in all]", r.full)
	}
	return append(dst, '\n')
}

// countRest counts the lines after the current one, reading at most readCountBytes more of the
// file; counted is false when that limit stopped it before the end of the text.
func (r *lineReader) countRest() (n int, counted bool) {
	last, stop := byte('\n'), r.read+readCountBytes
	for r.err == nil {
		if r.read > stop {
			return n, false
		}
		chunk, err := r.br.Peek(max(1, r.br.Buffered()))
		n += bytes.Count(chunk, []byte{'\n'})
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		r.br.Discard(len(chunk))
		if errors.Is(err, io.EOF) {
			break
		}
		r.err = cmp.Or(err, r.ctx.Err())
	}
	if last != '\n' {
		n++
	}
	return n, true
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

// maxEditBytes bounds the files the writing tools load whole.
const maxEditBytes = 10 << 20

// writeFileInput is the input of write_file.
type writeFileInput struct {
	Path    string  `json:"path" validate:"required" desc:"File to write, relative to the workspace or absolute. Missing folders are created."`
	Content *string `json:"content" validate:"required" desc:"The complete new content of the file."`
}

// writeFileTool creates a file or replaces its whole content.
func writeFileTool() *Tool {
	return ToolDef[writeFileInput]{
		Name: "write_file",
		Description: "Create a file, or replace the whole content of an existing one, creating missing folders. " +
			"To change part of a file prefer edit_file or patch_file. Files keep their permissions.",
		Permission: func(env *ToolEnv, in writeFileInput) (PermissionRequest, error) {
			if strings.HasSuffix(in.Path, "/") { // resolving would drop the slash and write a file of the folder's name
				return PermissionRequest{}, fmt.Errorf("invalid input: path %q ends in /, so it names a folder; give the path of a file", in.Path)
			}
			abs, err := resolveInput(env, in.Path)
			if err != nil {
				return PermissionRequest{}, err
			}
			name, verb := displayPath(env, abs), "create"
			if _, err := os.Lstat(abs); err == nil {
				verb = "overwrite"
			}
			return PermissionRequest{Access: AccessWrite, Paths: []string{abs}, Named: []string{inputPath(env, in.Path)},
				Summary: fmt.Sprintf("%s %s (%s)", verb, name, plural(countTextLines(*in.Content), "line", "lines")),
				Plan: func() (PlannedWrite, error) { // read only once the write is not refused
					found, _ := os.Lstat(abs)
					before, _, err := loadText(env, abs, found)
					if err != nil {
						err = fmt.Errorf("%s: %w", name, err)
					}
					return PlannedWrite{Name: name, Before: before, After: withLineEndingsOf(before, *in.Content)}, err
				},
			}, nil
		},
		Run: runWriteFile,
	}.Tool()
}

// runWriteFile performs one write_file call.
func runWriteFile(ctx context.Context, env *ToolEnv, in writeFileInput) (ToolOutput, error) {
	abs, found, err := judgedPath(ctx, env, in.Path)
	if err != nil {
		return ToolOutput{}, err
	}
	name := displayPath(env, abs)
	before, existed, err := loadText(env, abs, found)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("%s: %w", name, err)
	}
	after := withLineEndingsOf(before, *in.Content)
	lines := plural(countTextLines(after), "line", "lines")
	if existed && before == after {
		return ToolOutput{Text: fmt.Sprintf("%s unchanged: it already has this content (%s)", name, lines)}, nil
	}
	if err := writeText(env, abs, before, after); err != nil {
		return ToolOutput{}, fmt.Errorf("write_file %s: %w", name, err)
	}
	if existed {
		return ToolOutput{Text: fmt.Sprintf("Changed %s: now %s (was %d)", name, lines, countTextLines(before))}, nil
	}
	return ToolOutput{Text: fmt.Sprintf("Created %s (%s)", name, lines)}, nil
}

// loadText reads the text file found at abs when the call was checked
// (info nil: none) to change it, refusing binary and huge ones.
func loadText(env *ToolEnv, abs string, info fs.FileInfo) (content string, exists bool, err error) {
	if info == nil {
		return "", false, nil
	}
	if info.Size() > maxEditBytes {
		return "", false, fmt.Errorf("is %d bytes, too large to edit here (limit %d); use run_command", info.Size(), maxEditBytes)
	}
	f, err := openText(env, abs, info)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "", false, describeOpenError(err)
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffBytes)], 0) >= 0 {
		return "", false, errors.New("is a binary file; only text files can be edited")
	}
	return string(data), true, nil
}

// openedText is a text opened to read: a file or an editor's buffer, and its size in bytes.
type openedText struct {
	io.Reader
	io.ReaderAt
	io.Closer
	size int64
}

// openText opens the regular file found at path when the call was checked,
// to read its text: the editor's buffer if env.Files has it, else the disk.
func openText(env *ToolEnv, path string, info fs.FileInfo) (openedText, error) {
	if info == nil {
		return openedText{}, errors.New("no such file")
	}
	if err := requireRegular(info); err != nil { // before opening: a pipe would block, a device act
		return openedText{}, err
	}
	if env.Files != nil {
		if text, err := env.Files.ReadText(path); !errors.Is(err, errors.ErrUnsupported) {
			buffer := strings.NewReader(text)
			return openedText{buffer, buffer, io.NopCloser(nil), buffer.Size()}, err
		}
	}
	f, err := openJudged(path, info)
	return openedText{f, f, f, info.Size()}, err
}

// writeText replaces a file's text, before until now ("" for a new file), through env.Files if it writes files, else on the disk.
func writeText(env *ToolEnv, abs, before, after string) error {
	if env.Files != nil {
		if err := env.Files.WriteText(abs, before, after); !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	if err := writeJudged(abs, []byte(after), 0o644); err != nil {
		return err
	}
	if env.Wrote != nil {
		env.Wrote(abs, []byte(after))
	}
	return nil
}

// withLineEndingsOf returns text with the line endings of before, the file it goes into: read_file shows no
// "\r", so a model writes "\n" where a file whose first line ends in "\r\n" needs "\r\n". Text holding a "\r" is kept.
func withLineEndingsOf(before, text string) string {
	if i := strings.IndexByte(before, '\n'); i <= 0 || before[i-1] != '\r' || strings.Contains(text, "\r") {
		return text
	}
	return strings.ReplaceAll(text, "\n", "\r\n")
}

// countTextLines counts lines the way read_file numbers them.
func countTextLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
