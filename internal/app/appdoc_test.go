package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/app"
	"github.com/greenlight-ci/breaker/internal/cli"
)

// appDoc is docs/app.md.
func appDoc(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "app.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// blocks are the page's fenced blocks of a language, line continuations
// joined.
func blocks(doc, lang string) []string {
	var out []string
	for _, b := range strings.Split(doc, "```"+lang+"\n")[1:] {
		body, _, _ := strings.Cut(b, "\n```")
		out = append(out, strings.ReplaceAll(body, "\\\n", " "))
	}
	return out
}

// words splits a shell command line as sh does for the lines the page
// shows: blanks between words, double quotes, $PWD.
func words(line, pwd string) []string {
	var out []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	for i, w := range out {
		out[i] = strings.ReplaceAll(w, "$PWD", pwd)
	}
	return out
}

// breakerMain runs the breaker's command line in-process.
func breakerMain(ctx context.Context, env map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := cli.Main(ctx, append([]string{"breaker"}, args...), func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// Every command docs/app.md shows runs here as shown: breaker serve
// --manifest prints a manifest with the documented fields into the file
// the line names, and the docker line's container command — the image's
// entrypoint (the Dockerfile's) or the one the line sets, with the
// settings its -e and -v pass — starts the server, which stops at once
// (its context is done). Docker itself does not run here.
func TestAppDoc_CommandsRunAsShown(t *testing.T) {
	doc := appDoc(t)
	entrypoint := dockerEntrypoint(t)
	ran := 0
	for _, block := range blocks(doc, "sh") {
		for _, line := range strings.Split(block, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			pwd := t.TempDir()
			w := words(line, pwd)
			switch w[0] {
			case "breaker":
				runBreakerLine(t, w, pwd)
			case "docker":
				runDockerLine(t, w, pwd, entrypoint)
			default:
				t.Errorf("docs/app.md shows %q, which this test does not know how to run", line)
				continue
			}
			ran++
		}
	}
	if ran < 2 {
		t.Errorf("ran %d commands of docs/app.md, want its manifest and docker lines", ran)
	}
}

func runBreakerLine(t *testing.T, w []string, pwd string) {
	t.Helper()
	args, into := w[1:], ""
	if i := slices.Index(args, ">"); i >= 0 {
		args, into = args[:i], filepath.Join(pwd, args[i+1])
	}
	stdout, stderr, code := breakerMain(context.Background(), nil, args...)
	if code != cli.ExitClosed {
		t.Fatalf("breaker %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	if into != "" {
		if err := os.WriteFile(into, []byte(stdout), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Contains(args, "--manifest") {
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatalf("breaker %s printed no JSON: %v", strings.Join(args, " "), err)
		}
		for _, field := range []string{"name", "url", "hook_attributes", "default_events", "default_permissions"} {
			if _, ok := m[field]; !ok {
				t.Errorf("the manifest lacks %q", field)
			}
		}
	}
}

// runDockerLine runs the container's command of a docker run line in
// process: -e NAME takes the value from the host (here the test's), -e
// NAME=VALUE as given, a -v volume's files where its path points.
func runDockerLine(t *testing.T, w []string, pwd string, entrypoint []string) {
	t.Helper()
	if len(w) < 3 || w[1] != "run" {
		t.Fatalf("docs/app.md's docker line is not `docker run`: %q", w)
	}
	host := map[string]string{"BREAKER_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "424242"}
	env := map[string]string{"PORT": freePort(t)} // as a platform sets it: not the line's 8080, which may be taken here
	volumes := map[string]string{}                // container path → host path
	i := 2
	for ; i < len(w) && strings.HasPrefix(w[i], "-"); i += 2 {
		if i+1 >= len(w) {
			t.Fatalf("docker option %s has no value", w[i])
		}
		switch opt, v := w[i], w[i+1]; opt {
		case "-e":
			name, value, set := strings.Cut(v, "=")
			if !set {
				value = host[name]
			}
			env[name] = value
		case "-v":
			parts := strings.Split(v, ":")
			if err := os.MkdirAll(parts[0], 0o700); err != nil {
				t.Fatal(err)
			}
			volumes[parts[1]] = parts[0]
		case "--entrypoint":
			entrypoint = []string{v}
		case "-p":
		default:
			t.Fatalf("docker option %s: this test does not know it", opt)
		}
	}
	if i >= len(w) {
		t.Fatal("the docker line names no image")
	}
	argv := append(slices.Clone(entrypoint), w[i+1:]...)
	if argv[0] != "/breaker" {
		t.Fatalf("the container runs %q, not the breaker", argv)
	}
	for name, value := range env {
		for in, out := range volumes {
			if strings.HasPrefix(value, in+"/") {
				env[name] = out + strings.TrimPrefix(value, in)
				if strings.HasSuffix(value, ".pem") {
					if err := os.WriteFile(env[name], []byte(pemOf(appKey())), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the server starts, then stops: its context is done
	_, stderr, code := breakerMain(ctx, env, argv[1:]...)
	if code != cli.ExitClosed || !strings.Contains(stderr, "listening") {
		t.Errorf("the container's command %q: exit %d, want a server that listened and stopped\n%s", argv, code, stderr)
	}
}

// dockerEntrypoint is the image's ENTRYPOINT, from the Dockerfile.
func dockerEntrypoint(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ENTRYPOINT (\[.*\])$`).FindSubmatch(data)
	var ep []string
	if m == nil || json.Unmarshal(m[1], &ep) != nil || len(ep) == 0 {
		t.Fatal("the Dockerfile has no exec-form ENTRYPOINT")
	}
	return ep
}

// docs/app.md's tables and blocks say what the code does: the
// permissions and events are the manifest's, every setting is one the
// server reads or a flag `breaker serve` takes, every metric is one
// /metrics serves, and the configuration shown parses.
func TestAppDoc_SaysWhatTheCodeDoes(t *testing.T) {
	t.Parallel()
	doc := appDoc(t)
	for perm, access := range app.Permissions {
		name := perm
		if perm == "pull_requests" || perm == "issues" {
			name = "pull_requests, issues"
		}
		if !strings.Contains(doc, "| "+name+" | "+access+" |") {
			t.Errorf("the permissions table lacks %s: %s", perm, access)
		}
	}
	events := regexp.MustCompile(`(?m)^Events: (.*?)\. `).FindStringSubmatch(doc)
	if events == nil {
		t.Fatal("docs/app.md has no Events: line")
	}
	var shown []string
	for _, e := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(events[1], -1) {
		shown = append(shown, e[1])
	}
	slices.Sort(shown)
	if !slices.Equal(shown, app.Events) {
		t.Errorf("docs/app.md's events %v, the manifest's %v", shown, app.Events)
	}

	read := map[string]bool{}
	_, _ = app.LoadSettings("", 0, func(k string) string { read[k] = true; return "" })
	for _, v := range regexp.MustCompile("`((?:BREAKER|GITHUB)_[A-Z_]+|PORT)`").FindAllStringSubmatch(doc, -1) {
		if !read[v[1]] {
			t.Errorf("docs/app.md names %s, which the server does not read", v[1])
		}
	}
	stdout, stderr, _ := breakerMain(context.Background(), nil, "serve", "--help")
	help := stdout + stderr
	for _, f := range regexp.MustCompile("`(--[a-z-]+)`").FindAllStringSubmatch(doc, -1) {
		if !strings.Contains(help, f[1]) {
			t.Errorf("docs/app.md names %s, which breaker serve --help does not", f[1])
		}
	}

	w := newWorld(t, config)
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	pr, runID := w.push(0)
	r := w.replica()
	r.post(t, "workflow_run", "d-0", w.body("workflow_run", w.workflowRun(runID, pr)), secret)
	r.drain() // a delivery judged: every metric has a sample
	resp, err := r.http.Client().Get(r.http.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var metrics bytes.Buffer
	metrics.ReadFrom(resp.Body)
	resp.Body.Close()
	for _, m := range regexp.MustCompile("`(breaker_[a-z_]+)").FindAllStringSubmatch(doc, -1) {
		if !strings.Contains(metrics.String(), "# HELP "+m[1]+" ") {
			t.Errorf("docs/app.md names the metric %s, which /metrics does not serve", m[1])
		}
	}

	for _, y := range blocks(doc, "yaml") {
		if _, err := app.ParseConfig([]byte(y)); err != nil {
			t.Errorf("the configuration docs/app.md shows does not parse: %v\n%s", err, y)
		}
	}
}

// freePort is a port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
