// Command serveload measures what one `breaker serve` replica sustains
// (issue 49): deliveries judged a second, the time from a delivery's
// POST to its verdict written (p50, p99), and the server's memory and CPU
// after every thousand deliveries — flat, or growing with what it saw.
//
// It runs the real binary (`breaker serve`, GOMAXPROCS=2) against the
// project's fake GitHub (an App installation, installation tokens, the
// ledger as the App's check runs, each run's results artifact) and a real
// repository served over git's smart HTTP protocol by git http-backend, as
// GitHub serves clones. Each of -prs pull requests is an agent pushing
// -pushes times: a push's completed workflow_run is delivered, signed as
// GitHub signs it, once the one before it was judged (an agent pushes
// again after CI answered); -active pull requests push side by side, the
// next starting when one is done.
//
//	go run ./bench/serveload -prs 100 -pushes 100 -workers 4
//	go run ./bench/serveload -prs 1000 -pushes 10 -active 16
//
// The fake GitHub and git http-backend share the machine with the server:
// deliveries/s is the whole machine's; the server's own CPU is its
// process's user+sys time. The time to the verdict is from the POST to
// the server's "delivery judged" log line (its check run, comment and tags
// written).
package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

const (
	appID        = 424242
	installation = 31337
	secret       = "a-webhook-secret-of-some-length"
	installToken = "ghs_installationTokenOfTheApp000"
	testName     = "TestRegister_DuplicateEmail"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

type config struct {
	prs, pushes, workers int
	active               int // pull requests pushing at once
	baseCommits          int // the default branch's history
	binary               string
	every                int
}

func run() error {
	var cfg config
	flag.IntVar(&cfg.prs, "prs", 100, "pull requests, each an agent pushing side by side with the others")
	flag.IntVar(&cfg.pushes, "pushes", 100, "pushes of each pull request (deliveries = prs × pushes)")
	flag.IntVar(&cfg.workers, "workers", 4, "the server's --workers")
	flag.IntVar(&cfg.active, "active", 0, "pull requests pushing at once (0 = all): the next starts when one has pushed -pushes times")
	flag.IntVar(&cfg.baseCommits, "base-commits", 0, "commits on the default branch before the pull requests (a repository's age)")
	flag.IntVar(&cfg.every, "every", 1000, "print the server's memory and CPU after this many deliveries")
	flag.StringVar(&cfg.binary, "breaker", "", "the breaker binary (default: go build ./cmd/breaker)")
	flag.Parse()
	if cfg.prs < 1 || cfg.pushes < 1 || cfg.workers < 1 || cfg.every < 1 || cfg.active < 0 {
		return fmt.Errorf("-prs, -pushes, -workers and -every must be at least 1, -active at least 0")
	}
	if cfg.active == 0 || cfg.active > cfg.prs {
		cfg.active = cfg.prs
	}
	tmp, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	t := &tb{dir: tmp}
	defer t.cleanup()
	if cfg.binary == "" {
		cfg.binary = filepath.Join(tmp, "breaker")
		if out, err := exec.Command("go", "build", "-o", cfg.binary, "./cmd/breaker").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/breaker: %v\n%s", err, out)
		}
	}
	fmt.Fprintf(os.Stderr, "serveload: %d pull requests × %d pushes, %d pushing at once, %d workers; a repository of %d commits (%d on its default branch)\n",
		cfg.prs, cfg.pushes, cfg.active, cfg.workers, cfg.prs*cfg.pushes+cfg.baseCommits+1, cfg.baseCommits+1)
	w, err := newWorld(t, cfg)
	if err != nil {
		return err
	}
	srv, err := startServer(t, cfg, w)
	if err != nil {
		return err
	}
	defer srv.stop()
	return w.load(cfg, srv)
}

// world is the repository, its clone URL, the fake GitHub and the heads
// of every pull request's pushes.
type world struct {
	gh       *ghfake.Server
	cloneURL string
	base     string
	heads    [][]string // heads[pr][push]
	key      *rsa.PrivateKey
	junit    []byte
}

