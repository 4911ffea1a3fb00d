// Command pinscheck keeps internal/setup/pins.txt, the table of every
// third-party action the breaker's workflows pin: with no flags it checks
// that each row's release tag points at the row's commit in the action's
// own repository; with -write it pins each action at its newest release
// and records the check. It reads tags with go-git (no token, no API).
//
//	go run ./internal/setup/pinscheck            # check every row
//	go run ./internal/setup/pinscheck -write     # pin the newest releases
//	go run ./internal/setup/pinscheck -from '/mirrors/{owner}+{repo}'
//
// -from is where each action's repository is read: a URL or a local git
// directory, with {owner} and {repo} filled in (https://github.com/... by
// default).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/greenlight-ci/breaker/internal/setup"
)

func main() {
	table := flag.String("table", "internal/setup/pins.txt", "the pins table to check or write")
	from := flag.String("from", "https://github.com/{owner}/{repo}", "each action's repository: a URL or git directory with {owner} and {repo}")
	write := flag.Bool("write", false, "pin every action at its newest release and write the table")
	flag.Parse()
	if err := run(*table, *from, *write); err != nil {
		fmt.Fprintln(os.Stderr, "pinscheck:", err)
		os.Exit(1)
	}
}

func run(table, from string, write bool) error {
	data, err := os.ReadFile(table)
	if err != nil {
		return err
	}
	pins, err := setup.ParsePins(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	var bad []string
	for i, p := range pins {
		owner, repo, _ := strings.Cut(p.Action, "/")
		where := strings.NewReplacer("{owner}", owner, "{repo}", repo).Replace(from)
		tags, err := releaseTags(where)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Action, err)
		}
		release := p.Release
		if write {
			if release, err = newest(tags); err != nil {
				return fmt.Errorf("%s (%s): %w", p.Action, where, err)
			}
		}
		commit, ok := tags[release]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: no tag %s in %s", p.Action, release, where))
		case write:
			pins[i] = setup.Pin{Action: p.Action, Release: release, Commit: commit,
				Checked: fmt.Sprintf("%s: tag %s is this commit in %s (its newest release)", time.Now().UTC().Format(time.DateOnly), release, p.Action)}
			fmt.Printf("%-36s %-9s %s\n", p.Action, release, commit)
		case commit != p.Commit:
			bad = append(bad, fmt.Sprintf("%s: tag %s is %s in %s, the table says %s", p.Action, release, commit, where, p.Commit))
		default:
			fmt.Printf("ok  %-36s %-9s %s\n", p.Action, release, commit)
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "\n"))
	}
	if !write {
		return nil
	}
	head, _, _ := strings.Cut(string(data), "\n# action\t")
	var b strings.Builder
	b.WriteString(head + "\n# action\trelease\tcommit\tchecked\n")
	for _, p := range pins {
		b.WriteString(strings.Join([]string{p.Action, p.Release, p.Commit, p.Checked}, "\t") + "\n")
	}
	return os.WriteFile(table, []byte(b.String()), 0o644)
}

// releaseTags lists the repository's version tags and the commit each
// names (an annotated tag peeled to its commit).
func releaseTags(where string) (map[string]string, error) {
	if !strings.Contains(where, "://") {
		if abs, err := filepath.Abs(where); err == nil {
			where = abs
		}
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{where}})
	refs, err := rem.List(&git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return nil, fmt.Errorf("listing the tags of %s: %w", where, err)
	}
	tags := map[string]string{}
	peeled := map[string]string{}
	for _, r := range refs {
		name := r.Name()
		if !name.IsTag() || r.Type() != plumbing.HashReference {
			continue
		}
		short := name.Short()
		if base, ok := strings.CutSuffix(short, "^{}"); ok {
			peeled[base] = r.Hash().String()
			continue
		}
		tags[short] = r.Hash().String()
	}
	for t, c := range peeled {
		tags[t] = c
	}
	return tags, nil
}

// newest is the highest release among tags: vMAJOR.MINOR[.PATCH] (the v
// optional), no pre-releases.
func newest(tags map[string]string) (string, error) {
	type rel struct {
		tag string
		v   [3]int
	}
	var rels []rel
	for t := range tags {
		parts := strings.Split(strings.TrimPrefix(t, "v"), ".")
		if len(parts) < 2 || len(parts) > 3 {
			continue
		}
		var r rel
		r.tag = t
		ok := true
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 {
				ok = false
				break
			}
			r.v[i] = n
		}
		if ok {
			rels = append(rels, r)
		}
	}
	if len(rels) == 0 {
		return "", errors.New("no release tag (vMAJOR.MINOR[.PATCH])")
	}
	sort.Slice(rels, func(i, j int) bool {
		if rels[i].v != rels[j].v {
			a, b := rels[i].v, rels[j].v
			for k := range a {
				if a[k] != b[k] {
					return a[k] > b[k]
				}
			}
		}
		return len(rels[i].tag) > len(rels[j].tag) // v1.2.0 before v1.2
	})
	return rels[0].tag, nil
}
