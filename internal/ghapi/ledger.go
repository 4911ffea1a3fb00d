package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/shurcooL/githubv4"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// maxCommitPages bounds the pages of pull request commits the ledger query
// reads (100 commits a page).
const maxCommitPages = 30

// checkSuites is the part of a commit the ledger needs: the check runs of
// the breaker's name, with the app that wrote them.
type checkSuites struct {
	Nodes []struct {
		App *struct {
			DatabaseID githubv4.Int
			Slug       githubv4.String
		}
		CheckRuns struct {
			Nodes []struct {
				DatabaseID githubv4.Int
				Text       *githubv4.String
			}
		} `graphql:"checkRuns(first: 20, filterBy: {checkName: $checkName})"`
	}
}

type ledgerCommit struct {
	Oid         githubv4.GitObjectID
	CheckSuites checkSuites `graphql:"checkSuites(first: 10, filterBy: {checkName: $checkName})"`
}

type defaultBranch struct {
	Name   githubv4.String
	Target struct {
		Oid githubv4.GitObjectID
	}
}

// gitActor is a commit's author or committer, with the GitHub user when
// GitHub could tie the e-mail to one.
type gitActor struct {
	User *struct {
		Login githubv4.String
	}
}

// prCommit is a pull request commit: its ledger and who wrote and pushed it.
type prCommit struct {
	Oid         githubv4.GitObjectID
	CheckSuites checkSuites `graphql:"checkSuites(first: 10, filterBy: {checkName: $checkName})"`
	Author      *gitActor
	Committer   *gitActor
}

