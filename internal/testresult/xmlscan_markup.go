package testresult

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxEntity bounds an entity reference: "&#x10FFFF;" and the named ones fit.
const maxEntity = 12

// scanBang reads "<!...": a comment, a CDATA section or a DOCTYPE.
func (s *xmlScanner) scanBang(h xmlHandler) error {
	s.need(9)
	rest := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		i, err := s.find("-->", 4)
		if err != nil {
			return err
		}
		s.pos += i + 3
		return nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		s.pos += 9
		return s.scanCDATA(h)
	}
	i, err := s.declEnd()
	if err != nil {
		return err
	}
	s.pos += i + 1
	return nil
}

// scanCDATA hands over a CDATA section's text in pieces, up to "]]>".
func (s *xmlScanner) scanCDATA(h xmlHandler) error {
	for {
		if i := bytes.Index(s.buf[s.pos:s.end], []byte("]]>")); i >= 0 {
			err := s.emit(h, s.buf[s.pos:s.pos+i])
			s.pos += i + 3
			return err
		}
		keep := max(s.pos, s.end-2) // "]]" may continue in the next read
		if err := s.emit(h, s.buf[s.pos:keep]); err != nil {
			return err
		}
		s.pos = keep
		if !s.fill() {
			return errTruncated
		}
	}
}

// declEnd finds the '>' that ends a "<!DOCTYPE ...>" declaration, past
// its quoted strings, its comments and its [internal subset].
func (s *xmlScanner) declEnd() (int, error) {
	depth, quote := 0, byte(0)
	for i := 2; ; i++ {
		if s.pos+i >= s.end && !s.fill() {
			return 0, errTruncated
		}
		c := s.buf[s.pos+i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '<' && s.need(i+4) && string(s.buf[s.pos+i:s.pos+i+4]) == "<!--":
			end, err := s.find("-->", i+4)
			if err != nil {
				return 0, err
			}
			i = end + 2
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '>' && depth <= 0:
			return i, nil
		}
	}
}

// maxTagBytes bounds one tag, attributes included: a real tag is a few
// hundred bytes, and a tag never closed would otherwise buffer the file.
const maxTagBytes = 1 << 20

// tagEnd finds the '>' closing the tag at pos, outside quoted values.
func (s *xmlScanner) tagEnd() (int, error) {
	quote := byte(0)
	for i := 1; ; i++ {
		if i > maxTagBytes {
			return 0, fmt.Errorf("malformed XML: a tag longer than %d KiB", maxTagBytes>>10)
		}
		if s.pos+i >= s.end && !s.fill() {
			return 0, errTruncated
		}
		c := s.buf[s.pos+i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i, nil
		case c == '<':
			return 0, errors.New("malformed XML: '<' inside a tag")
		}
	}
}

func (s *xmlScanner) scanEnd(h xmlHandler) error {
	i, err := s.tagEnd()
	if err != nil {
		return err
	}
	name := bytes.TrimRight(s.buf[s.pos+2:s.pos+i], " \t\r\n")
	if len(name) == 0 {
		return errors.New("malformed XML: an end tag without a name")
	}
	s.pos += i + 1
	return h.end(localName(name))
}

func (s *xmlScanner) scanStart(h xmlHandler) error {
	i, err := s.tagEnd()
	if err != nil {
		return err
	}
	tag := s.buf[s.pos+1 : s.pos+i]
	selfClose := len(tag) > 0 && tag[len(tag)-1] == '/'
	if selfClose {
		tag = tag[:len(tag)-1]
	}
	n := bytes.IndexAny(tag, " \t\r\n")
	if n < 0 {
		n = len(tag)
	}
	name := localName(tag[:n])
	if len(name) == 0 {
		return errors.New("malformed XML: a tag without a name")
	}
	if s.attrs, err = parseAttrs(s.attrs[:0], tag[n:], s.strictEntities); err != nil {
		return err
	}
	if err := h.start(name, s.attrs); err != nil {
		return err
	}
	s.pos += i + 1 // after start: an error there points into the tag
	if selfClose {
		return h.end(name)
	}
	return nil
}

