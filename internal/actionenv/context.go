package actionenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Context is the run's context from the runner's environment.
type Context struct {
	EventName string
	Owner     string // GITHUB_REPOSITORY, before the slash
	Repo      string // GITHUB_REPOSITORY, after the slash
	Workspace string // GITHUB_WORKSPACE
	APIURL    string // GITHUB_API_URL, default https://api.github.com
	// GraphQLURL is GITHUB_GRAPHQL_URL; "" means derived from APIURL.
	GraphQLURL string
	RunID      int64 // GITHUB_RUN_ID
	// RunAttempt is GITHUB_RUN_ATTEMPT: 1, or more for a re-run, which
	// replays the original event (the same comment).
	RunAttempt int
	RunnerTemp string // RUNNER_TEMP: scratch space of the job; "" = the system's
	ServerURL  string // GITHUB_SERVER_URL, default https://github.com
	SHA        string // GITHUB_SHA
	Ref        string // GITHUB_REF
	RunURL     string // the run's page, when the runner says
	Event      Event
}

// Context reads the run's context and parses the event payload at
// GITHUB_EVENT_PATH. A missing variable the breaker needs is an error naming
// it.
func (a *Action) Context() (Context, error) {
	c := Context{
		EventName:  a.getenv("GITHUB_EVENT_NAME"),
		Workspace:  a.getenv("GITHUB_WORKSPACE"),
		APIURL:     orDefault(a.getenv("GITHUB_API_URL"), "https://api.github.com"),
		ServerURL:  orDefault(a.getenv("GITHUB_SERVER_URL"), "https://github.com"),
		SHA:        a.getenv("GITHUB_SHA"),
		GraphQLURL: a.getenv("GITHUB_GRAPHQL_URL"),
		RunnerTemp: a.getenv("RUNNER_TEMP"),
		Ref:        a.getenv("GITHUB_REF"),
	}
	full := a.getenv("GITHUB_REPOSITORY")
	owner, name, ok := strings.Cut(full, "/")
	var errs []error
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		errs = append(errs, fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name; run inside GitHub Actions", full))
	}
	c.Owner, c.Repo = owner, name
	if c.EventName == "" {
		errs = append(errs, errors.New("GITHUB_EVENT_NAME is not set; run inside GitHub Actions"))
	}
	if c.Workspace == "" {
		errs = append(errs, errors.New("GITHUB_WORKSPACE is not set; run inside GitHub Actions"))
	}
	if id := a.getenv("GITHUB_RUN_ID"); id != "" && full != "" {
		c.RunURL = c.ServerURL + "/" + full + "/actions/runs/" + id
		c.RunID, _ = strconv.ParseInt(id, 10, 64)
	}
	c.RunAttempt = 1
	if n, err := strconv.Atoi(a.getenv("GITHUB_RUN_ATTEMPT")); err == nil && n > 1 {
		c.RunAttempt = n
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	ev, err := a.readEvent(c.EventName, full)
	c.Event = ev
	return c, err
}

func (a *Action) readEvent(name, repo string) (Event, error) {
	path := a.getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return Event{}, errors.New("GITHUB_EVENT_PATH is not set; run inside GitHub Actions")
	}
	f, err := os.Open(path)
	if err != nil {
		return Event{}, fmt.Errorf("open event payload: %w", err)
	}
	defer f.Close()
	return ParseEvent(name, repo, f)
}
