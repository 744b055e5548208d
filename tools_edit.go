package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// editFileInput is the input of edit_file.
type editFileInput struct {
	Path       string  `json:"path" validate:"required" desc:"File to change, relative to the workspace or absolute."`
	OldString  string  `json:"old_string" validate:"required" desc:"Exact text to replace, copied from the file (without read_file's line-number prefix). Must occur once unless replace_all is set."`
	NewString  *string `json:"new_string" validate:"required" desc:"Text to put in its place, inserted literally. Empty deletes old_string."`
	ReplaceAll bool    `json:"replace_all,omitempty" desc:"Replace every occurrence instead of requiring exactly one."`
}

// editSpec is one replacement of a patch_file call.
type editSpec struct {
	OldString  string  `json:"old_string" validate:"required" desc:"Exact text to replace, as the file reads after the edits before this one."`
	NewString  *string `json:"new_string" validate:"required" desc:"Text to put in its place, inserted literally."`
	ReplaceAll bool    `json:"replace_all,omitempty" desc:"Replace every occurrence instead of requiring exactly one."`
}

// patchFileInput is the input of patch_file.
type patchFileInput struct {
	Path  string     `json:"path" validate:"required" desc:"File to change, relative to the workspace or absolute."`
	Edits []editSpec `json:"edits" validate:"required,min=1,max=100,dive" desc:"Replacements applied in order; all must succeed or nothing is written."`
}

// editFileTool replaces one exact piece of text in a file.
func editFileTool() *Tool {
	return ToolDef[editFileInput]{
		Name: "edit_file",
		Description: "Replace an exact piece of text in a file. old_string must match the file exactly (whitespace included) and occur once, " +
			"or set replace_all. On a mismatch nothing is written and the error shows the closest text in the file.",
		Permission: func(env *ToolEnv, in editFileInput) (PermissionRequest, error) {
			return planFileEdit(env, in.Path, []editSpec{{in.OldString, in.NewString, in.ReplaceAll}})
		},
		Run: func(ctx context.Context, env *ToolEnv, in editFileInput) (ToolOutput, error) {
			return applyFileEdit(ctx, env, in.Path, []editSpec{{in.OldString, in.NewString, in.ReplaceAll}})
		},
	}.Tool()
}

// patchFileTool applies several replacements to one file at once.
func patchFileTool() *Tool {
	return ToolDef[patchFileInput]{
		Name: "patch_file",
		Description: "Apply several exact replacements to one file in order, as one change: every edit is checked first and " +
			"if any fails nothing is written and the error names the failing edit. Each edit works like edit_file.",
		Permission: func(env *ToolEnv, in patchFileInput) (PermissionRequest, error) {
			return planFileEdit(env, in.Path, in.Edits)
		},
		Run: func(ctx context.Context, env *ToolEnv, in patchFileInput) (ToolOutput, error) {
			return applyFileEdit(ctx, env, in.Path, in.Edits)
		},
	}.Tool()
}

// fileEdit is a planned change of one file.
type fileEdit struct {
	name, before, after string
	replaced            int // occurrences replaced over all edits
}

// planEdits applies edits in memory, in order, to the text of the file found at abs; the permission check and
// the run both call it, so the diff approved is made.
func planEdits(env *ToolEnv, abs string, found fs.FileInfo, edits []editSpec) (fileEdit, error) {
	p := fileEdit{name: displayPath(env, abs)}
	before, exists, err := loadText(env, abs, found)
	if err == nil && !exists {
		err = errors.New("no such file; use write_file to create it")
	}
	p.before, p.after = before, before
	for i := 0; err == nil && i < len(edits); i++ {
		n, e := 0, edits[i]
		newString := withLineEndingsOf(before, *e.NewString)
		if old := withLineEndingsOf(before, e.OldString); strings.Contains(p.after, old) { // else a file of mixed endings may hold it as given
			e.OldString = old
		}
		e.NewString = &newString
		if p.after, n, err = planEdit(p.after, e); err != nil && len(edits) > 1 {
			err = fmt.Errorf("edit %d of %d (edits[%d]) failed, nothing was written: %w", i+1, len(edits), i, err)
		}
		p.replaced += n
	}
	if err != nil {
		return p, fmt.Errorf("%s: %w", p.name, err)
	}
	return p, nil
}

// planEdit applies one replacement to content, which it returns unchanged on failure.
func planEdit(content string, e editSpec) (string, int, error) {
	if e.OldString == *e.NewString {
		return content, 0, errors.New("old_string and new_string are the same; nothing would change")
	}
	n := strings.Count(content, e.OldString)
	replacedSize := len(content) + n*(len(*e.NewString)-len(e.OldString))
	switch {
	case n == 0:
		return content, 0, describeNearMiss(content, e.OldString)
	case n > 1 && !e.ReplaceAll:
		return content, 0, fmt.Errorf("old_string occurs %d times (at lines %s); include more surrounding lines to make it unique, or set replace_all", n, occurrenceLines(content, e.OldString, 10))
	case e.ReplaceAll && replacedSize > maxEditBytes:
		return content, 0, fmt.Errorf("replacing all %d occurrences would make the file %d bytes, over the limit of %d for edits; use run_command", n, replacedSize, maxEditBytes)
	case e.ReplaceAll:
		return strings.ReplaceAll(content, e.OldString, *e.NewString), n, nil
	default:
		return strings.Replace(content, e.OldString, *e.NewString, 1), 1, nil
	}
}

