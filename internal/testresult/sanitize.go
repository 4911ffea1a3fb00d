package testresult

import (
	"io"
	"sort"
	"unicode/utf8"
)

// maxMapped bounds how many replacements xmlSanitizer remembers for mapping
// offsets back to the original file; past it, offsets are of the cleaned text.
const maxMapped = 1 << 16

// xmlSanitizer is the bounded pre-pass before the XML decoder: a streaming
// reader that replaces every byte XML 1.0 forbids (C0 controls other than
// tab, newline and carriage return; invalid UTF-8; U+FFFE and U+FFFF) with
// U+FFFD, so that a test that printed ESC or NUL does not make its file
// unreadable. It holds a fixed-size buffer whatever the input.
type xmlSanitizer struct {
	src     io.Reader
	in      []byte
	carry   int // bytes of an incomplete sequence kept at the start of in
	out     []byte
	pos     int
	err     error
	emitted int64   // bytes handed out so far (cleaned coordinates)
	grown   []int64 // cleaned offsets of replacements, for origOffset
}

func newXMLSanitizer(r io.Reader) *xmlSanitizer {
	return &xmlSanitizer{src: r, in: make([]byte, 32<<10), out: make([]byte, 0, 96<<10)}
}

func (s *xmlSanitizer) Read(p []byte) (int, error) {
	for s.pos == len(s.out) {
		if s.err != nil {
			return 0, s.err
		}
		s.fill()
	}
	n := copy(p, s.out[s.pos:])
	s.pos += n
	return n, nil
}

// fill reads a chunk and cleans it into out.
func (s *xmlSanitizer) fill() {
	n, err := io.ReadAtLeast(s.src, s.in[s.carry:], 1)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	s.err = err
	s.emitted += int64(len(s.out))
	s.out, s.pos = s.out[:0], 0
	data := s.in[:s.carry+n]
	i := 0
	for i < len(data) {
		c := data[i]
		if c >= 0x20 && c < utf8.RuneSelf || c == '\t' || c == '\n' || c == '\r' {
			j := i + 1
			for j < len(data) && data[j] >= 0x20 && data[j] < utf8.RuneSelf {
				j++
			}
			s.out = append(s.out, data[i:j]...)
			i = j
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(data[i:]) && s.err == nil {
			break // incomplete sequence at the end of the chunk: carry it
		}
		r, size := utf8.DecodeRune(data[i:])
		if c < 0x20 || r == utf8.RuneError && size == 1 {
			s.replace()
			i++
			continue
		}
		if r == 0xFFFE || r == 0xFFFF {
			s.out = append(s.out, "\uFFFD"...) // same length: offsets unchanged
			i += size
			continue
		}
		s.out = append(s.out, data[i:i+size]...)
		i += size
	}
	s.carry = copy(s.in, data[i:])
}

func (s *xmlSanitizer) replace() {
	if len(s.grown) < maxMapped {
		s.grown = append(s.grown, s.emitted+int64(len(s.out)))
	}
	s.out = append(s.out, "\uFFFD"...)
}

// origOffset maps an offset in the cleaned text to the original file.
func (s *xmlSanitizer) origOffset(clean int64) int64 {
	n := sort.Search(len(s.grown), func(i int) bool { return s.grown[i] >= clean })
	return clean - 2*int64(n)
}
