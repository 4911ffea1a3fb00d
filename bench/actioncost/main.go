// Command actioncost measures what one `breaker action` run costs as a
// pull request's ledger grows (issue 29): CPU (user+sys), peak RSS, the
// GraphQL points and the API calls of the run, for a grid of ledger
// entries, the runs of each size alternating so a noisy machine shifts
// them alike. Each case is a real git repository (a main commit and the
// agent branch's commits), a JUnit file of the suite with some tests
// failing, and the project's fake GitHub holding the earlier heads'
// ledger entries as the breaker's own check runs, written by the same
// writer the Action uses (evaluate.Snapshot.Entry and ledger.Encode).
//
//	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5
//
// It prints each size's median CPU (user + sys), peak RSS, GraphQL
// points, API calls, exit code and wall time (the fake GitHub shares the
// machine, so wall time counts its work too).
//
// ACTIONCOST_CALLS=1 lists each run's requests; ACTIONCOST_SHOW=1 prints
// the newest entry of each case as written; ACTIONCOST_GODEBUG=gctrace=1
// prints each run's garbage collections; ACTIONCOST_LOG=1 prints each
// run's log lines (how it read the ledger); ACTIONCOST_PROCS=N runs the
// breaker with GOMAXPROCS=N (breaker action uses one processor unless
// GOMAXPROCS is set: with two, a collection still marking while the run
// waits for GitHub let the runtime's idle mark worker spin on the other,
// and the CPU of one size flipped between two values from run to run).
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

func main() {
	if len(os.Args) > 3 && os.Args[1] == "-launch" {
		os.Exit(launch(os.Args[2], os.Args[3:]))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "actioncost:", err)
		os.Exit(1)
	}
}

type config struct {
	entries              []int
	commits, tests, fail int
	pushed               int // commits the newest push added
	spacing              int // commits each earlier push added
	declared             int
	policy               string
	runs                 int
	binary               string
	key                  string // the ledger-key input; "" for none
	read                 string // the ledger-read input; "" for the default (newest)
	line                 int    // -line: pushes along one line, each run writing its entry
	pause                time.Duration
}

func run() error {
	var cfg config
	var sizes string
	flag.StringVar(&sizes, "entries", "10,100,1000", "ledger entries before the run, comma-separated")
	flag.IntVar(&cfg.commits, "commits", 250, "commits on the agent branch")
	flag.IntVar(&cfg.pushed, "pushed", 1, "commits the newest push added (the earlier heads end that far behind the head)")
	flag.IntVar(&cfg.spacing, "spacing", 1, "commits each earlier push added (the earlier heads on the branch are this far apart)")
	flag.IntVar(&cfg.tests, "tests", 20000, "tests in the suite")
	flag.IntVar(&cfg.fail, "failing", 20, "failing tests at every push")
	flag.IntVar(&cfg.runs, "runs", 5, "runs of each size (alternating); the median is reported")
	flag.StringVar(&cfg.binary, "breaker", "", "the breaker binary (default: built from this tree as released: CGO_ENABLED=0, -trimpath, stripped)")
	flag.StringVar(&cfg.key, "key", "", "a ledger key: the entries are signed with it and the run is given it (default: none)")
	flag.StringVar(&cfg.read, "read", "", "the run's ledger-read input: newest (the default) or every-page")
	flag.StringVar(&cfg.policy, "policy", "", "the run's policy input (greenlight, bmad, prp, liza; default greenlight), its entries written under it")
	flag.IntVar(&cfg.declared, "declared", 0, "every commit declares an attempt (Greenlight-Test) on one of this many failing tests, in turn, as an agent that follows the protocol does (default: no trailers)")
	flag.IntVar(&cfg.line, "line", 0, "instead of -entries: N one-commit pushes along the branch's newest N commits, each judged by a run that writes its own entry; prints every push's cost and the worst")
	flag.DurationVar(&cfg.pause, "pause", 0, "with -line: the pause between two pushes (runs a second or more apart, as on GitHub, where a run takes minutes)")
	flag.Parse()
	if err := cfg.check(sizes); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "actioncost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.binary == "" {
		cfg.binary = filepath.Join(tmp, "breaker")
		// Built as released (.goreleaser.yaml, the Dockerfile): static, no cgo.
		build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", cfg.binary, "./cmd/breaker")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/breaker (run from the project root): %w", err)
		}
	}
	signed := cfg.describe()
	if cfg.line > 0 {
		return runLine(tmp, cfg, signed)
	}
	fmt.Printf("%d commits, %d tests (%d failing), %s, %d runs a size, alternating\n", cfg.commits, cfg.tests, cfg.fail, signed, cfg.runs)
	cases := make([]*benchCase, len(cfg.entries))
	for i, n := range cfg.entries {
		c, err := newCase(filepath.Join(tmp, "case-"+strconv.Itoa(n)), cfg, n)
		if err != nil {
			return fmt.Errorf("%d entries: %w", n, err)
		}
		defer c.close()
		cases[i] = c
		fmt.Printf("  %5d entries: %d bytes of ledger text, newest entry %d bytes\n", n, c.ledgerBytes, c.newestBytes)
	}
	for r := 0; r < cfg.runs; r++ {
		for _, c := range cases {
			if err := c.once(cfg.binary); err != nil {
				return fmt.Errorf("%d entries: %w", c.entries, err)
			}
		}
	}
	fmt.Printf("\n%8s %12s %12s %8s %9s %7s %8s\n", "entries", "cpu ms", "peak RSS MB", "points", "API calls", "exit", "wall ms")
	ref := 0.0
	for i, c := range cases {
		cpu := median(c.cpu)
		if i == 0 {
			ref = cpu
		}
		fmt.Printf("%8d %12.0f %12.1f %8d %9d %7d %8.0f", c.entries, cpu, median(c.rss), c.points, c.calls, c.exit, median(c.wall))
		if i > 0 && ref > 0 {
			fmt.Printf("   cpu %.2fx the first", cpu/ref)
		}
		fmt.Println()
	}
	return nil
}

