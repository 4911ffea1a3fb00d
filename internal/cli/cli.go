package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
)

// Env is the process state a command may use. Nothing in this package reads
// the real environment or standard streams directly.
type Env struct {
	Getenv func(string) string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// command is one breaker subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) int
}

func commands() []command {
	return []command{
		{"evaluate", "evaluate the agent branch and print the verdict", runEvaluate},
		{"trailers", "print the git trailers of a commit message as JSON", runTrailers},
		{"results", "print what the breaker reads from test result files", runResults},
		{"ledger", "fetch CI's ledger of a pull request or branch as JSON lines", runLedger},
		{"replay", "replay a repository's past agent pull requests: where the breaker would have stopped them", runReplay},
		{"stats", "sum up the breaker's ledger across a window's pull requests", runStats},
		{"gate", "exit 42 while a pull request's breaker is OPEN (before an agent works on it)", runGate},
		{"demo", "evaluate a throw-away repository with a death spiral", runDemo},
		{"init", "write the breaker's workflows into a repository", runInit},
		{"protocol", "print the agent-side protocol", runProtocol},
		{"action", "run as a GitHub Action (default when GITHUB_ACTIONS=true)", runAction},
		{"serve", "run as a GitHub App's webhook server: one install watches an organisation", runServe},
		{"version", "print the version", runVersion},
	}
}

// Version is set at build time with -ldflags "-X ...cli.Version=v1.2.3".
var Version = "dev"

// Main runs the breaker command line and returns the process exit code.
// args includes the program name, as os.Args does.
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Getenv: getenv, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	rest := args[1:]
	if len(rest) == 0 {
		if getenv("GITHUB_ACTIONS") == "true" {
			return runAction(ctx, env, nil)
		}
		usage(stderr)
		return ExitUsage
	}
	name := rest[0]
	switch name {
	case "-h", "-help", "--help":
		usage(stdout)
		return ExitClosed
	case "help":
		if len(rest) > 1 { // help COMMAND is COMMAND --help
			return Main(ctx, []string{args[0], rest[1], "--help"}, getenv, stdin, stdout, stderr)
		}
		usage(stdout)
		return ExitClosed
	case "-v", "-version", "--version":
		return runVersion(ctx, env, nil)
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, env, rest[1:])
		}
	}
	if near := nearestCommand(name); near != "" {
		fmt.Fprintf(stderr, "breaker: unknown command %q; did you mean %s? run 'breaker help' for the list\n", name, near)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "breaker: unknown command %q; run 'breaker help' for the list\n", name)
	return ExitUsage
}

// nearestCommand is the command within two edits of name (a typo), ""
// when none is. Fifteen short names: a plain edit distance does, no
// library needed.
func nearestCommand(name string) string {
	best, bestD := "", 3
	for _, c := range commands() {
		if d := editDistance(strings.ToLower(name), c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes; names are
// ASCII), with an adjacent swap counted as one edit.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typo of a command name
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func usage(w io.Writer) {
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	var b strings.Builder
	b.WriteString("breaker enforces the Greenlight circuit breaker on an agent branch, in CI.\n\n")
	b.WriteString("Usage:\n  breaker <command> [flags]\n\nCommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'breaker help <command>' (or 'breaker <command> --help') for a command's flags;\n'breaker --version' prints the version.\n\n")
	b.WriteString(exitCodesHelp)
	io.WriteString(w, b.String())
}

const exitCodesHelp = `Exit codes:
  0   CLOSED (or success)
  1   error: unreadable repository, results or input
  2   usage error
  42  OPEN: the circuit breaker tripped
`

// plainExitCodesHelp is for the commands that never trip.
const plainExitCodesHelp = `Exit codes:
  0   success
  1   error
  2   usage error
`

const versionHelp = `Usage: breaker version

Print the breaker's version, the Go toolchain it was built with, and the
platform (also 'breaker --version').

` + plainExitCodesHelp

func runVersion(_ context.Context, env *Env, args []string) int {
	fs := newFlags("version")
	if code, ok := parseFlags(fs, args, versionHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "breaker version: takes no arguments; run 'breaker version --help'")
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "breaker %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitClosed
}
