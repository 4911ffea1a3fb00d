package cli

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/greenlight-ci/breaker/src"
)

const protocolHelp = `Usage: breaker protocol [--list] [NAME]

Print the agent-side protocol embedded in the binary: how an agent writes
attempt commits and trailers, what CI counts, and how a human debugs and
resets. With NAME, print that document instead; --list names them all.

Flags:
  --list   list the embedded documents

` + plainExitCodesHelp

func runProtocol(_ context.Context, env *Env, args []string) int {
	fs0 := newFlags("protocol")
	list := fs0.Bool("list", false, "")
	if code, ok := parseFlags(fs0, args, protocolHelp, env); !ok {
		return code
	}
	if *list {
		for _, n := range src.Names {
			fmt.Fprintln(env.Stdout, n)
		}
		return ExitClosed
	}
	name := "protocol.md"
	switch fs0.NArg() {
	case 0:
	case 1:
		name = fs0.Arg(0)
	default:
		fmt.Fprintln(env.Stderr, "breaker protocol: at most one document name; run 'breaker protocol --list'")
		return ExitUsage
	}
	if !slices.Contains(src.Names, name) {
		fmt.Fprintf(env.Stderr, "breaker protocol: no document %q; run 'breaker protocol --list'\n", name)
		return ExitUsage
	}
	b, err := fs.ReadFile(src.Docs(), name)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker protocol: %v\n", err)
		return ExitError
	}
	env.Stdout.Write(b)
	return ExitClosed
}
