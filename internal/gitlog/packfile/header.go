package packfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

var errCommitHeader = errors.New("malformed commit header")

// GenUnknown is the generation of a commit no commit-graph covers. Such
// commits are newer than every covered one, so a walk by generation visits
// them first.
const GenUnknown = math.MaxUint64

// Header is what a history walk needs of a commit: its parents, its
// committer time (Unix seconds) and, when a commit-graph covers it, its
// generation number (else GenUnknown).
type Header struct {
	Parents []plumbing.Hash
	When    int64
	Gen     uint64
	// InGraph says the header came from the commit-graph (Graph.Row): Pos
	// is the commit's position there and ParentPos its parents', which a
	// walk follows without searching for them; Parents is then empty
	// (Graph.HashAt names them).
	InGraph   bool
	Pos       uint32
	ParentPos []uint32
}

// ParseHeader reads the parents and the committer time of a raw commit,
// stopping at the blank line before the message.
func ParseHeader(raw []byte) (Header, error) {
	hd := Header{Gen: GenUnknown}
	for len(raw) > 0 {
		line, rest, _ := bytes.Cut(raw, []byte{'\n'})
		raw = rest
		if len(line) == 0 {
			break
		}
		switch {
		case bytes.HasPrefix(line, []byte("parent ")):
			h, ok := parseHash(line[len("parent "):])
			if !ok {
				return Header{}, errCommitHeader
			}
			hd.Parents = append(hd.Parents, h)
		case bytes.HasPrefix(line, []byte("committer ")):
			hd.When = signatureTime(line)
		}
	}
	return hd, nil
}

func parseHash(b []byte) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(b) != 40 {
		return h, false
	}
	_, err := hex.Decode(h[:], b)
	return h, err == nil
}

// signatureTime is the Unix time of "committer Name <email> 1700000000 +0000";
// 0 when it cannot be read, which only costs the walk some ordering.
func signatureTime(line []byte) int64 {
	gt := bytes.LastIndexByte(line, '>')
	if gt < 0 {
		return 0
	}
	fields := bytes.Fields(line[gt+1:])
	if len(fields) == 0 {
		return 0
	}
	t, err := strconv.ParseInt(string(fields[0]), 10, 64)
	if err != nil {
		return 0
	}
	return t
}
