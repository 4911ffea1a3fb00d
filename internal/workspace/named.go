package workspace

import (
	"fmt"
	"io"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// ReadNamed reads the result files globs name inside the workspace dir
// (named files anywhere in it), and standard input for "-": what
// `breaker results` reads.
func ReadNamed(dir string, globs []string, stdin io.Reader) (testresult.Report, error) {
	var named []string
	fromStdin := false
	for _, g := range globs {
		if g == "-" {
			fromStdin = true
			continue
		}
		named = append(named, g)
	}
	var rep testresult.Report
	if len(named) > 0 {
		ws, err := Open(dir)
		if err != nil {
			return testresult.Report{}, err
		}
		defer ws.Close()
		ws.AllowNamedFilesAnywhere()
		if rep, err = ws.Results(named); err != nil {
			return rep, err
		}
	}
	if !fromStdin {
		return rep, nil
	}
	f := testresult.File{Path: "-"}
	lr := &io.LimitedReader{R: stdin, N: DefaultLimits.MaxFileBytes + 1}
	f.Result, f.Err = testresult.Parse(lr, testresult.FormatAuto)
	switch {
	case lr.N == 0:
		f.Result, f.Err = nil, fmt.Errorf("-: standard input is over the %s cap", Size(DefaultLimits.MaxFileBytes))
	case f.Err != nil:
		f.Result, f.Err = nil, fmt.Errorf("-: %w", f.Err)
	}
	return testresult.Merge(append(rep.Files, f), globs), nil
}
