package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line fails closed and names the fix (issue 33): a typo in a
// slice, a results path or a base, a truncated results file, a format it
// does not know, never exit 0 as if all were well.
func TestCLI_TyposFailClosedNamingTheFix(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-3")
	r.commit("Fix the login\n\nGreenlight-Test: TestLogin", map[string]string{"internal/users/service.go": "package users // 2\n"})
	r.results("junit.xml", map[string]string{"TestLogin": "fail"})
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("truncated.json", "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"fail\",\"Pack")
	write("notes.txt", "these are my notes\n")
	cases := []struct {
		name string
		args []string
		code int
		want []string // the input, then the fix
	}{
		{"an unknown slice", []string{"evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xml", "--slice", "S-9"}, ExitUsage,
			[]string{"--slice S-9", "known: S-3", "leave --slice out"}},
		{"a missing results file", []string{"evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xmll"}, ExitError,
			[]string{"junit.xmll", "no such file", "name the files the tests wrote"}},
		{"a truncated go test -json file", []string{"evaluate", "--repo", r.dir, "--base", "main", "--results", "truncated.json"}, ExitError,
			[]string{"truncated.json: line 2", "truncated", "re-run the tests"}},
		{"the truncated file, shown", []string{"results", filepath.Join(r.dir, "truncated.json")}, ExitError,
			[]string{"truncated.json: line 2", "truncated", "re-run the tests"}},
		{"a format it does not know", []string{"results", filepath.Join(r.dir, "notes.txt")}, ExitError,
			[]string{"notes.txt", "JUnit XML", "go test -json", "TAP", "NUnit", "xUnit.net", "TRX"}},
		{"a bmad threshold out of range", []string{"evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xml", "--policy", "bmad", "--threshold", "0"}, ExitUsage,
			[]string{"--threshold", "3–10 is recommended"}},
		{"a base the clone does not hold", []string{"evaluate", "--repo", r.dir, "--base", "nosuch", "--results", "junit.xml"}, ExitError,
			[]string{`"nosuch"`, "fetch-depth: 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runCLI(t, "", c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s\nstdout: %s", code, c.code, stderr, stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("the output does not say %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
	// The same repository judged without the typo: CLOSED, and no refusal.
	if _, stderr, code := runCLI(t, "", "evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xml", "--slice", "S-3"); code != ExitClosed {
		t.Errorf("the known slice: exit %d, %s", code, stderr)
	}
}

// Every subcommand's --help is its help, exit 0, on stdout.
func TestCLI_EveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		stdout, stderr, code := runCLI(t, "", c.name, "--help")
		if code != ExitClosed || stderr != "" || !strings.HasPrefix(stdout, "Usage: breaker "+c.name) {
			t.Errorf("breaker %s --help: exit %d, stderr %q, stdout starts %q", c.name, code, stderr, strings.SplitN(stdout, "\n", 2)[0])
		}
	}
}