// check checks the flags and reads -entries (sizes) into cfg.
func (cfg *config) check(sizes string) error {
	if cfg.spacing < 1 || cfg.spacing >= cfg.commits {
		return fmt.Errorf("-spacing %d: want at least 1 and fewer than -commits (%d)", cfg.spacing, cfg.commits)
	}
	if cfg.policy != "" {
		if err := breaker.CheckPolicy(cfg.policy); err != nil {
			return fmt.Errorf("-policy: %w", err)
		}
	}
	if cfg.declared < 0 || cfg.declared > cfg.fail {
		return fmt.Errorf("-declared %d: want 0 (no trailers) up to -failing (%d)", cfg.declared, cfg.fail)
	}
	if cfg.pushed < 1 || cfg.pushed >= cfg.commits {
		return fmt.Errorf("-pushed %d: want at least 1 and fewer than -commits (%d)", cfg.pushed, cfg.commits)
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-entries: %q is not a count", s)
		}
		cfg.entries = append(cfg.entries, n)
	}
	return nil
}

// describe says how the ledger is written and read, for the first line.
func (cfg config) describe() string {
	signed := "unsigned ledger"
	if cfg.key != "" {
		signed = "ledger signed with -key"
	}
	if cfg.read != "" {
		signed += ", ledger-read: " + cfg.read
	}
	if cfg.declared > 0 {
		signed += fmt.Sprintf(", every commit declaring an attempt on one of %d failing tests", cfg.declared)
	}
	if cfg.policy != "" {
		signed += ", policy " + cfg.policy
	}
	return signed
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// launch runs args as a child of this small process and writes its CPU
// time and peak RSS to file. Linux counts in a child's peak RSS the memory
// of the process it was forked from: measured straight from the benchmark
// (which holds the whole fake GitHub), every run would read as large as
// the benchmark. Started from this launcher, the figure is the breaker's,
// give or take the launcher's few megabytes.
func launch(file string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "actioncost -launch:", err)
		return 125
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "actioncost -launch: no resource usage on this system")
		return 125
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if err := os.WriteFile(file, []byte(fmt.Sprintf("%d %d\n", cpu.Microseconds(), ru.Maxrss)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "actioncost -launch:", err)
		return 125
	}
	return code
}

