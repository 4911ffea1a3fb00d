package ghapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/shurcooL/githubv4"
)

// recentPullsQuery reads the newest pull requests that are not merged,
// each with its author, who closed it, and its head commit's tree and
// breaker check runs; and the tree of the run's own head. GitHub's cost:
// 1 + 30 (commits) + 30 (suites) + 30 (runs) + 30 (timeline) requests,
// one point (docs.github.com, "Rate limits and node limits for the GraphQL
// API"). No author filter exists on a repository's pullRequests (the
// search API has one, but a bot's login there is another word): the
// caller keeps the agent's.
type recentPullsQuery struct {
	Repository struct {
		PullRequests recentPulls `graphql:"pullRequests(first: 30, states: [OPEN, CLOSED], orderBy: {field: UPDATED_AT, direction: DESC})"`
		Object       *struct {
			Commit struct {
				Tree struct {
					Oid githubv4.GitObjectID
				}
			} `graphql:"... on Commit"`
		} `graphql:"object(oid: $head)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// recentPullsOnlyQuery is recentPullsQuery without a head to read the
// tree of (the gate of a pull request the caller knows by number only).
type recentPullsOnlyQuery struct {
	Repository struct {
		PullRequests recentPulls `graphql:"pullRequests(first: 30, states: [OPEN, CLOSED], orderBy: {field: UPDATED_AT, direction: DESC})"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

type recentPulls struct {
	Nodes []struct {
		Number  int
		State   string
		Author  *actor
		Commits struct {
			Nodes []struct {
				Commit struct {
					Oid  githubv4.GitObjectID
					Tree struct {
						Oid githubv4.GitObjectID
					}
					CheckSuites struct {
						Nodes []recentSuite
					} `graphql:"checkSuites(first: 1, filterBy: $suites)"`
				}
			}
		} `graphql:"commits(last: 1)"`
		TimelineItems struct {
			Nodes []struct {
				Closed struct {
					Actor *actor
				} `graphql:"... on ClosedEvent"`
			}
		} `graphql:"timelineItems(itemTypes: [CLOSED_EVENT], last: 1)"`
	}
}

// recentSuite is the breaker's suite on a head, with its newest runs.
type recentSuite struct {
	App *struct {
		DatabaseID bigInt
		Slug       string
	}
	CheckRuns struct {
		Nodes []runNode
	} `graphql:"checkRuns(last: 3, filterBy: $runs)"`
}

// RecentPullRequests implements forge.Lines.
func (c *Client) RecentPullRequests(ctx context.Context, q forge.LedgerQuery, head string) ([]forge.RecentPull, string, error) {
	suites, runs := ledgerFilters(q)
	const op = "read the newest pull requests (the agent's other lines of work)"
	vars := map[string]any{"owner": githubv4.String(c.owner), "name": githubv4.String(c.repo), "suites": suites, "runs": runs}
	var pulls recentPulls
	tree := ""
	if head == "" {
		var res recentPullsOnlyQuery
		if err := c.query(ctx, op, &res, vars); err != nil {
			return nil, "", err
		}
		pulls = res.Repository.PullRequests
	} else {
		var res recentPullsQuery
		vars["head"] = githubv4.GitObjectID(head)
		if err := c.query(ctx, op, &res, vars); err != nil {
			return nil, "", err
		}
		pulls = res.Repository.PullRequests
		if res.Repository.Object != nil {
			tree = string(res.Repository.Object.Commit.Tree.Oid)
		}
	}
	var out []forge.RecentPull
	for _, n := range pulls.Nodes {
		p := forge.RecentPull{Number: n.Number, State: strings.ToLower(n.State)}
		if n.Author != nil {
			p.Author = n.Author.login()
		}
		for _, ev := range n.TimelineItems.Nodes {
			if a := ev.Closed.Actor; a != nil {
				p.ClosedBy, p.ClosedByBot = a.login(), a.Typename == "Bot" || strings.HasSuffix(a.Login, "[bot]")
			}
		}
		for _, cm := range n.Commits.Nodes {
			oid := string(cm.Commit.Oid)
			p.HeadSHA, p.HeadTree = oid, string(cm.Commit.Tree.Oid)
			for _, s := range cm.Commit.CheckSuites.Nodes {
				var appID int64
				var slug string
				if s.App != nil {
					appID, slug = int64(s.App.DatabaseID), s.App.Slug
				}
				for _, r := range s.CheckRuns.Nodes {
					p.Runs = append(p.Runs, r.text(oid, appID, slug))
				}
			}
		}
		out = append(out, p)
	}
	return out, tree, nil
}

// issueReferencesQuery reads the pull requests that close an issue now
// (closed ones included) and every pull request its timeline says
// referenced it or was linked to it (ConnectedEvent): a reference stays on the timeline when the text that made
// it is edited away (GitHub Support, quoted in isaacs/github#1081: "It's
// not possible to remove issue references from the issue timeline";
// github-tools/github#459). Cost: one point.
type issueReferencesQuery struct {
	Repository struct {
		Issue *struct {
			ClosedByPullRequestsReferences struct {
				Nodes []struct {
					Number int
					Merged bool
				}
			} `graphql:"closedByPullRequestsReferences(first: 20, includeClosedPrs: true)"`
			TimelineItems struct {
				Nodes []struct {
					CrossReferenced struct {
						Source struct {
							PullRequest refPull `graphql:"... on PullRequest"`
						}
					} `graphql:"... on CrossReferencedEvent"`
					Connected struct {
						Subject struct {
							PullRequest refPull `graphql:"... on PullRequest"`
						}
					} `graphql:"... on ConnectedEvent"`
				}
			} `graphql:"timelineItems(itemTypes: [CROSS_REFERENCED_EVENT, CONNECTED_EVENT], last: 50)"`
		} `graphql:"issue(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// refPull is a pull request an issue's timeline names.
type refPull struct {
	Number     int
	Merged     bool
	Repository struct {
		NameWithOwner string
	}
}

// IssueReferences implements forge.Lines.
func (c *Client) IssueReferences(ctx context.Context, number int) ([]int, error) {
	var q issueReferencesQuery
	vars := map[string]any{"owner": githubv4.String(c.owner), "name": githubv4.String(c.repo), "number": githubv4.Int(number)}
	if err := c.query(ctx, fmt.Sprintf("read the pull requests that reference #%d", number), &q, vars); err != nil {
		return nil, err
	}
	if q.Repository.Issue == nil {
		return nil, nil
	}
	seen := map[int]bool{}
	var out []int
	add := func(n int, merged bool) {
		if n > 0 && !merged && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range q.Repository.Issue.ClosedByPullRequestsReferences.Nodes {
		add(n.Number, n.Merged)
	}
	self := strings.ToLower(c.owner + "/" + c.repo)
	for _, ev := range q.Repository.Issue.TimelineItems.Nodes {
		// A reference, or a pull request linked in the issue's Development
		// panel (a ConnectedEvent, which a later unlinking does not take
		// away), of this repository.
		for _, pr := range []refPull{ev.CrossReferenced.Source.PullRequest, ev.Connected.Subject.PullRequest} {
			if strings.EqualFold(pr.Repository.NameWithOwner, self) {
				add(pr.Number, pr.Merged)
			}
		}
	}
	return out, nil
}
