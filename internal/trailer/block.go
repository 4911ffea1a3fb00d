package trailer

import "strings"

// blockEnd returns where the trailer block must end: before the scissors
// line, and before the trailing run of blank lines, comment lines and
// old-style "Conflicts:" blocks. It mirrors git's ignore_non_trailer, quirks
// included: a run that starts on the very first line is not recognised as one.
func blockEnd(msg string) int {
	cutoff := scissorsAt(msg)
	runStart := 0 // 0 means "not in a run", as in git
	inConflicts := false
	for bol := 0; bol < cutoff; bol = nextLine(msg, bol) {
		switch {
		case msg[bol] == commentChar || msg[bol] == '\n':
			if runStart == 0 {
				runStart = bol
			}
		case strings.HasPrefix(msg[bol:], "Conflicts:\n"):
			inConflicts = true
			if runStart == 0 {
				runStart = bol
			}
		case inConflicts && msg[bol] == '\t':
			// a path listed in the conflicts block
		case runStart != 0:
			runStart = 0
			inConflicts = false
		}
	}
	if runStart != 0 {
		return runStart
	}
	return cutoff
}

// scissorsAt returns the offset of the scissors line in msg, or len(msg).
func scissorsAt(msg string) int {
	if strings.HasPrefix(msg, scissors[1:]) {
		return 0
	}
	if i := strings.Index(msg, scissors); i >= 0 {
		return i + 1
	}
	return len(msg)
}

// blockStart returns where the trailer block of msg[:end] starts, or end when
// there is none. Scanning up from the end, the block is the run of non-blank
// lines after the last blank line that follows the subject paragraph; it
// counts when all its lines are trailers (or their continuations), or when it
// has a git-generated line and trailers make up at least a quarter of it.
func blockStart(msg string, end int) int {
	title := subjectEnd(msg, end)
	var c blockCounts
	seenText := false
	for l := lastLine(msg, end); l >= 0 && l >= title; l = lastLine(msg, l) {
		if msg[l] == commentChar {
			c.flushContinuations()
			continue
		}
		if isBlankLine(msg, l) {
			if !seenText {
				continue
			}
			c.flushContinuations()
			if c.isBlock() {
				return nextLine(msg, l)
			}
			return end
		}
		seenText = true
		c.count(msg[l:nextLine(msg, l)])
	}
	return end
}

// subjectEnd returns the offset of the first blank line of msg[:end], the end
// of the subject paragraph, skipping comment lines; end when there is none.
func subjectEnd(msg string, end int) int {
	s := 0
	for s < end {
		if msg[s] != commentChar && isBlankLine(msg, s) {
			break
		}
		s = nextLine(msg, s)
	}
	return s
}

// lastLine returns the start of the last line of msg[:n] (a final newline
// belongs to that line), or -1 when n is 0.
func lastLine(msg string, n int) int {
	if n <= 0 {
		return -1
	}
	return strings.LastIndexByte(msg[:n-1], '\n') + 1
}

// blockCounts tallies the lines of a candidate trailer block, bottom up.
type blockCounts struct {
	trailers      int
	others        int
	continuations int // whitespace-led lines not yet claimed by a trailer above
	gitGenerated  bool
}

// count classifies one line of the candidate block.
func (c *blockCounts) count(line string) {
	for _, p := range gitPrefixes {
		if strings.HasPrefix(line, p) {
			c.trailers++
			c.continuations = 0
			c.gitGenerated = true
			return
		}
	}
	switch {
	case isSpace(line[0]):
		c.continuations++
	case findSeparator(line) >= 1:
		c.trailers++
		c.continuations = 0
	default:
		c.others += 1 + c.continuations
		c.continuations = 0
	}
}

// flushContinuations counts pending continuation lines as non-trailers: no
// trailer line sits directly above them.
func (c *blockCounts) flushContinuations() {
	c.others += c.continuations
	c.continuations = 0
}

// isBlock reports whether the counted lines make a trailer block.
func (c *blockCounts) isBlock() bool {
	if c.gitGenerated && c.trailers*3 >= c.others {
		return true
	}
	return c.trailers > 0 && c.others == 0
}