// tb lets the fake GitHub run outside a test: it reports a failure by
// panicking with it (this is a benchmark; a broken fake ends it).
type tb struct {
	testing.TB
	cleanups []func()
}

func (t *tb) Helper()                           {}
func (t *tb) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *tb) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *tb) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *tb) Logf(string, ...any)               {}
func (t *tb) Name() string                      { return "actioncost" }
func (t *tb) Failed() bool                      { return false }

type benchCase struct {
	entries                  int
	key                      []byte // signs the entries; nil for none
	read                     string // the ledger-read input; "" for the default
	policy                   string // the policy input; "" for the default
	dir, head, eventPath     string
	t                        *tb
	srv                      *ghfake.Server
	ledgerBytes, newestBytes int
	cpu, rss, wall           []float64
	points, calls, exit      int
	// keep keeps what a run wrote (a line of runs, -line); a size's runs
	// each start from the same ledger.
	keep bool
}

func (c *benchCase) close() {
	for i := len(c.t.cleanups) - 1; i >= 0; i-- {
		func() {
			defer func() { _ = recover() }()
			c.t.cleanups[i]()
		}()
	}
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// newCase builds the repository, the results and the fake GitHub with n
// earlier entries: the newest ones on the branch's own commits, older
// ones on heads force-pushed away.
func newCase(dir string, cfg config, n int) (*benchCase, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	var stream strings.Builder
	when := int64(1767225600)
	commit := func(ref string, mark int, msg string, from int) {
		fmt.Fprintf(&stream, "commit %s\nmark :%d\ncommitter agent <agent@example.com> %d +0000\ndata %d\n%s\n", ref, mark, when, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(&stream, "from :%d\n", from)
		}
		fmt.Fprintf(&stream, "M 644 inline src/cache.go\ndata %d\n%s\n\n", len(msg), msg)
		when += 60
	}
	commit("refs/heads/main", 1, "base", 0)
	for i := 1; i <= cfg.commits; i++ {
		msg := fmt.Sprintf("fix attempt %d", i)
		if cfg.declared > 0 {
			msg += fmt.Sprintf("\n\nGreenlight-Test: TestCache%05d", i%cfg.declared)
		}
		commit("refs/heads/agent/S-1", i+1, msg, i)
	}
	imp := exec.Command("git", "fast-import", "--quiet")
	imp.Dir, imp.Stdin = dir, strings.NewReader(stream.String())
	if out, err := imp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	if _, err := git(dir, "checkout", "-q", "agent/S-1"); err != nil {
		return nil, err
	}
	log, err := git(dir, "log", "--reverse", "--format=%H %T %P", "agent/S-1")
	if err != nil {
		return nil, err
	}
	var results strings.Builder
	results.WriteString("<?xml version=\"1.0\"?>\n<testsuite name=\"cache\">\n")
	for i := 0; i < cfg.tests; i++ {
		fmt.Fprintf(&results, "  <testcase classname=\"cache/pkg%03d\" name=\"TestCache%05d\">", i%200, i)
		if i < cfg.fail {
			results.WriteString(`<failure message="got 1, want 2">cache_test.go:12: got 1, want 2</failure>`)
		}
		results.WriteString("</testcase>\n")
	}
	results.WriteString("</testsuite>\n")
	if err := os.WriteFile(filepath.Join(dir, "junit.xml"), []byte(results.String()), 0o644); err != nil {
		return nil, err
	}

	c := &benchCase{entries: n, dir: dir, t: &tb{}, read: cfg.read, policy: cfg.policy}
	if cfg.key != "" {
		c.key = []byte(cfg.key)
	}
	c.srv = ghfake.New(c.t)
	var shas []string
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		c.srv.AddCommit(f[0], f[1], "", f[2:]...)
		shas = append(shas, f[0])
	}
	c.srv.SetDefaultBranch("main", shas[0])
	c.head = shas[len(shas)-1]
	c.srv.SetRef("heads/agent/S-1", c.head)
	c.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: c.head, HeadRef: "agent/S-1", BaseRef: "main",
		BaseSHA: shas[0], Author: "agent-bot"})
	c.srv.SetPullRequestCommits(7, shas[1:])

	// The earlier heads: the newest on the branch's own commits (before
	// the head), the rest on heads force-pushed away.
	// The newest push brought cfg.pushed commits: the earlier heads end
	// that far behind the head.
	branch := shas[1 : len(shas)-cfg.pushed]
	heads := make([]string, n)
	onBranch := map[string]bool{}
	for i := range heads {
		if back := (n-i-1)*cfg.spacing + 1; back <= len(branch) {
			heads[i] = branch[len(branch)-back]
			onBranch[heads[i]] = true
			continue
		}
		sum := sha1.Sum([]byte("rewritten head " + strconv.Itoa(i)))
		heads[i] = hex.EncodeToString(sum[:])
		c.srv.AddForcePush(7, heads[i])
	}
	if err := c.seed(heads, onBranch); err != nil {
		return nil, err
	}
	payload, err := os.ReadFile("internal/actionenv/testdata/webhooks/push.json")
	if err != nil {
		return nil, fmt.Errorf("run from the project root: %w", err)
	}
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	ev["ref"], ev["after"] = "refs/heads/agent/S-1", c.head
	if n > 0 {
		ev["before"] = heads[n-1]
	}
	// The pushed commits, as GitHub lists them (the newest cfg.pushed).
	template := ev["commits"].([]any)[0].(map[string]any)
	var pushed []any
	for _, sha := range shas[len(shas)-cfg.pushed:] {
		commit := map[string]any{}
		for k, v := range template {
			commit[k] = v
		}
		commit["id"] = sha
		pushed = append(pushed, commit)
	}
	ev["commits"] = pushed
	data, _ := json.Marshal(ev)
	c.eventPath = filepath.Join(dir, "event.json")
	return c, os.WriteFile(c.eventPath, data, 0o644)
}

