package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type config struct {
	commits, files, attempts int
	forks                    []int
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var cfg config
	var forks string
	fs.IntVar(&cfg.commits, "commits", 200000, "commits on main")
	fs.IntVar(&cfg.files, "files", 5000, "files in the tree")
	fs.IntVar(&cfg.attempts, "attempts", 60, "attempt commits per agent branch")
	fs.StringVar(&forks, "forks", "30,3000,30000", "fork distances behind main's tip")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(forks, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n >= cfg.commits {
			return fmt.Errorf("bad fork distance %q", f)
		}
		cfg.forks = append(cfg.forks, n)
	}
	w := bufio.NewWriterSize(stdout, 1<<20)
	g := &generator{w: w, cfg: cfg, rng: rand.New(rand.NewPCG(1, 2)), when: 1262304000}
	g.history()
	return w.Flush()
}

// generator writes the stream. Marks are commit numbers.
type generator struct {
	w     *bufio.Writer
	cfg   config
	rng   *rand.Rand
	mark  int
	when  int64
	main  []int // marks of main's first-parent chain
	paths []string
}

func (g *generator) history() {
	g.initial()
	for len(g.main) < g.cfg.commits {
		if g.rng.IntN(20) == 0 && len(g.main) > 10 {
			g.mergeSide()
			continue
		}
		g.main = append(g.main, g.commit("refs/heads/main", g.main[len(g.main)-1], 0, g.subject(), g.edits(1+g.rng.IntN(3))))
	}
	for _, d := range g.cfg.forks {
		g.agent(d)
	}
	fmt.Fprintf(g.w, "reset refs/heads/main\nfrom :%d\n\n", g.main[len(g.main)-1])
}

// initial writes the root commit with every file.
func (g *generator) initial() {
	for i := range g.cfg.files {
		g.paths = append(g.paths, fmt.Sprintf("pkg/d%02d/sub%d/file%03d.go", i%50, (i/50)%10, i/500))
	}
	edits := make([]string, len(g.paths))
	copy(edits, g.paths)
	g.main = append(g.main, g.commit("refs/heads/main", 0, 0, "Initial import", edits))
}

// mergeSide writes a two-commit side branch from a recent main commit and
// merges it into main: the shape of a merged pull request.
func (g *generator) mergeSide() {
	from := g.main[len(g.main)-1-g.rng.IntN(5)]
	s1 := g.commit("refs/heads/side", from, 0, g.subject(), g.edits(1))
	s2 := g.commit("refs/heads/side", s1, 0, g.subject(), g.edits(1))
	g.main = append(g.main, g.commit("refs/heads/main", g.main[len(g.main)-1], s2, fmt.Sprintf("Merge pull request #%d", g.mark), nil))
}

// agent writes refs/heads/agent-<d>: attempt commits forked d commits
// behind main's tip, dated after it.
func (g *generator) agent(d int) {
	prev := g.main[len(g.main)-1-d]
	ref := fmt.Sprintf("refs/heads/agent-%d", d)
	for i := range g.cfg.attempts {
		msg := fmt.Sprintf("Attempt %d: guard the cache lookup\n\nTry the next idea for the failing test.\n\nGreenlight-Slice: S-1\nGreenlight-Test: TestCache%d\nGreenlight-Strategy: strategy %d\n", i, i%4, i)
		prev = g.commit(ref, prev, 0, msg, g.edits(1+g.rng.IntN(2)))
	}
}

func (g *generator) subject() string {
	p := g.paths[g.rng.IntN(len(g.paths))]
	return fmt.Sprintf("%s: adjust handling of case %d\n\nThe previous behaviour dropped the last entry when the\ninput ended without a newline.\n", p[:strings.LastIndexByte(p, '/')], g.mark)
}

func (g *generator) edits(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.paths[g.rng.IntN(len(g.paths))]
	}
	return out
}

// commit writes one commit on ref with the given parents (0 = none) that
// rewrites the given paths, and returns its mark.
func (g *generator) commit(ref string, from, merge int, msg string, paths []string) int {
	g.mark++
	g.when += 300
	fmt.Fprintf(g.w, "commit %s\nmark :%d\n", ref, g.mark)
	fmt.Fprintf(g.w, "author Dev %d <dev%d@example.com> %d +0000\n", g.mark%97, g.mark%97, g.when)
	fmt.Fprintf(g.w, "committer Dev %d <dev%d@example.com> %d +0000\n", g.mark%97, g.mark%97, g.when)
	fmt.Fprintf(g.w, "data %d\n%s\n", len(msg), msg)
	if from > 0 {
		fmt.Fprintf(g.w, "from :%d\n", from)
	}
	if merge > 0 {
		fmt.Fprintf(g.w, "merge :%d\n", merge)
	}
	for _, p := range paths {
		body := g.content(p)
		fmt.Fprintf(g.w, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
	}
	g.w.WriteString("\n")
	return g.mark
}

// content is a plausible source file that changes a little each revision.
func (g *generator) content(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s is generated for the benchmark.\npackage x\n\n", path)
	for i := range 24 {
		fmt.Fprintf(&b, "func f%d(x int) int { return x*%d + %d }\n", i, i+1, (g.mark+i)%7)
	}
	fmt.Fprintf(&b, "\n// revision %d\n", g.mark)
	return b.String()
}
