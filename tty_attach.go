package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// In the terminal UI an image joins the input as a placeholder, "[image: shot.png 1280×720]":
// a pasted or dropped path to an image (read with read_file when the input is sent, so
// permissions and hooks apply, as for an @ mention), or Ctrl-V's image from the clipboard.

// attachment is what an image placeholder of the input stands for: a file, or clipboard bytes of media type typ.
type attachment struct {
	path string
	data []byte
	typ  string
}

// attachPasted puts pasted text into the input as an image's placeholder when it is the path of one
// image file (as a terminal pastes a dropped file: maybe quoted, escaped or a file:// URL), reporting whether it was.
func (u *tui) attachPasted(text string) bool {
	path := strings.Trim(strings.TrimSpace(text), `'"`)
	if u, err := url.Parse(path); err == nil && u.Scheme == "file" {
		path = u.Path
	}
	path = strings.ReplaceAll(path, `\ `, " ")
	f, err := os.Open(path)
	if err != nil || strings.Contains(path, "\n") {
		return false
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err == nil {
		u.remember(fmt.Sprintf("[image: %s %d×%d]", filepath.Base(path), cfg.Width, cfg.Height), attachment{path: path})
	}
	return err == nil
}

// readClipboardImage returns the clipboard's image and its media type, as its bytes tell (a tool asked for PNG may give
// what it has), from the first clipboard tool installed (clipboardCommands), or an error naming those it tried.
func readClipboardImage(ctx context.Context) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, args := range clipboardCommands {
		if _, err := exec.LookPath(args[0]); err != nil {
			continue
		}
		out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
		if digits, ok := bytes.CutPrefix(bytes.TrimSpace(out), []byte("«data PNGf")); ok { // osascript's form
			out, _ = hex.DecodeString(string(bytes.TrimSuffix(digits, []byte("»"))))
		}
		typ := strings.TrimSuffix(http.DetectContentType(out), "; charset=utf-8")
		switch {
		case err != nil || len(out) == 0:
			return nil, "", fmt.Errorf("the clipboard holds no image (asked %s)", args[0])
		case !slices.Contains([]string{"image/png", "image/jpeg", "image/gif", "image/webp"}, typ):
			return nil, "", fmt.Errorf("the clipboard holds %s, not an image (asked %s); copy the image again, or paste its path", typ, args[0])
		}
		return out, typ, nil
	}
	tried := mapped(clipboardCommands, func(args []string) string { return args[0] })
	return nil, "", errors.New("no clipboard tool to read an image with: tried " + strings.Join(tried, ", ") + "; install one, or paste the image's path")
}

// attach adds to a prompt the images of its placeholders (a file read with read_file, clipboard bytes
// checked and scaled as read_file would) and the files it mentions, saying which.
func (u *tui) attach(ctx context.Context, prompt *SlashPrompt) error {
	u.mu.Lock()
	attached := maps.Clone(u.attached)
	u.mu.Unlock()
	env := u.app.Env
	note := func(msg string) {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.tr.println(u.tr.style(ansiDim, "  "+msg))
	}
	at := func(placeholder string) int { return strings.Index(prompt.Prompt, placeholder) }
	placeholders := slices.DeleteFunc(slices.Collect(maps.Keys(attached)), func(p string) bool { return at(p) < 0 })
	slices.SortFunc(placeholders, func(a, b string) int { return at(a) - at(b) }) // the images in the prompt's order
	for _, placeholder := range placeholders {
		a := attached[placeholder]
		if a.path != "" {
			out := u.app.runTool(ctx, env, "read_file", map[string]string{"path": a.path})
			if out.IsError {
				return fmt.Errorf("%s: %s", placeholder, out.Text)
			}
			prompt.Images = append(prompt.Images, out.Media...)
			note(out.Text)
			continue
		}
		block, said, err := mediaBlock(a.data, a.typ, env.Media)
		if err != nil {
			return fmt.Errorf("the clipboard's image %w", err)
		}
		prompt.Images = append(prompt.Images, block)
		note(placeholder + ": " + said)
	}
	return u.app.attachFiles(ctx, env, prompt, note)
}

// pasteClipboard puts the clipboard's image into the input, or says why there is none.
func (u *tui) pasteClipboard() {
	data, typ, err := readClipboardImage(context.Background())
	w, h := 0, 0
	if err == nil {
		if w, h, err = imageSize(data, typ); err != nil {
			err = fmt.Errorf("the clipboard's image %w", err)
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		u.hint = err.Error()
	} else {
		name := fmt.Sprintf("clipboard-%d.%s", len(u.attached)+1, strings.TrimPrefix(typ, "image/"))
		u.remember(fmt.Sprintf("[image: %s %d×%d]", name, w, h), attachment{data: data, typ: typ})
	}
	u.draw()
}

// remember inserts an image's placeholder at the cursor and keeps what it stands for.
func (u *tui) remember(placeholder string, a attachment) {
	u.attached[placeholder] = a
	u.editor.insert(placeholder)
}
