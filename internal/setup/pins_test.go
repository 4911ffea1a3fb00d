package setup

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

// The table parses, and every action init writes is in it.
func TestPins_TheTableHoldsEveryActionInitWrites(t *testing.T) {
	t.Parallel()
	pins, err := Pins()
	if err != nil {
		t.Fatal(err)
	}
	if len(pins) < 9 {
		t.Fatalf("the table holds %d pins", len(pins))
	}
	for _, u := range []string{useCheckout, useUpload, useDownload, useSetupGo, useSetupPython, useSetupNode, useSetupJava, useSetupDotnet, useCreateAppToken} {
		if strings.Contains(u, "UNPINNED") {
			t.Errorf("%s is not in pins.txt", u)
		}
	}
}

// A bad row is named by its line, and a row without its check's record is
// refused: no pin is typed by hand.
func TestPins_BadRowsAreNamed(t *testing.T) {
	t.Parallel()
	const ok = "actions/checkout\tv7.0.1\t3d3c42e5aac5ba805825da76410c181273ba90b1\t2026-11-28: tag v7.0.1 is this commit in actions/checkout (its newest release)"
	for _, c := range []struct{ text, want string }{
		{"# c\n" + ok + "\n", ""},
		{"actions/checkout\tv7.0.1\n", "pins.txt:1: want 4"},
		{strings.Replace(ok, "3d3c42e5", "3d3c42eZ", 1), "not a 40-hex SHA"},
		{strings.Replace(ok, "\tv7.0.1\t", "\tv7\t", 1), `release "v7" is not a version tag`},
		{strings.Replace(ok, "tag v7.0.1 is", "tag v7.0.0 is", 1), "no record that tag v7.0.1 is its commit"},
		{"\n" + ok + "\n" + ok, "pins.txt:3: actions/checkout is pinned twice"},
		{strings.Replace(ok, "actions/checkout", "actions checkout", 1), "is not OWNER/REPO"},
	} {
		_, err := ParsePins(c.text)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("ParsePins(%q) = %v, want %q", c.text, err, c.want)
		}
	}
}

var usesLineRE = regexp.MustCompile(`uses: ([^\s#]+)(.*)`)

// Every uses: line in the README, docs/, this repository's workflows and
// the binary action is either the table's pin of its action, byte for
// byte, or init's placeholder line for the breaker — no other owner of
// the breaker, no tag, no pin typed beside the table.
func TestPins_EveryShownActionIsTheTablesPin(t *testing.T) {
	t.Parallel()
	pins, err := Pins()
	if err != nil {
		t.Fatal(err)
	}
	byAction := map[string]Pin{}
	for _, p := range pins {
		byAction[p.Action] = p
	}
	root := filepath.Join("..", "..")
	var files []string
	for _, dir := range []string{"docs", ".github/workflows"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") {
				continue // docs/'s own tests, which show unpinned lines on purpose
			}
			files = append(files, dir+"/"+e.Name())
		}
	}
	files = append(files, "README.md", "binary/action.yml")
	seen := 0
	for _, f := range files {
		data, err := fs.ReadFile(os.DirFS(root), f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			m := usesLineRE.FindStringSubmatch(line)
			if m == nil || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			ref, rest := m[1], strings.TrimRight(m[2], " ")
			if strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "docker://") || strings.HasPrefix(ref, "$") || !strings.Contains(ref, "@") {
				continue
			}
			seen++
			name, at, _ := strings.Cut(ref, "@")
			parts := strings.SplitN(name, "/", 3)
			action := parts[0] + "/" + parts[min(1, len(parts)-1)]
			if strings.HasSuffix(action, "/breaker") || strings.Contains(name, "breaker/binary") {
				_, whole, _ := strings.Cut(line, "uses: ")
				if whole != PlaceholderUses+BreakerComment && whole != strings.Replace(PlaceholderUses, "@", "/binary@", 1)+BreakerComment {
					t.Errorf("%s:%d: %q names the breaker otherwise than init's line %q", f, i+1, strings.TrimSpace(line), "uses: "+PlaceholderUses+BreakerComment)
				}
				continue
			}
			p, ok := byAction[action]
			if !ok {
				t.Errorf("%s:%d: %s is not in internal/setup/pins.txt", f, i+1, action)
				continue
			}
			if at != p.Commit || !strings.HasPrefix(rest, " # "+p.Release) {
				t.Errorf("%s:%d: %s, want the table's %s", f, i+1, strings.TrimSpace(line), p.Uses())
			}
		}
	}
	if seen < 30 {
		t.Errorf("read %d uses: lines; the scan is broken", seen)
	}
}

// init keeps what it pins current: a Dependabot configuration for the
// workflows' actions when the repository has none, a note when it has one
// without them, nothing when it has them.
func TestPins_DependabotKeepsThemCurrent(t *testing.T) {
	t.Parallel()
	const uses = "acme/breaker@0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name, existing string
		wantFile       bool
		wantNote       string
	}{
		{"none", "", true, ""},
		{"gomod only", "version: 2\nupdates:\n  - package-ecosystem: gomod\n    directory: /\n", false, "has no github-actions ecosystem"},
		{"actions too", "version: 2\nupdates:\n  - package-ecosystem: github-actions\n    directory: /\n", false, ""},
	} {
		fsys := fstest.MapFS{"go.mod": {Data: []byte("module x\n")}}
		if c.existing != "" {
			fsys[".github/dependabot.yml"] = &fstest.MapFile{Data: []byte(c.existing)}
		}
		plan, err := Build(fsys, Options{Agent: "other", DefaultBranch: "main", Uses: uses})
		if err != nil {
			t.Fatal(err)
		}
		var file *File
		for i := range plan.Files {
			if plan.Files[i].Path == ".github/dependabot.yml" {
				file = &plan.Files[i]
			}
		}
		if (file != nil) != c.wantFile {
			t.Errorf("%s: writes dependabot.yml: %v", c.name, file != nil)
		}
		if file != nil {
			var cfg struct {
				Updates []struct {
					Ecosystem string `yaml:"package-ecosystem"`
					Directory string `yaml:"directory"`
				} `yaml:"updates"`
			}
			if err := yaml.Unmarshal([]byte(file.Content), &cfg); err != nil || len(cfg.Updates) != 1 || cfg.Updates[0].Ecosystem != "github-actions" || cfg.Updates[0].Directory != "/" {
				t.Errorf("%s: dependabot.yml = %+v, %v", c.name, cfg, err)
			}
		}
		notes := strings.Join(plan.Notes, "\n")
		if (c.wantNote == "") != (notes == "") || !strings.Contains(notes, c.wantNote) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.wantNote)
		}
	}
}
