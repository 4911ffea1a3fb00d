package action

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// An OPEN circuit follows the agent (issue 46; DESIGN §5). Who opened a
// pull request and who closed one are facts GitHub attests; commit ids,
// trees, branch names and bodies are the agent's. So a run of pull request
// P reads, in one more query, the repository's newest pull requests that
// are not merged, keeps those the same agent opened (sameAgent: the same
// bot or agent-actors login), and asks each one's newest verified entry on its
// head whether its line is OPEN and not reset. One a maintainer closed is
// over: a person other than the agent, not a bot, closed it.

// agentLine is one OPEN line of work of an agent, as its newest entry
// says.
type agentLine struct {
	pr    int
	entry ledger.Entry
	tree  string // its head's tree
}

// isAgent says a pull request's author is an agent: a bot (GitHub says
// so: a login with "[bot]"), or a login listed in agent-actors (an agent
// that works under a person's account). A person's pull requests are each
// judged on their own.
func isAgent(r *run, login string) bool {
	return strings.HasSuffix(strings.ToLower(login), "[bot]") || listedAgent(r, login)
}

// listedAgent says login is listed in agent-actors.
func listedAgent(r *run, login string) bool {
	return slices.ContainsFunc(r.in.AgentActors, func(x string) bool { return forge.SameLogin(x, login) })
}

// sameAgent says two pull request authors are the same agent: the same
// agent's login, or both listed in agent-actors.
func sameAgent(r *run, a, b string) bool {
	if forge.SameLogin(a, b) {
		return isAgent(r, a)
	}
	return a != "" && b != "" && listedAgent(r, a) && listedAgent(r, b)
}

// agentOpenLines reads the OPEN lines of work of author other than pull
// request self's (0: none to leave out), and the tree of head (of self's
// head as listed when head is ""): one query. An author "" is self's, as
// the newest pull requests list it (a pull request being pushed to is
// among them), else as GitHub says.
func agentOpenLines(ctx context.Context, r *run, author string, self int, head string) ([]agentLine, string, error) {
	prs, tree, err := recentPulls(ctx, r, head)
	if err != nil {
		return nil, "", fmt.Errorf("read the agent's other pull requests: %w", err)
	}
	for _, p := range prs {
		if p.Number == self && author == "" {
			author = p.Author
		}
		if p.Number == self && head == "" {
			tree = p.HeadTree
		}
	}
	if author == "" && self != 0 {
		pr, err := r.api.pulls.PullRequest(ctx, self)
		if err != nil {
			return nil, "", fmt.Errorf("read who opened #%d: %w", self, err)
		}
		author = pr.Author
	}
	if author == "" || !isAgent(r, author) {
		return nil, tree, nil // a person's pull request is judged on its own
	}
	var key []byte
	if r.in.LedgerKey != "" {
		key = []byte(r.in.LedgerKey)
	}
	var out []agentLine
	for _, p := range prs {
		if p.Number == self || !sameAgent(r, p.Author, author) {
			continue
		}
		if p.State == "closed" && p.ClosedBy != "" && !p.ClosedByBot && !sameAgent(r, p.ClosedBy, author) {
			continue // a maintainer closed it: that ends its circuit
		}
		if e, ok := newestOwnEntry(p, r.in.AppID, r.in.CheckName, key); ok && e.Verdict.State == breaker.StateOpen &&
			e.Verdict.TripReason != breaker.TripAgentOpen && e.Reset == nil {
			out = append(out, agentLine{pr: p.Number, entry: e, tree: p.HeadTree})
		}
	}
	return out, tree, nil
}

// recentPulls reads the newest pull requests, once a run for head ""
// (the gate of an issue reads them for each pull request tied to it).
func recentPulls(ctx context.Context, r *run, head string) ([]forge.RecentPull, string, error) {
	if head == "" && r.recent != nil {
		return *r.recent, "", nil
	}
	q := LedgerQuery{CheckName: r.in.CheckName, TagPrefix: r.in.TagPrefix, AppID: r.in.AppID}
	prs, tree, err := r.api.lines.RecentPullRequests(ctx, q, head)
	if err == nil && head == "" {
		r.recent = &prs
	}
	return prs, tree, err
}

// newestOwnEntry is the newest entry of pull request p on its head that
// the breaker's identity wrote and that verifies.
func newestOwnEntry(p forge.RecentPull, appID int64, checkName string, key []byte) (ledger.Entry, bool) {
	entries, _, _, _, _ := decodeRuns(p.Runs, appID, checkName)
	var best ledger.Entry
	found := false
	for _, e := range entries {
		if e.PR != p.Number || e.Kind == ledger.KindBase || !ledger.Trusted(e, key) {
			continue
		}
		if !found || e.CheckRunID > best.CheckRunID {
			best, found = e, true
		}
	}
	return best, found
}

