package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // image.Decode reads GIF too
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// MediaLimits are what a provider accepts in one image or document, from its documentation:
// Anthropic takes images up to 8000×8000 (2000×2000 past 20 in a request) and 5 MB of base64,
// and sees them at 1568 pixels on the long edge; OpenAI takes 20 MB and sees 2048×2048 at most.
// Larger images are scaled down to MaxEdge before they are sent.
type MediaLimits struct {
	Provider string // named in errors
	MaxEdge  int    // pixels on the long edge of an image sent
	MaxBytes int    // bytes of one encoded image
	PDF      bool   // PDF documents are accepted
	StillGIF bool   // only still GIFs are accepted: of an animated one, the first frame is sent as PNG
}

// mediaLimitsFor returns the limits of a protocol: anthropic, chat (Chat Completions), responses or mock.
// OpenAI's vision docs take PNG, JPEG, WEBP and non-animated GIF. Anthropic's list GIF among the
// formats it takes (JPEG, PNG, GIF, WebP) and say nothing against animation, so an animated GIF
// goes to it as it is.
func mediaLimitsFor(provider, protocol string) MediaLimits {
	if protocol == "anthropic" || protocol == "mock" {
		return MediaLimits{Provider: provider, MaxEdge: 1568, MaxBytes: 5 << 20 * 3 / 4, PDF: protocol == "anthropic"}
	}
	return MediaLimits{Provider: provider, MaxEdge: 2048, MaxBytes: 20 << 20, PDF: protocol == "responses", StillGIF: true}
}

// Bounds of the images minicode decodes and the PDFs it sends.
const (
	maxDecodePixels   = 40_000_000 // 160 MB decoded; a larger image is refused before decoding
	maxPDFBytes       = 24 << 20   // a 32 MB request holds this much PDF in base64
	maxMediaFileBytes = 64 << 20   // the image or PDF file read_file loads, at most
)

// BlockDocument is a PDF, sent to the Anthropic API as a document block.
const BlockDocument = "document"

// mediaType returns the media type of a file read_file sends as media, or "" for text:
// the content decides, and a name ending in .pdf or an image extension must match it.
func mediaType(name string, head []byte) (string, error) {
	sniffed := http.DetectContentType(head)
	switch sniffed {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return sniffed, nil
	}
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf":
		if len(head) == 0 {
			return "", fmt.Errorf("is empty (0 bytes), so it is no %s file; check how it was made", strings.ToUpper(ext[1:]))
		}
		return "", fmt.Errorf("is named %s but its content is not a %s file (it is %s); read it as text with another name, or check how it was made",
			ext, strings.ToUpper(ext[1:]), strings.TrimSuffix(sniffed, "; charset=utf-8"))
	}
	return "", nil
}

