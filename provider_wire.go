package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
)

// A request carries the whole conversation, so encoding it afresh at
// every step would make a step cost more the longer the session. Instead
// each message is encoded once, when it is first sent, and kept in its
// wireCache; the tool list is encoded once per change. A request body is
// then mostly copied bytes.

// wireCache is what is computed once per message: each provider's
// encoding (made when first needed) and the estimated token count.
type wireCache struct {
	anthropic       []anthropicWireBlock // the blocks, tool results first
	anthropicJoined []byte               // the same, joined by commas
	openai          []byte               // the chat messages, joined by commas
	encoded         struct{ anthropic, openai bool }
	tokens          int
}

// withWireCaches gives every message of msgs that has none a cache, so
// that the encodings made for this request are kept for the next.
func withWireCaches(msgs []Message) {
	for i := range msgs {
		if msgs[i].wire == nil {
			msgs[i].wire = &wireCache{}
		}
	}
}

// toolsCache keeps the encoded tool list of the newest request: tools
// change rarely, and their schemas are the largest fixed part of a
// request. A provider may be used by several agents at once.
type toolsCache struct {
	mu    sync.Mutex
	specs []ToolSpec
	json  []byte
}

// get returns the encoding of specs, calling encode only when they
// differ from the previous request's.
func (c *toolsCache) get(specs []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := c.json != nil && slices.EqualFunc(c.specs, specs, func(a, b ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
	})
	if same {
		return c.json, nil
	}
	data, err := encode(specs)
	if err != nil {
		return nil, fmt.Errorf("encoding the tools: %w", err)
	}
	c.specs, c.json = slices.Clone(specs), bytes.TrimSuffix(data, []byte("\n"))
	return c.json, nil
}

// wireBody is a request body made of copied bytes and referenced ones:
// the cached encodings of messages and tools are referenced, not copied,
// so that building a request costs only its small parts.
type wireBody struct {
	bytes.Buffer // the copied bytes
	refs         []wireRef
	refBytes     int
}

// wireRef is referenced data that goes before the copied byte at.
type wireRef struct {
	at   int
	data []byte
}

// newWireBody returns an empty body with room for a request of n
// messages whose other fields take head bytes.
func newWireBody(head, n int) *wireBody {
	w := &wireBody{refs: make([]wireRef, 0, n+2)}
	w.Grow(head + 48*n)
	return w
}

// Ref adds data to the body without copying it.
func (w *wireBody) Ref(data []byte) {
	w.refs = append(w.refs, wireRef{w.Len(), data})
	w.refBytes += len(data)
}

// buffers returns the body's bytes in order, as a reader of them.
func (w *wireBody) buffers() *net.Buffers {
	copied, at := w.Bytes(), 0
	bufs := make(net.Buffers, 0, 2*len(w.refs)+1)
	for _, r := range w.refs {
		bufs = append(bufs, copied[at:r.at], r.data)
		at = r.at
	}
	bufs = append(bufs, copied[at:])
	return &bufs
}

// post builds a POST request of the body to url.
func (w *wireBody) post(ctx context.Context, url string) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, w.buffers())
	if err != nil {
		return nil, err
	}
	r.ContentLength = int64(w.Len() + w.refBytes)
	return r, nil
}

// splicedField is a field of a request body written apart from the rest:
// name is its key, write writes its value.
type splicedField struct {
	name  string
	write func(*wireBody) error
}

// spliceJSON writes head, an encoded JSON object in which each field of
// fields (in the order they appear) holds the placeholder 0, with every
// placeholder replaced by what its field writes. Placeholders cannot be
// confused with text: strings in head are quoted, so `"name":0` only
// occurs as a field.
func spliceJSON(out *wireBody, head []byte, fields ...splicedField) error {
	for _, f := range fields {
		key := []byte(`"` + f.name + `":0`)
		at := bytes.Index(head, key)
		if at < 0 {
			return fmt.Errorf("the request has no %s field", f.name)
		}
		at += len(key) - 1
		out.Write(head[:at])
		if err := f.write(out); err != nil {
			return err
		}
		head = head[at+1:]
	}
	out.Write(bytes.TrimSuffix(head, []byte("\n")))
	return nil
}