// seed writes the entries the Action's writer writes for these heads:
// one Load of this repository and results, then each entry the one its
// run would have written with the earlier ones in the ledger: from the
// newest entry's carry and the entries after it, as a run reads
// them (evaluate.Snapshot.WithLedger), so each entry keeps the carry its
// run folded.
func (c *benchCase) seed(heads []string, onBranch map[string]bool) error {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts := evaluate.Options{RepoDir: c.dir, Head: c.head, Base: "main", Branch: "agent/S-1",
		Results: []string{"junit.xml"}, Ledger: evaluate.Ledger{Source: "check-runs"},
		Run: evaluate.Run{ObservedAt: start, RunID: 1000, Event: "push", PR: 7, Branch: "agent/S-1"}}
	opts.Policy.Name = c.policy
	snap, err := evaluate.Load(context.Background(), opts)
	if err != nil {
		return err
	}
	var written []ledger.Entry
	pushedAway := map[string]bool{} // as GitHub's timeline lists them: every head off the branch
	for _, h := range heads {
		if !onBranch[h] {
			pushedAway[h] = true
		}
	}
	for i, h := range heads {
		at, runID := start.Add(time.Duration(i)*time.Minute), int64(1000+i)
		l := evaluate.Ledger{Source: "check-runs", Key: c.key, Entries: written}
		if n := len(written); n > 0 && written[n-1].Carry != nil {
			from := written[n-1]
			l.Entries, l.From = written[n-from.Carry.NewestEntries():], &from
			if k := n - from.Carry.NewestEntries() - 1; k >= 0 {
				l.Edge = written[k].Head
			}
		}
		run := snap.WithLedger(l, at, runID)
		d := run.Decide(breaker.Refs{})
		if why := run.FoldRefused(d); why != "" {
			// As the Action does: the whole line, decided again.
			run = snap.WithLedger(evaluate.Ledger{Source: "check-runs", Key: c.key, Entries: written}, at, runID)
			d = run.Decide(breaker.Refs{})
		}
		e := run.Entry(d)
		e.Head = h
		// As the writer names them (evaluate.NamePrevHeads), with the
		// entries before it read: a head on the branch has the branch's
		// commits up to it in its history, one force-pushed away none.
		history := map[string]bool{}
		if onBranch[h] {
			for _, b := range heads[:i+1] {
				if onBranch[b] {
					history[b] = true
				}
			}
		}
		e.PrevHeads, e.Since, e.Seq = evaluate.NamePrevHeads(written, nil, history, h)
		block, w := ledger.Encode(e, c.key)
		text := "The ledger entry of this head.\n\n" + block
		// As the Action's writer relays them (action.Relay): the entries
		// the next run needs from far behind this head.
		read := l.Entries
		if l.From != nil {
			read = append(slices.Clone(read), *l.From)
		}
		if rb := ledger.EncodeRelay(action.Relay(w, read, upTo(snap.Commits(), h), run.Belongs, pushedAway), c.key); rb != "" {
			text += "\n" + rb
		}
		c.ledgerBytes += len(text)
		c.newestBytes = len(block)
		if os.Getenv("ACTIONCOST_SHOW") != "" && i == len(heads)-1 {
			fmt.Fprintln(os.Stderr, block)
		}
		// The conclusion the Action writes: an OPEN entry's run fails (a
		// tripped entry's run concluded success is tampering).
		conclusion := "success"
		if w.Verdict.State == breaker.StateOpen {
			conclusion = "failure"
		}
		w.CheckRunID = c.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: h, Conclusion: conclusion, Text: text,
			AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
		written = append(written, w)
	}
	return nil
}

