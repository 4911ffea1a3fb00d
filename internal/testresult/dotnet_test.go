package testresult

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The project's own NUnit 3, xUnit.net v2 and TRX files: detected by
// content, every test with its name as the framework gives it, its status
// and its one-line message.
func TestParse_DotNetFormats(t *testing.T) {
	t.Parallel()
	type row struct {
		Name    string
		Status  breaker.TestStatus
		Message string
		Runs    int
	}
	tests := []struct {
		file   string
		format Format
		want   []row
	}{
		{"nunit3.xml", FormatNUnit, []row{
			{"Shop.Tests.CartTests.AddsItem", breaker.StatusPass, "", 0},
			{"Shop.Tests.CartTests.Totals", breaker.StatusFail, "Expected: 31\n  But was:  30", 0},
			{"Shop.Tests.CartTests.Discount(10,9)", breaker.StatusPass, "", 0},
			{"Shop.Tests.CartTests.Discount(0,1)", breaker.StatusError, "System.DivideByZeroException : Attempted to divide by zero.", 0},
			{"Shop.Tests.CartTests.ChecksOut", breaker.StatusSkip, "payment sandbox is down", 0},
		}},
		{"xunit2.xml", FormatXUnit, []row{
			{"Shop.Tests.CartTests.AddsItem", breaker.StatusPass, "", 0},
			{"Shop.Tests.CartTests.Totals", breaker.StatusFail, "Assert.Equal() Failure\nExpected: 31\nActual:   30", 0},
			{"Shop.Tests.CartTests.Discount", breaker.StatusFail, "System.DivideByZeroException : Attempted to divide by zero.", 2},
			{"Shop.Tests.CartTests.ChecksOut", breaker.StatusSkip, "payment sandbox is down", 0},
		}},
		{"vstest.trx", FormatTRX, []row{
			{"Shop.Tests.CartTests.AddsItem", breaker.StatusPass, "", 0},
			{"Shop.Tests.CartTests.Totals", breaker.StatusFail, "Assert.AreEqual failed. Expected:<31>. Actual:<30>.", 0},
			{"Shop.Tests.CartTests.Discount", breaker.StatusFail, "Test method threw exception System.DivideByZeroException: Attempted to divide by zero.", 2},
			{"Shop.Tests.CartTests.ChecksOut", breaker.StatusSkip, "", 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "dotnet", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := Parse(f, FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tt.format {
				t.Errorf("detected %q, want %q", res.Format, tt.format)
			}
			var got []row
			for _, tc := range res.Tests {
				got = append(got, row{tc.FullName(), tc.Status, strings.TrimSpace(tc.Message), len(tc.Runs)})
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			for _, tc := range res.Tests {
				if tc.Status.Failed() && !strings.Contains(tc.Output, "at Shop.") && tt.format != FormatTRX {
					t.Errorf("%s: the output lacks the stack trace: %q", tc.FullName(), tc.Output)
				}
			}
		})
	}
}

// A Greenlight-Test trailer names .NET tests as their frameworks do.
func TestMatch_DotNetNames(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "dotnet", "nunit3.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Parse(f, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"Totals": 1, "CartTests.Totals": 1, "Shop.Tests.CartTests.Totals": 1, "Discount(0,1)": 1, "Nope": 0} {
		if got := len(Match(res.Tests, name)); got != want {
			t.Errorf("Match(%q) = %d tests, want %d", name, got, want)
		}
	}
}

// The .NET readers are strict where their producers are: an entity a DTD
// would have declared (an XML external entity) and an attribute XML refuses
// are clear errors naming the offset, never a silent read.
func TestParse_DotNetRefusesWhatXMLRefuses(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"external entity": `<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><test-run><test-case name="a" result="Failed"><failure><message>&xxe;</message></failure></test-case></test-run>`,
		"quote in value":  `<assemblies><assembly><test name="a("x")" type="T" method="a" result="Pass"/></assembly></assemblies>`,
		"truncated":       `<TestRun><Results><UnitTestResult testName="a" outcome="Failed">`,
		"second root":     `<test-run></test-run><test-run></test-run>`,
	} {
		_, err := Parse(strings.NewReader(in), FormatAuto)
		if err == nil || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: got %v, want a ParseError with the offset", name, err)
		}
	}
}
