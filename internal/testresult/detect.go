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
	var res *Result
	var err error
	switch f {
	case FormatJUnit:
		res, err = ParseJUnit(br)
	case FormatGoTest:
		res, err = ParseGoTest(br)
	case FormatTAP:
		res, err = ParseTAP(br)
	case FormatNUnit:
		res, err = ParseNUnit(br)
	case FormatXUnit:
		res, err = ParseXUnit(br)
	case FormatTRX:
		res, err = ParseTRX(br)
	default:
		return nil, fmt.Errorf("unknown result format %q", f)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Format = f
	}
	return res, err
}

// Detect names the format of a file from its first bytes: XML (first
// non-blank byte '<') is JUnit, NUnit, xUnit.net or TRX by its root element
// (JUnit when it is none of them); a line starting with '{' or one of go test's
// own lines (FAIL, ok, ---, ===, panic:) is a go test stream; a TAP version
// line, a plan (1..N) or a test line (ok / not ok) is TAP. Comment lines
// starting with '#' decide nothing. The error is a *ParseError.
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
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) > 0 && line[0] == '{':
			return FormatGoTest, nil
		case isTAPLine(line):
			return FormatTAP, nil
		case isGoTextLine(line):
			return FormatGoTest, nil
		}
	}
	return "", &ParseError{Msg: "unrecognised format: not JUnit XML, go test -json, TAP, NUnit XML, xUnit.net XML or TRX"}
}

// xmlRoots name the XML formats by their root element; anything else is
// read as JUnit, whose reader names the root it did not expect.
var xmlRoots = map[string]Format{
	"testsuites": FormatJUnit, "testsuite": FormatJUnit,
	"test-run": FormatNUnit, "test-results": FormatNUnit, "test-suite": FormatNUnit,
	"assemblies": FormatXUnit, "assembly": FormatXUnit,
	"TestRun": FormatTRX,
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
		name := localName(head[:end])
		if f, ok := xmlRoots[string(name)]; ok {
			return f
		}
		break
	}
	return FormatJUnit
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

func isGoTextLine(line []byte) bool {
	for _, p := range goTextPrefixes {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