// upTo is commits up to head (all of them when head is not one).
func upTo(commits []breaker.Commit, head string) []breaker.Commit {
	for i, c := range commits {
		if breaker.SameSHA(c.SHA, head) {
			return commits[:i+1]
		}
	}
	return commits
}

// once runs the Action on the head and records its cost; the check run it
// writes is taken back so every run of the case sees the same ledger.
func (c *benchCase) once(binary string) error {
	before := len(c.srv.Calls())
	costs := len(c.srv.GraphQLCosts())
	runsBefore := len(c.srv.CheckRuns())
	out := filepath.Join(c.dir, "out")
	_ = os.MkdirAll(out, 0o755)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	usage := filepath.Join(out, "rusage")
	cmd := exec.Command(self, "-launch", usage, binary, "action")
	cmd.Dir = c.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=push", "GITHUB_EVENT_PATH=" + c.eventPath,
		"GITHUB_REPOSITORY=" + c.srv.Owner() + "/" + c.srv.Repo(), "GITHUB_WORKSPACE=" + c.dir,
		"GITHUB_OUTPUT=" + filepath.Join(out, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(out, "summary"),
		"GITHUB_RUN_ID=99999", "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_API_URL=" + strings.TrimSuffix(c.srv.URL(), "/"), "GITHUB_GRAPHQL_URL=" + c.srv.URL() + "graphql",
		"INPUT_TOKEN=bench-token", "INPUT_RESULTS=junit.xml"}
	if c.key != nil {
		cmd.Env = append(cmd.Env, "INPUT_LEDGER-KEY="+string(c.key))
	}
	if c.read != "" {
		cmd.Env = append(cmd.Env, "INPUT_LEDGER-READ="+c.read)
	}
	if c.policy != "" {
		cmd.Env = append(cmd.Env, "INPUT_POLICY="+c.policy)
	}
	if g := os.Getenv("ACTIONCOST_PROCS"); g != "" {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+g)
	}
	if g := os.Getenv("ACTIONCOST_GODEBUG"); g != "" {
		// e.g. gctrace=1: each garbage collection of the run, on stderr.
		cmd.Env = append(cmd.Env, "GODEBUG="+g)
	}
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	start := time.Now()
	err = cmd.Run()
	c.wall = append(c.wall, float64(time.Since(start).Microseconds())/1000)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return err
	}
	for _, l := range strings.Split(stdout.String(), "\n") {
		if (os.Getenv("ACTIONCOST_GODEBUG") != "" && strings.HasPrefix(l, "gc ")) ||
			(os.Getenv("ACTIONCOST_LOG") != "" && strings.HasPrefix(l, "breaker: ")) || os.Getenv("ACTIONCOST_LOG") == "all" {
			fmt.Fprintln(os.Stderr, l)
		}
	}
	if code != 0 && code != 42 {
		return fmt.Errorf("breaker action exited %d:\n%s", code, stdout.String())
	}
	data, err := os.ReadFile(usage)
	if err != nil {
		return err
	}
	var cpuMicros, rssKiB int64
	if _, err := fmt.Sscan(string(data), &cpuMicros, &rssKiB); err != nil {
		return fmt.Errorf("%s: %w", usage, err)
	}
	c.cpu = append(c.cpu, float64(cpuMicros)/1000)
	c.rss = append(c.rss, float64(rssKiB)/1024) // KiB on Linux
	c.calls, c.exit, c.points = len(c.srv.Calls())-before, code, 0
	if os.Getenv("ACTIONCOST_CALLS") != "" {
		for _, call := range c.srv.Calls()[before:] {
			fmt.Fprintf(os.Stderr, "  %d entries: %s\n", c.entries, call)
		}
	}
	for _, p := range c.srv.GraphQLCosts()[costs:] {
		c.points += p
	}
	if !c.keep {
		c.srv.DropCheckRunsAfter(runsBefore)
	}
	return nil
}

