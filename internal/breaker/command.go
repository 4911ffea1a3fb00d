package breaker

import (
	"strings"
	"unicode"
)

// CommandKind is a /breaker command a pull request comment can carry.
type CommandKind string

const (
	CommandDebug CommandKind = "debug"
	CommandReset CommandKind = "reset"
)

// Command is a parsed /breaker comment command (a pull request comment
// the Action acts on, and `breaker replay` reads back for resets).
type Command struct {
	Kind     CommandKind
	Slice    string // reset: the slice named, "" = the current one
	Rollback bool   // reset: restore the checkpoint's tree first
	Guidance string // reset: free text for the agent
	Problem  string // why the command is malformed; "" when it is fine
}

// ParseCommand reads a /breaker command from the first non-empty line of a
// comment body. ok is false when the comment is not a /breaker command at
// all (ordinary conversation). The words after "reset" are: an optional
// slice id (a valid id that contains a digit, e.g. S-3), an optional
// --rollback, then guidance, which is everything else including later lines.
func ParseCommand(body string) (cmd Command, ok bool) {
	first, rest := commandLine(body)
	words := strings.Fields(first)
	if len(words) == 0 || words[0] != "/breaker" {
		return Command{}, false
	}
	if len(words) < 2 {
		return Command{Problem: "say /breaker debug or /breaker reset [slice] [--rollback] [guidance]"}, true
	}
	switch strings.ToLower(words[1]) {
	case string(CommandDebug):
		return Command{Kind: CommandDebug}, true
	case string(CommandReset):
		return parseReset(words[2:], rest), true
	}
	return Command{Problem: "unknown command " + quoteWord(words[1]) + "; the commands are /breaker debug and /breaker reset"}, true
}

func parseReset(words []string, rest string) Command {
	cmd := Command{Kind: CommandReset}
	if len(words) > 0 && looksLikeSlice(words[0]) {
		cmd.Slice, words = words[0], words[1:]
		if err := CheckSlice(cmd.Slice); err != nil {
			cmd.Problem = err.Error()
			return cmd
		}
	}
	if len(words) > 0 && words[0] == "--rollback" {
		cmd.Rollback, words = true, words[1:]
	}
	if len(words) > 0 && strings.HasPrefix(words[0], "--") {
		cmd.Problem = "unknown option " + quoteWord(words[0]) + "; the only option is --rollback, right after the slice"
		return cmd
	}
	cmd.Guidance = strings.TrimSpace(strings.Join(words, " ") + "\n" + rest)
	return cmd
}

// looksLikeSlice tells a slice id from the first word of Guidance: a valid
// id that contains a digit (S-3), or a word with a digit and a '/' that
// someone meant as one (team/S-3), which CheckSlice then refuses with the
// words the CLI and the slice input use.
func looksLikeSlice(w string) bool {
	if !strings.ContainsFunc(w, unicode.IsDigit) {
		return false
	}
	return ValidSlice(w) || (strings.Contains(w, "/") && !strings.HasPrefix(w, "-") && !strings.Contains(w, "://"))
}

func commandLine(body string) (line, rest string) {
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

// WithSlice reads the first word of a reset's guidance as its slice when it
// names slice exactly: a slice id without a digit (a branch taken as the
// slice, copilot-fix-login) is not told apart from guidance by its shape,
// so the printed command "/breaker reset copilot-fix-login --rollback" is
// read as the comment meant it.
func WithSlice(cmd Command, slice string) Command {
	if cmd.Kind != CommandReset || cmd.Slice != "" || slice == "" {
		return cmd
	}
	first, rest := commandLine(cmd.Guidance)
	words := strings.Fields(first)
	if len(words) == 0 || words[0] != slice {
		return cmd
	}
	out := parseReset(words[1:], rest)
	out.Slice = slice
	return out
}
