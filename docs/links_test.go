package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is the first screen or two, and the index of docs/: every
// page of docs/ is linked from it, and every relative link of the README
// and of docs/ leads to a file that exists and, with an anchor, to a
// heading of that file (issue 33).
func TestDocs_EveryPageLinkedAndEveryLinkResolves(t *testing.T) {
	t.Parallel()
	root := ".."
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; the first screen or two is at most 250, the rest belongs in docs/", n)
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(pages) < 10 {
		t.Fatalf("docs/ has %d pages", len(pages))
	}
	for _, p := range pages {
		if !strings.Contains(string(readme), "](docs/"+filepath.Base(p)+")") {
			t.Errorf("README.md does not link docs/%s", filepath.Base(p))
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	headingsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		fence := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if !fence && heading.MatchString(l) {
				a[slug(strings.TrimLeft(l, "# "))] = true
			}
		}
		anchors[path] = a
		return a
	}
	for _, file := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links %s, which does not exist", filepath.Base(file), target)
					continue
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !headingsOf(dest)[anchor] {
					t.Errorf("%s links %s: %s has no heading #%s", filepath.Base(file), target, filepath.Base(dest), anchor)
				}
			}
		}
	}
}

// heading is a markdown heading GitHub gives an anchor.
var heading = regexp.MustCompile(`^#{1,6} `)

// slug is GitHub's anchor for a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}
