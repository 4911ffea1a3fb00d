// Package docs holds the project's documentation pages; its test keeps
// them skimmable (issue 48): no paragraph a wall, the long pages opening
// with what they answer.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxParagraph is the most lines a paragraph (or one list item's
// paragraph) may run to.
const maxParagraph = 10

var listItem = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s`)

// paragraphs are a page's paragraphs outside code blocks, tables, HTML
// and headings: each with the line it starts on and its lines. A list item
// starts a paragraph of its own.
func paragraphs(text string) (out [][2]int) {
	start, n, fenced := 0, 0, false
	flush := func() {
		if n > 0 {
			out = append(out, [2]int{start + 1, n})
		}
		n = 0
	}
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			fenced = !fenced
			continue
		case fenced:
			continue
		case t == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "<"):
			flush()
			continue
		case listItem.MatchString(l):
			flush()
		}
		if n == 0 {
			start = i
		}
		n++
	}
	flush()
	return out
}

func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	return append(files, filepath.Join("..", "README.md"))
}

func TestPages_NoParagraphIsAWall(t *testing.T) {
	t.Parallel()
	for _, p := range pages(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, para := range paragraphs(string(data)) {
			if para[1] > maxParagraph {
				t.Errorf("%s:%d: a paragraph of %d lines; at most %d (split it, or make it a list or a table)", p, para[0], para[1], maxParagraph)
			}
		}
	}
}

// The long pages open with what they answer: after the title and the
// line that links the index, a summary of at most ten lines before the
// first section.
func TestPages_TheLongPagesOpenWithASummary(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"ledger.md", "action.md"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head, _, ok := strings.Cut(string(data), "\n## ")
		if !ok {
			t.Fatalf("%s has no section", p)
		}
		var summary []string
		for _, l := range strings.Split(head, "\n")[1:] {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "Part of the [") {
				summary = append(summary, l)
			}
		}
		if len(summary) == 0 || len(summary) > maxParagraph {
			t.Errorf("%s opens with %d lines before its first section; want a summary of 1 to %d", p, len(summary), maxParagraph)
		}
	}
}

// The rule sees what a reader sees: a list item is a paragraph of its
// own, a code block or a table is none.
func TestPages_WhatCountsAsAParagraph(t *testing.T) {
	t.Parallel()
	text := "# T\n\none\ntwo\n\n- a\n  b\n- c\n\n```\nx\ny\n```\n| a |\n|---|\n"
	got := paragraphs(text)
	want := [][2]int{{3, 2}, {6, 2}, {8, 1}}
	if len(got) != len(want) {
		t.Fatalf("paragraphs %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("paragraph %d: %v; want %v", i, got[i], want[i])
		}
	}
}
