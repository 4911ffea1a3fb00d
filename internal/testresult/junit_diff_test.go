package testresult

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// independent reads a JUnit file with encoding/xml, on its own: every
// <testcase>, keyed by classname (else the names of its enclosing suites)
// and name, where within the file a repeated key is a rerun and the last
// outcome that is not a skip decides. It returns each test's status.
func independent(data []byte) (map[string]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var suites []string
	out := map[string]string{}
	var key, status string
	inCase := 0
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			attr := func(n string) string {
				for _, a := range el.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			switch {
			case inCase > 0 && depth == inCase+1:
				switch el.Name.Local {
				case "failure":
					if status != "error" {
						status = "fail"
					}
				case "error":
					status = "error"
				case "skipped":
					if status != "fail" && status != "error" {
						status = "skip"
					}
				}
			case el.Name.Local == "testsuite" && inCase == 0:
				suites = append(suites, attr("name"))
			case el.Name.Local == "testcase" && inCase == 0:
				suite := attr("classname")
				if suite == "" {
					var names []string
					for _, s := range suites {
						if s != "" {
							names = append(names, s)
						}
					}
					suite = strings.Join(names, ".")
				}
				suite, name := caseName(suite, attr("name"), suites) // the naming rule is shared; the XML reading is not
				key, status, inCase = suite+"\x00"+name, "pass", depth
				// Without a failure, error or skipped element, a status
				// attribute decides (tst, xunit and bazel write one).
				switch strings.ToLower(strings.TrimSpace(attr("status") + attr("result"))) {
				case "disabled", "skipped", "skip", "notrun", "not run", "ignored":
					status = "skip"
				case "failed", "failure", "fail":
					status = "fail"
				case "error", "errored":
					status = "error"
				}
			}
		case xml.EndElement:
			switch {
			case inCase > 0 && depth == inCase:
				if old, ok := out[key]; !ok || status != "skip" || old == "skip" {
					out[key] = status
				}
				inCase = 0
			case el.Name.Local == "testsuite" && inCase == 0 && len(suites) > 0:
				suites = suites[:len(suites)-1]
			}
			depth--
		}
	}
}

// ours is what the hand-written reader makes of the file, in the same shape.
func ours(t *testing.T, data []byte) map[string]string {
	res, err := ParseJUnit(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ParseJUnit: %v", err)
	}
	out := map[string]string{}
	for _, tc := range res.Tests {
		out[tc.Suite+"\x00"+tc.Name] = string(tc.Status)
	}
	return out
}

// TestParseJUnit_AgreesWithEncodingXML reads every JUnit file the project
// keeps, and the real corpus when it is beside the project, with both
// readers: on a well-formed file the hand-written scanner never disagrees
// with the standard library about which tests there are and which fail.
func TestParseJUnit_AgreesWithEncodingXML(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/junit/*.xml")
	corpus, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "fixtures", "junit", "enricomi", "*", "*.xml"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "fixtures", "junit", "enricomi", "*.xml"))
	corpus = append(corpus, more...)
	if len(corpus) == 0 {
		t.Log("the real JUnit corpus is not beside the project: only the project's own files are compared")
	}
	files = append(files, corpus...)
	sort.Strings(files)
	compared := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := independent(data)
		if err != nil || len(want) == 0 {
			continue // not well-formed for encoding/xml, or no cases: nothing to compare
		}
		if _, err := ParseJUnit(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: encoding/xml reads it, ParseJUnit does not: %v", f, err)
			continue
		}
		compared++
		if diff := cmp.Diff(want, ours(t, data)); diff != "" {
			t.Errorf("%s: the readers disagree (-encoding/xml +ParseJUnit):\n%s", f, diff)
		}
	}
	if compared < 4 {
		t.Fatalf("compared %d files; the project's own four at least", compared)
	}
	t.Logf("compared %d files", compared)
}

// The failing counts of the project's rerun files, as the rules say.
func TestParseJUnit_RerunFiles(t *testing.T) {
	t.Parallel()
	want := map[string][2]int{ // tests, failing
		"gotestsum-rerun.xml":      {3, 1}, // TestCache_Expiry passed on its rerun
		"pytest-rerunfailures.xml": {5, 1}, // test_retry passed on its rerun
		"mocha-nested.xml":         {4, 1}, // cart.totals and checkout.totals are two tests
		"surefire-flaky.xml":       {3, 0},
	}
	for name, w := range want {
		data, err := os.ReadFile(filepath.Join("testdata", "junit", name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ParseJUnit(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		failing := 0
		for _, tc := range res.Tests {
			if tc.Status.Failed() {
				failing++
			}
		}
		if len(res.Tests) != w[0] || failing != w[1] {
			t.Errorf("%s: %d tests, %d failing; want %d, %d", name, len(res.Tests), failing, w[0], w[1])
		}
	}
}
