package main

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A session keeps its images and documents beside the journal, one file each under
// <session>/media/ named by its hash, and a journal line refers to the file: otherwise the
// base64 of a screenshot would fill every line that repeats the message (a compaction record
// repeats them all). Resuming reads the files back, so the model is sent the pictures again.

// mediaDir is the folder of the pictures of the session whose journal is path.
func mediaDir(path string) string {
	return filepath.Join(strings.TrimSuffix(path, ".jsonl"), "media")
}

// withMediaFiles returns p with the data of its pictures stored in files under dir, or p itself
// when it has none; a picture that cannot be stored stays inline.
func withMediaFiles(dir string, p RecordPayload) RecordPayload {
	save := func(src *ImageSource) *ImageSource {
		data, err := base64.StdEncoding.DecodeString(src.Data)
		ext := strings.TrimPrefix(src.MediaType[strings.IndexByte(src.MediaType, '/')+1:], "x-")
		name := fmt.Sprintf("%x.%s", sha256.Sum256(data), ext)
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if _, statErr := os.Stat(filepath.Join(dir, name)); err == nil && statErr != nil {
			err = writeFileAtomic(filepath.Join(dir, name), data, 0o600)
		}
		if err != nil {
			return src
		}
		stored := *src
		stored.Data, stored.File = "", name
		return &stored
	}
	if p.Message != nil {
		if c := mapMedia(p.Message.Content, save); c != nil {
			p.Message = &Message{Role: p.Message.Role, Content: c}
		}
	}
	if p.Result != nil {
		if c := mapMedia([]Block{*p.Result}, save); c != nil {
			p.Result = &c[0]
		}
	}
	p.Messages = mapMessagesMedia(p.Messages, save)
	if p.Splices != nil {
		p.Splices = slices.Clone(p.Splices)
		for i := range p.Splices {
			p.Splices[i].With = mapMessagesMedia(p.Splices[i].With, save)
		}
	}
	return p
}

// loadMediaFiles puts back, in a payload read from a journal, the data of the pictures stored
// under dir; a missing file leaves a note in the picture's place.
func loadMediaFiles(dir string, p *RecordPayload) {
	load := func(src *ImageSource) *ImageSource {
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(src.File)))
		if err != nil {
			return nil
		}
		loaded := *src
		loaded.Data, loaded.File = base64.StdEncoding.EncodeToString(data), ""
		return &loaded
	}
	if p.Message != nil {
		if c := mapMedia(p.Message.Content, load); c != nil {
			p.Message.Content = c
		}
	}
	if p.Result != nil {
		if c := mapMedia([]Block{*p.Result}, load); c != nil {
			*p.Result = c[0]
		}
	}
	p.Messages = mapMessagesMedia(p.Messages, load)
	for i := range p.Splices {
		p.Splices[i].With = mapMessagesMedia(p.Splices[i].With, load)
	}
}

// mapMedia returns blocks with f applied to each picture that has data to store or a file to
// load (nested in tool results too), or nil when there is none; f returning nil turns the
// picture into a note that it is missing. The blocks themselves are not changed.
func mapMedia(blocks []Block, f func(*ImageSource) *ImageSource) []Block {
	var out []Block
	for i, b := range blocks {
		changed := b
		switch media := mapMedia(b.Media, f); {
		case b.Source != nil && (b.Source.Data != "") != (b.Source.File != ""):
			if changed.Source = f(b.Source); changed.Source == nil {
				changed = Block{Type: BlockText, Text: "[an image or document whose file is missing from the session's media folder]"}
			}
		case media != nil:
			changed.Media = media
		default:
			continue
		}
		if out == nil {
			out = slices.Clone(blocks)
		}
		out[i] = changed
	}
	return out
}

// mapMessagesMedia applies mapMedia to each message, copying msgs only if one changes.
func mapMessagesMedia(msgs []Message, f func(*ImageSource) *ImageSource) []Message {
	var out []Message
	for i, m := range msgs {
		if c := mapMedia(m.Content, f); c != nil {
			if out == nil {
				out = slices.Clone(msgs)
			}
			out[i] = Message{Role: m.Role, Content: c}
		}
	}
	if out == nil {
		return msgs
	}
	return out
}
