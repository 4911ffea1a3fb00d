package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// runCLI runs the breaker command line in-process and returns its streams and exit code.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, nil, stdin, args...)
}

// runCLIEnv is runCLI with an environment.
func runCLIEnv(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = Main(context.Background(), append([]string{"breaker"}, args...), getenv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// writeFile writes body to path, ending the test on failure.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
