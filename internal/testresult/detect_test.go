package testresult

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Format
		wantErr string
	}{
		{"xml declaration", `<?xml version="1.0"?><testsuites/>`, FormatJUnit, ""},
		{"bom and blank lines before xml", "\uFEFF\n\n<testsuite/>", FormatJUnit, ""},
		{"json events", `{"Action":"start","Package":"p"}`, FormatGoTest, ""},
		{"go build failure text", "# p\n./a.go:1: bad\nFAIL\tp [build failed]\n", FormatGoTest, ""},
		{"go test's ok line, which reads as TAP too", "ok  \tgithub.com/x/y\t0.01s\n", FormatGoTest, ""},
		{"tap version", "TAP version 13\n1..1\n", FormatTAP, ""},
		{"tap comments first", "# comment\nok 1 - a\n", FormatTAP, ""},
		{"tap plan", "1..4\n", FormatTAP, ""},
		{"empty", "", "", "empty file"},
		{"blank", " \n\t\n", "", "the file holds only white space"},
		{"prose", "hello world\n", "", "unrecognised format: not JUnit XML, go test -json, TAP 13, NUnit XML, xUnit.net v2 XML or TRX"},
		{"okay is not ok", "okay then\n", "", "unrecognised format: not JUnit XML, go test -json, TAP 13, NUnit XML, xUnit.net v2 XML or TRX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Detect([]byte(tt.in))
			var pe *ParseError
			if tt.wantErr != "" {
				if !errors.As(err, &pe) || pe.Msg != tt.wantErr {
					t.Fatalf("got %v, want the error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// Every format of the table has its row in docs/results.md, named as help
// names it, and the page names no format the table lacks.
func TestFormats_EachHasItsRowInTheDocs(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, line := range strings.Split(string(page), "\n") {
		switch {
		case strings.HasPrefix(line, "| format | detected by | read |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
			rows = append(rows, strings.ReplaceAll(cell, "`", ""))
		case in:
			in = false
		}
	}
	if len(rows) != len(Formats) {
		t.Errorf("docs/results.md's formats table has %d rows %q, the table %d formats", len(rows), rows, len(Formats))
	}
	for i, f := range Formats {
		if i < len(rows) && !strings.HasPrefix(rows[i], f.Title) {
			t.Errorf("row %d of docs/results.md's formats table is %q, want %s (the table's order)", i+1, rows[i], f.Title)
		}
		if f.Parse == nil || (f.Line == nil) == (len(f.XMLRoots) == 0 && !f.Default) {
			t.Errorf("format %s: want a parser, and either XML roots or a line that names it", f.Format)
		}
	}
}
