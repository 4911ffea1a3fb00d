package testresult

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// RELIABILITY 10: a million nested elements inside <testcase>, <failure>
// and <system-out> neither overflow the stack nor hide the failure. The
// reader keeps no recursion per element (it is a loop over a scanner), so
// depth costs memory for the element stack only, bounded by the file.
func TestReliability10_DeepNestingDoesNotOverflow(t *testing.T) {
	t.Parallel()
	const depth = 1_000_000
	deep := strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth)
	for where, doc := range map[string]string{
		"testcase":   `<testsuite><testcase classname="c" name="TestX">` + deep + `<failure message="boom">x</failure></testcase></testsuite>`,
		"failure":    `<testsuite><testcase classname="c" name="TestX"><failure message="boom">` + deep + `</failure></testcase></testsuite>`,
		"system-out": `<testsuite><testcase classname="c" name="TestX"><failure message="boom"/><system-out>` + deep + `</system-out></testcase></testsuite>`,
	} {
		res, err := ParseJUnit(strings.NewReader(doc))
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if len(res.Tests) != 1 || res.Tests[0].Status != breaker.StatusFail {
			t.Errorf("%s: read %+v; want TestX failed", where, res.Tests)
		}
	}
	// The .NET readers share the scanner: the same depth in an NUnit 3 and a
	// TRX failure message.
	for f, doc := range map[Format]string{
		FormatNUnit: `<test-run><test-case fullname="c.TestX" name="TestX" result="Failed"><failure><message>` + deep + `</message></failure></test-case></test-run>`,
		FormatTRX: `<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010"><Results><UnitTestResult testName="c.TestX" outcome="Failed"><Output><ErrorInfo><Message>` +
			deep + `</Message></ErrorInfo></Output></UnitTestResult></Results></TestRun>`,
	} {
		res, err := Parse(strings.NewReader(doc), f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(res.Tests) != 1 || res.Tests[0].Status != breaker.StatusFail {
			t.Errorf("%s: read %+v; want TestX failed", f, res.Tests)
		}
	}
	// Unclosed, the same depth is a clear error naming the end of file.
	_, err := ParseJUnit(strings.NewReader(`<testsuite><testcase name="a">` + strings.Repeat("<a>", depth)))
	if err == nil || !strings.Contains(err.Error(), "unexpected end of file") {
		t.Errorf("unclosed nesting: %v; want an end-of-file error", err)
	}
}
