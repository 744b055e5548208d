package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTUIImageAttachments pastes an image's path into the terminal UI, which shows it as a
// placeholder and sends the image with the prompt, then Ctrl-V's the clipboard's image from a
// wl-paste that prints a PNG. (Not parallel: the fake wl-paste is found through PATH.)
func TestTUIImageAttachments(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := minicodeBinary(t)
	tools := t.TempDir()
	writeFile(t, filepath.Join(tools, "clip.png"), string(testPNG(t, 30, 20)))
	writeFile(t, filepath.Join(tools, "wl-paste"), "#!/bin/sh\ncat "+filepath.Join(tools, "clip.png")+"\n")
	if err := os.Chmod(filepath.Join(tools, "wl-paste"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", tools+":"+os.Getenv("PATH"))
	tm := startTUI(t, bin, 100, 30)
	shot := filepath.Join(tm.dir, "ws", "my shot.png")
	writeFile(t, shot, string(testPNG(t, 120, 80)))
	tm.tmux("set-buffer", "-b", "p", "--", "'"+shot+"'") // as a terminal pastes a dropped file
	tm.tmux("paste-buffer", "-p", "-b", "p", "-t", "main")
	tm.waitInput("› [image: my shot.png 120×80]")
	tm.send(" what is this?", "Enter")
	tm.waitFor("You attached an image. I see a 120×80 image whose mean colour is #7f007f")
	tm.waitInput("›")
	tm.send("C-v")
	tm.waitInput("› [image: clipboard-2.png 30×20]")
	tm.send("Enter")
	tm.waitFor("I see a 30×20 image")
}

// TestClipboardWithoutTools names the clipboard tools it looked for.
func TestClipboardWithoutTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := readClipboardImage(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tried "+clipboardCommands[0][0]) {
		t.Errorf("error = %v, want one naming the tools tried", err)
	}
}

// TestAttachKeepsThePromptsOrder: the images of several placeholders go with the prompt in the
// order the prompt names them, whatever the order they were pasted in.
func TestAttachKeepsThePromptsOrder(t *testing.T) {
	u := plainTUI(t, io.Discard)
	u.attached = map[string]attachment{}
	var names []string
	for i := range 6 {
		name := fmt.Sprintf("[image: clipboard-%d.png %d×10]", i, i+1)
		u.attached[name] = attachment{data: testPNG(t, i+1, 10), typ: "image/png"}
		names = append(names, name)
	}
	slices.Reverse(names)
	prompt := &SlashPrompt{Prompt: "compare " + strings.Join(names, " and ")}
	if err := u.attach(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	if len(prompt.Images) != len(names) {
		t.Fatalf("%d images attached, want %d", len(prompt.Images), len(names))
	}
	for i, name := range names {
		want, _, _ := mediaBlock(u.attached[name].data, "image/png", u.app.Env.Media)
		if !reflect.DeepEqual(prompt.Images[i], want) {
			t.Errorf("image %d is not %s's", i, name)
		}
	}
}

// TestClipboardImageIsWhatItsBytesSay pastes with Ctrl-V a JPEG that the clipboard tool gave for
// PNG: it is labelled and sent as JPEG; text on the clipboard is refused, saying what it is.
// (Not parallel: the fake clipboard tool is found through PATH.)
func TestClipboardImageIsWhatItsBytesSay(t *testing.T) {
	tools := t.TempDir()
	t.Setenv("PATH", tools)
	var photo bytes.Buffer
	if err := jpeg.Encode(&photo, image.NewRGBA(image.Rect(0, 0, 30, 20)), nil); err != nil {
		t.Fatal(err)
	}
	u := plainTUI(t, io.Discard)
	for _, clip := range []string{photo.String(), "some copied text\n"} {
		writeFile(t, filepath.Join(tools, "clip"), clip)
		writeFile(t, filepath.Join(tools, clipboardCommands[0][0]), "#!/bin/sh\nexec /bin/cat "+filepath.Join(tools, "clip")+"\n")
		if err := os.Chmod(filepath.Join(tools, clipboardCommands[0][0]), 0o755); err != nil {
			t.Fatal(err)
		}
		u.pasteClipboard()
	}
	if got, want := u.editor.text(), "[image: clipboard-1.jpeg 30×20]"; got != want {
		t.Fatalf("the input is %q, want %q", got, want)
	}
	if want := "the clipboard holds text/plain, not an image (asked " + clipboardCommands[0][0] + ")"; !strings.HasPrefix(u.hint, want) {
		t.Errorf("the hint for text is %q, want %q", u.hint, want)
	}
	prompt := &SlashPrompt{Prompt: "what is " + u.editor.text()}
	if err := u.attach(context.Background(), prompt); err != nil || len(prompt.Images) != 1 {
		t.Fatalf("attach: %v, %d images", err, len(prompt.Images))
	}
	decodedSize(t, prompt.Images[0]) // fails when the label is not what the bytes are
	if said := "[image: clipboard-1.jpeg 30×20]: image 30×20, 1 KB, sent as it is"; !strings.Contains(u.scroll.String(), said) {
		t.Errorf("the screen lacks %q:\n%s", said, u.scroll.String())
	}
}
