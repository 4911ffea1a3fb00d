package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog"
	"github.com/greenlight-ci/breaker/internal/trailer"
)

func main() {
	repoDir := flag.String("repo", ".", "repository")
	head := flag.String("head", "", "head revision")
	base := flag.String("base", "", "base revision")
	reps := flag.Int("n", 1, "read the branch this many times (for profiles)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gitlogbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	for range *reps {
		if err = run(*repoDir, *head, *base); err != nil {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitlogbench:", err)
		os.Exit(1)
	}
}

func run(dir, head, base string) error {
	start := time.Now()
	repo, err := gitlog.Open(dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	opened := time.Now()
	lg, err := repo.Log(context.Background(), gitlog.Options{
		Head: head, Base: base, Parse: trailer.Parse,
		NeedsFiles: breaker.DefaultPolicy().NeedsFiles,
	})
	if err != nil {
		return err
	}
	files := 0
	for _, c := range lg.Commits {
		files += len(c.Files)
	}
	logged := time.Now()
	if _, err := repo.Refs(breaker.DefaultPolicy()); err != nil {
		return err
	}
	fmt.Printf("commits=%d files=%d fork=%s open=%v log=%v refs=%v\n", len(lg.Commits), files, lg.ForkPoint,
		opened.Sub(start), logged.Sub(opened), time.Since(logged))
	return nil
}
