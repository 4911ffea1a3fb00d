package report

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// minShare is the least output worth keeping of a shortened code block; below
// it, fit drops whole sections instead.
const minShare = 256

// omission marks where a shortened output was cut; %d is the bytes left out.
const omission = "[… %d bytes omitted …]\n"

// block is one self-contained piece of a markdown report: cutting the report
// between blocks never leaves a code fence or a <details> open. A shrinkable
// block re-renders around a shortened code.
type block struct {
	text string
	code string
	wrap func(code string) string
}

func fixed(s string) block { return block{text: s} }

func shrinkable(code string, wrap func(string) string) block {
	code = strings.TrimRight(stripControls(code), "\n")
	return block{text: wrap(code), code: code, wrap: wrap}
}

func joinBlocks(bs []block) string {
	texts := make([]string, len(bs))
	for i, b := range bs {
		texts[i] = b.text
	}
	return strings.Join(texts, "\n")
}

// fit joins the blocks within limit bytes: whole if they fit, else with long
// outputs shortened, else with trailing blocks dropped; note says so.
func fit(bs []block, limit int, note string) string {
	full := joinBlocks(bs)
	if len(full) <= limit {
		return full
	}
	room := limit - len(note) - 1
	if out, ok := shrinkCode(bs, room); ok {
		return out + "\n" + note
	}
	return cutBlocks(bs, room) + "\n" + note
}

// shrinkCode shares the room left by the fixed blocks among the shrinkable
// ones (water-filling: short outputs stay whole, long ones share the rest).
func shrinkCode(bs []block, room int) (string, bool) {
	var idx []int
	used := len(bs) - 1
	for i, b := range bs {
		if b.wrap == nil {
			used += len(b.text)
			continue
		}
		idx = append(idx, i)
		used += len(b.text) - len(b.code) + len(omission) + 16
	}
	budget := room - used
	if len(idx) == 0 || budget < minShare*len(idx) {
		return "", false
	}
	sort.SliceStable(idx, func(a, b int) bool { return len(bs[idx[a]].code) < len(bs[idx[b]].code) })
	out := append([]block(nil), bs...)
	for k, i := range idx {
		share := min(len(bs[i].code), budget/(len(idx)-k))
		budget -= share
		out[i].text = bs[i].wrap(cutMiddle(bs[i].code, share))
	}
	s := joinBlocks(out)
	return s, len(s) <= room
}

// cutMiddle keeps about n bytes of s, its head and its tail, marking the
// cut. Cuts fall on line boundaries when one is near, else on runes.
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := runeBoundary(s, n/2)
	if i := strings.LastIndexByte(s[:head], '\n'); i >= head/2 {
		head = i + 1
	}
	tail := len(s) - (n - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	if i := strings.IndexByte(s[tail:], '\n'); i >= 0 && i < (len(s)-tail)/2 {
		tail += i + 1
	}
	mark := fmt.Sprintf(omission, tail-head)
	if !strings.HasSuffix(s[:head], "\n") {
		mark = "\n" + mark
	}
	return s[:head] + mark + s[tail:]
}

// runeBoundary returns the largest i <= n that starts a rune of s.
func runeBoundary(s string, n int) int {
	n = min(n, len(s))
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// cutBlocks keeps the leading blocks that fit in room; a first block too
// large on its own is cut at a line boundary.
func cutBlocks(bs []block, room int) string {
	var kept []block
	size := 0
	for _, b := range bs {
		if size+len(b.text)+1 > room {
			break
		}
		kept = append(kept, b)
		size += len(b.text) + 1
	}
	if len(kept) > 0 {
		return joinBlocks(kept)
	}
	first := bs[0].text[:runeBoundary(bs[0].text, room)]
	if i := strings.LastIndexByte(first, '\n'); i > 0 {
		first = first[:i+1]
	}
	return first
}
