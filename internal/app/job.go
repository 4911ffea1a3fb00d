package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/gitfetch"
	"github.com/greenlight-ci/breaker/internal/report"
)

// result is how a delivery ended: skipped (and why), or the verdict's
// state and whether it fails the check (an enforced OPEN: the Action's
// exit 42).
type result struct {
	skipped string
	state   string
	enforce bool
}

// maxLog caps what one delivery's run logs.
const maxLog = 1 << 20

// judge runs the Action's use case for the delivery, as the App: the
// repository's settings from its default branch, a clone of it at the
// tested commit, the event's payload, and an installation token. The
// Action's log becomes the delivery's structured log lines.
func (s *Server) judge(ctx context.Context, d delivery, log *slog.Logger) (result, error) {
	token, err := s.app.InstallationToken(ctx, d.installation)
	if err != nil {
		return result{}, err
	}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: s.set.APIURL, GraphQLURL: s.set.GraphQLURL,
		Owner: d.owner, Repo: d.repo, UserAgent: "greenlight-breaker/" + s.deps.Version})
	if err != nil {
		return result{}, err
	}
	data, _, err := client.ReadFile(ctx, ConfigPath, d.defaultBranch, maxConfig)
	if err != nil {
		return result{}, err
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return result{}, err
	}
	if d.event == "check_run" {
		next, why, err := s.rerequested(ctx, d, client, cfg)
		if err != nil || next == nil {
			return result{skipped: why}, err
		}
		d = *next
	}
	if d.event == "workflow_run" && !cfg.Judges(d.workflow) {
		return result{skipped: fmt.Sprintf("workflow %q is not among the tested workflows (%s: workflows)", report.SafeLine(d.workflow), ConfigPath)}, nil
	}
	dir, err := os.MkdirTemp(s.scratchDir(), "breaker-delivery-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	env, err := s.prepare(ctx, d, client, cfg, token, dir, log)
	if err != nil {
		return result{}, err
	}
	r, out := s.run(ctx, env, log)
	if out.Err != nil || d.event != "workflow_run" || out.Ledger == nil {
		return r, out.Err
	}
	next, err := s.settle(ctx, d, client, out.Ledger)
	if err != nil || next == nil {
		return r, err
	}
	// An entry was written side by side: the newest judged head is judged
	// again, once, its run reading every entry there is now.
	s.metrics.settled.Inc()
	log.Info("an entry of the pull request was written side by side with this run: judging its newest judged head again",
		"head", next.headSHA, "run", next.runID)
	if err := s.retarget(ctx, next, token, dir, env); err != nil {
		return r, err
	}
	r, out = s.run(ctx, env, log)
	return r, out.Err
}

// run runs the Action once in env; its log becomes the delivery's
// structured log lines.
func (s *Server) run(ctx context.Context, env map[string]string, log *slog.Logger) (result, action.Outcome) {
	var logBuf bytes.Buffer
	out := action.Run(ctx, s.deps, actionenv.New(func(k string) string { return env[k] }, &cappedWriter{w: &logBuf, left: maxLog}))
	sc := bufio.NewScanner(&logBuf)
	sc.Buffer(make([]byte, 64<<10), maxLog)
	for sc.Scan() {
		log.Debug("action", "line", sc.Text())
	}
	r := result{enforce: out.Enforce}
	if out.Decision != nil {
		r.state = string(out.Decision.State)
	}
	return r, out
}

// prepare fetches the line of work the delivery judges into dir, writes
// the payload, and returns the Action's environment.
func (s *Server) prepare(ctx context.Context, d delivery, client *ghapi.Client, cfg Config, token, dir string, log *slog.Logger) (map[string]string, error) {
	work, temp := filepath.Join(dir, "repo"), filepath.Join(dir, "temp")
	if err := os.Mkdir(temp, 0o700); err != nil {
		return nil, err
	}
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, d.body, 0o600); err != nil {
		return nil, err
	}
	head, base := d.headSHA, d.baseSHA
	if d.pr > 0 {
		pr, err := client.PullRequest(ctx, d.pr)
		if err != nil {
			return nil, err
		}
		head, base = pr.HeadSHA, pr.BaseSHA
	}
	depth, err := fetchLine(ctx, work, d.cloneURL, d.defaultBranch, head, base, authFor(d.cloneURL, token))
	if err != nil {
		return nil, err
	}
	log.Info("fetched the line of work", "head", head, "depth", depth)
	env := map[string]string{
		"GITHUB_EVENT_NAME": d.event, "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": d.owner + "/" + d.repo,
		"GITHUB_WORKSPACE": work, "RUNNER_TEMP": temp, "GITHUB_API_URL": s.set.APIURL, "GITHUB_GRAPHQL_URL": s.set.GraphQLURL,
		"GITHUB_SERVER_URL": s.set.ServerURL, "GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	if d.runID > 0 {
		env["GITHUB_RUN_ID"], env["GITHUB_RUN_ATTEMPT"] = strconv.FormatInt(d.runID, 10), strconv.Itoa(max(d.runAttempt, 1))
	}
	for k, v := range cfg.Inputs {
		env[inputEnv(k)] = v
	}
	env[inputEnv("token")] = token
	env[inputEnv("app-id")] = strconv.FormatInt(s.set.AppID, 10)
	env[inputEnv("ledger-key")] = s.set.LedgerKey
	return env, nil
}

// The depths fetchLine fetches at: the newest firstDepth commits, then
// eight times as many, up to lastDepth, then the whole history.
const (
	firstDepth = 64
	lastDepth  = 64 << 9
)

// fetchLine fetches into dir what judging head reads: its history and its
// base's (the default branch's when base is ""), down to where they meet,
// deepening a shallow fetch until they do. A clone costs the line of work,
// not the repository's age. It returns the depth it fetched at (0 = the
// whole history).
func fetchLine(ctx context.Context, dir, url, branch, head, base string, auth transport.AuthMethod) (int, error) {
	var commits []string
	for _, c := range []string{head, base} {
		if c != "" {
			commits = append(commits, c)
		}
	}
	for depth := firstDepth; ; depth *= 8 {
		if depth > lastDepth {
			depth = 0 // the whole history
		}
		// Each depth into a fresh repository: go-git keeps the boundary of
		// the shallower fetch in .git/shallow after a deeper one, where the
		// history no longer ends (gitlog would stop there).
		if err := os.RemoveAll(dir); err != nil {
			return depth, err
		}
		if err := gitfetch.Shallow(ctx, dir, url, branch, commits, depth, auth); err != nil {
			return depth, err
		}
		if depth == 0 || head == "" {
			return depth, nil
		}
		if met, err := gitfetch.Meets(dir, branch, head, base); err != nil || met {
			return depth, err
		}
	}
}

// inputEnv is the variable the Action reads an input from (go-githubactions'
// GetInput: INPUT_ and the name upper-cased, spaces as underscores).
func inputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// authFor is the token's credentials for an https clone URL, none for
// another (a local path in tests).
func authFor(url, token string) transport.AuthMethod {
	if strings.HasPrefix(url, "https://") {
		return gitfetch.Token(token)
	}
	return nil
}

// cappedWriter keeps the first left bytes written to it.
type cappedWriter struct {
	w    *bytes.Buffer
	left int
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	n := min(len(p), c.left)
	c.w.Write(p[:n])
	c.left -= n
	return len(p), nil
}
