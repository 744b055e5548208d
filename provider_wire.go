package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
)

// WireCache holds what is computed once per message, each provider's encoding and the token
// estimate. A request carries the whole conversation: encoded afresh, a step would cost more the
// longer the session. Encoded once per message (and the tools once per change, in a body that
// refers to those bytes), step 200 of BenchmarkLongSession costs what step 10 does.
type WireCache struct {
	anthropic []anthropicWireBlock // the content blocks; nil until encoded
	openai    []byte               // the chat messages, joined by commas; nil until encoded
	responses []byte               // the Responses API's input items, joined by commas; nil until encoded
	tokens    int
}

// withWireCaches gives every message of msgs that has none a cache.
func withWireCaches(msgs []Message) {
	for i := range msgs {
		if msgs[i].wire == nil {
			msgs[i].wire = &WireCache{}
		}
	}
}

// toolsCache keeps the encoded tool list of the newest request.
type toolsCache struct {
	mu    sync.Mutex
	specs []ToolSpec
	json  []byte
}

// write writes the request's "tools" key unless specs is empty, encoding them only when they differ from the
// previous request's.
func (c *toolsCache) write(out *wireBody, specs []ToolSpec, encode func([]ToolSpec) ([]byte, error)) error {
	if len(specs) == 0 {
		return nil
	}
	out.WriteString(`,"tools":`)
	c.mu.Lock()
	defer c.mu.Unlock()
	same := c.json != nil && slices.EqualFunc(c.specs, specs, func(a, b ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
	})
	if !same {
		data, err := encode(specs)
		if err != nil {
			return fmt.Errorf("encoding the tools: %w", err)
		}
		c.specs, c.json = slices.Clone(specs), data
	}
	out.ref(c.json)
	return nil
}

// wireBody is a request body of copied bytes and referenced ones, the cached
// encodings of messages and tools, so building a request costs only its small parts.
type wireBody struct {
	bytes.Buffer // the copied bytes
	refs         []wireRef
	refBytes     int
	header       http.Header // sent with this request only, such as a beta header
}

// wireRef is referenced data that goes before the copied byte at.
type wireRef struct {
	at   int
	data []byte
}

// ref adds data to the body without copying it.
func (w *wireBody) ref(data []byte) {
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

// newWireBody returns a body with room for a request of msgs, begun with its model: {"model":"…".
func newWireBody(msgs []Message, model string) *wireBody {
	out := &wireBody{refs: make([]wireRef, 0, 2*len(msgs)+2)}
	out.Grow(256 + 48*len(msgs))
	out.WriteString(`{"model":`)
	out.writeJSONString(model)
	return out
}

// writeEncodings writes the cached encoding of each message, separated by commas (and from the
// one before them if sep); encode returns a message's, which may be empty.
func writeEncodings(out *wireBody, msgs []Message, encode func(Message) ([]byte, error), sep bool) error {
	for _, m := range msgs {
		data, err := encode(m)
		if err != nil {
			return err
		}
		if len(data) > 0 && sep {
			out.WriteByte(',')
		}
		out.ref(data)
		sep = sep || len(data) > 0
	}
	return nil
}

// writeJSONString writes s as a JSON string.
func (w *wireBody) writeJSONString(s string) {
	data, _ := encodeJSON(s, len(s))
	w.Write(data)
}

// encodeJSON marshals v without HTML escaping, so the model's text goes back
// as it came; size is about the length of v's text, so one buffer holds it.
func encodeJSON(v any, size int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, size+size/16+128))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
