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
		name := fmt.Sprintf("%x.%s", sha256.Sum256(data), filepath.Base(src.MediaType)) // "image/png": png; never a folder
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

// mapPayloadMedia returns p with f applied to each picture of its messages and its tool
// result that has data to store or a file to load; f returning nil turns the picture into a
// note that it is missing. The messages of p themselves are not changed.
func mapPayloadMedia(p RecordPayload, f func(*ImageSource) *ImageSource) RecordPayload {
	if p.Message != nil {
		p.Message = &Message{Role: p.Message.Role, Content: mapMedia(p.Message.Content, f)}
	}
	if p.Result != nil {
		p.Result = &mapMedia([]Block{*p.Result}, f)[0]
	}
	p.Messages = slices.Clone(p.Messages)
	for i, m := range p.Messages {
		p.Messages[i] = Message{Role: m.Role, Content: mapMedia(m.Content, f)}
	}
	return p
}

// mapMedia returns a copy of blocks, and of the results' media in them, with f applied to each picture.
func mapMedia(blocks []Block, f func(*ImageSource) *ImageSource) []Block {
	out := slices.Clone(blocks)
	for i, b := range out {
		out[i].Media = mapMedia(b.Media, f)
		if b.Source == nil || (b.Source.Data != "") == (b.Source.File != "") {
			continue
		}
		if out[i].Source = f(b.Source); out[i].Source == nil {
			out[i] = Block{Type: BlockText, Text: "[an image or document whose file is missing from the session's media folder]"}
		}
	}
	return out
}
