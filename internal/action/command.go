package action

import (
	"strings"
	"unicode"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// commandKind is a /breaker command a pull request comment can carry.
type commandKind string

const (
	cmdDebug commandKind = "debug"
	cmdReset commandKind = "reset"
)

// command is a parsed /breaker comment command.
type breakerCmd struct {
	kind     commandKind
	slice    string // reset: the slice named, "" = the current one
	rollback bool   // reset: restore the checkpoint's tree first
	guidance string // reset: free text for the agent
	problem  string // why the command is malformed; "" when it is fine
}

// parseCommand reads a /breaker command from the first non-empty line of a
// comment body. ok is false when the comment is not a /breaker command at
// all (ordinary conversation). The words after "reset" are: an optional
// slice id (a valid id that contains a digit, e.g. S-3), an optional
// --rollback, then guidance, which is everything else including later lines.
func parseCommand(body string) (cmd breakerCmd, ok bool) {
	first, rest := firstLine(body)
	words := strings.Fields(first)
	if len(words) == 0 || words[0] != "/breaker" {
		return breakerCmd{}, false
	}
	if len(words) < 2 {
		return breakerCmd{problem: "say /breaker debug or /breaker reset [slice] [--rollback] [guidance]"}, true
	}
	switch strings.ToLower(words[1]) {
	case string(cmdDebug):
		return breakerCmd{kind: cmdDebug}, true
	case string(cmdReset):
		return parseReset(words[2:], rest), true
	}
	return breakerCmd{problem: "unknown command " + quoteWord(words[1]) + "; the commands are /breaker debug and /breaker reset"}, true
}

func parseReset(words []string, rest string) breakerCmd {
	cmd := breakerCmd{kind: cmdReset}
	if len(words) > 0 && looksLikeSlice(words[0]) {
		cmd.slice, words = words[0], words[1:]
		if err := breaker.CheckSlice(cmd.slice); err != nil {
			cmd.problem = err.Error()
			return cmd
		}
	}
	if len(words) > 0 && words[0] == "--rollback" {
		cmd.rollback, words = true, words[1:]
	}
	if len(words) > 0 && strings.HasPrefix(words[0], "--") {
		cmd.problem = "unknown option " + quoteWord(words[0]) + "; the only option is --rollback, right after the slice"
		return cmd
	}
	cmd.guidance = strings.TrimSpace(strings.Join(words, " ") + "\n" + rest)
	return cmd
}

// looksLikeSlice tells a slice id from the first word of guidance: a valid
// id that contains a digit (S-3), or a word with a digit and a '/' that
// someone meant as one (team/S-3), which CheckSlice then refuses with the
// words the CLI and the slice input use.
func looksLikeSlice(w string) bool {
	if !strings.ContainsFunc(w, unicode.IsDigit) {
		return false
	}
	return breaker.ValidSlice(w) || (strings.Contains(w, "/") && !strings.HasPrefix(w, "-") && !strings.Contains(w, "://"))
}

func firstLine(body string) (line, rest string) {
	body = strings.TrimLeft(strings.ReplaceAll(body, "\r\n", "\n"), " \t\n")
	line, rest, _ = strings.Cut(body, "\n")
	return strings.TrimSpace(line), rest
}

// quoteWord quotes a word the commenter wrote, cut short, for a reply.
func quoteWord(w string) string {
	if r := []rune(w); len(r) > 40 {
		w = string(r[:40]) + "…"
	}
	return "\"" + w + "\""
}

// withSlice reads the first word of a reset's guidance as its slice when it
// names slice exactly: a slice id without a digit (a branch taken as the
// slice, copilot-fix-login) is not told apart from guidance by its shape,
// so the printed command "/breaker reset copilot-fix-login --rollback" is
// read as the comment meant it.
func withSlice(cmd breakerCmd, slice string) breakerCmd {
	if cmd.kind != cmdReset || cmd.slice != "" || slice == "" {
		return cmd
	}
	first, rest := firstLine(cmd.guidance)
	words := strings.Fields(first)
	if len(words) == 0 || words[0] != slice {
		return cmd
	}
	out := parseReset(words[1:], rest)
	out.slice = slice
	return out
}
