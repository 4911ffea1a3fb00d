// Command startfloor is the start-up floor of any breaker binary (issue
// 35): it links the three dependencies the project must use and does
// nothing else but print a version line, as `breaker version` does.
//
// Go runs every linked package's initialisation before main, so what this
// costs, the breaker costs too before its first line of code. bench/all.sh
// times it beside `breaker version` and `git --version`.
//
//	go build -o floor ./bench/startfloor              the least of the three: go-github,
//	                                                  go-githubactions and go-git's plumbing
//	go build -tags asused -o floor ./bench/startfloor go-git as the breaker uses it
//	                                                  (repository, objects, storage)
package main

import (
	"fmt"
	"os"

	_ "github.com/go-git/go-git/v5/plumbing"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/sethvargo/go-githubactions"
)

func main() {
	if _, err := fmt.Fprintln(os.Stdout, "startfloor"); err != nil {
		os.Exit(1)
	}
}
