package main

import (
	"bytes"
	"fmt"
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

// splicedField is a field of a request body written apart from the rest:
// name is its key, write writes its value.
type splicedField struct {
	name  string
	write func(*bytes.Buffer) error
}

// spliceJSON writes head, an encoded JSON object in which each field of
// fields (in the order they appear) holds the placeholder 0, with every
// placeholder replaced by what its field writes. Placeholders cannot be
// confused with text: strings in head are quoted, so `"name":0` only
// occurs as a field.
func spliceJSON(out *bytes.Buffer, head []byte, fields ...splicedField) error {
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

// messagesSize is about how many bytes the conversation's encoding takes,
// so that a request body is allocated once.
func messagesSize(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if w := m.wire; w != nil && (w.encoded.anthropic || w.encoded.openai) {
			n += max(len(w.anthropicJoined), len(w.openai)) + 32
			continue
		}
		for _, b := range m.Content {
			n += 64 + len(b.Text) + len(b.Thinking) + len(b.Signature) + len(b.Data) + len(b.Input) + len(b.Content)
		}
	}
	return n + n/8 + 4096
}
