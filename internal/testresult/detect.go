package testresult

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// detectBytes is how much of a file Detect looks at.
const detectBytes = 64 << 10

// Parse reads one result file. With FormatAuto it detects the format from
// the first 64 KiB of content (see Detect).
func Parse(r io.Reader, f Format) (*Result, error) {
	br := bufio.NewReaderSize(r, detectBytes)
	if f == FormatAuto {
		head, _ := br.Peek(detectBytes)
		var err error
		if f, err = Detect(head); err != nil {
			return nil, err
		}
	}
	spec, ok := specOf(f)
	if !ok {
		return nil, fmt.Errorf("unknown result format %q", f)
	}
	res, err := spec.Parse(br)
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Format = f
	}
	return res, err
}

// Detect names the format of a file from its first bytes (Formats): XML
// (first non-blank byte '<') by its root element, JUnit when it is none of
// the others; a text file by its first line that names a format: a line
// starting with '{' or one of go test's own lines (FAIL, ok, ---, ===,
// panic:) is a go test stream; a TAP version line, a plan (1..N) or a test
// line (ok / not ok) is TAP. Comment lines starting with '#' decide
// nothing. The error is a *ParseError.
func Detect(head []byte) (Format, error) {
	body := bytes.TrimPrefix(head, []byte("\uFEFF"))
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(head) == 0:
		return "", &ParseError{Msg: "empty file"}
	case len(trimmed) == 0:
		return "", &ParseError{Msg: "the file holds only white space"}
	case trimmed[0] == '<':
		return xmlFormat(trimmed), nil
	}
	for line := range bytes.Lines(trimmed) {
		if f, ok := lineFormat(bytes.TrimRight(line, "\r\n")); ok {
			return f, nil
		}
	}
	return "", &ParseError{Msg: "unrecognised format: not " + FormatTitles("or")}
}

// xmlFormat finds the root element after the prolog, comments and DOCTYPE.
func xmlFormat(head []byte) Format {
	for len(head) > 0 {
		i := bytes.IndexByte(head, '<')
		if i < 0 || i+1 >= len(head) {
			break
		}
		head = head[i+1:]
		switch {
		case head[0] == '?' || head[0] == '!':
			continue
		}
		end := bytes.IndexAny(head, " \t\r\n/>")
		if end < 0 {
			break
		}
		return xmlRootFormat(string(localName(head[:end])))
	}
	return xmlRootFormat("")
}

func isTAPLine(line []byte) bool {
	switch {
	case bytes.HasPrefix(line, []byte("TAP version ")):
		return true
	case bytes.HasPrefix(line, []byte("1..")):
		return len(line) > 3 && line[3] >= '0' && line[3] <= '9'
	}
	_, ok := tapTestLine(string(line))
	return ok
}

// goTextPrefixes start the lines go test prints around its JSON events
// (build failures, crashes of old toolchains).
var goTextPrefixes = [][]byte{
	[]byte("FAIL\t"), []byte("ok  \t"), []byte("?   \t"), []byte("--- FAIL:"), []byte("--- PASS:"),
	[]byte("--- SKIP:"), []byte("=== RUN"), []byte("panic: "),
}
