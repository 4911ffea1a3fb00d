package testresult

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// xmlHandler receives what xmlScanner reads. Names are local names (any
// namespace prefix removed); byte slices are only valid during the call.
type xmlHandler interface {
	start(name []byte, attrs []rawAttr) error
	end(name []byte) error
	text(data []byte) error
}

// rawAttr is an attribute as written: value still holds entity references.
type rawAttr struct {
	name, value []byte
}

// errTruncated is the scanner's error for input that ends inside markup.
var errTruncated = errors.New("unexpected end of file inside markup (the file is truncated)")

// xmlScanner is a small streaming XML reader, enough for JUnit and much
// faster than encoding/xml: elements, attributes, text, CDATA; comments,
// processing instructions and the DOCTYPE (with its internal subset) are
// skipped, so entities a DTD declares are never expanded. Text is handed
// over in pieces, so a long text never needs to be held whole.
type xmlScanner struct {
	r     io.Reader
	buf   []byte
	pos   int
	end   int
	base  int64 // stream offset of buf[0]
	lines int   // newlines in the bytes before buf[0]
	eof   bool
	attrs []rawAttr
	lastR bool // the last text byte handed over was '\r'
	txt   []byte
	// strictEntities makes a reference to an entity that is not one of
	// XML's five, nor a character reference, an error instead of text, and
	// an attribute XML would refuse an error too (the .NET formats, whose
	// producers write well-formed XML; JUnit's are read leniently).
	strictEntities bool
}

func newXMLScanner(r io.Reader) *xmlScanner {
	return &xmlScanner{r: r, buf: make([]byte, 64<<10)}
}

// offset returns the stream offset and line of the scan position.
func (s *xmlScanner) offset() (int64, int) {
	return s.base + int64(s.pos), s.lines + bytes.Count(s.buf[:s.pos], []byte{'\n'}) + 1
}

// fill reads more input, keeping buf[pos:end]; false at the end of input.
func (s *xmlScanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		s.lines += bytes.Count(s.buf[:s.pos], []byte{'\n'})
		s.base += int64(s.pos)
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// scan reads the whole input, calling h.
func (s *xmlScanner) scan(h xmlHandler) error {
	for {
		if s.pos == s.end && !s.fill() {
			return nil
		}
		if s.buf[s.pos] != '<' {
			if err := s.scanText(h); err != nil {
				return err
			}
			continue
		}
		if s.end-s.pos < 2 && !s.fill() {
			return errTruncated
		}
		var err error
		switch s.buf[s.pos+1] {
		case '/':
			err = s.scanEnd(h)
		case '?':
			err = s.skipPast("?>")
		case '!':
			err = s.scanBang(h)
		default:
			err = s.scanStart(h)
		}
		if err != nil {
			return err
		}
	}
}

// scanText hands over the text up to the next '<'.
func (s *xmlScanner) scanText(h xmlHandler) error {
	for {
		i := bytes.IndexByte(s.buf[s.pos:s.end], '<')
		if i < 0 {
			i = s.end - s.pos
		}
		chunk := s.buf[s.pos : s.pos+i]
		if amp := bytes.IndexByte(chunk, '&'); amp >= 0 {
			return s.textWithEntity(h, amp)
		}
		if err := s.emit(h, chunk); err != nil {
			return err
		}
		s.pos += i
		if s.pos < s.end || !s.fill() {
			return nil
		}
	}
}

// textWithEntity hands over the text before an '&' at pos+amp, then the
// entity (decoded when it is a known one, as written otherwise).
func (s *xmlScanner) textWithEntity(h xmlHandler, amp int) error {
	if err := s.emit(h, s.buf[s.pos:s.pos+amp]); err != nil {
		return err
	}
	s.pos += amp
	for s.end-s.pos < maxEntity && s.fill() {
	}
	window := s.buf[s.pos:min(s.end, s.pos+maxEntity)]
	n, dec := 1, window[:1]
	if semi := bytes.IndexByte(window, ';'); semi > 0 {
		if d, ok := decodeEntity(window[1:semi]); ok {
			n, dec = semi+1, d
		} else if s.strictEntities && entityName(window[1:semi]) {
			return fmt.Errorf("entity &%s; is not defined: a DTD's entities are never read, so the file cannot be (an XML external entity?)", capText(string(window[1:semi])))
		}
	}
	s.pos += n
	return s.emit(h, dec)
}

// entityName reports whether b looks like an entity's name.
func entityName(b []byte) bool {
	if len(b) == 0 || b[0] == '#' {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c == '-' || c == '.' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// emit hands text to h with line ends normalised to "\n", as XML asks.
func (s *xmlScanner) emit(h xmlHandler, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if bytes.IndexByte(b, '\r') < 0 && !(s.lastR && b[0] == '\n') {
		s.lastR = false
		return h.text(b)
	}
	s.txt = s.txt[:0]
	for _, c := range b {
		switch {
		case c == '\n' && s.lastR:
		case c == '\r':
			s.txt = append(s.txt, '\n')
		default:
			s.txt = append(s.txt, c)
		}
		s.lastR = c == '\r'
	}
	return h.text(s.txt)
}

// need makes buf[pos:pos+n] available; false when the input ends first.
func (s *xmlScanner) need(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// find returns the index, from pos, of the first sep at or after from.
func (s *xmlScanner) find(sep string, from int) (int, error) {
	for {
		if i := bytes.Index(s.buf[s.pos+from:s.end], []byte(sep)); i >= 0 {
			return from + i, nil
		}
		from = max(from, s.end-s.pos-len(sep)+1)
		if !s.fill() {
			return 0, errTruncated
		}
	}
}

func (s *xmlScanner) skipPast(sep string) error {
	i, err := s.find(sep, 2)
	s.pos += i + len(sep)
	return err
}
