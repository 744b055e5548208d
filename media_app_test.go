package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestImagesReachTheModelAndTheSession reads a screenshot with read_file: the request carries it
// as an image inside the tool result, the journal refers to a file instead of holding its data,
// and a resumed session sends the image again.
func TestImagesReachTheModelAndTheSession(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"shot.png": string(testPNG(t, 2000, 1000))})
	srv, requests := fakeClaudeAPI(t, apiStep{tool: "read_file", args: `{"path":"shot.png"}`}, apiStep{text: "A red and blue picture."})
	home := t.TempDir()
	env := []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + home}
	r := runMinicode(t, env, "", "-p", "look at the screenshot", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "A red and blue picture.") {
		t.Fatalf("run: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	sent := requests()[1].body
	for _, want := range []string{`"type":"tool_result"`, `shot.png: image 2000×1000 scaled down to 1568×784`, `"type":"image","source":{"type":"base64","media_type":"image/png","data":"`} {
		if !strings.Contains(sent, want) {
			t.Errorf("the second request lacks %q", want)
		}
	}
	journals, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journals: %v", journals)
	}
	journal, _ := os.ReadFile(journals[0])
	media, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(journals[0], ".jsonl"), "media", "*.png"))
	if len(media) != 1 || strings.Contains(string(journal), `"data":"iVBOR`) || !strings.Contains(string(journal), `"file":"`+filepath.Base(media[0])+`"`) {
		t.Fatalf("the journal should refer to one file of the session's media folder (%v), not hold the image", media)
	}
	stored, _ := os.ReadFile(media[0])
	r = runMinicode(t, env, "", "-c", "-p", "and now?", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("resume: exit %d, %q", r.code, r.stderr)
	}
	if resumed := requests()[2].body; !strings.Contains(resumed, base64.StdEncoding.EncodeToString(stored)) {
		t.Errorf("the resumed session did not send the image again")
	}
}

// TestRefusedImageIsRemovedWithTheReason has the API refuse an image: the turn goes on without it,
// and the model reads why it is gone.
func TestRefusedImageIsRemovedWithTheReason(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"shot.png": string(testPNG(t, 40, 20))})
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		n := len(bodies)
		mu.Unlock()
		switch n {
		case 1:
			writeAnthropicReply(w, n, "m", apiStep{tool: "read_file", args: `{"path":"shot.png"}`})
		case 2:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"this model does not support image input"}}`)
		default:
			writeAnthropicReply(w, n, "m", apiStep{text: "I cannot see images here."})
		}
	}))
	defer srv.Close()
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "look", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "I cannot see images here.") {
		t.Fatalf("exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if len(bodies) != 3 || strings.Contains(bodies[2], `"type":"image"`) || !strings.Contains(bodies[2], "the API refused it: anthropic API error: this model does not support image input") {
		t.Errorf("the retry should send the reason in place of the image; got %d requests, the last %s", len(bodies), bodies[len(bodies)-1])
	}
}

// TestDemoModelDescribesImages shows the demo reading a PNG, and an @ mention attaching one.
func TestDemoModelDescribesImages(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"art/shot.png": string(testPNG(t, 200, 100))})
	r := runMinicode(t, nil, "", "-p", "demo image", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "art/shot.png: image 200×100") || !strings.Contains(r.stdout, "I see a 200×100 image whose mean colour is #7f007f") {
		t.Errorf("demo image: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = runMinicode(t, nil, "", "-p", "what is in @art/shot.png?", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "You attached an image. I see a 200×100 image") {
		t.Errorf("@ mention: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
