package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tripped comment an agent without trailers gets (three failing pushes
// of one test, each with its commit subject and files), as a golden file:
// the test and CI's error first, the push history, the question and the
// derived hypothesis, the rest folded. And the same spiral with trailers.
func TestComment_Golden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		trailers bool
	}{{"no-trailers", false}, {"trailers", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTrust(t)
			tr.h.repo.Git("checkout", "-q", "-b", "copilot/fix-login")
			subjects := []string{"Support link objects in res.links", "Quote link params", "Escape the link target"}
			for i, subject := range subjects {
				msg := subject + "\n"
				if tc.trailers {
					msg += fmt.Sprintf("\nGreenlight-Slice: S-3\nGreenlight-Test: TestLogin\nGreenlight-Strategy: %s\nGreenlight-Hypothesis: the header is quoted twice\n", strings.ToLower(subject))
				}
				tr.h.repo.CommitFiles(msg, map[string]string{fmt.Sprintf("lib/response%d.js", i): "module.exports = {}\n", "lib/links.js": fmt.Sprintf("// take %d\n", i)})
				tr.push(7, "copilot/fix-login", map[string]string{"TestLogin": "fail", "TestLogout": "pass"})
			}
			comments := tr.h.comments(7)
			if len(comments) != 1 {
				t.Fatalf("%d comments, want 1", len(comments))
			}
			body := comments[0].Body
			if tc.name == "no-trailers" {
				first := strings.Join(strings.Split(body, "\n")[:20], "\n")
				for _, want := range []string{"users.TestLogin", "expected 409, got 500", "Push history"} {
					if !strings.Contains(first, want) {
						t.Errorf("the first lines lack %q:\n%s", want, first)
					}
				}
				for _, want := range []string{"Quote link params", "lib/links.js", "the same error as the push before", "From CI's evidence, not the agent's words"} {
					if !strings.Contains(body, want) {
						t.Errorf("the comment lacks %q", want)
					}
				}
				if strings.Count(body, "<details>") != strings.Count(body, "</details>") {
					t.Errorf("a <details> is not closed")
				}
			}
			matchGolden(t, "comments/"+tc.name+".md", body)
		})
	}
}

// On the real runners' results (Jest, pytest, mocha, go test), the tripped
// comment of an agent without trailers carries the runner's useful failure
// lines on its first screen, the full output folded below.
func TestComment_FirstScreenCarriesTheRunnersUsefulLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"jest-junit.xml", "Expected value to strictly be equal to:"},
		{"pytest-junit.xml", "AssertionError: assert"},
		{"mocha-junit.xml", "1 !== 2"},
		{"gotest-table.json", "Divide(1, 0) = 0, want -1"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("..", "testresult", "testdata", "runners", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tr := newTrust(t)
			tr.h.inputs["results"] = "runner-results"
			tr.h.repo.Git("checkout", "-q", "-b", "codex/fix")
			for i := range 3 {
				tr.commit(fmt.Sprintf("Try again, take %d", i+1))
				writeFile(t, filepath.Join(tr.h.repo.Dir, "runner-results"), string(data))
				tr.push(7, "codex/fix", map[string]string{})
			}
			c := tr.h.comments(7)
			if len(c) != 1 {
				t.Fatalf("%d comments", len(c))
			}
			first, _, _ := strings.Cut(c[0].Body, "<details>")
			if !strings.Contains(strings.ReplaceAll(first, "&amp;", "&"), tc.want) {
				t.Errorf("the first screen lacks %q:\n%s", tc.want, first)
			}
			if strings.Contains(first, "jest-circus") || strings.Contains(first, "node_modules") {
				t.Errorf("the first screen carries stack frames:\n%s", first)
			}
		})
	}
}