func newWorld(t *tb, cfg config) (*world, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	repo := gitrepo.Init(t)
	w := &world{key: key}
	w.base = repo.CommitFiles("Initial commit", map[string]string{"README.md": "shop\n", "internal/users/service.go": "package users\n"})
	// Every push a commit of its own on the pull request's branch, made
	// by git fast-import in one go.
	var stream bytes.Buffer
	mark := 0
	if cfg.baseCommits > 0 { // the repository's age: a default branch of its own history
		fmt.Fprintf(&stream, "reset refs/heads/main\nfrom %s\n\n", w.base)
		for i := range cfg.baseCommits {
			mark++
			body := fmt.Sprintf("package users // main %d\n", i)
			fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter Maintainer <m@example.com> %d +0000\ndata 4\nmain\nM 100644 inline internal/users/file%d.go\ndata %d\n%s\n",
				mark, 1771000000+mark, i%500, len(body), body)
		}
		repo.GitIn(stream.String(), "fast-import", "--quiet")
		stream.Reset()
		w.base = repo.Git("rev-parse", "main")
	}
	for p := range cfg.prs {
		fmt.Fprintf(&stream, "reset refs/heads/agent/pr-%d\nfrom %s\n\n", p, w.base)
		for k := range cfg.pushes {
			mark++
			body := fmt.Sprintf("package users // pr %d, try %d\n", p, k)
			fmt.Fprintf(&stream, "commit refs/heads/agent/pr-%d\nmark :%d\ncommitter Agent <agent@example.com> %d +0000\ndata %d\n%s\nM 100644 inline internal/users/service.go\ndata %d\n%s\n",
				p, mark, 1771405200+mark, len(fmt.Sprintf("try %d", k)), fmt.Sprintf("try %d", k), len(body), body)
		}
	}
	repo.GitIn(stream.String(), "fast-import", "--quiet")
	w.heads = make([][]string, cfg.prs)
	for p := range cfg.prs {
		w.heads[p] = strings.Fields(repo.Git("rev-list", "--reverse", "main..agent/pr-"+strconv.Itoa(p)))
		if len(w.heads[p]) != cfg.pushes {
			return nil, fmt.Errorf("branch agent/pr-%d has %d commits, want %d", p, len(w.heads[p]), cfg.pushes)
		}
	}
	w.cloneURL = repo.Serve()
	w.gh = ghfake.New(t, ghfake.WithToken(installToken), ghfake.WithAppKey(appID, "greenlight-breaker", &key.PublicKey, installation), ghfake.WithoutHistory())
	w.gh.SetDefaultBranch("main", w.base)
	w.gh.SetFile("main", ".github/breaker.yml", "workflows: [Tests]\nresults-artifact: test-results\nresults: reports/*.xml\n")
	w.junit = ghfake.ZipOf(t, map[string]string{"reports/junit.xml": `<testsuite name="users"><testcase classname="users" name="` + testName + `"><failure message="expected 409, got 500">service_test.go:42</failure></testcase></testsuite>`})
	return w, nil
}

// push makes push k of pull request p GitHub's state: the pull request at
// that head with its commits, the tested run and its artifact. It returns
// the run's id.
func (w *world) push(p, k int) int64 {
	pr := forge.PullRequest{Number: p + 1, HeadSHA: w.heads[p][k], HeadRef: "agent/pr-" + strconv.Itoa(p), BaseRef: "main", BaseSHA: w.base, Author: "agent-bot"}
	// The hour's GraphQL budget is not what is measured (the points a
	// delivery spends are printed): each push finds it whole.
	w.gh.SetGraphQLRemaining(ghfake.InstallationGraphQLLimit)
	w.gh.AddPullRequest(pr)
	w.gh.SetPullRequestCommits(pr.Number, w.heads[p][:k+1])
	runID := int64(1_000_000 + p*100_000 + k)
	w.gh.AddArtifact(runID, "test-results", w.junit)
	w.gh.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: pr.HeadRef, SHA: pr.HeadSHA, Event: "pull_request", Status: "completed",
		Conclusion: "failure", Workflow: "tests.yml", Name: "Tests", PullRequests: []forge.RunPullRequest{{Number: pr.Number, BaseSHA: w.base, BaseRef: "main"}}})
	return runID
}

