package testresult

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// divergences are corpus files this reader deliberately reads where the
// oracle's XML library refuses them.
var divergences = map[string]string{
	// Raw NUL and control bytes in a message: the bounded pre-pass replaces
	// characters XML forbids with U+FFFD and reads on (RELIABILITY 12).
	"NUnit-issue17521.xml": "control characters are replaced, not fatal",
}

// TestParse_EnricoMiDotNet reads every real TRX, NUnit and xUnit.net file
// of the corpus: the total and failing counts equal the oracle's stats
// beside each file, and a file with a .exception is a clear per-file
// error. A corpus test: it skips without ../shared.
func TestParse_EnricoMiDotNet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sub, ext string
		format   Format
	}{{"trx/enricomi", ".trx", FormatTRX}, {"nunit/enricomi", ".xml", FormatNUnit}, {"xunit/enricomi", ".xml", FormatXUnit}} {
		dir := fixtures(t, c.sub)
		var files []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, c.ext) {
				files = append(files, p)
			}
			return err
		})
		for _, path := range files {
			base := strings.TrimSuffix(path, c.ext)
			t.Run(strings.TrimPrefix(base, filepath.Dir(dir)), func(t *testing.T) {
				t.Parallel()
				res, err := parseFile(t, path)
				if why, ok := divergences[filepath.Base(path)]; ok {
					if err != nil || len(res.Tests) == 0 {
						t.Fatalf("got %v, %d tests; want the file read (%s)", err, len(res.Tests), why)
					}
					return
				}
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
				if res.Format != c.format {
					t.Errorf("read as %q, want %q", res.Format, c.format)
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
				if got.Total != want.Stats.Tests {
					t.Errorf("got %d tests, want %d", got.Total, want.Stats.Tests)
				}
				if gotFail, wantFail := got.Failed+got.Errored, want.Stats.TestsFail+want.Stats.TestsError; gotFail != wantFail {
					t.Errorf("got %d failing tests, want %d", gotFail, wantFail)
				}
			})
		}
	}
}
