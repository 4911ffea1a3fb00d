package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// newFlags returns a flag set whose --help prints help (a complete usage text,
// ending with the exit codes) to stdout. Callers use parseFlags.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("breaker "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args. It returns ok=false with the exit code to return
// when the command must stop: --help (exit 0, help on stdout) or a usage
// error (exit 2, one line on stderr naming the problem and the fix).
func parseFlags(fs *flag.FlagSet, args []string, help string, env *Env) (code int, ok bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(env.Stdout, help)
		return ExitClosed, false
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v; run '%s --help' for usage\n", fs.Name(), err, fs.Name())
		return ExitUsage, false
	}
	return 0, true
}

// parseInterspersed is parseFlags for commands that take arguments: flags
// may come before, between or after them (results FILE --format json), as
// people type them; "--" ends the flags. It returns the arguments.
func parseInterspersed(fs *flag.FlagSet, args []string, help string, env *Env) (positional []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, help, env); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), 0, true
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}