// delivery is push k of pull request p's completed workflow_run, as
// GitHub sends it to the App (its documented fields the server reads).
func (w *world) delivery(p, k int, runID int64) ([]byte, error) {
	repo := map[string]any{"id": 731002, "name": ghfake.DefaultRepo, "url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo}
	pr := map[string]any{"url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo + "/pulls/" + strconv.Itoa(p+1),
		"id": 1881000 + p, "number": p + 1,
		"head": map[string]any{"ref": "agent/pr-" + strconv.Itoa(p), "sha": w.heads[p][k], "repo": repo},
		"base": map[string]any{"ref": "main", "sha": w.base, "repo": repo}}
	return json.Marshal(map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{"id": runID, "name": "Tests", "run_attempt": 1, "event": "pull_request", "status": "completed",
			"conclusion": "failure", "head_sha": w.heads[p][k], "head_branch": "agent/pr-" + strconv.Itoa(p), "pull_requests": []any{pr},
			"head_repository": map[string]any{"full_name": ghfake.DefaultOwner + "/" + ghfake.DefaultRepo, "owner": map[string]any{"login": ghfake.DefaultOwner}, "fork": false}},
		"repository": map[string]any{"name": ghfake.DefaultRepo, "full_name": ghfake.DefaultOwner + "/" + ghfake.DefaultRepo,
			"owner": map[string]any{"login": ghfake.DefaultOwner}, "clone_url": w.cloneURL, "default_branch": "main"},
		"installation": map[string]any{"id": installation},
	})
}

// server is the breaker serve process and what its log says.
type server struct {
	cmd    *exec.Cmd
	url    string
	judged chan string // delivery ids, as their verdicts are written
	errs   chan string
}

func startServer(t *tb, cfg config, w *world) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(w.key)})
	cmd := exec.Command(cfg.binary, "serve", "--addr", addr, "--workers", strconv.Itoa(cfg.workers))
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2", "BREAKER_WEBHOOK_SECRET="+secret, "GITHUB_APP_ID="+strconv.Itoa(appID),
		"GITHUB_APP_PRIVATE_KEY="+string(keyPEM), "GITHUB_API_URL="+w.gh.URL(), "TMPDIR="+t.dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr + "/webhook", judged: make(chan string, 1024), errs: make(chan string, 1024)}
	go s.read(stderr)
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("breaker serve did not answer /healthz in 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// read follows the server's JSON log lines.
func (s *server) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg      string `json:"msg"`
			Delivery string `json:"delivery"`
			Error    string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			if os.Getenv("SERVELOAD_DUMP") != "" {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
			continue
		}
		switch line.Msg {
		case "delivery judged":
			s.judged <- line.Delivery
		case "delivery failed", "delivery skipped":
			s.errs <- line.Delivery + ": " + line.Msg + " " + line.Error
		}
	}
}

