package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testPNG encodes a w×h PNG whose left half is red and right half blue.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{0xff, 0, 0, 0xff}
			if x >= w/2 {
				c = color.RGBA{0, 0, 0xff, 0xff}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngWithSize is a PNG whose header claims w×h pixels (with a valid checksum) but has no pixels.
func pngWithSize(t *testing.T, w, h int) []byte {
	data := testPNG(t, 1, 1)
	binary.BigEndian.PutUint32(data[16:], uint32(w))
	binary.BigEndian.PutUint32(data[20:], uint32(h))
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data[:33]
}

// webpHeader is the start of an extended (VP8X) WebP file of w×h pixels.
func webpHeader(w, h int) string {
	b := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00")
	b = append(b, byte(w-1), byte((w-1)>>8), byte((w-1)>>16), byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
	return string(b)
}

// decodedSize decodes the image of a media block, whose media type must be what its data is.
func decodedSize(t *testing.T, b Block) (int, int) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the image sent does not decode: %v", err)
	}
	if b.Source.MediaType != "image/"+format {
		t.Errorf("the image sent is a %s labelled %s", format, b.Source.MediaType)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// TestImageOfTooManyBytes sends an image with few enough pixels but too many bytes for the
// provider re-encoded at its size, and says so.
func TestImageOfTooManyBytes(t *testing.T) {
	t.Parallel()
	block, said, err := mediaBlock(noisePNG(t, 200, 100), "image/png", MediaLimits{Provider: "tiny", MaxEdge: 1568, MaxBytes: 40 << 10})
	if want := "image 200×100 of 79 KB, over tiny's 40 KB, re-encoded as JPEG, "; err != nil || !strings.HasPrefix(said, want) {
		t.Fatalf("mediaBlock = %q, %v; want %q", said, err, want)
	}
	if w, h := decodedSize(t, block); w != 200 || h != 100 || block.Source.Width != w || block.Source.Height != h {
		t.Errorf("sent %d×%d (recorded %d×%d), want 200×100", w, h, block.Source.Width, block.Source.Height)
	}
}

// noisePNG is a w×h PNG of random pixels, which do not compress.
func noisePNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testGIF encodes a w×h GIF of one frame for each colour.
func testGIF(t *testing.T, w, h int, colours ...color.Color) []byte {
	anim := &gif.GIF{}
	for _, c := range colours {
		frame := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{c})
		anim.Image, anim.Delay = append(anim.Image, frame), append(anim.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAnimatedGIFs reads an animated GIF for each protocol: OpenAI's take still GIFs only, so they
// get its first frame as PNG and are told so; Anthropic's takes GIFs as they are, and a still GIF
// goes as it is everywhere.
func TestAnimatedGIFs(t *testing.T) {
	t.Parallel()
	red, blue := color.RGBA{0xff, 0, 0, 0xff}, color.RGBA{0, 0, 0xff, 0xff}
	env := newTestEnv(t, map[string]string{"anim.gif": string(testGIF(t, 40, 30, red, blue)), "still.gif": string(testGIF(t, 40, 30, blue))})
	for _, tc := range []struct{ protocol, path, typ, want string }{
		{"chat", "anim.gif", "image/png", "anim.gif: image 40×30 animated: only its first frame is shown, re-encoded as PNG, "},
		{"responses", "anim.gif", "image/png", "anim.gif: image 40×30 animated: only its first frame is shown, re-encoded as PNG, "},
		{"anthropic", "anim.gif", "image/gif", "anim.gif: image 40×30, 1 KB, sent as it is"},
		{"chat", "still.gif", "image/gif", "still.gif: image 40×30, 1 KB, sent as it is"},
	} {
		env.Media = mediaLimitsFor("p", tc.protocol)
		out := callTool(t, env, readFileTool(), `{"path":"`+tc.path+`"}`)
		if out.IsError || len(out.Media) != 1 || !strings.HasPrefix(out.Text, tc.want) || out.Media[0].Source.MediaType != tc.typ {
			t.Errorf("%s, %s: %q, %+v; want %q and one %s", tc.protocol, tc.path, out.Text, out.Media, tc.want, tc.typ)
			continue
		}
		if w, h := decodedSize(t, out.Media[0]); w != 40 || h != 30 {
			t.Errorf("%s, %s: sent %d×%d, want 40×30", tc.protocol, tc.path, w, h)
		}
		if seen := describeImage(out.Media[0].Source); tc.path == "anim.gif" && !strings.HasSuffix(seen, "#ff0000") {
			t.Errorf("%s: the image sent is %s, want the first frame's red", tc.protocol, seen)
		}
	}
	anim := testGIF(t, 40, 30, red, blue)
	if _, said, err := mediaBlock(anim, "image/gif", MediaLimits{Provider: "tiny", MaxEdge: 20, MaxBytes: 1 << 20, StillGIF: true}); err != nil || !strings.HasPrefix(said, "image 40×30 animated: only its first frame is shown, scaled down to 20×15 as PNG") {
		t.Errorf("an animated GIF over the size: %q, %v", said, err)
	}
	for n := range anim { // a GIF cut short anywhere is walked without a panic
		gifAnimated(anim[:n])
	}
}

func TestReadFileMedia(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{
		"big.png":     string(testPNG(t, 3200, 1600)),
		"small.png":   string(testPNG(t, 64, 32)),
		"cut.png":     string(testPNG(t, 300, 300)[:200]),
		"huge.png":    string(pngWithSize(t, 10_000, 10_000)),
		"fake.png":    "this is text, not a picture\n",
		"notes.pdf":   "plain text in a file named like a PDF\n",
		"doc.pdf":     "%PDF-1.4\n1 0 obj << /Type /Page >> endobj\ntrailer\n%%EOF\n",
		"cut.pdf":     "%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n",
		"small.webp":  webpHeader(800, 600) + "rest",
		"large.webp":  webpHeader(6000, 4000) + "rest",
		"broken.webp": "RIFF\x00\x00\x00\x00WEBPVP8Z",
		"empty.png":   "",
		"png.jpg":     string(testPNG(t, 20, 10)),
		"drawing.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>`,
		"shots.png/a": "a folder named like an image",
	})
	env.Media = mediaLimitsFor("anthropic", "anthropic")
	cases := []struct {
		name, input string
		w, h        int    // the size sent; 0 for an error
		want        string // in the text or the error
	}{
		{"scaled", `{"path":"big.png"}`, 1568, 784, "big.png: image 3200×1600 scaled down to 1568×784"},
		{"as it is", `{"path":"small.png"}`, 64, 32, "small.png: image 64×32, 1 KB, sent as it is"},
		{"webp within limits", `{"path":"small.webp"}`, -1, 0, "image 800×600"},
		{"truncated png", `{"path":"cut.png"}`, 0, 0, "does not decode"},
		{"100 megapixels", `{"path":"huge.png"}`, 0, 0, "10000×10000 image (100 megapixels), more than the 40 megapixels"},
		{"not an image", `{"path":"fake.png"}`, 0, 0, "is named .png but its content is not a PNG file (it is text/plain)"},
		{"pdf that is not a pdf", `{"path":"notes.pdf"}`, 0, 0, "is named .pdf but its content is not a PDF file"},
		{"pdf cut short", `{"path":"cut.pdf"}`, 0, 0, "no %%EOF trailer"},
		{"webp too large", `{"path":"large.webp"}`, 0, 0, "6000×4000 WebP image"},
		{"webp damaged", `{"path":"broken.webp"}`, 0, 0, "header is damaged"},
		{"pages of an image", `{"path":"small.png","pages":"1"}`, 0, 0, "pages is for PDF files"},
		{"empty", `{"path":"empty.png"}`, 0, 0, "is empty (0 bytes), so it is no PNG file"},
		{"named .jpg, holds a PNG", `{"path":"png.jpg"}`, 20, 10, "png.jpg: image 20×10, 1 KB, sent as it is"},
		{"svg", `{"path":"drawing.svg"}`, -1, 0, `1	<svg xmlns=`}, // text the model reads
		{"folder", `{"path":"shots.png"}`, 0, 0, "is a folder, not a file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := callTool(t, env, readFileTool(), tc.input)
			if !strings.Contains(out.Text, tc.want) || out.IsError != (tc.w == 0) {
				t.Fatalf("read_file %s = %q (error %v), want %q", tc.input, out.Text, out.IsError, tc.want)
			}
			if tc.w <= 0 {
				return
			}
			if len(out.Media) != 1 || out.Media[0].Type != BlockImage {
				t.Fatalf("media = %+v, want one image", out.Media)
			}
			src := out.Media[0].Source
			if w, h := decodedSize(t, out.Media[0]); w != tc.w || h != tc.h || src.Width != w || src.Height != h {
				t.Errorf("sent %d×%d (recorded %d×%d), want %d×%d", w, h, src.Width, src.Height, tc.w, tc.h)
			}
		})
	}
	t.Run("pdf", func(t *testing.T) {
		out := callTool(t, env, readFileTool(), `{"path":"doc.pdf"}`)
		if out.IsError || len(out.Media) != 1 || out.Media[0].Type != BlockDocument || out.Media[0].Source.MediaType != "application/pdf" {
			t.Fatalf("read_file doc.pdf = %q, %+v; want a document block", out.Text, out.Media)
		}
		env := *env
		env.Media = mediaLimitsFor("ollama", "chat")
		out = callTool(t, &env, readFileTool(), `{"path":"doc.pdf"}`)
		if !out.IsError || !strings.Contains(out.Text, "the ollama provider does not take PDF documents") {
			t.Errorf("a provider without PDF input: %q, want an error naming it", out.Text)
		}
	})
}

func TestReadFilePDFPages(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("qpdf"); err != nil {
		t.Skip("qpdf is not installed")
	}
	env := newTestEnv(t, nil)
	env.Media = mediaLimitsFor("anthropic", "anthropic")
	three := env.Workspace + "/three.pdf"
	if out, err := exec.Command("qpdf", "--empty", "--pages", mustPDF(t), "1,1,1", "--", three).CombinedOutput(); err != nil {
		t.Fatalf("making a PDF: %v: %s", err, out)
	}
	out := callTool(t, env, readFileTool(), `{"path":"three.pdf","pages":"2-3"}`)
	if out.IsError || len(out.Media) != 1 || !strings.Contains(out.Text, "three.pdf, pages 2-3: PDF document") {
		t.Fatalf("pages 2-3: %q", out.Text)
	}
	data, _ := base64.StdEncoding.DecodeString(out.Media[0].Source.Data)
	if n := bytes.Count(data, []byte("/Type /Page\n")) + bytes.Count(data, []byte("/Type /Page ")) + bytes.Count(data, []byte("/Type/Page")); n != 2 && !bytes.Contains(data, []byte("/Count 2")) {
		t.Errorf("the PDF sent should have 2 pages")
	}
	if out := callTool(t, env, readFileTool(), `{"path":"three.pdf","pages":"9"}`); !out.IsError || !strings.Contains(out.Text, "qpdf could not take pages 9") {
		t.Errorf("a page past the end: %q", out.Text)
	}
	if out := callTool(t, env, readFileTool(), `{"path":"three.pdf","pages":"x"}`); !out.IsError || !strings.Contains(out.Text, "should look like") {
		t.Errorf("bad pages: %q", out.Text)
	}
}

// mustPDF writes a one-page PDF, with its cross-reference table, and returns its path.
func mustPDF(t *testing.T) string {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	var offsets []int
	for i, o := range objs {
		offsets = append(offsets, b.Len())
		b.WriteString(strings.Join([]string{strconv.Itoa(i + 1), " 0 obj\n", o, "\nendobj\n"}, ""))
	}
	xref := b.Len()
	b.WriteString("xref\n0 4\n0000000000 65535 f \n")
	for _, off := range offsets {
		b.WriteString(strings.Repeat("0", 10-len(strconv.Itoa(off))) + strconv.Itoa(off) + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
	path := t.TempDir() + "/one.pdf"
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImagesInTokenCountsAndCompaction(t *testing.T) {
	t.Parallel()
	image := func(w, h int) Block {
		return Block{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA", Width: w, Height: h}}
	}
	for _, tc := range []struct{ w, h, want int }{{1568, 784, 56 * 28}, {4000, 3000, 56 * 42}, {28, 28, 1}, {0, 0, 1600}} {
		if got := imageTokens(tc.w, tc.h); got != tc.want {
			t.Errorf("imageTokens(%d, %d) = %d, want %d", tc.w, tc.h, got, tc.want)
		}
	}
	result := Block{Type: BlockToolResult, ToolUseID: "t1", Content: "shot.png: image", Media: []Block{image(1568, 784)}}
	if n := messageTokenCount(Message{Role: RoleUser, Content: []Block{result}}); n < 1568 {
		t.Errorf("a tool result with an image counts %d tokens, want the image's 1568 at least", n)
	}
	// Five prompts with an image each, then four reads of images: micro compact keeps the newest three of each.
	var msgs []Message
	for i := range 5 {
		msgs = append(msgs, userPrompt(fmt.Sprintf("look %d", i), []Block{image(100, 100)}), assistantText("ok"))
	}
	for i := range 4 {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs, Message{Role: RoleAssistant, Content: []Block{{Type: BlockToolUse, ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"a.png"}`)}}},
			Message{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: id, Content: "a.png: image", Media: []Block{image(100, 100)}}}})
	}
	view := applySplices(msgs, microCompact(msgs, microKeepPerTool, func(name string) bool { return rerunnableTools[name] }))
	var prompts, results []int
	for i, m := range view {
		for _, b := range m.Content {
			switch {
			case b.Type == BlockImage:
				prompts = append(prompts, i)
			case b.Type == BlockToolResult && len(b.Media) > 0:
				results = append(results, i)
			case b.Type == BlockToolResult && !strings.HasPrefix(b.Content, microPlaceholderPrefix):
				t.Errorf("message %d: a cleared result should say so: %q", i, b.Content)
			}
		}
	}
	if fmt.Sprint(prompts) != "[4 6 8]" || fmt.Sprint(results) != "[13 15 17]" {
		t.Errorf("images left in messages %v and results in %v; want the newest three of each ([4 6 8], [13 15 17])", prompts, results)
	}
	if !strings.Contains(view[0].Text(), "An image attached earlier was cleared") {
		t.Errorf("the oldest image should leave a note: %q", view[0].Text())
	}
}

// BenchmarkScaleScreenshot decodes a 4000×3000 PNG and scales it for the Anthropic API; the bytes
// allocated per operation bound its peak memory (BENCHMARKS.md).
func BenchmarkScaleScreenshot(b *testing.B) {
	data := testPNG(b, 4000, 3000)
	limits := mediaLimitsFor("anthropic", "anthropic")
	b.ReportAllocs()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		if _, _, err := mediaBlock(data, "image/png", limits); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after) // CPU time, which a busy machine inflates less than wall time
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// TestTransparentImageReencodedAsJPEGOnWhite re-encodes a PNG whose left half is transparent as JPEG,
// which has no transparency: that half comes out white, not black.
func TestTransparentImageReencodedAsJPEGOnWhite(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	r := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = map[bool]uint8{true: 0, false: 255}[i/4%200 < 100]
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	block, said, err := mediaBlock(buf.Bytes(), "image/png", MediaLimits{Provider: "tiny", MaxEdge: 1568, MaxBytes: 20 << 10})
	if err != nil || !strings.Contains(said, "re-encoded as JPEG") {
		t.Fatalf("mediaBlock = %q, %v; want it re-encoded as JPEG", said, err)
	}
	data, _ := base64.StdEncoding.DecodeString(block.Source.Data)
	sent, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []int{5, 50, 95} {
		if c := color.GrayModel.Convert(sent.At(x, 50)).(color.Gray); c.Y < 200 {
			t.Errorf("a transparent pixel (%d, 50) came out grey %d, want white", x, c.Y)
		}
	}
}
