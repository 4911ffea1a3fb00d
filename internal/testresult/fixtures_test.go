package testresult

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// fixtures returns the path of a folder of ../shared/fixtures, skipping the
// test when the shared fixtures are not checked out beside the repository.
func fixtures(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus: the ../shared fixtures beside the repository are missing (%v)", err)
	}
	return dir
}

func parseFile(t testing.TB, path string) (*Result, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(f, FormatAuto)
}

// enricoStats is the oracle beside each EnricoMi JUnit file.
type enricoStats struct {
	Stats struct {
		Tests      int `json:"tests"`
		TestsFail  int `json:"tests_fail"`
		TestsError int `json:"tests_error"`
		TestsSkip  int `json:"tests_skip"`
	} `json:"stats"`
}

func TestParse_EnricoMiJUnit(t *testing.T) {
	t.Parallel()
	dir := fixtures(t, "junit/enricomi")
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 25 {
		t.Fatalf("found %d JUnit fixtures (%v), want at least 25", len(files), err)
	}
	for _, path := range files {
		base := strings.TrimSuffix(path, ".xml")
		t.Run(strings.TrimPrefix(base, dir), func(t *testing.T) {
			t.Parallel()
			res, err := parseFile(t, path)
			if _, statErr := os.Stat(base + ".exception"); statErr == nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Msg == "" {
					t.Fatalf("got %v, want a *ParseError for a file with a .exception", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var want enricoStats
			raw, err := os.ReadFile(base + ".results.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			got := CountTests(res.Tests)
			if strings.HasSuffix(base, "no-cases-but-tests") {
				if got.Total != 0 || res.Claimed == nil || res.Claimed.Total != want.Stats.Tests ||
					res.Claimed.Failed+res.Claimed.Errored != want.Stats.TestsFail+want.Stats.TestsError {
					t.Fatalf("got %d tests and claim %+v, want none invented and the claim of %+v", got.Total, res.Claimed, want.Stats)
				}
				return
			}
			if got.Total != want.Stats.Tests {
				t.Errorf("got %d tests, want %d", got.Total, want.Stats.Tests)
			}
			if gotFail, wantFail := got.Failed+got.Errored, want.Stats.TestsFail+want.Stats.TestsError; gotFail != wantFail {
				t.Errorf("got %d failing tests, want %d", gotFail, wantFail)
			}
		})
	}
}

// goJUnitReportSynthetic are the test cases go-junit-report invents for
// package-level failures; this package reports those as infra or warnings.
var goJUnitReportSynthetic = map[string]bool{"Failure": true, "[build failed]": true, "[setup failed]": true}

func TestParseGoTest_GoJUnitReportStreams(t *testing.T) {
	t.Parallel()
	dir := fixtures(t, "gotest/go-junit-report")
	streams, _ := filepath.Glob(filepath.Join(dir, "*.gojson.txt"))
	if len(streams) < 14 {
		t.Fatalf("found %d streams, want 14", len(streams))
	}
	wantInfra := map[string]string{
		"102": "build failed: package/name/broken",
		"105": "the test binary of package/name/panic failed before any test ran",
		"106": "the test binary of package/name/main/fail failed before any test ran",
		"111": "zero tests in the results",
	}
	for _, path := range streams {
		num := filepath.Base(path)[:3]
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			res, err := parseFile(t, path)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if res.Format != FormatGoTest {
				t.Errorf("got format %q, want gotest", res.Format)
			}
			rep := Merge([]File{{Path: path, Result: res}}, nil)
			if !strings.HasPrefix(rep.Infra, wantInfra[num]) || (wantInfra[num] == "") != (rep.Infra == "") {
				t.Errorf("got infra %q, want it to start with %q", rep.Infra, wantInfra[num])
			}
			oracle, err := parseFile(t, filepath.Join(dir, num+"-report.xml"))
			if err != nil {
				t.Fatal(err)
			}
			if num == "102" {
				wantOracle := []string{"build failed: package/name/broken: ./main.go:4:6: unused declared but not used"}
				if diff := cmp.Diff(wantOracle, oracle.Infra); diff != "" {
					t.Errorf("go-junit-report's [build failed] case: infra (-want +got):\n%s", diff)
				}
			}
			want := map[string]breaker.TestStatus{}
			for _, tc := range oracle.Tests {
				if !goJUnitReportSynthetic[tc.Name] {
					want[tc.Suite+"."+tc.Name] = tc.Status
				}
			}
			got := map[string]breaker.TestStatus{}
			for _, tc := range res.Tests {
				got[tc.FullName()] = tc.Status
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("statuses (-go-junit-report +ours):\n%s", diff)
			}
		})
	}
}

func TestParseGoTest_Test2JSONTestdata(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(runtimeGOROOT(), "src", "cmd", "internal", "test2json", "testdata")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no test2json testdata under %s", dir)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			res, err := parseFile(t, path)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if res.Format != FormatGoTest {
				t.Errorf("got format %q, want gotest", res.Format)
			}
			for _, w := range res.Warnings {
				if strings.HasPrefix(w, "unknown action") {
					t.Errorf("got warning %q, want every action known", w)
				}
			}
		})
	}
}
