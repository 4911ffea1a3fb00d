package src

import (
	"io/fs"
	"strings"
	"testing"
)

func TestDocs_PresentAndNonEmpty(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		b, err := fs.ReadFile(Docs(), name)
		if err != nil {
			t.Errorf("embedded %s: %v", name, err)
			continue
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			t.Errorf("embedded %s is empty", name)
		}
	}
}

func TestDocs_NamesListEveryFile(t *testing.T) {
	t.Parallel()
	var got []string
	err := fs.WalkDir(Docs(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(Names) {
		t.Errorf("embedded files %v, Names %v: every embedded file must be listed", got, Names)
	}
}

func TestProtocol_NamesTheThresholdsAndTrailers(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(Docs(), "protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Greenlight-Test", "Greenlight-Justify", "Greenlight-Infra", "**3**", "**7**", "/breaker reset"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("protocol.md does not mention %q", want)
		}
	}
}
