package testresult

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// parseXML runs a format's handler over r through the sanitizer and the
// scanner JUnit uses (same caps, no entity expansion), and words any error
// as a *ParseError at its offset in the original file.
func parseXML(r io.Reader, h xmlHandler, finish func() error) error {
	san := newXMLSanitizer(r)
	sc := newXMLScanner(san)
	sc.strictEntities = true
	err := sc.scan(h)
	if err == nil {
		err = finish()
	}
	if err != nil {
		if errors.Is(err, errTruncated) {
			sc.pos = sc.end
		}
		off, line := sc.offset()
		return &ParseError{Offset: san.origOffset(off), Line: line, Msg: err.Error()}
	}
	return nil
}

// xmlTree is what the .NET readers keep while they read: the open
// elements, and the text of the one element being captured.
type xmlTree struct {
	stack     []string
	rootSeen  bool
	closed    bool
	capture   *capBuf
	captureAt int
	root      string // the root element's name, for errors
	roots     []string
}

// open pushes an element, refusing a second root and a root the format
// does not have.
func (x *xmlTree) open(name string) error {
	switch {
	case x.closed:
		return fmt.Errorf("several root elements: a second root <%s> after the first one ended", capText(name))
	case !x.rootSeen:
		ok := false
		for _, r := range x.roots {
			ok = ok || r == name
		}
		if !ok {
			return fmt.Errorf("not a %s file: the root element is <%s>, not <%s>", x.root, capText(name), strings.Join(x.roots, "> or <"))
		}
		x.rootSeen = true
	}
	x.stack = append(x.stack, name)
	return nil
}

// close pops an element, checking it matches, and ends a capture there.
func (x *xmlTree) close(name string) (depth int, err error) {
	n := len(x.stack)
	if n == 0 || x.stack[n-1] != name {
		if n == 0 {
			return 0, fmt.Errorf("end tag </%s> without a start tag", capText(name))
		}
		return 0, fmt.Errorf("end tag </%s> does not match <%s>", capText(name), capText(x.stack[n-1]))
	}
	x.stack = x.stack[:n-1]
	if x.capture != nil && n == x.captureAt {
		x.capture = nil
	}
	x.closed = len(x.stack) == 0
	return n, nil
}

// captureInto sends the text of the element just opened to b.
func (x *xmlTree) captureInto(b *capBuf) {
	b.reset()
	x.capture, x.captureAt = b, len(x.stack)
}

func (x *xmlTree) text(data []byte) error {
	if x.capture != nil {
		x.capture.write(data)
	}
	return nil
}

// done checks the document ended.
func (x *xmlTree) done() error {
	if !x.rootSeen {
		return errors.New("no XML element found")
	}
	if n := len(x.stack); n > 0 {
		return fmt.Errorf("unexpected end of file inside <%s> (the file is truncated)", capText(x.stack[n-1]))
	}
	return nil
}

// parent is the name of the element depth levels up from the top.
func (x *xmlTree) parent(up int) string {
	if i := len(x.stack) - 1 - up; i >= 0 {
		return x.stack[i]
	}
	return ""
}

// splitQualified splits "Namespace.Class.Method(args)" into the class and
// the method with its arguments, at the last dot before the arguments.
func splitQualified(full string) (suite, name string) {
	head := full
	if i := strings.IndexByte(full, '('); i >= 0 {
		head = full[:i]
	}
	if i := strings.LastIndexByte(head, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}
