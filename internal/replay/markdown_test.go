package replay

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

var (
	headCell = regexp.MustCompile(`<th[ >]`)
	bodyCell = regexp.MustCompile(`<td[ >]`)
)

// hostile is what an agent may write in a title, a branch or a test name.
const hostile = "Fix @octocat </details><details open><summary>x</summary> | a | b | ```` ``` <!-- c --> [link](https://evil.example) # h"

func hostileReport() Report {
	at := time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)
	pr := PullRequest{Number: 7, Title: hostile, Author: "agent@octocat", Branch: hostile, State: "closed", CreatedAt: at,
		Pushes: []Push{
			{N: 1, Head: "0123456789abcdef0123456789abcdef01234567", At: at, Conclusion: "failure", Minutes: 4, Evidence: EvidenceLog, Failing: []string{hostile}, State: "CLOSED"},
			{N: 2, Head: "1123456789abcdef0123456789abcdef01234567", At: at, Conclusion: "failure", Minutes: 4, Evidence: EvidenceLog, Failing: []string{hostile}, State: "OPEN", Reason: "per_test", Test: hostile},
			{N: 3, Head: "2123456789abcdef0123456789abcdef01234567", At: at, Conclusion: "success", Minutes: 3, Evidence: EvidenceConclusion, State: "OPEN", Reason: "per_test"},
		}}
	r := Report{Repo: "acme/shop", Since: at.AddDate(0, 0, -1), Until: at.AddDate(0, 0, 10), Agents: []string{"@octocat"}, Policy: "greenlight",
		PullRequests: []PullRequest{pr}, Cut: hostile, Notes: []string{hostile}}
	r.summarise()
	return r
}

// render is the markdown as GitHub renders it (GFM).
func render(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	// GitHub keeps <details> and <summary>: raw HTML is rendered, then
	// sanitised to its allow-list, which these tests hold the output to.
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe())).Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Whatever an agent writes stays text: no mention, no link, no block of
// its own, no cell of its own, and the report's own structure intact.
func TestMarkdown_HostileNamesStayText(t *testing.T) {
	t.Parallel()
	r := hostileReport()
	if r.Summary.Tripped != 1 || len(r.Summary.Recovered) != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}
	for name, md := range map[string]string{"replay": Markdown(r), "stats": StatsMarkdown(Stats{Repo: hostile, Agents: []string{hostile}, Cut: hostile,
		ByAgent: []AgentStats{{Agent: hostile, PullRequests: 1}}, Errors: []ErrorRow{{Fingerprint: "abc", Tests: []string{hostile}, PullRequests: []int{7}, Trips: 1}},
		Notes: []string{hostile}})} {
		html := render(t, md)
		for _, bad := range []string{"<details open", "href=\"https://evil", "<!-- c -->", "<h1"} {
			if strings.Contains(html, bad) {
				t.Errorf("%s: the rendered markdown has %q", name, bad)
			}
		}
		if strings.Contains(md, "@octocat") && !strings.Contains(md, "@\u200doctocat") {
			t.Errorf("%s: a mention reaches the markdown", name)
		}
		if strings.Count(html, "<details>") != strings.Count(md, "<details><summary>#") {
			t.Errorf("%s: %d details blocks rendered, the report writes %d", name, strings.Count(html, "<details>"), strings.Count(md, "<details><summary>#"))
		}
		// Every table row has the cells of its header.
		for _, table := range strings.Split(html, "<table>")[1:] {
			table, _, _ = strings.Cut(table, "</table>")
			head := len(headCell.FindAllString(table[:strings.Index(table, "</tr>")], -1))
			for _, row := range strings.Split(table, "<tr>")[2:] {
				if n := len(bodyCell.FindAllString(row, -1)); n != head {
					t.Errorf("%s: a row of %d cells under a header of %d:\n%s", name, n, head, row)
				}
			}
		}
	}
}

func TestWeekOf_IsTheMonday(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"2026-03-02T10:00:00Z": "2026-03-02", "2026-03-08T23:59:00Z": "2026-03-02", "2026-03-09T00:00:00Z": "2026-03-09",
		"2026-03-04T01:00:00+05:00": "2026-03-02"} {
		at, _ := time.Parse(time.RFC3339, in)
		if got := weekOf(at).Format("2006-01-02"); got != want {
			t.Errorf("weekOf(%s) = %s, want %s", in, got, want)
		}
	}
}