// maxAttrs bounds the attributes of one element: no result format needs
// more than a few dozen, and millions of empty ones would cost gigabytes.
const maxAttrs = 1024

// parseAttrs reads `name="value" name='value'`; an unquoted value runs to
// the next blank and a name without a value has an empty one. strict
// refuses what XML does: an unquoted value, a name without one, and
// anything but a blank right after a closing quote.
func parseAttrs(dst []rawAttr, b []byte, strict bool) ([]rawAttr, error) {
	for n := 0; ; n++ {
		if n == maxAttrs {
			return dst, fmt.Errorf("malformed XML: an element with more than %d attributes", maxAttrs)
		}
		b = bytes.TrimLeft(b, " \t\r\n")
		if len(b) == 0 {
			return dst, nil
		}
		n := bytes.IndexAny(b, "= \t\r\n")
		if n < 0 {
			return append(dst, rawAttr{name: localName(b)}), nil
		}
		a := rawAttr{name: localName(b[:n])}
		b = bytes.TrimLeft(b[n:], " \t\r\n")
		if len(b) == 0 || b[0] != '=' {
			if strict {
				return dst, fmt.Errorf("malformed XML: attribute %q has no value", a.name)
			}
			dst = append(dst, a)
			continue
		}
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		if len(b) > 0 && (b[0] == '"' || b[0] == '\'') {
			end := bytes.IndexByte(b[1:], b[0])
			if end < 0 {
				return dst, fmt.Errorf("malformed XML: unclosed value of attribute %q", a.name)
			}
			a.value, b = b[1:1+end], b[2+end:]
			if strict && len(b) > 0 && !bytes.ContainsAny(b[:1], " \t\r\n") {
				return dst, fmt.Errorf("malformed XML: %q follows the value of attribute %q (a quote inside the value?)", capText(string(b[:min(len(b), 20)])), a.name)
			}
		} else if strict {
			return dst, fmt.Errorf("malformed XML: the value of attribute %q is not quoted", a.name)
		} else {
			end := bytes.IndexAny(b, " \t\r\n")
			if end < 0 {
				end = len(b)
			}
			a.value, b = b[:end], b[end:]
		}
		dst = append(dst, a)
	}
}

func localName(b []byte) []byte {
	if i := bytes.LastIndexByte(b, ':'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// decodeEntity decodes the five predefined entities and character
// references to characters XML allows. Anything else is not decoded.
func decodeEntity(name []byte) ([]byte, bool) {
	switch string(name) {
	case "lt":
		return []byte("<"), true
	case "gt":
		return []byte(">"), true
	case "amp":
		return []byte("&"), true
	case "quot":
		return []byte(`"`), true
	case "apos":
		return []byte("'"), true
	}
	if len(name) < 2 || name[0] != '#' {
		return nil, false
	}
	var n uint64
	var err error
	if name[1] == 'x' {
		n, err = strconv.ParseUint(string(name[2:]), 16, 32)
	} else {
		n, err = strconv.ParseUint(string(name[1:]), 10, 32)
	}
	r := rune(n)
	if err != nil || !(r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= utf8.MaxRune) {
		return nil, false
	}
	return utf8.AppendRune(nil, r), true
}

// unescape decodes an attribute value's entity references.
func unescape(raw []byte) string {
	if bytes.IndexByte(raw, '&') < 0 {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		amp := bytes.IndexByte(raw, '&')
		if amp < 0 {
			out = append(out, raw...)
			break
		}
		out, raw = append(out, raw[:amp]...), raw[amp:]
		n := 1
		if semi := bytes.IndexByte(raw[:min(len(raw), maxEntity)], ';'); semi > 0 {
			if d, ok := decodeEntity(raw[1:semi]); ok {
				out, n = append(out, d...), semi+1
				raw = raw[n:]
				continue
			}
		}
		out, raw = append(out, raw[:n]...), raw[n:]
	}
	return string(out)
}
