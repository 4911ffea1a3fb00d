package testresult

import (
	"fmt"
	"unicode/utf8"
)

// MaxTextBytes caps each test's message and output. Longer text keeps its
// first 48 KiB and its last 16 KiB around a line that says how much was cut.
const MaxTextBytes = 64 << 10

const (
	headBytes = 48 << 10
	tailBytes = MaxTextBytes - headBytes
)

// cutNote is the line put where text was cut.
func cutNote(n int64) string {
	return fmt.Sprintf("\n[breaker: %d bytes cut here; each test's message and output are capped at 64 KiB]\n", n)
}

// capBuf accumulates text, keeping at most MaxTextBytes of it: a head and a
// tail around the bytes dropped in between. Memory stays bounded whatever is
// written.
type capBuf struct {
	head []byte
	tail []byte
	cut  int64 // bytes dropped between head and tail
}

func (b *capBuf) write(p []byte) {
	if b.cut == 0 && len(b.tail) == 0 && len(b.head)+len(p) <= MaxTextBytes {
		b.head = append(b.head, p...)
		return
	}
	if len(b.head) > headBytes {
		b.tail = append(b.tail, b.head[headBytes:]...)
		b.head = b.head[:headBytes:headBytes]
	}
	if n := headBytes - len(b.head); n > 0 && len(b.tail) == 0 && b.cut == 0 {
		n = min(n, len(p))
		b.head, p = append(b.head, p[:n]...), p[n:]
	}
	if len(p) > 2*tailBytes {
		b.cut += int64(len(b.tail) + len(p) - tailBytes)
		b.tail = append(b.tail[:0], p[len(p)-tailBytes:]...)
		return
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*tailBytes {
		drop := len(b.tail) - tailBytes
		b.cut += int64(drop)
		b.tail = b.tail[:copy(b.tail, b.tail[drop:])]
	}
}

func (b *capBuf) writeString(s string) { b.write([]byte(s)) }

func (b *capBuf) len() int { return len(b.head) + len(b.tail) }

func (b *capBuf) reset() {
	b.head, b.tail, b.cut = b.head[:0], b.tail[:0], 0
}

// String returns the kept text with the cut said in it.
func (b *capBuf) String() string {
	if b.cut == 0 && len(b.tail) == 0 {
		return string(b.head)
	}
	h := runeFloor(b.head, len(b.head))
	t := b.tail
	if len(t) > tailBytes {
		t = t[len(t)-tailBytes:]
	}
	t = t[runeCeil(t):]
	cut := b.cut + int64(len(b.head)-len(h)) + int64(len(b.tail)-len(t))
	return string(h) + cutNote(cut) + string(t)
}

// capText caps s at MaxTextBytes the way capBuf does.
func capText(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	var b capBuf
	b.writeString(s)
	return b.String()
}

// runeFloor returns p[:n] shortened so that it does not end inside a
// multi-byte UTF-8 sequence.
func runeFloor(p []byte, n int) []byte {
	p = p[:n]
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		c := p[len(p)-1-i]
		if c < utf8.RuneSelf {
			return p
		}
		if utf8.RuneStart(c) {
			if r, size := utf8.DecodeRune(p[len(p)-1-i:]); r != utf8.RuneError || size == i+1 {
				return p
			}
			return p[:len(p)-1-i]
		}
	}
	return p
}

// runeCeil returns the index of the first rune start in p (at most UTFMax-1).
func runeCeil(p []byte) int {
	for i := 0; i < utf8.UTFMax-1 && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	return 0
}
