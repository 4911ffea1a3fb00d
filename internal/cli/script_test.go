package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// TestMain lets testscript run this package's test binary as the breaker
// command: `exec breaker ...` in a script runs Main in a process of its own,
// in the script's working directory, with the script's environment.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"breaker": func() {
			os.Exit(Main(context.Background(), os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar, each a
// script of commands (git builds a real repository, breaker judges it) and
// the files it uses. `exits N cmd args...` runs cmd and wants exit code N.
func TestScripts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       golden.Updating(),
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, who := range []string{"AUTHOR", "COMMITTER"} {
				e.Setenv("GIT_"+who+"_NAME", "Agent")
				e.Setenv("GIT_"+who+"_EMAIL", "agent@example.com")
				e.Setenv("GIT_"+who+"_DATE", "2026-02-18T09:00:00Z")
			}
			e.Setenv("GITHUB_ACTIONS", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits is `exits N cmd args...`: run cmd and fail unless it exits N.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exits: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
