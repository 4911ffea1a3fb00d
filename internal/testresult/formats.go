package testresult

import (
	"bytes"
	"io"
	"strings"
)

// FormatSpec is one result format the breaker reads: the one place a
// format is named, recognised and parsed. Detection, Parse, the CLI's help
// and the unrecognised-format error read Formats; docs/results.md has a
// row for each (a test says so). A new format is a parser file, its test,
// an entry here and its row in docs/results.md (docs/architecture.md).
type FormatSpec struct {
	Format Format // the name the JSON output and the ledger use
	Title  string // the name people know it by, as help and errors say it
	// XMLRoots are the root elements that name an XML format; Default
	// marks the XML format read when the root is none of them (its reader
	// names the root it did not expect).
	XMLRoots []string
	Default  bool
	// Line says whether a line of a text file names the format; the
	// first format, in table order, whose Line matches a file's first
	// deciding line is the file's.
	Line  func(line []byte) bool
	Parse func(r io.Reader) (*Result, error)
}

// Formats are the formats the breaker reads, in the order help names them
// and text lines are tried.
var Formats = []FormatSpec{
	{Format: FormatJUnit, Title: "JUnit XML", XMLRoots: []string{"testsuites", "testsuite"}, Default: true, Parse: ParseJUnit},
	// go test's own "ok  \tpkg" line would read as a TAP test line too:
	// go test is tried first.
	{Format: FormatGoTest, Title: "go test -json", Line: isGoTestLine, Parse: ParseGoTest},
	{Format: FormatTAP, Title: "TAP 13", Line: isTAPLine, Parse: ParseTAP},
	{Format: FormatNUnit, Title: "NUnit XML", XMLRoots: nunitRoots, Parse: ParseNUnit},
	{Format: FormatXUnit, Title: "xUnit.net v2 XML", XMLRoots: xunitRoots, Parse: ParseXUnit},
	{Format: FormatTRX, Title: "TRX", XMLRoots: trxRoots, Parse: ParseTRX},
}

// FormatTitles names every format for people: "JUnit XML, TAP 13, …
// and TRX" (joiner "and"), or "… or TRX".
func FormatTitles(joiner string) string {
	titles := make([]string, len(Formats))
	for i, f := range Formats {
		titles[i] = f.Title
	}
	last := len(titles) - 1
	return strings.Join(titles[:last], ", ") + " " + joiner + " " + titles[last]
}

// specOf is the spec of a format; false for one the breaker does not read.
func specOf(f Format) (FormatSpec, bool) {
	for _, s := range Formats {
		if s.Format == f {
			return s, true
		}
	}
	return FormatSpec{}, false
}

// xmlRootFormat names the XML format of a root element; the default XML
// format for any other.
func xmlRootFormat(root string) Format {
	def := Format("")
	for _, s := range Formats {
		for _, r := range s.XMLRoots {
			if r == root {
				return s.Format
			}
		}
		if s.Default {
			def = s.Format
		}
	}
	return def
}

// lineFormat names the format a text line names; false when it names none.
func lineFormat(line []byte) (Format, bool) {
	for _, s := range Formats {
		if s.Line != nil && s.Line(line) {
			return s.Format, true
		}
	}
	return "", false
}

// isGoTestLine is a line of go test's: a test2json event (a JSON object),
// or one of the text lines go test prints around its events (build
// failures, crashes of old toolchains).
func isGoTestLine(line []byte) bool {
	if len(line) > 0 && line[0] == '{' {
		return true
	}
	for _, p := range goTextPrefixes {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
