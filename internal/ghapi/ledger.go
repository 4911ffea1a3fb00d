package ghapi

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/shurcooL/githubv4"
)

// maxPages bounds the pages of pull request commits, of force pushes and
// of a branch's history the ledger query reads (100 a page). More is an
// error: the ledger is read completely or not at all.
const maxLedgerPages = 30

// bigInt decodes a database id: a JSON number (Int fields, which GitHub
// sends past 2^31) or a string (the BigInt scalar, "encoded as a string"
// by GitHub's schema).
type bigInt int64

func (b *bigInt) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	if s == "null" || s == "" {
		*b = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("database id %s is not a 64-bit integer", data)
	}
	*b = bigInt(n)
	return nil
}

// checkSuites is the part of a commit the ledger needs: the breaker's
// check suite (one: GitHub's cost is the product of the connections'
// limits, so one suite a commit keeps a whole read near 4 points) and its
// check runs of the breaker's name, every one (checkType ALL: the default,
// LATEST, hides a run re-made on the same head). totalCount tells when a
// commit has more, read then by commitRunsQuery.
type checkSuites struct {
	TotalCount int
	Nodes      []checkSuite
}

type checkSuite struct {
	App *struct {
		DatabaseID bigInt
		Slug       string
	}
	CheckRuns struct {
		TotalCount int
		Nodes      []runNode
	} `graphql:"checkRuns(first: 100, filterBy: $runs)"`
}

// runNode is one check run as the ledger reads it: its entry (the text),
// and its name and conclusion, which an entry says what they were.
type runNode struct {
	DatabaseID bigInt
	Name       string
	Conclusion *string
	Text       *string
}

// complete reports whether every suite and run of the commit was read.
func (c checkSuites) complete() bool {
	if c.TotalCount > len(c.Nodes) {
		return false
	}
	for _, s := range c.Nodes {
		if s.CheckRuns.TotalCount > len(s.CheckRuns.Nodes) {
			return false
		}
	}
	return true
}

type ledgerCommit struct {
	Oid         githubv4.GitObjectID
	CheckSuites checkSuites `graphql:"checkSuites(first: 1, filterBy: $suites)"`
}

type defaultBranch struct {
	Name   string
	Target struct {
		Oid githubv4.GitObjectID
	}
}

// gitActor is a commit's author or committer, with the GitHub user when
// GitHub could tie the e-mail to one.
type gitActor struct {
	User *struct {
		Login string
	}
}

// prCommit is a pull request commit: its ledger and who wrote and pushed it.
type prCommit struct {
	Oid         githubv4.GitObjectID
	CheckSuites checkSuites `graphql:"checkSuites(first: 1, filterBy: $suites)"`
	Author      *gitActor
	Committer   *gitActor
}

type tagRefs struct {
	Nodes []struct {
		Name   string
		Target struct {
			Oid githubv4.GitObjectID
			Tag struct {
				Target struct {
					Oid githubv4.GitObjectID
				}
			} `graphql:"... on Tag"`
		}
	}
}

// pageInfo is a connection's forward paging.
type pageInfo struct {
	HasNextPage bool
	EndCursor   *string
}

// rateLimit is what the query cost and what is left of the hour's points.
type rateLimit struct {
	Cost      int
	Limit     int
	Remaining int
	ResetAt   githubv4.DateTime
}

// actor is a comment's author: GraphQL gives a Bot's login without the
// "[bot]" suffix REST gives, so the type is asked for too.
type actor struct {
	Typename string `graphql:"__typename"`
	Login    string
}

type prCommits struct {
	PageInfo pageInfo
	Nodes    []struct {
		Commit prCommit
	}
}

// forcePush is a HeadRefForcePushedEvent: the head a force push replaced.
type forcePush struct {
	Event struct {
		BeforeCommit *ledgerCommit
	} `graphql:"... on HeadRefForcePushedEvent"`
}

type forcePushes struct {
	PageInfo pageInfo
	Nodes    []forcePush
}

// backPage is a connection's backward paging: whether older items than
// those read exist.
type backPage struct {
	HasPreviousPage bool
}

