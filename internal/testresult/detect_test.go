package testresult

import (
	"errors"
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
		{"tap version", "TAP version 13\n1..1\n", FormatTAP, ""},
		{"tap comments first", "# comment\nok 1 - a\n", FormatTAP, ""},
		{"tap plan", "1..4\n", FormatTAP, ""},
		{"empty", "", "", "empty file"},
		{"blank", " \n\t\n", "", "the file holds only white space"},
		{"prose", "hello world\n", "", "unrecognised format: not JUnit XML, go test -json, TAP, NUnit XML, xUnit.net XML or TRX"},
		{"okay is not ok", "okay then\n", "", "unrecognised format: not JUnit XML, go test -json, TAP, NUnit XML, xUnit.net XML or TRX"},
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
