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

// A session keeps its images and documents beside the journal, a file each under <session>/media/
// named by its hash, and a journal line refers to the file: else a screenshot's base64 would fill
// every line that repeats its message (as a compaction record repeats them all). Resuming reads
// the files back, so the model is sent the pictures again.

// mediaDir is the folder of the pictures of the session whose journal is path.
func mediaDir(path string) string {
	return filepath.Join(strings.TrimSuffix(path, ".jsonl"), "media")
}

// withMediaFiles returns p with its pictures' data stored in files under dir (a picture that
// cannot be stored stays inline); p's messages are not changed.
func withMediaFiles(dir string, p RecordPayload) RecordPayload {
	return mapPayloadMedia(p, func(src *ImageSource) *ImageSource {
		data, err := base64.StdEncoding.DecodeString(src.Data)
		name := fmt.Sprintf("%x.%s", sha256.Sum256(data), src.MediaType[strings.IndexByte(src.MediaType, '/')+1:])
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
	})
}

// loadMediaFiles returns p, read from a journal, with its pictures' data read back from dir; a
// missing file leaves a note in the picture's place.
func loadMediaFiles(dir string, p RecordPayload) RecordPayload {
	return mapPayloadMedia(p, func(src *ImageSource) *ImageSource {
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(src.File)))
		if err != nil {
			return nil
		}
		loaded := *src
		loaded.Data, loaded.File = base64.StdEncoding.EncodeToString(data), ""
		return &loaded
	})
}

// mapPayloadMedia applies mapMedia to the messages and the tool result of a record.
func mapPayloadMedia(p RecordPayload, f func(*ImageSource) *ImageSource) RecordPayload {
	if p.Message != nil {
		p.Message = &mapMessagesMedia([]Message{*p.Message}, f)[0]
	}
	if p.Result != nil {
		if c := mapMedia([]Block{*p.Result}, f); c != nil {
			p.Result = &c[0]
		}
	}
	p.Messages = mapMessagesMedia(p.Messages, f)
	return p
}

// mapMedia returns blocks with f applied to each picture that has data to store or a file to
// load (in tool results too), or nil when there is none; f returning nil turns the picture into
// a note that it is missing. The blocks themselves are not changed.
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
	out, copied := msgs, false
	for i, m := range msgs {
		if c := mapMedia(m.Content, f); c != nil {
			if !copied {
				out, copied = slices.Clone(msgs), true
			}
			out[i] = Message{Role: m.Role, Content: c}
		}
	}
	return out
}
