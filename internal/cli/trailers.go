package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/trailer"
)

const trailersHelp = `Usage: breaker trailers [--jsonl]

Print the git trailers of a commit message as JSON: an array of [key, value]
pairs in message order, the keys as written and continuation lines joined
with single spaces. A message without trailers prints []. The rules are git's
own, so the answer is what
  git log --format='%(trailers:only,unfold)'
gives for a commit with that message.

Input is read from stdin:
  (default)   one raw commit message; prints one array
  --jsonl     JSON lines, one object per commit with a "message" string
              field (other fields, such as "sha", are ignored); prints one
              array per line, in input order

Flags:
  --jsonl     read JSON lines instead of a single message

Example:
  git log -1 --format=%B | breaker trailers
  [["Greenlight-Test","TestCache_Get"],["Signed-off-by","Ann <ann@example.com>"]]

Exit codes:
  0   success
  1   error: unreadable input, or a malformed JSON line (named by number)
  2   usage error
`

// maxTrailersLine caps one line of --jsonl input.
const maxTrailersLine = 64 << 20

func runTrailers(_ context.Context, env *Env, args []string) int {
	fs := newFlags("trailers")
	jsonl := fs.Bool("jsonl", false, "")
	if code, ok := parseFlags(fs, args, trailersHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "breaker trailers: unexpected argument %q; the message is read from stdin\n", fs.Arg(0))
		return ExitUsage
	}
	out := bufio.NewWriter(env.Stdout)
	var err error
	if *jsonl {
		err = trailersOfLines(env.Stdin, out)
	} else {
		err = trailersOfMessage(env.Stdin, out)
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker trailers: %v\n", err)
		return ExitError
	}
	return ExitClosed
}

// trailersOfMessage prints the trailers of the one message read from r.
func trailersOfMessage(r io.Reader, w io.Writer) error {
	msg, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	return writeTrailers(w, trailer.Parse(string(msg)))
}

// trailersOfLines prints the trailers of each JSON line's message, one array
// a line, and stops at the first malformed line.
func trailersOfLines(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTrailersLine)
	n := 0
	for sc.Scan() {
		n++
		msg, err := jsonlMessage(sc.Bytes())
		if err != nil {
			return fmt.Errorf("stdin line %d: %w", n, err)
		}
		if err := writeTrailers(w, trailer.Parse(msg)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("stdin line %d: longer than %d MiB", n+1, maxTrailersLine>>20)
		}
		return fmt.Errorf("read stdin: %w", err)
	}
	return nil
}

// jsonlMessage returns the "message" string of one JSON object line.
func jsonlMessage(line []byte) (string, error) {
	if len(line) == 0 {
		return "", errors.New(`empty line, want a JSON object with a "message" field`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := obj["message"]
	if !ok {
		return "", errors.New(`no "message" field`)
	}
	var msg string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &msg) != nil {
		return "", fmt.Errorf(`"message" is %.40s, want a string`, raw)
	}
	return msg, nil
}

// writeTrailers prints ts as one JSON array of [key, value] pairs and a
// newline. HTML is not escaped: `<ann@example.com>` stays readable.
func writeTrailers(w io.Writer, ts []breaker.Trailer) error {
	pairs := make([][2]string, 0, len(ts))
	for _, t := range ts {
		pairs = append(pairs, [2]string{t.Key, t.Value})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(pairs); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
