package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/report"
)

// remoteFlags are the flags of the commands that read a repository's
// ledger on GitHub (ledger, gate): which repository, whose ledger, and
// how the breaker that wrote it is configured.
type remoteFlags struct {
	cmd       string
	repo      *string
	pr        *int
	branch    *string
	checkName *string
	appID     *int64
	keyFile   *string
	token     string // once open read it
}

func newRemoteFlags(cmd string) (*remoteFlags, *flag.FlagSet) {
	fs := newFlags(cmd)
	return &remoteFlags{cmd: cmd,
		repo: fs.String("repo", "", ""), pr: fs.Int("pr", 0, ""), branch: fs.String("branch", "", ""),
		checkName: fs.String("check-name", actionenv.DefaultCheckName, ""), appID: fs.Int64("app-id", 0, ""),
		keyFile: fs.String("ledger-key-file", "", ""),
	}, fs
}

// open checks the flags (a usage error is exit 2), reads the token and
// the key, and makes the client; ok is false with the exit code when the
// command must stop.
func (f *remoteFlags) open(env *Env, fs *flag.FlagSet) (client *ghapi.Client, key []byte, code int, ok bool) {
	owner, name, found := strings.Cut(*f.repo, "/")
	switch {
	case fs.NArg() > 0:
		return nil, nil, usageError(env, f.cmd, fmt.Sprintf("unexpected argument %q", fs.Arg(0))), false
	case !found || owner == "" || name == "" || strings.Contains(name, "/"):
		return nil, nil, usageError(env, f.cmd, "--repo must be OWNER/NAME, e.g. --repo acme/shop"), false
	case (*f.pr > 0) == (*f.branch != ""):
		return nil, nil, usageError(env, f.cmd, "give exactly one of --pr N and --branch B"), false
	}
	token := tokenOf(env)
	if token == "" {
		fmt.Fprintf(env.Stderr, "breaker %s: no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may read the repository's checks and pull requests\n", f.cmd)
		return nil, nil, ExitError, false
	}
	f.token = token
	if *f.keyFile != "" {
		var err error
		if key, err = evaluate.ReadKeyFile(*f.keyFile); err != nil {
			fmt.Fprintf(env.Stderr, "breaker %s: %s\n", f.cmd, report.SafeLine(err.Error()))
			return nil, nil, ExitError, false
		}
	}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: env.Getenv("GITHUB_API_URL"),
		GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Owner: owner, Repo: name, UserAgent: "greenlight-breaker/" + Version})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker %s: %v\n", f.cmd, err)
		return nil, nil, ExitError, false
	}
	return client, key, 0, true
}

// tokenOf is the token the commands that read GitHub use: GITHUB_TOKEN,
// else GH_TOKEN (the GitHub CLI's).
func tokenOf(env *Env) string {
	if t := env.Getenv("GITHUB_TOKEN"); t != "" {
		return t
	}
	return env.Getenv("GH_TOKEN")
}