func (s *server) stop() {
	if os.Getenv("SERVELOAD_DUMP") != "" { // its goroutines, on stderr
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

// post sends one delivery, signed.
func (s *server) post(id string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("X-GitHub-Event", "workflow_run")
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("delivery %s: %s", id, resp.Status)
	}
	return nil
}

// sample is the server's memory and CPU at a point of the load.
type sample struct {
	done         int
	goroutines   int
	rssMB, hwmMB float64
	heapMB       float64
	cpuS         float64
	at           time.Duration
}

// load runs every pull request's pushes, each pull request's next push
// once its last was judged, and prints the figures.
func (w *world) load(cfg config, s *server) error {
	total := cfg.prs * cfg.pushes
	next := make([]int, cfg.prs) // each pull request's next push
	posted := map[string]time.Time{}
	owner := map[string]int{}
	var mu sync.Mutex
	start := time.Now()
	send := func(p int) error {
		k := next[p]
		next[p]++
		runID := w.push(p, k)
		body, err := w.delivery(p, k, runID)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("pr%d-push%d", p, k)
		mu.Lock()
		posted[id], owner[id] = time.Now(), p
		mu.Unlock()
		return s.post(id, body)
	}
	started := cfg.active
	for p := range cfg.active {
		if err := send(p); err != nil {
			return err
		}
	}
	var lat []time.Duration
	var samples []sample
	fmt.Printf("%8s %9s %9s %9s %9s %11s %9s %11s\n", "judged", "elapsed", "rss MB", "peak MB", "heap MB", "goroutines", "cpu s", "judged/s")
	for done := 0; done < total; {
		select {
		case id := <-s.judged:
			mu.Lock()
			at, p := posted[id], owner[id]
			delete(posted, id)
			mu.Unlock()
			lat = append(lat, time.Since(at))
			done++
			if done%cfg.every == 0 || done == total {
				sm, err := s.measure(done, time.Since(start))
				if err != nil {
					return err
				}
				samples = append(samples, sm)
				fmt.Printf("%8d %8.1fs %9.1f %9.1f %9.1f %11d %9.1f %11.1f\n", sm.done, sm.at.Seconds(), sm.rssMB, sm.hwmMB, sm.heapMB, sm.goroutines, sm.cpuS, float64(done)/sm.at.Seconds())
			}
			if next[p] == cfg.pushes && started < cfg.prs { // this one is done: the next agent starts
				p, started = started, started+1
			}
			if next[p] < cfg.pushes {
				if err := send(p); err != nil {
					return err
				}
			}
		case e := <-s.errs:
			return fmt.Errorf("the server did not judge a delivery: %s", e)
		case <-time.After(5 * time.Minute):
			return fmt.Errorf("no verdict in 5 minutes after %d deliveries", done)
		}
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	q := func(f float64) time.Duration { return lat[min(len(lat)-1, int(f*float64(len(lat))))] }
	fmt.Printf("\n%d deliveries in %.1fs: %.1f judged/s; time to the verdict p50 %s, p99 %s, max %s\n",
		total, elapsed.Seconds(), float64(total)/elapsed.Seconds(), q(0.50).Round(time.Millisecond), q(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	if len(samples) > 1 {
		first, last := samples[0], samples[len(samples)-1]
		fmt.Printf("memory: rss %.1f MB after %d, %.1f MB after %d (×%.2f); heap in use %.1f → %.1f MB; server CPU %.1f ms a delivery\n",
			first.rssMB, first.done, last.rssMB, last.done, last.rssMB/first.rssMB, first.heapMB, last.heapMB, 1000*last.cpuS/float64(total))
	}
	points := 0
	for _, c := range w.gh.GraphQLCosts() {
		points += c
	}
	fmt.Printf("GitHub: %.1f GraphQL points a delivery (an installation's hour holds 5,000 to 12,500: %.0f to %.0f deliveries)\n",
		float64(points)/float64(total), 5000/(float64(points)/float64(total)), 12500/(float64(points)/float64(total)))
	checks := len(w.gh.CheckRuns())
	if checks < total {
		return fmt.Errorf("%d check runs written for %d deliveries", checks, total)
	}
	return nil
}

// measure reads the server's resident memory and CPU from /proc and its
// heap in use from /metrics.
func (s *server) measure(done int, at time.Duration) (sample, error) {
	sm := sample{done: done, at: at}
	pid := s.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return sm, fmt.Errorf("the server's memory (Linux /proc): %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseFloat(f[1], 64)
			if f[0] == "VmRSS:" {
				sm.rssMB = kb / 1024
			} else {
				sm.hwmMB = kb / 1024
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return sm, err
	}
	// The fields after the command's name (which may hold spaces):
	// utime and stime are the 14th and 15th, in clock ticks (100 a second).
	if i := bytes.LastIndexByte(stat, ')'); i > 0 {
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 13 {
			u, _ := strconv.ParseFloat(f[11], 64)
			sy, _ := strconv.ParseFloat(f[12], 64)
			sm.cpuS = (u + sy) / 100
		}
	}
	resp, err := http.Get(strings.TrimSuffix(s.url, "/webhook") + "/metrics")
	if err != nil {
		return sm, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			b, _ := strconv.ParseFloat(v, 64)
			sm.heapMB = b / (1 << 20)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			sm.goroutines, _ = strconv.Atoi(v)
		}
	}
	return sm, nil
}

// tb lets the repository builder and the fake GitHub run outside a test:
// a failure ends the benchmark by panicking with it.
type tb struct {
	testing.TB
	dir      string
	n        int
	cleanups []func()
}

func (t *tb) Helper()                           {}
func (t *tb) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *tb) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *tb) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *tb) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (t *tb) Skip(args ...any) { // git, or its http-backend, is not installed
	fmt.Fprintln(os.Stderr, "serveload: cannot run here:", fmt.Sprint(args...))
	t.cleanup()
	os.Exit(0)
}
func (t *tb) Logf(string, ...any) {}
func (t *tb) Name() string        { return "serveload" }
func (t *tb) Failed() bool        { return false }
func (t *tb) TempDir() string {
	t.n++
	dir := filepath.Join(t.dir, "t"+strconv.Itoa(t.n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		panic(err)
	}
	return dir
}

func (t *tb) cleanup() {
	for _, f := range slices.Backward(t.cleanups) {
		f()
	}
}