// prComments are the pull request's newest comments.
type prComments struct {
	TotalCount int
	Nodes      []struct {
		FullDatabaseID bigInt
		Body           string
		IsMinimized    bool
		Author         *actor
	}
}

// prAll is a pull request's ledger from its first commit and force push
// on, a page of each (the page queries below read the rest).
type prAll struct {
	Commits       prCommits   `graphql:"commits(first: 100)"`
	TimelineItems forcePushes `graphql:"timelineItems(itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT], first: 100)"`
	Comments      prComments  `graphql:"comments(last: 100)"`
}

// prNewest is a pull request's newest 100 commits and force pushes, and
// whether older ones exist (LedgerQuery.Newest).
type prNewest struct {
	Commits struct {
		PageInfo backPage
		Nodes    []struct {
			Commit prCommit
		}
	} `graphql:"commits(last: 100)"`
	TimelineItems struct {
		PageInfo backPage
		Nodes    []forcePush
	} `graphql:"timelineItems(itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT], last: 100)"`
	Comments prComments `graphql:"comments(last: 100)"`
}

// beforeHistory is the ledger of the newest LedgerQuery.BeforeDepth commits of
// a push's before (LedgerQuery.Before), read with the newest commits.
type beforeHistory struct {
	Object *struct {
		Commit struct {
			History struct {
				Nodes []ledgerCommit
			} `graphql:"history(first: $depth)"`
		} `graphql:"... on Commit"`
	} `graphql:"object(oid: $before)"`
}

// prNewestBeforeQuery and prNewestBaseBeforeQuery are the newest read
// with the push's before's history (and the base's observation).
type prNewestBeforeQuery struct {
	prLedgerQuery[prNewest]
	Before beforeHistory `graphql:"before: repository(owner: $owner, name: $name)"`
}

type prNewestBaseBeforeQuery struct {
	prLedgerBaseQuery[prNewest]
	Before beforeHistory `graphql:"before: repository(owner: $owner, name: $name)"`
}