// runLine judges the branch's newest cfg.line commits one push at a time,
// as CI would: each run reads the entries the runs before it wrote and
// writes its own, so every push along the line is measured, not only the
// last. It prints each push's CPU, points and calls, then the median and
// the worst.
func runLine(tmp string, cfg config, signed string) error {
	if cfg.line >= cfg.commits {
		return fmt.Errorf("-line %d: want fewer than -commits (%d)", cfg.line, cfg.commits)
	}
	c, err := newCase(filepath.Join(tmp, "line"), cfg, 0)
	if err != nil {
		return err
	}
	defer c.close()
	c.keep = true
	log, err := git(c.dir, "log", "--reverse", "--format=%H", "agent/S-1")
	if err != nil {
		return err
	}
	shas := strings.Fields(log) // shas[0] is main's
	data, err := os.ReadFile(c.eventPath)
	if err != nil {
		return err
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		return err
	}
	template := ev["commits"].([]any)[0].(map[string]any)
	fmt.Printf("%d commits, %d tests (%d failing), %s: %d one-commit pushes along the line, each run writing its entry\n",
		cfg.commits, cfg.tests, cfg.fail, signed, cfg.line)
	fmt.Printf("\n%6s %8s %12s %8s %9s %7s\n", "push", "cpu ms", "peak RSS MB", "points", "API calls", "exit")
	worst := map[string]int{}
	var cpus []float64
	for k := 0; k < cfg.line; k++ {
		i := len(shas) - cfg.line + k
		head, before := shas[i], shas[i-1]
		c.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "agent/S-1", BaseRef: "main", BaseSHA: shas[0], Author: "agent-bot"})
		c.srv.SetPullRequestCommits(7, shas[1:i+1])
		c.srv.SetRef("heads/agent/S-1", head)
		c.srv.SetGraphQLRemaining(ghfake.DefaultGraphQLLimit) // each push in an hour of its own: the budget is not what is measured
		commit := map[string]any{}
		for key, v := range template {
			commit[key] = v
		}
		commit["id"] = head
		ev["after"], ev["before"], ev["commits"] = head, before, []any{commit}
		data, _ := json.Marshal(ev)
		if err := os.WriteFile(c.eventPath, data, 0o644); err != nil {
			return err
		}
		if k > 0 {
			time.Sleep(cfg.pause)
		}
		if err := c.once(cfg.binary); err != nil {
			return fmt.Errorf("push %d: %w", k+1, err)
		}
		cpu := c.cpu[len(c.cpu)-1]
		cpus = append(cpus, cpu)
		fmt.Printf("%6d %8.0f %12.1f %8d %9d %7d\n", k+1, cpu, c.rss[len(c.rss)-1], c.points, c.calls, c.exit)
		for what, v := range map[string]int{"cpu": int(cpu), "points": c.points, "calls": c.calls} {
			if v > worst[what] || k == 0 {
				worst[what], worst[what+" push"] = v, k+1
			}
		}
	}
	fmt.Printf("\nmedian CPU %.0f ms; worst: CPU %d ms (push %d), %d points (push %d), %d calls (push %d)\n", median(cpus),
		worst["cpu"], worst["cpu push"], worst["points"], worst["points push"], worst["calls"], worst["calls push"])
	return nil
}
