package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// elicitSchema is the form used by the elicitation tests, in the shape a
// server sends it (field order matters: it is the order of the questions).
const elicitSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number"},
	"status":{"type":"string","enum":["active","inactive"],"default":"active"},
	"verified":{"type":"boolean","description":"Checked?"},
	"email":{"type":"string"}},
	"required":["email"]}`

func TestLineElicitor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, input, want string
	}{
		{"defaults kept", "\n\n\n\n\nme@x.org\n", `accept {"age":30,"email":"me@x.org","name":"John Doe","status":"active"}`},
		{"typed answers", "Ann\n41\n2.5\ninactive\nyes\na@b\n", `accept {"age":41,"email":"a@b","name":"Ann","score":2.5,"status":"inactive","verified":true}`},
		{"bad answers asked again", "\nforty\n40\nlots\n1e3\nhappy\n\nmaybe\nno\n\nz@z\n", `accept {"age":40,"email":"z@z","name":"John Doe","score":1000,"status":"active","verified":false}`},
		{"decline", "Ann\n:decline\n", "decline null"},
		{"cancel", ":cancel\n", "cancel null"},
		{"end of input cancels", "Ann\n", "cancel null"},
	}
	fields, err := elicitFields(json.RawMessage(elicitSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var prompts strings.Builder
			e := newLineElicitor(newLineReader(strings.NewReader(c.input)).ReadLine, &prompts)
			res := e.Elicit(t.Context(), elicitRequest{Server: "s", Message: "Who are you?", Fields: fields})
			content, _ := json.Marshal(res.Content)
			if got := res.Action + " " + string(content); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if !strings.Contains(prompts.String(), "MCP server s asks: Who are you?") || !strings.Contains(prompts.String(), "Name [John Doe]: ") {
				t.Errorf("prompts = %q", prompts.String())
			}
		})
	}
}

// shownWrites is a terminal's screen: it passes on each write, whole, without blocking the writer.
type shownWrites chan string

func (w shownWrites) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

func TestLineElicitorOneFormAtATime(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	screen := make(shownWrites, 64)
	e := newLineElicitor(newLineReader(inR).ReadLine, screen)
	// The user reads the screen and answers each question with the name
	// of its field.
	var shown []string
	userDone := make(chan struct{})
	go func() {
		defer close(userDone)
		for s := range screen {
			shown = append(shown, s)
			if field, ok := strings.CutSuffix(s, ": "); ok {
				fmt.Fprintln(inW, field)
			}
		}
	}()
	// Servers a and b ask at the same moment; c asks for a request
	// cancelled while it waits its turn.
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	start := make(chan struct{})
	results := map[string]*elicitResult{"a": {}, "b": {}, "c": {}}
	var asking sync.WaitGroup
	for server, res := range results {
		ctx := t.Context()
		if server == "c" {
			ctx = cancelled
		}
		req := elicitRequest{Server: server, Message: "?"}
		for i := 1; i <= 3; i++ {
			req.Fields = append(req.Fields, elicitField{Name: fmt.Sprint(server, i), Type: "string"})
		}
		asking.Go(func() {
			<-start
			*res = e.Elicit(ctx, req)
		})
	}
	close(start)
	asking.Wait()
	inR.Close() // unblocks the user if an answer found nobody to take it
	close(screen)
	<-userDone
	var askers string // who wrote each thing shown
	for _, s := range shown {
		askers += strings.TrimPrefix(s, "MCP server ")[:1]
	}
	if askers != "aaaabbbb" && askers != "bbbbaaaa" {
		t.Errorf("the terminal showed %q, from %q; want one whole form (message and three questions) after the other", shown, askers)
	}
	for server, res := range results {
		content, _ := json.Marshal(res.Content)
		got, want := res.Action+" "+string(content), fmt.Sprintf(`accept {"%[1]s1":"%[1]s1","%[1]s2":"%[1]s2","%[1]s3":"%[1]s3"}`, server)
		if server == "c" {
			want = "cancel null"
		}
		if got != want {
			t.Errorf("server %s got %q, want %q", server, got, want)
		}
	}
}

func TestDefaultsElicitor(t *testing.T) {
	t.Parallel()
	fields, err := elicitFields(json.RawMessage(elicitSchema))
	if err != nil {
		t.Fatal(err)
	}
	res := elicitDefaults(t.Context(), elicitRequest{Fields: fields})
	if res.Action != "decline" {
		t.Errorf("a required field without default: action %q, want decline", res.Action)
	}
	res = elicitDefaults(t.Context(), elicitRequest{Fields: fields[:4]})
	if got := fmt.Sprintln(res.Action, res.Content); got != "accept map[age:30 name:John Doe status:active]\n" {
		t.Errorf("got %q", got)
	}
}

func TestSessionElicit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		elicitor Elicitor
		params   string
		want     string
	}{
		{"accept", newLineElicitor(newLineReader(strings.NewReader("\n\n\n\n\nme@x\n")).ReadLine, io.Discard).Elicit, `{"message":"m","requestedSchema":` + elicitSchema + `}`,
			`{"action":"accept","content":{"age":30,"email":"me@x","name":"John Doe","status":"active"}}`},
		{"no elicitor declines", nil, `{"message":"m","requestedSchema":{}}`, `{"action":"decline"}`},
		{"url mode declined", elicitDefaults, `{"mode":"url","url":"https://x","message":"m"}`, `{"action":"decline"}`},
	}
	for _, c := range cases {
		s := newMCPSession("s", nil, MCPOptions{Elicitor: c.elicitor})
		res, rerr := s.elicit(t.Context(), json.RawMessage(c.params))
		got, _ := json.Marshal(res)
		if rerr != nil || string(got) != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.name, got, rerr, c.want)
		}
	}
}

// A form given up while another is on the terminal returns at once: it
// does not wait for the user to finish the other form.
func TestLineElicitorCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	defer inW.Close()
	screen := make(shownWrites, 64)
	e := newLineElicitor(newLineReader(inR).ReadLine, screen)
	first := make(chan elicitResult)
	go func() {
		first <- e.Elicit(t.Context(), elicitRequest{Server: "a", Message: "?", Fields: []elicitField{{Name: "a1", Type: "string"}}})
	}()
	for s := range screen { // the first form's question is shown and waits for the user
		if strings.HasSuffix(s, ": ") {
			break
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan elicitResult)
	go func() {
		second <- e.Elicit(ctx, elicitRequest{Server: "b", Message: "?", Fields: []elicitField{{Name: "b1", Type: "string"}}})
	}()
	cancel()
	select {
	case res := <-second:
		if res.Action != "cancel" {
			t.Errorf("the cancelled form got %q, want cancel", res.Action)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled form still waits for the form on the terminal")
	}
	fmt.Fprintln(inW, "x")
	if res := <-first; res.Action != "accept" || res.Content["a1"] != "x" {
		t.Errorf("the first form got %+v, want its answer", res)
	}
}
