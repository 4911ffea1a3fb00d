package testresult

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds inline seeds and, when the shared fixtures are present,
// every file matching pattern under them.
func addSeeds(f *testing.F, pattern string, inline ...string) {
	for _, s := range inline {
		f.Add([]byte(s))
	}
	dir := filepath.Join("..", "..", "..", "shared", "fixtures")
	paths, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// checkParsed asserts what every parser promises for any input.
func checkParsed(t *testing.T, res *Result, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("got error %T %v, want a *ParseError", err, err)
		}
		return
	}
	limit := MaxTextBytes + len(cutNote(1<<40))
	for _, tc := range res.Tests {
		switch tc.Status {
		case "pass", "fail", "error", "skip":
		default:
			t.Fatalf("got status %q for %q", tc.Status, tc.FullName())
		}
		if len(tc.Message) > limit || len(tc.Output) > limit || len(tc.Name) > limit {
			t.Fatalf("got text over the cap: name %d, message %d, output %d bytes", len(tc.Name), len(tc.Message), len(tc.Output))
		}
	}
}

func FuzzParseJUnit(f *testing.F) {
	addSeeds(f, "junit/enricomi/*.xml",
		`<testsuite><testcase name="a"><failure message="m">x</failure></testcase></testsuite>`,
		`<testsuites><testsuite tests="abc"/></testsuites>`,
		"<testsuite><testcase name=\"\x1b\x00\xff\"/></testsuite>",
		`<!DOCTYPE x [<!ENTITY a "b">]><testsuite><testcase name="&a;"><flakyFailure/></testcase></testsuite>`,
		`<testsuite></testsuite><testsuite>`)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseJUnit(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}

func FuzzParseGoTest(f *testing.F) {
	addSeeds(f, "gotest/go-junit-report/*.gojson.txt",
		`{"Action":"run","Package":"p","Test":"T"}`+"\n"+`{"Action":"pass","Package":"p","Test":"T","Action":"fail"}`,
		"# p\nFAIL\tp [build failed]\n",
		`{"ImportPath":"p","Action":"build-fail"}`,
		"BenchmarkX-8 100 3 ns/op\n{")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseGoTest(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}

func FuzzParseTAP(f *testing.F) {
	addSeeds(f, "none",
		"TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n  ---\n  message: |\n    x\n  ...\n",
		"Bail out! x\n", "1..0 # skip\n", "ok # todo\nnot ok \\# # SKIP\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseTAP(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}

func FuzzParse(f *testing.F) {
	addSeeds(f, "none", "", "<", "{", "ok", "1..", "\uFEFF<testsuite/>", "# x\nok 1\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(bytes.NewReader(data), FormatAuto)
		checkParsed(t, res, err)
		if err == nil {
			_ = Merge([]File{{Path: "f", Result: res}}, nil)
		}
	})
}

// ownSeeds adds the project's own files under testdata matching pattern.
func ownSeeds(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

func FuzzParseNUnit(f *testing.F) {
	ownSeeds(f, "dotnet/nunit3.xml")
	addSeeds(f, "nunit/enricomi/*/*/*.xml", `<test-results><test-suite name="s"><results><test-case name="a.b" executed="True" success="False"><failure><message>m</message></failure></test-case></results></test-suite></test-results>`)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseNUnit(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}

func FuzzParseXUnit(f *testing.F) {
	ownSeeds(f, "dotnet/xunit2.xml")
	addSeeds(f, "xunit/enricomi/*/*.xml", `<assemblies><assembly><collection><test name="T.a" type="T" method="a" result="Fail"><failure><message>m</message></failure></test></collection></assembly></assemblies>`)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseXUnit(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}

func FuzzParseTRX(f *testing.F) {
	ownSeeds(f, "dotnet/vstest.trx")
	addSeeds(f, "trx/enricomi/*/*.trx", `<TestRun><Results><UnitTestResult testId="1" testName="a" outcome="Failed"><InnerResults><UnitTestResult testId="1" testName="a (1)" outcome="Passed"/></InnerResults></UnitTestResult></Results></TestRun>`)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseTRX(bytes.NewReader(data))
		checkParsed(t, res, err)
	})
}