// elsewhereOf turns the agent's OPEN lines into the engine's input: each
// with its tripped tests and whether head carries its tree.
func elsewhereOf(lines []agentLine, tree string) []breaker.OpenElsewhere {
	var out []breaker.OpenElsewhere
	for _, l := range lines {
		o := breaker.OpenElsewhere{Where: fmt.Sprintf("#%d", l.pr), Reason: l.entry.Verdict.TripReason,
			SameTree: tree != "" && l.tree == tree}
		for _, t := range l.entry.Tests {
			if t.Status.Failed() {
				o.Tests = append(o.Tests, t.FullName())
			}
		}
		out = append(out, o)
	}
	return out
}

// gateFollowsAgent is the gate of pull request number when its own ledger
// lets the agent on (g): OPEN still while another line of the agent that
// opened it is OPEN and this one repeats it — it carries that line's
// tripped tree, or its newest entry inherited that OPEN (agent_open).
func gateFollowsAgent(ctx context.Context, r *run, g evaluate.Gate, number int) (evaluate.Gate, error) {
	if g.Open || number == 0 || r.api.lines == nil {
		return g, nil
	}
	lines, tree, err := agentOpenLines(ctx, r, "", number, "")
	if err != nil || len(lines) == 0 {
		return g, err
	}
	inherited := false
	if r.state != nil {
		var newest *ledger.Entry
		for i, e := range r.state.ledger.Entries {
			if e.PR == number && (newest == nil || e.CheckRunID > newest.CheckRunID) {
				newest = &r.state.ledger.Entries[i]
			}
		}
		inherited = newest != nil && newest.Verdict.TripReason == breaker.TripAgentOpen
	}
	for _, l := range lines {
		if inherited || tree != "" && l.tree == tree {
			return evaluate.Gate{Open: true, Reason: breaker.TripAgentOpen, Slice: l.entry.Slice, Head: l.entry.Head,
				Elsewhere: fmt.Sprintf("#%d", l.pr)}, nil
		}
	}
	return g, nil
}

// maxIssueLines bounds how many pull requests the gate of an issue reads
// the ledger of.
const maxIssueLines = 8

// gateIssue is the pull request the gate of an agent started on issue
// number stops on (issue 46): the first that is OPEN among every pull
// request the issue's timeline says referred to it or that closes it now
// (closed ones too, unless a maintainer closed them: an edited body takes
// no reference away) and the open pull requests of their authors and of
// agent-actors. nil (errNothingToGate) when none is OPEN.
func gateIssue(ctx context.Context, r *run, number int) (*forge.PullRequest, error) {
	refs, err := r.api.lines.IssueReferences(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("read the pull requests that refer to #%d: %w", number, err)
	}
	recent, _, err := recentPulls(ctx, r, "")
	if err != nil {
		return nil, fmt.Errorf("read the newest pull requests: %w", err)
	}
	byNumber := map[int]forge.RecentPull{}
	for _, p := range recent {
		byNumber[p.Number] = p
	}
	agents := slices.Clone(r.in.AgentActors)
	var candidates []int
	for _, n := range refs {
		p, known := byNumber[n]
		if known && p.State == "closed" && p.ClosedBy != "" && !p.ClosedByBot && !forge.SameLogin(p.ClosedBy, p.Author) {
			continue // a maintainer closed it
		}
		candidates = append(candidates, n)
		if known && isAgent(r, p.Author) {
			agents = append(agents, p.Author)
		}
	}
	for _, p := range recent {
		if p.State == "open" && !slices.Contains(candidates, p.Number) &&
			slices.ContainsFunc(agents, func(a string) bool { return forge.SameLogin(a, p.Author) }) {
			candidates = append(candidates, p.Number)
		}
	}
	if len(candidates) > maxIssueLines {
		r.note("#%d is tied to %d pull requests; the gate read the %d newest", number, len(candidates), maxIssueLines)
		candidates = candidates[len(candidates)-maxIssueLines:]
	}
	for _, n := range candidates {
		saved := r.state
		g, err := readGate(ctx, r, n, "")
		if err != nil {
			return nil, err
		}
		if g.Open {
			pr, err := r.api.pulls.PullRequest(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("read pull request #%d: %w", n, err)
			}
			r.state = nil // the gate reads the chosen pull request's ledger once more
			r.note("the agent was started on issue #%d; its line of work #%d is OPEN", number, n)
			return &pr, nil
		}
		r.state = saved
	}
	return nil, errNothingToGate
}
