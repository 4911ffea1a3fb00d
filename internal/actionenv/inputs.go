package actionenv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/rx"
)

// Inputs are the action's inputs, validated. GitHub does not enforce
// `required` nor types, so every input is checked here and a bad one is an
// error naming the input and the fix.
type Inputs struct {
	Token         string
	Results       []string // globs, one a line
	Slice         string
	Base          string
	Graph         string
	TrailerPrefix string
	TagPrefix     string
	Comment       bool     // any comment at all (CommentMode is not off)
	CommentMode   string   // CommentOnFailure, CommentOnTrip, CommentAlways, CommentOff
	AgentActors   []string // logins that may never reset
	BotLogin      string
	FailOnTrip    bool
	DryRun        bool
	// AllowNoLedger lets the run pass when the ledger cannot be written.
	AllowNoLedger bool
	// TestsOutcome is the tests step's outcome (success, failure,
	// cancelled, skipped); "" when not given.
	TestsOutcome string
	CheckName    string // the ledger's check run name
	LedgerKey    string // the ledger-key secret; "" = unsigned
	// LedgerRead is LedgerReadNewest (start from the newest entry's carry
	// when it stands for the line) or LedgerReadEveryPage.
	LedgerRead string
	AppID      int64 // the breaker's GitHub App; 0 = the GitHub Actions app
	// ResultsArtifact names the artifact of the tested run that holds the
	// results (workflow_run only).
	ResultsArtifact string
	Policy          string // greenlight, prp, bmad or liza
	Phase           string // prp: the phase when no commit names one
	Threshold       int    // bmad: consecutive failed pushes that trigger
	// AllowPRAuthor lets the pull request's author run commands (a person
	// opened it); by default the author is treated as the agent.
	AllowPRAuthor bool
	// Mode is ModeJudge (judge the push) or ModeGate (the first step of an
	// agent's workflow: stop it while the breaker is OPEN; writes nothing).
	Mode string
	// PullRequest is the pull request a gate is about; 0 = the event's.
	PullRequest int
	// OnTripLabel is the label put on the pull request when the breaker
	// trips, and taken off at a verified reset; "" = none.
	OnTripLabel string
	// OnTripRemoveLabels are labels taken off the pull request when the
	// breaker trips (those that start the agent), put back at a verified
	// reset.
	OnTripRemoveLabels []string
	// OnTripUnassign are logins unassigned from the pull request when the
	// breaker trips (the agent's: unassigning Copilot's coding agent stops
	// it), assigned again at a verified reset.
	OnTripUnassign []string
	// OnTripRequestReview are people (logins) and teams (ORG/SLUG) asked to
	// review the pull request when the breaker trips.
	OnTripRequestReview []string
	// OnTripDraft turns the pull request into a draft when the breaker
	// trips, and ready again at a verified reset if it was ready before.
	OnTripDraft bool
	// CancelWorkflows cancels, at the trip, the workflow runs still going
	// on the pull request's branch (the agent's), this one aside.
	CancelWorkflows bool
}

// The mode input's values.
const (
	ModeJudge = "judge"
	ModeGate  = "gate"
)

// InputNames are the names of every input the action reads, as action.yml
// declares them.
var InputNames = []string{
	"token", "results", "slice", "base", "graph", "trailer-prefix", "tag-prefix",
	"comment", "agent-actors", "bot-login", "fail-on-trip", "dry-run", "tests-outcome", "allow-no-ledger",
	"policy", "phase", "threshold",
	"results-artifact", "check-name", "ledger-key", "ledger-read", "allow-pr-author", "app-id", "on-trip-label", "on-trip-remove-labels", "on-trip-unassign", "on-trip-request-review", "on-trip-draft", "cancel-workflows", "mode", "pull-request",
}

// The ledger-read input's values: how much of the ledger a run reads.
const (
	LedgerReadNewest    = "newest"     // the newest entries and the carry, when it stands; else every page
	LedgerReadEveryPage = "every-page" // every page, at every run
)

// The comment input's modes: when the sticky comment is first posted.
const (
	CommentOnFailure = "on-failure" // a failed push one short of a trip, or a trip
	CommentOnTrip    = "on-trip"    // only once OPEN
	CommentAlways    = "always"     // every run
	CommentOff       = "off"        // never
)

// DefaultBotLogin is the login GITHUB_TOKEN writes as, used when the
// bot-login input is empty and GitHub does not say who the token is. The default
// prefixes are breaker.DefaultTrailerPrefix and breaker.DefaultTagPrefix.
const DefaultBotLogin = "github-actions[bot]"

// DefaultCheckName is the name of the breaker's check run, used when the
// check-name input is empty.
const DefaultCheckName = "greenlight-breaker"

