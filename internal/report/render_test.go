package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// The elements a report may render to, as GitHub renders its markdown
// (GFM: tables, task lists, raw <details>/<summary>/<sub>). Anything else in
// the rendered HTML came from untrusted text escaping its block.
var allowedElements = map[string]bool{
	"h2": true, "h3": true, "h4": true, "h5": true, "p": true, "strong": true, "em": true, "code": true, "pre": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "ul": true, "ol": true, "li": true,
	"input": true, "details": true, "summary": true, "sub": true, "blockquote": true, "br": true, "hr": true,
}

// renderGFM renders markdown as GitHub does for comments: GFM, raw HTML kept
// (GitHub then sanitises it; the report must not need that).
func renderGFM(t *testing.T, md string) string {
	t.Helper()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	var buf bytes.Buffer
	if err := gm.Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Every golden report, rendered with a GFM renderer (goldmark), holds only
// the elements a report is made of — no raw HTML from untrusted text, the
// adversarial golden included — and every <details> closes.
func TestRender_GoldenReportsStayInTheirBlocks(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	comments, _ := filepath.Glob(filepath.Join("..", "action", "testdata", "comments", "*.md"))
	files = append(files, comments...)
	files = append(files, filepath.Join("..", "cli", "testdata", "demo", "demo.markdown.golden"))
	if len(comments) < 9 || len(files) < 10 {
		t.Fatalf("found %d golden reports", len(files))
	}
	if out := renderGFM(t, "text <img src=x onerror=alert(1)>"); !strings.Contains(out, "<img") {
		t.Fatal("the renderer drops raw HTML: the check proves nothing")
	}
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := renderGFM(t, string(md))
		z := html.NewTokenizer(strings.NewReader(out))
		open := 0
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			name, _ := z.TagName()
			switch tt {
			case html.StartTagToken, html.SelfClosingTagToken:
				if !allowedElements[string(name)] {
					t.Errorf("%s renders a <%s>: untrusted text escaped its block", f, name)
				}
				if string(name) == "details" {
					open++
				}
			case html.EndTagToken:
				if string(name) == "details" {
					open--
				}
			}
		}
		if open != 0 {
			t.Errorf("%s: %d <details> left open", f, open)
		}
	}
}

// The no-trailer comment's first screen — what comes before the first
// folded <details> — holds the test, CI's error and the push table.
func TestRender_NoTrailerCommentFirstScreen(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("..", "action", "testdata", "comments", "no-trailers.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := renderGFM(t, string(md))
	first, _, ok := strings.Cut(out, "<details>")
	if !ok {
		t.Fatal("nothing is folded")
	}
	for _, want := range []string{"users.TestLogin", "expected 409, got 500", "<table>"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen lacks %q", want)
		}
	}
}
