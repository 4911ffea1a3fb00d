package trailer

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gitParse is git's own answer for each message: it commits every message
// into one fresh repository with a single `git fast-import` (which stores the
// message bytes as given), then reads all trailers back with a single
// `git log --format=%(trailers:only,unfold)`. It skips the test when git is
// not installed.
func gitParse(t *testing.T, msgs []string) [][][2]string {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH: skipping the differential test against git")
	}
	git := gitRunner(t, gitBin, t.TempDir())
	git(nil, "init", "-q")
	git(fastImportStream(msgs), "fast-import", "--quiet")
	out := git(nil, "log", "-z", "--reverse", "--format=%(trailers:only,unfold)", "refs/heads/oracle")
	records := strings.Split(string(out), "\x00")
	if len(records) > 0 && records[len(records)-1] == "" {
		records = records[:len(records)-1]
	}
	if len(records) != len(msgs) {
		t.Fatalf("git log gave %d records for %d messages", len(records), len(msgs))
	}
	got := make([][][2]string, len(records))
	for i, r := range records {
		got[i] = parseGitOutput(t, r)
	}
	return got
}

// gitRunner returns a function that runs git in dir, isolated from the
// user's and the system's configuration, and fails the test on any error.
func gitRunner(t *testing.T, gitBin, dir string) func(stdin []byte, args ...string) []byte {
	return func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", dir}, args...)...)
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + dir,
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
			"LC_ALL=C",
		}
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
}

// fastImportStream is a fast-import stream of one commit per message, each on
// top of the previous one on refs/heads/oracle, all with the empty tree.
func fastImportStream(msgs []string) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		fmt.Fprintf(&b, "commit refs/heads/oracle\ncommitter O <o@example.com> 0 +0000\ndata %d\n%s\n", len(m), m)
	}
	b.WriteString("done\n")
	return b.Bytes()
}

// parseGitOutput splits git's "Key: value" lines into pairs. A key never
// holds a ':' and a value never holds a newline, so the split is exact.
func parseGitOutput(t *testing.T, record string) [][2]string {
	t.Helper()
	out := [][2]string{}
	for _, line := range strings.SplitAfter(record, "\n") {
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
		if !ok {
			t.Fatalf("unexpected git trailer line %q", line)
		}
		out = append(out, [2]string{key, value})
	}
	return out
}
