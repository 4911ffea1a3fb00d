package evaluate

import (
	"context"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Greenlight lines that git does not read as trailers are named in the
// notes with the reason; git itself parses the messages (real commits).
func TestLoad_NearMissTrailersAreNamed(t *testing.T) {
	t.Parallel()
	g := newScenarioGit(t)
	dir := g.dir
	g.run("commit", "-q", "--allow-empty", "-m", "Initial commit")
	g.run("checkout", "-q", "-b", "agent/S-1")
	msgs := map[string]string{
		"Try one\nGreenlight-Test: TestNoBlank\n":                                                 "no blank line between the subject",
		"Try two\n\nGreenlight-Test: TestProse\nI changed the handler because it was wrong.\n":    "prose inside the block",
		"Try three\n\nGreenlight-Test: TestEarly\n\nMore words after it.\n":                       "not in the last paragraph",
		"Try four\n\nGreenlight-Slice: S-1\nGreenlight-Tset: TestTypo\n":                          "did you mean Greenlight-Test?",
		"Try five\n\nGreenlight-Slice: S-1\nGreenlight-Test: TestFine\nGreenlight-Result: fail\n": "",
	}
	for msg := range msgs {
		g.commit(msg)
	}
	snap, err := Load(context.Background(), Options{RepoDir: dir, Base: "main", Policy: breaker.DefaultPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(snap.Decide(snap.LocalRefs()).Notes, "\n")
	for msg, why := range msgs {
		line := strings.Split(strings.TrimSpace(strings.Split(msg, "\n\n")[len(strings.Split(msg, "\n\n"))-1]), "\n")[0]
		if why == "" {
			if strings.Contains(notes, "TestFine") {
				t.Errorf("a well-formed trailer is named as a near miss:\n%s", notes)
			}
			continue
		}
		if !strings.Contains(notes, why) {
			t.Errorf("no note says %q (for %q):\n%s", why, line, notes)
		}
	}
	for _, name := range []string{"TestNoBlank", "TestProse", "TestEarly", "Greenlight-Tset"} {
		if !strings.Contains(notes, name) {
			t.Errorf("the notes do not name the line with %s:\n%s", name, notes)
		}
	}
}
