package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTypedAheadKeysDoNotAnswerInTmux types the next prompt while the demo model works, and goes on
// typing as its permission question appears: "yes and" must not apply the edit (its y is the menu's
// "apply once"). The keys go to the input, and the menu waits for a key pressed after a pause.
func TestTypedAheadKeysDoNotAnswerInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tm := startTUI(t, "MINICODE_DEMO_DELAY=20ms "+minicodeBinary(t), 100, 30)
	tm.send("demo permissions", "Enter")
	tm.waitUntil("the question, typing meanwhile", func(s string) bool {
		tm.send("x")
		return strings.Contains(s, "Permission needed")
	})
	tm.send("yes and")
	screen := tm.waitFor("a letter picks")
	if strings.Contains(screen, "→") {
		t.Fatalf("keys typed as the question appeared answered it:\n%s", screen)
	}
	tm.send("n")
	tm.waitFor("→ reject once")
	tm.waitIdle()
	if input := tm.screen(false, false); !strings.Contains(input, "xyes and") {
		t.Errorf("the input does not hold the keys typed ahead:\n%s", input)
	}
}
