package app_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/cli"
)

// childEnv makes the test binary `breaker serve` itself: a replica of
// its own process (TestMain).
const childEnv = "BREAKER_APP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(cli.Main(context.Background(), []string{"breaker", "serve"}, os.Getenv, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// process is a replica in a process of its own — this test binary run as
// `breaker serve` with the settings from its environment, as a container
// platform passes them — sharing nothing with the others but GitHub.
func (w *world) process() *replica {
	w.t.Helper()
	port := freePort(w.t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "PORT="+port, "BREAKER_WEBHOOK_SECRET="+secret,
		"GITHUB_APP_ID="+strconv.Itoa(appID), "GITHUB_APP_PRIVATE_KEY="+strings.ReplaceAll(pemOf(appKey()), "\n", `\n`),
		"GITHUB_API_URL="+w.gh.URL())
	cmd.Stderr = w.logs()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // it drains its queue, then exits
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			w.t.Error("a replica did not stop within a minute of SIGTERM")
		}
	}
	w.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			stop()
		}
	})
	url := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatal("the replica's process did not answer /healthz in 30 s")
		}
	}
	return &replica{url: url, drain: stop}
}
