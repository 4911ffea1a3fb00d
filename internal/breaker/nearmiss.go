package breaker

import (
	"fmt"
	"strings"
)

// protocolNames are the trailer names of the protocol, without the prefix.
var protocolNames = []string{TrailerSlice, TrailerTest, TrailerStrategy, TrailerResult, TrailerError,
	TrailerJustify, TrailerInfra, TrailerHypothesis, TrailerQuestion}

// maxNearMisses bounds the near-miss notes of one evaluation.
const maxNearMisses = 10

// nearMissNotes names every line that looks like one of the protocol's
// trailers but that git does not read as one, or whose key is not a
// protocol key, with the reason: the agent meant it, and it is not counted.
func (e *evaluator) nearMissNotes() {
	prefix := strings.ToLower(e.p.TrailerPrefix)
	n := 0
	for _, c := range e.in.Commits {
		for _, m := range nearMisses(c, prefix) {
			if n == maxNearMisses {
				e.notef("more %s lines were not read as trailers; only the first %d are named", e.p.TrailerPrefix, maxNearMisses)
				return
			}
			n++
			e.notef("commit %s: %q is not read as a trailer: %s", ShortSHA(c.SHA), capText(m.line, 120), m.why)
		}
	}
}

type nearMiss struct{ line, why string }

// nearMisses lists the <prefix>Key: lines of one commit message that git
// did not read as protocol trailers.
func nearMisses(c Commit, prefix string) []nearMiss {
	msg := strings.ReplaceAll(c.Message, "\r\n", "\n")
	paras := paragraphs(msg)
	var out []nearMiss
	for pi, para := range paras {
		for li, line := range para {
			key, _, ok := strings.Cut(line, ":")
			key = strings.TrimSpace(key)
			if !ok || strings.ContainsAny(key, " \t") || !strings.HasPrefix(strings.ToLower(key), prefix) {
				continue
			}
			name := key[len(prefix):]
			known := knownName(name)
			parsed := HasTrailer(c.Trailers, key)
			var why string
			switch {
			case parsed && known != "":
				continue
			case parsed:
				why = fmt.Sprintf("%s is not a key of the protocol", key)
				if s := suggest(name); s != "" {
					why += fmt.Sprintf(" (did you mean %s%s?)", key[:len(prefix)], s)
				}
			case pi == 0 && li == 0:
				why = "it is the subject line; trailers go in the last paragraph, after a blank line"
			case pi == 0:
				why = "there is no blank line between the subject and the trailer block"
			case pi < len(paras)-1:
				why = "it is not in the last paragraph of the message, where git reads trailers"
			default:
				why = "the last paragraph is not a trailer block: it holds lines that are not Key: value (prose inside the block?)"
			}
			out = append(out, nearMiss{line: strings.TrimSpace(line), why: why})
		}
	}
	return out
}

// paragraphs splits a message into paragraphs of non-blank lines, stopping
// at a "---" line as git does.
func paragraphs(msg string) [][]string {
	var out [][]string
	var cur []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "---") {
			break
		}
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// knownName is the protocol name that name spells, ignoring ASCII case.
func knownName(name string) string {
	for _, k := range protocolNames {
		if keyEqual(k, name) {
			return k
		}
	}
	return ""
}

// suggest is the protocol name within two edits of name, if one is.
func suggest(name string) string {
	best, bestD := "", 3
	for _, k := range protocolNames {
		if d := editDistance(strings.ToLower(k), strings.ToLower(name)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