type tagRefs struct {
	Nodes []struct {
		Name   githubv4.String
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

// prLedgerQuery reads a pull request's ledger, the breaker's tags and the
// newest comments in one request (more only for more than 100 commits).
type prLedgerQuery struct {
	Repository struct {
		PullRequest struct {
			Commits struct {
				PageInfo struct {
					HasNextPage githubv4.Boolean
					EndCursor   githubv4.String
				}
				Nodes []struct {
					Commit prCommit
				}
			} `graphql:"commits(first: 100, after: $after)"`
			TimelineItems struct {
				Nodes []struct {
					Event struct {
						BeforeCommit *ledgerCommit
					} `graphql:"... on HeadRefForcePushedEvent"`
				}
			} `graphql:"timelineItems(itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT], last: 100)"`
			Comments struct {
				TotalCount githubv4.Int
				Nodes      []struct {
					DatabaseID  githubv4.Int
					Body        githubv4.String
					IsMinimized githubv4.Boolean
					Author      *struct {
						Login githubv4.String
					}
				}
			} `graphql:"comments(last: 100)"`
		} `graphql:"pullRequest(number: $number)"`
		Refs             tagRefs `graphql:"refs(refPrefix: $tagPrefix, first: 100)"`
		DefaultBranchRef *defaultBranch
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// branchLedgerQuery reads a branch's newest 100 commits' ledger and the
// breaker's tags.
type branchLedgerQuery struct {
	Repository struct {
		Ref *struct {
			Target struct {
				Commit struct {
					History struct {
						Nodes []ledgerCommit
					} `graphql:"history(first: 100)"`
				} `graphql:"... on Commit"`
			}
		} `graphql:"ref(qualifiedName: $branch)"`
		Refs             tagRefs `graphql:"refs(refPrefix: $tagPrefix, first: 100)"`
		DefaultBranchRef *defaultBranch
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// ReadLedger reads the breaker's check runs, tags and (for a pull request)
// comments in one GraphQL query; an unreadable ledger is an error, never
// "no history".
func (c *Client) ReadLedger(ctx context.Context, q action.LedgerQuery) (action.LedgerState, error) {
	vars := map[string]any{
		"owner":     githubv4.String(c.owner),
		"name":      githubv4.String(c.repo),
		"checkName": githubv4.String(q.CheckName),
		"tagPrefix": githubv4.String("refs/tags/" + q.TagPrefix),
	}
	st := action.LedgerState{Tags: map[string]string{}, CommentsComplete: true}
	if q.PR == 0 {
		vars["branch"] = githubv4.String("refs/heads/" + strings.TrimPrefix(q.Branch, "refs/heads/"))
		var res branchLedgerQuery
		if err := c.query(ctx, "read the ledger of branch "+q.Branch, &res, vars); err != nil {
			return st, err
		}
		if res.Repository.Ref != nil {
			for _, cm := range res.Repository.Ref.Target.Commit.History.Nodes {
				st.Runs = append(st.Runs, runsOf(cm)...)
			}
		}
		st.Tags = tagsOf(res.Repository.Refs)
		st.DefaultBranch, st.DefaultSHA = defaultOf(res.Repository.DefaultBranchRef)
		return st, nil
	}
	vars["number"] = githubv4.Int(q.PR)
	vars["after"] = (*githubv4.String)(nil)
	for page := 0; ; page++ {
		var res prLedgerQuery
		if err := c.query(ctx, fmt.Sprintf("read the ledger of #%d", q.PR), &res, vars); err != nil {
			return st, err
		}
		pr := res.Repository.PullRequest
		for _, n := range pr.Commits.Nodes {
			c := n.Commit
			st.Runs = append(st.Runs, runsOf(ledgerCommit{Oid: c.Oid, CheckSuites: c.CheckSuites})...)
			for _, a := range []*gitActor{c.Author, c.Committer} {
				if a != nil && a.User != nil && a.User.Login != "" {
					st.Pushers = appendUnique(st.Pushers, string(a.User.Login))
				}
			}
		}
		if page == 0 {
			for _, n := range pr.TimelineItems.Nodes {
				if n.Event.BeforeCommit != nil {
					st.Runs = append(st.Runs, runsOf(*n.Event.BeforeCommit)...)
				}
			}
			st.Tags = tagsOf(res.Repository.Refs)
			st.DefaultBranch, st.DefaultSHA = defaultOf(res.Repository.DefaultBranchRef)
			for _, cm := range pr.Comments.Nodes {
				if cm.IsMinimized {
					st.Minimized = append(st.Minimized, int64(cm.DatabaseID))
					continue // never edit a minimized comment
				}
				com := breaker.Comment{ID: int64(cm.DatabaseID), Body: string(cm.Body)}
				if cm.Author != nil {
					com.Author = string(cm.Author.Login)
				}
				st.Comments = append(st.Comments, com)
			}
			st.CommentsComplete = int(pr.Comments.TotalCount) <= len(pr.Comments.Nodes)
		}
		if !pr.Commits.PageInfo.HasNextPage {
			return st, nil
		}
		if page+1 == maxCommitPages {
			return st, fmt.Errorf("read the ledger of #%d: more than %d commits; the ledger would be incomplete", q.PR, maxCommitPages*100)
		}
		after := pr.Commits.PageInfo.EndCursor
		vars["after"] = &after
	}
}

func runsOf(cm ledgerCommit) []action.CheckRunText {
	var out []action.CheckRunText
	for _, s := range cm.CheckSuites.Nodes {
		var appID int64
		var slug string
		if s.App != nil {
			appID, slug = int64(s.App.DatabaseID), string(s.App.Slug)
		}
		for _, r := range s.CheckRuns.Nodes {
			run := action.CheckRunText{ID: int64(r.DatabaseID), HeadSHA: string(cm.Oid), AppID: appID, AppSlug: slug}
			if r.Text != nil {
				run.Text = string(*r.Text)
			}
			out = append(out, run)
		}
	}
	return out
}

func defaultOf(d *defaultBranch) (name, sha string) {
	if d == nil {
		return "", ""
	}
	return string(d.Name), string(d.Target.Oid)
}

func tagsOf(refs tagRefs) map[string]string {
	out := map[string]string{}
	for _, n := range refs.Nodes {
		sha := string(n.Target.Oid)
		if peeled := string(n.Target.Tag.Target.Oid); peeled != "" {
			sha = peeled
		}
		out[string(n.Name)] = sha
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
func (c *Client) CreateCheckRun(ctx context.Context, run action.CheckRun) (int64, error) {
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

// authTransport adds the token to GraphQL requests (go-github adds it to
// REST requests itself).
type authTransport struct {
	token string
	base  http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
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
