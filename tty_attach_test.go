package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	_, err := readClipboardImage(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tried "+clipboardCommands[0][0]) {
		t.Errorf("error = %v, want one naming the tools tried", err)
	}
}