// pdfPages returns a PDF of some pages of the PDF at path ("3", "1-20", "1-3,7"), made by qpdf.
func pdfPages(ctx context.Context, path, pages string) ([]byte, error) {
	if !regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*$`).MatchString(pages) {
		return nil, fmt.Errorf("pages %q should look like 3, 1-20 or 1-3,7", pages)
	}
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		return nil, errors.New("reading some pages of a PDF needs qpdf, which is not installed (apt install qpdf, or brew install qpdf)")
	}
	tmp, err := os.CreateTemp("", "minicode-pages-*.pdf")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	msg, err := exec.CommandContext(ctx, qpdf, "--empty", "--pages", path, pages, "--", tmp.Name()).CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) { // 3: done, with warnings
		return nil, fmt.Errorf("qpdf could not take pages %s: %s", pages, cmp.Or(strings.TrimSpace(string(msg)), err.Error()))
	}
	return os.ReadFile(tmp.Name())
}

// mediaBlock turns a file's bytes of media type typ into a block within limits, and says in words what was sent. An
// image is decoded whole, so a damaged one is refused here rather than by the API; one too large is scaled down.
func mediaBlock(data []byte, typ string, limits MediaLimits) (Block, string, error) {
	if typ == "application/pdf" {
		return pdfBlock(data, limits)
	}
	w, h, err := imageSize(data, typ)
	if err != nil {
		return Block{}, "", err
	}
	animated := typ == "image/gif" && limits.StillGIF && gifAnimated(data)
	orig, fits := fmt.Sprintf("%d×%d", w, h), max(w, h) <= limits.MaxEdge && len(data) <= limits.MaxBytes && !animated
	switch {
	case typ == "image/webp" && fits:
		return imageBlock(typ, data, w, h), fmt.Sprintf("image %s, %s, sent as it is (WebP is not checked)", orig, sizeText(len(data))), nil
	case typ == "image/webp":
		return Block{}, "", fmt.Errorf("is a %s WebP image (%s) over %s's limit of %d pixels on the long edge and %s; minicode cannot scale WebP: convert it to PNG or JPEG first",
			orig, sizeText(len(data)), limits.Provider, limits.MaxEdge, sizeText(limits.MaxBytes))
	case w*h > maxDecodePixels:
		return Block{}, "", fmt.Errorf("is a %s image (%.0f megapixels), more than the %d megapixels minicode decodes; make it smaller first (for example with `convert IN -resize 25%% OUT`)",
			orig, float64(w*h)/1e6, maxDecodePixels/1_000_000)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Block{}, "", fmt.Errorf("is a %s image that does not decode (%v); the file is damaged or cut short", strings.TrimPrefix(typ, "image/"), err)
	}
	if fits {
		return imageBlock(typ, data, w, h), fmt.Sprintf("image %s, %s, sent as it is", orig, sizeText(len(data))), nil
	}
	scaled, err := scaleImage(src, typ, limits)
	if err != nil {
		return Block{}, "", err
	}
	how := fmt.Sprintf("scaled down to %d×%d", scaled.Source.Width, scaled.Source.Height)
	switch {
	case animated:
		how = "animated: only its first frame is shown, " + map[bool]string{true: "re-encoded", false: how}[scaled.Source.Width == w]
	case scaled.Source.Width == w: // small enough, but too many bytes
		how = fmt.Sprintf("of %s, over %s's %s, re-encoded", sizeText(len(data)), limits.Provider, sizeText(limits.MaxBytes))
	}
	return scaled, fmt.Sprintf("image %s %s as %s, %s", orig, how, strings.ToUpper(strings.TrimPrefix(scaled.Source.MediaType, "image/")), sizeText(len(scaled.Source.Data)*3/4)), nil
}

// gifAnimated reports whether a GIF holds more than one frame, walking its blocks without decoding them.
func gifAnimated(data []byte) bool {
	table := func(flags byte) int { return int(flags>>7) * 3 << (flags&7 + 1) } // a colour table's bytes, when the flags have one
	if len(data) < 13 {
		return false
	}
	for frames, i := 0, 13+table(data[10]); i < len(data); i++ {
		switch data[i] {
		case 0x2c: // an image: its descriptor, colour table and LZW code size, then its data
			if frames++; frames > 1 || i+10 >= len(data) {
				return frames > 1
			}
			i += 11 + table(data[i+9])
		case 0x21: // an extension: its label, then its data
			i += 2
		default: // the trailer
			return false
		}
		for i < len(data) && data[i] != 0 { // the data's sub-blocks, each led by its length, up to an empty one
			i += int(data[i]) + 1
		}
	}
	return false
}

// imageBlock is an image block of base64 data that knows its size.
func imageBlock(typ string, data []byte, w, h int) Block {
	return Block{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: typ, Data: base64.StdEncoding.EncodeToString(data), Width: w, Height: h}}
}

// imageSize reads an image's dimensions from its header; a truncated or damaged header is an error.
func imageSize(data []byte, typ string) (int, int, error) {
	if typ == "image/webp" {
		return webpSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("is not a readable %s image: %v", strings.TrimPrefix(typ, "image/"), err)
	}
	return cfg.Width, cfg.Height, nil
}

// webpSize reads the canvas size of a WebP file (lossy VP8, lossless VP8L or extended VP8X).
func webpSize(data []byte) (int, int, error) {
	u24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
	switch {
	case len(data) >= 30 && string(data[12:16]) == "VP8X":
		return u24(data[24:]) + 1, u24(data[27:]) + 1, nil
	case len(data) >= 25 && string(data[12:16]) == "VP8L" && data[20] == 0x2f:
		bits := binary.LittleEndian.Uint32(data[21:25])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, nil
	case len(data) >= 30 && string(data[12:16]) == "VP8 ":
		return int(binary.LittleEndian.Uint16(data[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(data[28:]) & 0x3fff), nil
	}
	return 0, 0, errors.New("is not a readable WebP image: its header is damaged or cut short")
}

// scaleImage scales a decoded image to fit limits.MaxEdge, as PNG (JPEG for a photo, or when PNG comes out too large).
func scaleImage(src image.Image, typ string, limits MediaLimits) (Block, error) {
	b := src.Bounds()
	scale := min(1, float64(limits.MaxEdge)/float64(max(b.Dx(), b.Dy())))
	dst := boxScale(src, max(1, int(float64(b.Dx())*scale)), max(1, int(float64(b.Dy())*scale)))
	for _, quality := range []int{0, 85, 60} { // 0: PNG
		var out bytes.Buffer
		outType, err := "image/png", error(nil)
		switch {
		case quality == 0 && typ == "image/jpeg":
			continue
		case quality == 0:
			err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, dst)
		default:
			outType, err = "image/jpeg", jpeg.Encode(&out, onWhite(dst), &jpeg.Options{Quality: quality})
		}
		if err != nil {
			return Block{}, fmt.Errorf("encoding the scaled image: %w", err)
		}
		if out.Len() <= limits.MaxBytes {
			return imageBlock(outType, out.Bytes(), dst.Rect.Dx(), dst.Rect.Dy()), nil
		}
	}
	return Block{}, fmt.Errorf("is still over %s's %s once scaled down; crop or compress it first", limits.Provider, sizeText(limits.MaxBytes))
}

// onWhite is img laid on white: JPEG has no transparency, and a transparent pixel's colour is black.
func onWhite(img *image.RGBA) *image.RGBA {
	out := &image.RGBA{Pix: slices.Clone(img.Pix), Stride: img.Stride, Rect: img.Rect}
	for i := 0; i+3 < len(out.Pix); i += 4 {
		gap := 255 - out.Pix[i+3] // the colours are premultiplied: white fills what alpha leaves
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = out.Pix[i]+gap, out.Pix[i+1]+gap, out.Pix[i+2]+gap, 255
	}
	return out
}

// boxScale shrinks src to w×h by averaging each block of source pixels (a box filter): one pass
// over the source, one row of sums, fast paths for the types the decoders return.
func boxScale(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// A pixel's four channels are added at once in four 16-bit lanes of a uint64 sum, which
	// hold a box of up to 257 pixels; a larger box (a mean colour) takes a lane per sum.
	packed := (b.Dx()/w+1)*(b.Dy()/h+1) <= 257
	lanes := map[bool]int{true: 1, false: 4}[packed]
	sums, buf := make([]uint64, lanes*w), make([]uint8, 4*b.Dx())
	column, cols := make([]int, b.Dx()), make([]uint64, w) // each source column's sum, and how many each sum adds
	for x := range column {
		column[x] = lanes * (x * w / b.Dx())
		cols[x*w/b.Dx()]++
	}
	rows := uint64(0)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := rgbaRow(src, y, buf)
		for x, d := range column {
			p := row[4*x : 4*x+4 : 4*x+4]
			if packed {
				sums[d] += uint64(p[0]) | uint64(p[1])<<16 | uint64(p[2])<<32 | uint64(p[3])<<48
				continue
			}
			for c := range 4 {
				sums[d+c] += uint64(p[c])
			}
		}
		rows++
		dy := (y - b.Min.Y) * h / b.Dy()
		if y+1 < b.Max.Y && (y+1-b.Min.Y)*h/b.Dy() == dy {
			continue
		}
		out := dst.Pix[dy*dst.Stride:]
		for x := range w {
			for c := range 4 {
				sum := sums[x] >> (16 * c) & 0xffff
				if !packed {
					sum = sums[4*x+c]
				}
				out[4*x+c] = uint8(sum / (cols[x] * rows))
			}
		}
		clear(sums)
		rows = 0
	}
	return dst
}

// rgbaRow returns the 8-bit colours of line y of src, in buf unless src holds them so.
func rgbaRow(src image.Image, y int, buf []uint8) []uint8 {
	b := src.Bounds()
	switch s := src.(type) {
	case *image.RGBA:
		return s.Pix[s.PixOffset(b.Min.X, y):][:len(buf)]
	case *image.NRGBA: // premultiplied, as the sums and image.RGBA take colours
		row := s.Pix[s.PixOffset(b.Min.X, y):][:len(buf)]
		for i := 0; i < len(row); i += 4 {
			a := uint32(row[i+3])
			buf[i], buf[i+1], buf[i+2], buf[i+3] = uint8(uint32(row[i])*a/255), uint8(uint32(row[i+1])*a/255), uint8(uint32(row[i+2])*a/255), row[i+3]
		}
	case *image.YCbCr:
		for x := range b.Dx() {
			c := s.YCbCrAt(b.Min.X+x, y)
			buf[4*x], buf[4*x+1], buf[4*x+2] = color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
			buf[4*x+3] = 0xff
		}
	default:
		for x := range b.Dx() {
			r, g, bl, a := src.At(b.Min.X+x, y).RGBA()
			buf[4*x], buf[4*x+1], buf[4*x+2], buf[4*x+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), uint8(a>>8)
		}
	}
	return buf
}

// pdfBlock is a document block of a PDF, which must be whole and, for the API, small enough.
func pdfBlock(data []byte, limits MediaLimits) (Block, string, error) {
	switch {
	case !limits.PDF:
		return Block{}, "", fmt.Errorf("is a PDF, and the %s provider does not take PDF documents; extract its text with run_command (for example `pdftotext FILE -`)", limits.Provider)
	case !bytes.Contains(data[max(0, len(data)-2048):], []byte("%%EOF")):
		return Block{}, "", errors.New("is not a complete PDF: it has no %%EOF trailer (the file is cut short or damaged)")
	case len(data) > maxPDFBytes:
		return Block{}, "", fmt.Errorf("is a PDF of %s, over the %s a request can carry; read some pages with pages (for example pages=\"1-20\")", sizeText(len(data)), sizeText(maxPDFBytes))
	}
	pages := bytes.Count(data, []byte("/Type/Page")) + bytes.Count(data, []byte("/Type /Page")) - bytes.Count(data, []byte("/Type/Pages")) - bytes.Count(data, []byte("/Type /Pages"))
	if pages > 100 {
		return Block{}, "", fmt.Errorf("is a PDF of about %d pages, more than the 100 a request can carry; read some pages with pages (for example pages=\"1-50\")", pages)
	}
	block := Block{Type: BlockDocument, Source: &ImageSource{Type: "base64", MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString(data)}}
	return block, fmt.Sprintf("PDF document, %s", sizeText(len(data))), nil
}

// sizeText writes a byte count the way people read it: 812 KB, 3.1 MB.
func sizeText(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// mediaTokens estimates an image's cost by imageTokens, a PDF's (each page an image and its text) at a token per 30 base64 bytes.
func mediaTokens(b Block) int {
	if b.Type == BlockDocument {
		return max(1500, len(b.Source.Data)/30)
	}
	return imageTokens(b.Source.Width, b.Source.Height)
}

// imageTokens is an image's cost by Anthropic's published formula: a token for each 28×28 patch of what the model sees,
// at most 1568 pixels on the long edge; other providers charge about as much. An image of unknown size counts as large.
func imageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 1600
	}
	if scale := 1568 / float64(max(w, h)); scale < 1 {
		w, h = int(float64(w)*scale), int(float64(h)*scale)
	}
	return ((w + 27) / 28) * ((h + 27) / 28)
}

// describeImage says what an image block shows in numbers: its size and mean colour.
func describeImage(src *ImageSource) string {
	data, err := base64.StdEncoding.DecodeString(src.Data)
	if err != nil {
		return "an image whose data is not valid base64"
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("a %s image I cannot decode (%v)", src.MediaType, err)
	}
	b := img.Bounds()
	mean := boxScale(img, 1, 1).Pix
	return fmt.Sprintf("a %d×%d image whose mean colour is #%02x%02x%02x", b.Dx(), b.Dy(), mean[0], mean[1], mean[2])
}

// withoutMedia replaces the images and documents of msgs with a note of why, reporting whether there were any.
func withoutMedia(msgs []Message, why string) ([]Message, bool) {
	note := "[An image or document was removed here: " + why + "]"
	out, found := slices.Clone(msgs), false
	for i, m := range msgs {
		content := slices.Clone(m.Content)
		for j, b := range content {
			switch {
			case b.Type == BlockImage || b.Type == BlockDocument:
				content[j] = Block{Type: BlockText, Text: note}
			case len(b.Media) > 0:
				content[j].Media, content[j].Content = nil, b.Content+"\n"+note
			default:
				continue
			}
			out[i], found = Message{Role: m.Role, Content: content}, true
		}
	}
	return out, found
}