var fullSHA = rx.Lazy(`^[0-9a-f]{40}$`)

var teamRE = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)

var loginRE = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$`)

// Input returns the raw value of the input name, trimmed. Docker actions get
// INPUT_<NAME> with the hyphens kept; the underscore spelling is accepted
// too, for runs outside the runner.
func (a *Action) Input(name string) string {
	if v := a.gha.GetInput(name); v != "" {
		return v
	}
	return a.gha.GetInput(strings.ReplaceAll(name, "-", "_"))
}

// Inputs reads and validates every input. The error joins one line per bad
// input.
func (a *Action) Inputs() (Inputs, error) {
	in := Inputs{
		Token:               a.Input("token"),
		Results:             lines(a.Input("results"), false),
		Slice:               a.Input("slice"),
		Base:                a.Input("base"),
		Graph:               a.Input("graph"),
		TrailerPrefix:       orDefault(a.Input("trailer-prefix"), breaker.DefaultTrailerPrefix),
		TagPrefix:           orDefault(a.Input("tag-prefix"), breaker.DefaultTagPrefix),
		AgentActors:         lines(a.Input("agent-actors"), true),
		BotLogin:            a.Input("bot-login"),
		CheckName:           orDefault(a.Input("check-name"), DefaultCheckName),
		LedgerKey:           a.Input("ledger-key"),
		ResultsArtifact:     a.Input("results-artifact"),
		Policy:              orDefault(a.Input("policy"), breaker.PolicyGreenlight),
		Phase:               a.Input("phase"),
		Threshold:           breaker.DefaultThreshold,
		OnTripLabel:         a.Input("on-trip-label"),
		OnTripRemoveLabels:  lines(a.Input("on-trip-remove-labels"), true),
		OnTripUnassign:      lines(a.Input("on-trip-unassign"), true),
		OnTripRequestReview: lines(a.Input("on-trip-request-review"), true),
	}
	var errs []error
	switch v := strings.ToLower(strings.TrimSpace(a.Input("comment"))); v {
	case "", CommentOnFailure:
		in.CommentMode = CommentOnFailure
	case CommentOnTrip, CommentAlways, CommentOff:
		in.CommentMode = v
	case "true":
		in.CommentMode = CommentAlways
	case "false":
		in.CommentMode = CommentOff
	default:
		errs = append(errs, fmt.Errorf("input comment: %q is not on-failure, on-trip, always or off", v))
	}
	in.Comment = in.CommentMode != CommentOff
	in.FailOnTrip, errs = a.boolInput("fail-on-trip", true, errs)
	in.DryRun, errs = a.boolInput("dry-run", false, errs)
	in.AllowNoLedger, errs = a.boolInput("allow-no-ledger", false, errs)
	switch v := strings.ToLower(strings.TrimSpace(a.Input("tests-outcome"))); v {
	case "", "success", "failure", "cancelled", "skipped":
		in.TestsOutcome = v
	default:
		errs = append(errs, fmt.Errorf("input tests-outcome: %q is not a step outcome; give ${{ steps.<id>.outcome }} (success, failure, cancelled or skipped)", v))
	}
	in.AllowPRAuthor, errs = a.boolInput("allow-pr-author", false, errs)
	in.OnTripDraft, errs = a.boolInput("on-trip-draft", false, errs)
	in.CancelWorkflows, errs = a.boolInput("cancel-workflows", false, errs)
	if v := a.Input("threshold"); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			err = breaker.CheckThreshold(n)
		} else {
			err = fmt.Errorf("%q is not a number", v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("input threshold: %w", err))
		}
		in.Threshold = n
	}
	in.LedgerRead, errs = a.oneOf("ledger-read", LedgerReadNewest, LedgerReadEveryPage,
		"newest (the default) starts from the newest entry's carry when it stands for the line, every-page reads the whole ledger at every run", errs)
	in.Mode, errs = a.oneOf("mode", ModeJudge, ModeGate,
		"judge (the default) judges a push, gate stops an agent's job while the breaker is OPEN", errs)
	if v := a.Input("pull-request"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("input pull-request: %q is not a pull request number; give e.g. ${{ github.event.pull_request.number }}, or leave it empty for the event's", v))
		}
		in.PullRequest = n
	}
	if v := a.Input("app-id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			errs = append(errs, fmt.Errorf("input app-id: %q is not a GitHub App id; give the App's numeric id (its settings page shows it)", v))
		}
		in.AppID = id
	}
	errs = append(errs, in.check()...)
	return in, errors.Join(errs...)
}

func (in Inputs) check() []error {
	var errs []error
	if in.Token == "" {
		errs = append(errs, errors.New("input token is empty; pass `token: ${{ github.token }}` (the default) or a token with contents, pull-requests and issues access"))
	}
	if in.Slice != "" {
		if err := breaker.CheckSlice(in.Slice); err != nil {
			errs = append(errs, fmt.Errorf("input slice: %w", err))
		}
	}
	if in.Base != "" && !fullSHA().MatchString(in.Base) {
		errs = append(errs, fmt.Errorf("input base %q is not a full commit SHA; leave it empty: the base comes from the event (the pull request's base) or GitHub's API (the default branch), "+
			"never from a ref in the workspace, which the code under test can move", in.Base))
	}
	if err := breaker.CheckPolicy(in.Policy); err != nil {
		errs = append(errs, fmt.Errorf("input policy: %w", err))
	}
	if in.Phase != "" {
		if err := breaker.CheckPhase(in.Phase); err != nil {
			errs = append(errs, fmt.Errorf("input phase: %w", err))
		}
	}
	if err := breaker.CheckTrailerPrefix(in.TrailerPrefix); err != nil {
		errs = append(errs, fmt.Errorf("input trailer-prefix: %w", err))
	}
	if err := breaker.CheckTagPrefix(in.TagPrefix); err != nil {
		errs = append(errs, fmt.Errorf("input tag-prefix: %w", err))
	}
	if len(in.CheckName) > 100 || strings.ContainsAny(in.CheckName, "\r\n") {
		errs = append(errs, fmt.Errorf("input check-name %q is not a check name; one line of at most 100 characters, e.g. %s", in.CheckName, DefaultCheckName))
	}
	errs = append(errs, in.checkOnTrip()...)
	if in.LedgerKey != "" && len(in.LedgerKey) < 16 {
		errs = append(errs, errors.New("input ledger-key is shorter than 16 characters; use a random secret, e.g. `openssl rand -hex 32`"))
	}
	if in.BotLogin != "" && !loginRE().MatchString(in.BotLogin) {
		errs = append(errs, fmt.Errorf("input bot-login %q is not a GitHub login; e.g. github-actions[bot]", in.BotLogin))
	}
	for _, l := range in.AgentActors {
		if !loginRE().MatchString(l) {
			errs = append(errs, fmt.Errorf("input agent-actors: %q is not a GitHub login; list one login a line", l))
		}
	}
	return errs
}

// checkOnTrip checks the inputs that say what a trip does to the pull
// request: its label, the reviewers it asks, the assignees it removes.
func (in Inputs) checkOnTrip() []error {
	var errs []error
	if l := in.OnTripLabel; l != "" && (len(l) > 50 || strings.ContainsAny(l, "\r\n,")) {
		errs = append(errs, fmt.Errorf("input on-trip-label %q is not a label name; one label of at most 50 characters, without commas, e.g. breaker: stopped", l))
	}
	for _, l := range in.OnTripRequestReview {
		org, team, isTeam := strings.Cut(l, "/")
		if !loginRE().MatchString(org) || (isTeam && !teamRE().MatchString(team)) {
			errs = append(errs, fmt.Errorf("input on-trip-request-review: %q is neither a login nor ORG/TEAM-SLUG; list one a line, e.g. alice or acme/reviewers", l))
		}
	}
	for _, l := range in.OnTripUnassign {
		if !loginRE().MatchString(l) {
			errs = append(errs, fmt.Errorf("input on-trip-unassign: %q is not a GitHub login; list one login a line, e.g. Copilot", l))
		}
	}
	return errs
}

// boolInput parses a boolean input: true or false in any case, the default
// when empty.
// oneOf reads an input that is def (also when empty) or other, ignoring
// case and spaces; anything else adds an error naming both and saying what
// each does (help).
func (a *Action) oneOf(name, def, other, help string, errs []error) (string, []error) {
	switch v := strings.ToLower(strings.TrimSpace(a.Input(name))); v {
	case "", def:
		return def, errs
	case other:
		return other, errs
	default:
		return def, append(errs, fmt.Errorf("input %s: %q is not %s or %s; %s", name, v, def, other, help))
	}
}

func (a *Action) boolInput(name string, def bool, errs []error) (bool, []error) {
	v := a.Input(name)
	switch strings.ToLower(v) {
	case "":
		return def, errs
	case "true":
		return true, errs
	case "false":
		return false, errs
	}
	return def, append(errs, fmt.Errorf("input %s: %q is not a boolean; use true or false", name, v))
}

// lines splits a multi-line input into trimmed non-empty lines; with commas,
// commas separate values too.
func lines(s string, commas bool) []string {
	f := func(r rune) bool { return r == '\n' || r == '\r' || (commas && r == ',') }
	var out []string
	for _, l := range strings.FieldsFunc(s, f) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