// prLedgerQuery reads a pull request's ledger (P: prAll or prNewest), the
// breaker's tags, the newest comments and the token's own login in one
// request; more commits or force pushes than a page are read by the page
// queries below.
type prLedgerQuery[P any] struct {
	Viewer     actor
	RateLimit  rateLimit
	Repository struct {
		PullRequest      *P      `graphql:"pullRequest(number: $number)"`
		Refs             tagRefs `graphql:"refs(refPrefix: $tagPrefix, first: 100)"`
		DefaultBranchRef *defaultBranch
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// prLedgerBaseQuery is prLedgerQuery with the pull request's base commit
// and its breaker check runs (the base's observation) in the same
// request, one less a run.
type prLedgerBaseQuery[P any] struct {
	prLedgerQuery[P]
	Base struct {
		Object *struct {
			Commit struct {
				CheckSuites checkSuites `graphql:"checkSuites(first: 1, filterBy: $suites)"`
			} `graphql:"... on Commit"`
		} `graphql:"object(oid: $base)"`
	} `graphql:"base: repository(owner: $owner, name: $name)"`
}

// prCommitsPage reads a further page of a pull request's commits.
type prCommitsPage struct {
	RateLimit  rateLimit
	Repository struct {
		PullRequest *struct {
			Commits prCommits `graphql:"commits(first: 100, after: $after)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// forcePushPage reads a further page of a pull request's force pushes.
type forcePushPage struct {
	RateLimit  rateLimit
	Repository struct {
		PullRequest *struct {
			TimelineItems forcePushes `graphql:"timelineItems(itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT], first: 100, after: $after)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

type branchHistory struct {
	PageInfo pageInfo
	Nodes    []ledgerCommit
}

// branchLedgerQuery reads a branch's history's ledger (a page at a time,
// $after null on the first), the breaker's tags and the token's login.
type branchLedgerQuery struct {
	Viewer     actor
	RateLimit  rateLimit
	Repository struct {
		Ref *struct {
			Target struct {
				Commit struct {
					History branchHistory `graphql:"history(first: 100, after: $after)"`
				} `graphql:"... on Commit"`
			}
		} `graphql:"ref(qualifiedName: $branch)"`
		Refs             tagRefs `graphql:"refs(refPrefix: $tagPrefix, first: 100)"`
		DefaultBranchRef *defaultBranch
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// commitRunsQuery reads every breaker check suite and run of one commit,
// when the ledger query's single suite did not hold them all.
type commitRunsQuery struct {
	RateLimit  rateLimit
	Repository struct {
		Object *struct {
			Commit struct {
				CheckSuites checkSuites `graphql:"checkSuites(first: 100, filterBy: $suites)"`
			} `graphql:"... on Commit"`
		} `graphql:"object(oid: $oid)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// login is an actor's login as REST writes it: a Bot's with "[bot]".
func (a *actor) login() string {
	if a == nil {
		return ""
	}
	if strings.EqualFold(a.Typename, "Bot") && !strings.HasSuffix(strings.ToLower(a.Login), "[bot]") {
		return a.Login + "[bot]"
	}
	return a.Login
}

// ledgerRead gathers one ReadLedger's pages and its cost.
type ledgerRead struct {
	c    *Client
	all  map[string]any // every variable; a query is sent only those it uses
	st   *forge.LedgerState
	op   string
	name string // the check name
}

// vars returns owner, name and the named variables: GitHub refuses a
// query that declares a variable it does not use.
func (lr *ledgerRead) vars(keys ...string) map[string]any {
	out := map[string]any{"owner": lr.all["owner"], "name": lr.all["name"]}
	for _, k := range keys {
		out[k] = lr.all[k]
	}
	return out
}

// spent adds one query's cost and keeps the newest remaining points.
func (lr *ledgerRead) spent(rl rateLimit) {
	lr.st.RateLimit.Queries++
	lr.st.RateLimit.Cost += rl.Cost
	lr.st.RateLimit.Limit, lr.st.RateLimit.Remaining, lr.st.RateLimit.ResetAt = rl.Limit, rl.Remaining, rl.ResetAt.Time
}

// commits adds the check runs of cms, reading the whole of a commit whose
// first suite was not all.
func (lr *ledgerRead) commit(ctx context.Context, oid githubv4.GitObjectID, suites checkSuites) error {
	if !suites.complete() {
		var q commitRunsQuery
		vars := lr.vars("suites", "runs")
		vars["oid"] = oid
		if err := lr.c.query(ctx, lr.op+": check runs of "+string(oid), &q, vars); err != nil {
			return err
		}
		lr.spent(q.RateLimit)
		if q.Repository.Object == nil || !q.Repository.Object.Commit.CheckSuites.complete() {
			return fmt.Errorf("%s: commit %s has more check suites or runs named %v than one query reads; the ledger would be incomplete", lr.op, oid, lr.name)
		}
		suites = q.Repository.Object.Commit.CheckSuites
	}
	lr.st.Runs = append(lr.st.Runs, runsOf(string(oid), suites)...)
	return nil
}

// ledgerFilters select the breaker's check suites and runs: with an App
// of its own (q.AppID), every run of that App whatever its name — a
// renamed run is still read, and named as tampering by the caller — else
// the runs of the check name (GITHUB_TOKEN's app, GitHub Actions, holds
// every workflow job's runs too).
func ledgerFilters(q forge.LedgerQuery) (githubv4.CheckSuiteFilter, githubv4.CheckRunFilter) {
	if q.AppID != 0 && q.AppID <= math.MaxInt32 {
		app := githubv4.NewInt(githubv4.Int(q.AppID))
		return githubv4.CheckSuiteFilter{AppID: app}, githubv4.CheckRunFilter{AppID: app, CheckType: &checkTypeAll}
	}
	return githubv4.CheckSuiteFilter{CheckName: githubv4.NewString(githubv4.String(q.CheckName))},
		githubv4.CheckRunFilter{CheckName: githubv4.NewString(githubv4.String(q.CheckName)), CheckType: &checkTypeAll}
}

// ReadLedger reads the breaker's check runs, tags, the token's login and
// (for a pull request) comments: one GraphQL query, more only for more
// than 100 commits or force pushes, or a commit with several breaker
// suites. An unreadable or incomplete ledger is an error, never "no
// history".
func (c *Client) ReadLedger(ctx context.Context, q forge.LedgerQuery) (forge.LedgerState, error) {
	suites, runs := ledgerFilters(q)
	all := map[string]any{
		"owner":     githubv4.String(c.owner),
		"name":      githubv4.String(c.repo),
		"tagPrefix": githubv4.String("refs/tags/" + q.TagPrefix),
		"suites":    suites,
		"runs":      runs,
		"number":    githubv4.Int(q.PR),
		"branch":    githubv4.String("refs/heads/" + strings.TrimPrefix(q.Branch, "refs/heads/")),
		"after":     (*githubv4.String)(nil),
	}
	st := forge.LedgerState{Tags: map[string]string{}, CommentsComplete: true}
	lr := &ledgerRead{c: c, all: all, st: &st, name: q.CheckName}
	if q.PR == 0 {
		lr.op = "read the ledger of branch " + q.Branch
		vars := lr.vars("tagPrefix", "suites", "runs", "branch", "after")
		for page := 0; ; page++ {
			var res branchLedgerQuery
			if err := c.query(ctx, lr.op, &res, vars); err != nil {
				return st, err
			}
			lr.spent(res.RateLimit)
			if page == 0 {
				st.Viewer = res.Viewer.login()
				st.Tags = tagsOf(res.Repository.Refs)
				st.DefaultBranch, st.DefaultSHA = defaultOf(res.Repository.DefaultBranchRef)
			}
			if res.Repository.Ref == nil {
				return st, nil
			}
			h := res.Repository.Ref.Target.Commit.History
			for _, cm := range h.Nodes {
				st.Commits = append(st.Commits, string(cm.Oid))
				if err := lr.commit(ctx, cm.Oid, cm.CheckSuites); err != nil {
					return st, err
				}
			}
			if err := nextPage(lr.op+": history", h.PageInfo, page, vars); err != nil || !h.PageInfo.HasNextPage {
				return st, err
			}
		}
	}
	lr.op = fmt.Sprintf("read the ledger of #%d", q.PR)
	if q.Newest {
		var res prLedgerQuery[prNewest]
		var before *beforeHistory
		var err error
		if q.Before != "" {
			res, before, err = readNewestBefore(ctx, lr, q)
		} else {
			res, err = readPR[prNewest](ctx, lr, q)
		}
		if err != nil {
			return st, err
		}
		if before != nil && before.Object != nil {
			for _, cm := range before.Object.Commit.History.Nodes {
				if err := lr.commit(ctx, cm.Oid, cm.CheckSuites); err != nil {
					return st, err
				}
			}
		}
		pr := res.Repository.PullRequest
		lr.top(res.Viewer, res.Repository.Refs, res.Repository.DefaultBranchRef, pr.Comments)
		for _, n := range pr.Commits.Nodes {
			if err := lr.prCommit(ctx, n.Commit); err != nil {
				return st, err
			}
		}
		for _, n := range pr.TimelineItems.Nodes {
			if err := lr.forcePush(ctx, n); err != nil {
				return st, err
			}
		}
		st.Older = pr.Commits.PageInfo.HasPreviousPage || pr.TimelineItems.PageInfo.HasPreviousPage
		return st, nil
	}
	res, err := readPR[prAll](ctx, lr, q)
	if err != nil {
		return st, err
	}
	pr := res.Repository.PullRequest
	lr.top(res.Viewer, res.Repository.Refs, res.Repository.DefaultBranchRef, pr.Comments)
	if err := lr.prCommits(ctx, pr.Commits); err != nil {
		return st, err
	}
	if err := lr.forcePushes(ctx, pr.TimelineItems); err != nil {
		return st, err
	}
	return st, nil
}

// readNewestBefore is readPR[prNewest] with the history of the push's
// before in the same query (LedgerQuery.Before).
func readNewestBefore(ctx context.Context, lr *ledgerRead, q forge.LedgerQuery) (prLedgerQuery[prNewest], *beforeHistory, error) {
	lr.all["before"] = githubv4.GitObjectID(q.Before)
	depth := q.BeforeDepth
	if depth <= 0 || depth > forge.NewestCommits {
		depth = forge.BeforeDepth
	}
	lr.all["depth"] = githubv4.Int(depth)
	if q.Base == "" {
		var res prNewestBeforeQuery
		if err := lr.c.query(ctx, lr.op, &res, lr.vars("tagPrefix", "suites", "runs", "number", "before", "depth")); err != nil {
			return res.prLedgerQuery, nil, err
		}
		lr.spent(res.RateLimit)
		if res.Repository.PullRequest == nil {
			return res.prLedgerQuery, nil, fmt.Errorf("%s: GitHub found no pull request #%d in %s/%s", lr.op, q.PR, lr.c.owner, lr.c.repo)
		}
		return res.prLedgerQuery, &res.Before, nil
	}
	var res prNewestBaseBeforeQuery
	lr.all["base"] = githubv4.GitObjectID(q.Base)
	if err := lr.c.query(ctx, lr.op, &res, lr.vars("tagPrefix", "suites", "runs", "number", "base", "before", "depth")); err != nil {
		return res.prLedgerQuery, nil, err
	}
	lr.spent(res.RateLimit)
	lr.st.BaseRead = true
	if o := res.Base.Object; o != nil {
		base := forge.LedgerState{}
		blr := &ledgerRead{c: lr.c, all: lr.all, st: &base, op: lr.op + ": its base", name: q.CheckName}
		if err := blr.commit(ctx, githubv4.GitObjectID(q.Base), o.Commit.CheckSuites); err != nil {
			return res.prLedgerQuery, nil, err
		}
		lr.st.BaseRuns = base.Runs
		lr.st.RateLimit.Queries += base.RateLimit.Queries
		lr.st.RateLimit.Cost += base.RateLimit.Cost
	}
	if res.Repository.PullRequest == nil {
		return res.prLedgerQuery, nil, fmt.Errorf("%s: GitHub found no pull request #%d in %s/%s", lr.op, q.PR, lr.c.owner, lr.c.repo)
	}
	return res.prLedgerQuery, &res.Before, nil
}

// readPR sends the first query of a pull request's ledger, with its base's
// observation when q names the base; P is the part of the pull request it
// reads (prAll, prNewest).
func readPR[P any](ctx context.Context, lr *ledgerRead, q forge.LedgerQuery) (prLedgerQuery[P], error) {
	var res prLedgerQuery[P]
	if q.Base != "" {
		var withBase prLedgerBaseQuery[P]
		lr.all["base"] = githubv4.GitObjectID(q.Base)
		if err := lr.c.query(ctx, lr.op, &withBase, lr.vars("tagPrefix", "suites", "runs", "number", "base")); err != nil {
			return res, err
		}
		res = withBase.prLedgerQuery
		lr.st.BaseRead = true
		if o := withBase.Base.Object; o != nil {
			base := forge.LedgerState{}
			blr := &ledgerRead{c: lr.c, all: lr.all, st: &base, op: lr.op + ": its base", name: q.CheckName}
			if err := blr.commit(ctx, githubv4.GitObjectID(q.Base), o.Commit.CheckSuites); err != nil {
				return res, err
			}
			lr.st.BaseRuns = base.Runs
			lr.st.RateLimit.Queries += base.RateLimit.Queries
			lr.st.RateLimit.Cost += base.RateLimit.Cost
		}
	} else if err := lr.c.query(ctx, lr.op, &res, lr.vars("tagPrefix", "suites", "runs", "number")); err != nil {
		return res, err
	}
	lr.spent(res.RateLimit)
	if res.Repository.PullRequest == nil {
		return res, fmt.Errorf("%s: GitHub found no pull request #%d in %s/%s", lr.op, q.PR, lr.c.owner, lr.c.repo)
	}
	return res, nil
}

// top keeps what the first query says besides the commits: the token's
// login, the tags, the default branch and the comments.
func (lr *ledgerRead) top(viewer actor, refs tagRefs, def *defaultBranch, comments prComments) {
	st := lr.st
	st.Viewer = viewer.login()
	st.Tags = tagsOf(refs)
	st.DefaultBranch, st.DefaultSHA = defaultOf(def)
	for _, cm := range comments.Nodes {
		if cm.IsMinimized {
			st.Minimized = append(st.Minimized, int64(cm.FullDatabaseID))
			continue // never edit a minimized comment
		}
		st.Comments = append(st.Comments, forge.Comment{ID: int64(cm.FullDatabaseID), Body: cm.Body, Author: cm.Author.login()})
	}
	st.CommentsComplete = comments.TotalCount <= len(comments.Nodes)
}

// ReadHeads reads the breaker's check runs on each of heads: one query a
// head (about 1 point each), for the heads an entry names as observed
// before it that the pull request's commits and force pushes no longer
// show (a rebase, a squash). A head GitHub does not have is an error: the
// ledger would be incomplete.
func (c *Client) ReadHeads(ctx context.Context, q forge.LedgerQuery, heads []string) ([]forge.CheckRunText, error) {
	suites, runs := ledgerFilters(q)
	var out []forge.CheckRunText
	for _, h := range heads {
		var res commitRunsQuery
		vars := map[string]any{"owner": githubv4.String(c.owner), "name": githubv4.String(c.repo), "suites": suites, "runs": runs,
			"oid": githubv4.GitObjectID(h)}
		op := "read the ledger entry of earlier head " + h
		if err := c.query(ctx, op, &res, vars); err != nil {
			return nil, err
		}
		if res.Repository.Object == nil {
			return nil, fmt.Errorf("%s: GitHub no longer has that commit; the ledger would be incomplete", op)
		}
		cs := res.Repository.Object.Commit.CheckSuites
		if !cs.complete() {
			return nil, fmt.Errorf("%s: more check suites or runs named %s than one query reads; the ledger would be incomplete", op, q.CheckName)
		}
		out = append(out, runsOf(h, cs)...)
	}
	return out, nil
}

// ancestryQuery reads a page of a commit's history with the breaker's
// check runs on each commit: the heads observed before a head that a
// rebase or a squash took off the branch, which its entry does not list
// (they were in its history when it was written).
type ancestryQuery struct {
	RateLimit  rateLimit
	Repository struct {
		Object *struct {
			Commit struct {
				History branchHistory `graphql:"history(first: 100, after: $after)"`
			} `graphql:"... on Commit"`
		} `graphql:"object(oid: $oid)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// ReadAncestry reads the breaker's check runs on head and its ancestors,
// newest first, a page of 100 commits a query, until the page that holds
// until (the oldest earlier head the entry at head had in its history).
// A history that ends, or runs past the page bound, before until is an
// error: the ledger would be incomplete.
func (c *Client) ReadAncestry(ctx context.Context, q forge.LedgerQuery, head, until string) ([]forge.CheckRunText, error) {
	suites, runs := ledgerFilters(q)
	st := forge.LedgerState{}
	lr := &ledgerRead{c: c, st: &st, name: q.CheckName, op: "read the history of earlier head " + head,
		all: map[string]any{"owner": githubv4.String(c.owner), "name": githubv4.String(c.repo), "suites": suites, "runs": runs,
			"oid": githubv4.GitObjectID(head), "after": (*githubv4.String)(nil)}}
	vars := lr.vars("suites", "runs", "oid", "after")
	for page := 0; ; page++ {
		var res ancestryQuery
		if err := c.query(ctx, lr.op, &res, vars); err != nil {
			return nil, err
		}
		lr.spent(res.RateLimit)
		if res.Repository.Object == nil {
			return nil, fmt.Errorf("%s: GitHub no longer has that commit; the ledger would be incomplete", lr.op)
		}
		h := res.Repository.Object.Commit.History
		found := false
		for _, cm := range h.Nodes {
			if err := lr.commit(ctx, cm.Oid, cm.CheckSuites); err != nil {
				return nil, err
			}
			found = found || strings.EqualFold(string(cm.Oid), until)
		}
		if found {
			return st.Runs, nil
		}
		if !h.PageInfo.HasNextPage {
			return nil, fmt.Errorf("%s: %s, which its entry names, is %w", lr.op, until, forge.ErrNotInHistory)
		}
		if err := nextPage(lr.op, h.PageInfo, page, vars); err != nil {
			return nil, err
		}
	}
}

// checkTypeAll asks for every check run, not only the latest of a name.
var checkTypeAll = githubv4.CheckRunTypeAll

// prCommits reads the pull request's commits from the first page on.
func (lr *ledgerRead) prCommits(ctx context.Context, first prCommits) error {
	vars := lr.vars("number", "suites", "runs", "after")
	cs := first
	for page := 0; ; page++ {
		for _, n := range cs.Nodes {
			if err := lr.prCommit(ctx, n.Commit); err != nil {
				return err
			}
		}
		if err := nextPage(lr.op+": commits", cs.PageInfo, page, vars); err != nil || !cs.PageInfo.HasNextPage {
			return err
		}
		var res prCommitsPage
		if err := lr.c.query(ctx, lr.op, &res, vars); err != nil {
			return err
		}
		lr.spent(res.RateLimit)
		if res.Repository.PullRequest == nil {
			return fmt.Errorf("%s: the pull request vanished while its commits were read", lr.op)
		}
		cs = res.Repository.PullRequest.Commits
	}
}

// prCommit adds a pull request commit: its check runs, and who wrote and
// committed it.
func (lr *ledgerRead) prCommit(ctx context.Context, cm prCommit) error {
	lr.st.Commits = append(lr.st.Commits, string(cm.Oid))
	if err := lr.commit(ctx, cm.Oid, cm.CheckSuites); err != nil {
		return err
	}
	for _, a := range []*gitActor{cm.Author, cm.Committer} {
		if a != nil && a.User != nil && a.User.Login != "" {
			lr.st.Pushers = appendUnique(lr.st.Pushers, a.User.Login)
		}
	}
	return nil
}

// forcePush adds the check runs of the head a force push replaced.
func (lr *ledgerRead) forcePush(ctx context.Context, n forcePush) error {
	if b := n.Event.BeforeCommit; b != nil {
		lr.st.ForcePushed = append(lr.st.ForcePushed, string(b.Oid))
		return lr.commit(ctx, b.Oid, b.CheckSuites)
	}
	return nil
}

// forcePushes reads the heads force-pushed away, every page.
func (lr *ledgerRead) forcePushes(ctx context.Context, first forcePushes) error {
	vars := lr.vars("number", "suites", "runs", "after")
	fp := first
	for page := 0; ; page++ {
		for _, n := range fp.Nodes {
			if err := lr.forcePush(ctx, n); err != nil {
				return err
			}
		}
		if err := nextPage(lr.op+": force pushes", fp.PageInfo, page, vars); err != nil || !fp.PageInfo.HasNextPage {
			return err
		}
		var res forcePushPage
		if err := lr.c.query(ctx, lr.op, &res, vars); err != nil {
			return err
		}
		lr.spent(res.RateLimit)
		if res.Repository.PullRequest == nil {
			return fmt.Errorf("%s: the pull request vanished while its force pushes were read", lr.op)
		}
		fp = res.Repository.PullRequest.TimelineItems
	}
}

// nextPage sets vars' "after" to the next page's cursor, or says the
// connection is longer than the bound.
func nextPage(op string, info pageInfo, page int, vars map[string]any) error {
	if !info.HasNextPage {
		return nil
	}
	if page+1 >= maxLedgerPages {
		return fmt.Errorf("%s: more than %d; the ledger would be incomplete", op, maxLedgerPages*100)
	}
	if info.EndCursor == nil {
		return fmt.Errorf("%s: GitHub gave no cursor for the next page", op)
	}
	after := githubv4.String(*info.EndCursor)
	vars["after"] = &after
	return nil
}

func runsOf(oid string, suites checkSuites) []forge.CheckRunText {
	var out []forge.CheckRunText
	for _, s := range suites.Nodes {
		var appID int64
		var slug string
		if s.App != nil {
			appID, slug = int64(s.App.DatabaseID), s.App.Slug
		}
		for _, r := range s.CheckRuns.Nodes {
			out = append(out, r.text(oid, appID, slug))
		}
	}
	return out
}

// text is the run as the ports carry it.
func (r runNode) text(head string, appID int64, slug string) forge.CheckRunText {
	run := forge.CheckRunText{ID: int64(r.DatabaseID), HeadSHA: head, AppID: appID, AppSlug: slug, Name: r.Name}
	if r.Text != nil {
		run.Text = *r.Text
	}
	if r.Conclusion != nil {
		run.Conclusion = strings.ToLower(*r.Conclusion)
	}
	return run
}

func defaultOf(d *defaultBranch) (name, sha string) {
	if d == nil {
		return "", ""
	}
	return d.Name, string(d.Target.Oid)
}

func tagsOf(refs tagRefs) map[string]string {
	out := map[string]string{}
	for _, n := range refs.Nodes {
		sha := string(n.Target.Oid)
		if peeled := string(n.Target.Tag.Target.Oid); peeled != "" {
			sha = peeled
		}
		out[n.Name] = sha
	}
	return out
}

// query runs one GraphQL query and maps its error as REST errors are.
func (c *Client) query(ctx context.Context, op string, q any, vars map[string]any) error {
	if c.gql == nil {
		return fmt.Errorf("%s: no GraphQL endpoint configured", op)
	}
	if err := c.gql.Query(ctx, q, vars); err != nil {
		return c.redact(fmt.Errorf("%s: %w", op, err))
	}
	return nil
}

// maxAnnotations is how many annotations one check run request may carry.
const maxAnnotations = 50

// CreateCheckRun writes a completed check run on the head commit.
func (c *Client) CreateCheckRun(ctx context.Context, run forge.CheckRun) (int64, error) {
	opts := github.CreateCheckRunOptions{
		Name:       run.Name,
		HeadSHA:    run.HeadSHA,
		Status:     github.String("completed"),
		Conclusion: github.String(run.Conclusion),
		Output: &github.CheckRunOutput{
			Title:   github.String(run.Title),
			Summary: github.String(run.Summary),
			Text:    github.String(run.Text),
		},
	}
	for i, a := range run.Annotations {
		if i == maxAnnotations {
			break
		}
		opts.Output.Annotations = append(opts.Output.Annotations, &github.CheckRunAnnotation{
			Path: github.String(a.Path), StartLine: github.Int(a.Line), EndLine: github.Int(a.Line),
			AnnotationLevel: github.String("failure"), Title: github.String(a.Title), Message: github.String(a.Message),
		})
	}
	var out *github.CheckRun
	_, err := c.call("create check run "+run.Name, func() (r *github.Response, err error) {
		out, r, err = c.gh.Checks.CreateCheckRun(ctx, c.owner, c.repo, opts)
		return r, err
	})
	if err != nil {
		return 0, err
	}
	return out.GetID(), nil
}

// authTransport adds the token and the User-Agent to GraphQL requests
// (go-github adds them to REST requests itself); GitHub asks every
// request to name its client.
type authTransport struct {
	token     string
	userAgent string
	base      http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.userAgent)
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.base.RoundTrip(req)
}

// GraphQLURL is the GraphQL endpoint of the API at apiURL when
// GITHUB_GRAPHQL_URL is not given: https://api.github.com/graphql for
// github.com, https://HOST/api/graphql for GitHub Enterprise Server's
// https://HOST/api/v3.
func GraphQLURL(apiURL string) string {
	u := strings.TrimRight(apiURL, "/")
	if u == "" {
		return "https://api.github.com/graphql"
	}
	if base, ok := strings.CutSuffix(u, "/api/v3"); ok {
		return base + "/api/graphql"
	}
	return u + "/graphql"
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}