// planFileEdit is the permission request of edit_file and patch_file.
func planFileEdit(env *ToolEnv, path string, edits []editSpec) (PermissionRequest, error) {
	abs, err := resolveInput(env, path)
	if err != nil {
		return PermissionRequest{}, err
	}
	return PermissionRequest{Access: AccessWrite, Paths: []string{abs}, Named: []string{inputPath(env, path)},
		Summary: "edit " + displayPath(env, abs),
		Plan: func() (PlannedWrite, error) {
			found, _ := os.Lstat(abs)
			p, err := planEdits(env, abs, found, edits)
			return PlannedWrite{p.name, p.before, p.after, "edit " + p.name}, err
		},
	}, nil
}

// applyFileEdit plans the edits again and writes the result once.
func applyFileEdit(ctx context.Context, env *ToolEnv, path string, edits []editSpec) (ToolOutput, error) {
	abs, found, err := judgedPath(ctx, env, path)
	if err != nil {
		return ToolOutput{}, err
	}
	p, err := planEdits(env, abs, found, edits)
	if err != nil {
		return ToolOutput{}, err
	}
	if err := writeText(env, abs, p.before, p.after); err != nil {
		return ToolOutput{}, fmt.Errorf("writing %s: %w", p.name, err)
	}
	return ToolOutput{Text: fmt.Sprintf("Edited %s: %s, %s; the file now has %s",
		p.name, plural(p.replaced, "replacement", "replacements"), diffStat(unifiedDiff(p.name, p.before, p.after)),
		plural(countTextLines(p.after), "line", "lines"))}, nil
}

// diffStat counts the added and removed lines of a unified diff.
func diffStat(diff string) string {
	added, removed := 0, 0
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return fmt.Sprintf("+%d -%d lines", added, removed)
}

// occurrenceLines lists the first max lines where old starts in content.
func occurrenceLines(content, old string, max int) string {
	var lines []string
	for at := 0; len(lines) < max; at += len(old) {
		i := strings.Index(content[at:], old)
		if i < 0 {
			break
		}
		at += i
		lines = append(lines, fmt.Sprint(lineOf([]byte(content), int64(at))))
	}
	return strings.Join(lines, ", ")
}

// describeNearMiss explains a failed exact match by the closest text.
func describeNearMiss(content, old string) error {
	if first, last, ok := matchIgnoringSpace(content, old); ok {
		return fmt.Errorf("old_string was not found exactly, but lines %d-%d match it when whitespace is ignored: "+
			"they differ only in spaces, tabs, indentation or line endings; copy those lines exactly and retry", first, last)
	}
	fileLines := strings.Split(content, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	at, equal := 0, 0 // the run of len(oldLines) file lines with the most lines equal to old's, ignoring surrounding space
	for start := 0; start+len(oldLines) <= len(fileLines); start++ {
		n := 0
		for i, want := range oldLines {
			if want = strings.TrimSpace(want); want != "" && strings.TrimSpace(fileLines[start+i]) == want {
				n++
			}
		}
		if n > equal {
			at, equal = start, n
		}
	}
	if equal == 0 {
		return describeSimilarLine(fileLines, oldLines)
	}
	msg := fmt.Sprintf("old_string was not found; the closest text is at lines %d-%d, where %d of %d lines are equal",
		at+1, at+len(oldLines), equal, len(oldLines))
	for i, want := range oldLines {
		if got := fileLines[at+i]; strings.TrimSpace(got) != strings.TrimSpace(want) {
			msg += fmt.Sprintf("; first difference at line %d: the file has %q, old_string has %q", at+i+1, cutBytes(got, 200, "..."), cutBytes(want, 200, "..."))
			break
		}
	}
	return errors.New(msg + "; read those lines again and copy them exactly")
}

// matchIgnoringSpace finds the lines of content that match old but for whitespace.
func matchIgnoringSpace(content, old string) (first, last int, ok bool) {
	want := strings.Join(strings.Fields(old), "")
	var squeezed strings.Builder
	var ends []int // squeezed length at the end of each line
	for line := range strings.SplitSeq(content, "\n") {
		for _, word := range strings.Fields(line) {
			squeezed.WriteString(word)
		}
		ends = append(ends, squeezed.Len())
	}
	i := strings.Index(squeezed.String(), want)
	if want == "" || i < 0 {
		return 0, 0, false
	}
	first, _ = slices.BinarySearch(ends, i+1)
	last, _ = slices.BinarySearch(ends, i+len(want))
	return first + 1, last + 1, true
}

// Bounds of the search for a similar line.
const (
	similarScanLines = 20_000 // file lines compared
	similarLineBytes = 200    // bytes of each line compared
	similarEnough    = 0.6    // least similarity worth reporting
)

// describeSimilarLine names the line most like old's first non-blank one.
func describeSimilarLine(file, old []string) error {
	want := ""
	if i := slices.IndexFunc(old, func(l string) bool { return strings.TrimSpace(l) != "" }); i >= 0 {
		want = strings.TrimSpace(old[i])
	}
	best, bestScore := -1, 0.0
	for i, l := range file[:min(len(file), similarScanLines)] {
		if score := similarity(cutBytes(strings.TrimSpace(l), similarLineBytes, "..."), cutBytes(want, similarLineBytes, "...")); score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore < similarEnough {
		return errors.New("old_string was not found in the file, and no line of the file is like it; read the file again and copy the text exactly")
	}
	return fmt.Errorf("old_string was not found; the most similar line is %d (%.0f%% alike): the file has %q where old_string has %q; read the file again and copy the text exactly",
		best+1, bestScore*100, cutBytes(file[best], similarLineBytes, "..."), cutBytes(want, similarLineBytes, "..."))
}

// similarity is 1 minus the edit distance of a and b over the longer length.
func similarity(a, b string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1) // the previous and current rows of distances
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(b)])/float64(max(len(a), len(b)))
}
