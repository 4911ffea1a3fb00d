// Command commentheight renders a breaker comment (markdown) as GitHub
// renders it — GFM with goldmark, GitHub's own stylesheet from the npm
// package github-markdown-css — in a column of a given width, as an HTML
// page whose title a headless browser sets to the rendered height in
// pixels. bench/comment-height.sh drives it with Chromium.
//
//	go run ./bench/commentheight -css github-markdown-light.css -width 880 comment.md > page.html
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

func main() {
	css := flag.String("css", "", "GitHub's markdown stylesheet (github-markdown-light.css)")
	width := flag.Int("width", 880, "the comment column's width in pixels")
	flag.Parse()
	if flag.NArg() != 1 || *css == "" {
		fmt.Fprintln(os.Stderr, "usage: commentheight -css FILE [-width PX] COMMENT.md")
		os.Exit(2)
	}
	md, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "commentheight:", err)
		os.Exit(1)
	}
	style, err := os.ReadFile(*css)
	if err != nil {
		fmt.Fprintln(os.Stderr, "commentheight:", err)
		os.Exit(1)
	}
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &body); err != nil {
		fmt.Fprintln(os.Stderr, "commentheight:", err)
		os.Exit(1)
	}
	fmt.Printf(`<!doctype html><html><head><meta charset="utf-8"><title>0</title><style>%s</style>
<style>body{margin:0}.markdown-body{box-sizing:border-box;width:%dpx;padding:16px}</style></head>
<body><article class="markdown-body">%s</article>
<script>
var body = document.querySelector('.markdown-body'), wide = 0;
document.querySelectorAll('.markdown-body table, .markdown-body pre').forEach(function (el) {
  if (el.closest('details:not([open])')) return;
  wide = Math.max(wide, el.scrollWidth - el.clientWidth);
});
document.title = String(Math.ceil(body.getBoundingClientRect().height)) + (wide > 0 ? ' wider-by-' + wide + 'px' : '');
</script>
</body></html>
`, style, *width, body.String())
}
