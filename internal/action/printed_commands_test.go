package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// printedCommand finds the /breaker commands a report prints, with its
// placeholders (<guidance>, [--rollback]) as a person fills them in.
var printedCommand = regexp.MustCompile("/breaker (?:reset|debug)[^`\"\\n)]*")

// Every command the golden comments print is one the breaker accepts: run
// through the command parser, none is refused as malformed.
func TestPrintedCommandsAreAccepted(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "comments", "*.md"))
	if len(files) < 9 {
		t.Fatalf("found %d golden comments; want every kind's", len(files))
	}
	files = append(files, filepath.Join("..", "cli", "testdata", "demo", "demo.markdown.golden"))
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range printedCommand.FindAllString(string(data), -1) {
			cmd := strings.NewReplacer("&lt;guidance&gt;", "try the index", "<guidance>", "try the index",
				"[--rollback]", "--rollback", "[guidance]", "try the index", "[slice]", "").Replace(m)
			cmd = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cmd), "followed by your guidance"))
			parsed, ok := parseCommand(cmd)
			if !ok || parsed.Problem != "" {
				t.Errorf("%s prints %q, which the breaker refuses: %q", filepath.Base(f), m, parsed.Problem)
			}
			if strings.Contains(m, "  ") {
				t.Errorf("%s prints %q with a blank slice", filepath.Base(f), m)
			}
			seen++
		}
	}
	if seen < 3 {
		t.Fatalf("found %d printed commands: the check proves nothing", seen)
	}
}
