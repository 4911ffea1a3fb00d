// Command resultsmem measures the peak memory of `breaker results --format
// json` on a large result file against the parse alone (issue 35): each in
// a process of its own, alternating, the median peak RSS of each and their
// ratio.
//
//	go run ./bench/resultsmem -tests 200000 -runs 3
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-child" {
		os.Exit(child(os.Args[2], os.Args[3]))
	}
	tests := flag.Int("tests", 200_000, "tests in the JUnit file")
	runs := flag.Int("runs", 3, "runs of each mode (alternating); the median is reported")
	flag.Parse()
	dir, err := os.MkdirTemp("", "resultsmem")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(file, junit(*tests), 0o644); err != nil {
		fail(err)
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	peaks := map[string][]float64{}
	modes := []string{"parse", "json"}
	for range *runs {
		for _, mode := range modes {
			cmd := exec.Command(self, "-child", mode, file)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fail(fmt.Errorf("%s: %w", mode, err))
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			peaks[mode] = append(peaks[mode], float64(ru.Maxrss)/1024) // KiB on Linux
		}
	}
	st, _ := os.Stat(file)
	fmt.Printf("%d tests, %.1f MiB of JUnit XML; peak RSS, median of %d runs each, alternating\n", *tests, float64(st.Size())/(1<<20), *runs)
	parse, json := median(peaks["parse"]), median(peaks["json"])
	fmt.Printf("  parse alone                    %7.1f MB\n", parse)
	fmt.Printf("  breaker results --format json  %7.1f MB   %.2fx the parse\n", json, json/parse)
}

// child parses the file, or runs breaker results --format json on it.
func child(mode, file string) int {
	switch mode {
	case "parse":
		f, err := os.Open(file)
		if err != nil {
			fail(err)
		}
		res, err := testresult.Parse(f, testresult.FormatAuto)
		if err != nil || len(res.Tests) == 0 {
			fail(fmt.Errorf("parse: %v", err))
		}
		return 0
	case "json":
		return cli.Main(context.Background(), []string{"breaker", "results", "--format", "json", file}, func(string) string { return "" },
			bytes.NewReader(nil), io.Discard, os.Stderr)
	}
	return 2
}

// junit is a JUnit file of n tests, one in ten failing with a message.
func junit(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites><testsuite name=\"bench\" tests=\"%d\">\n", n)
	for i := range n {
		if i%10 == 0 {
			fmt.Fprintf(&b, "<testcase classname=\"tests.pkg.mod.TestClass%d\" name=\"test_method_%d\" file=\"tests/pkg/mod.py\" line=\"%d\">"+
				"<failure message=\"assert %d == %d\">tests/pkg/mod.py:%d: AssertionError</failure></testcase>\n", i%100, i, i%1000, i, i+1, i%1000)
			continue
		}
		fmt.Fprintf(&b, "<testcase classname=\"tests.pkg.mod.TestClass%d\" name=\"test_method_%d\" file=\"tests/pkg/mod.py\" line=\"%d\"/>\n", i%100, i, i%1000)
	}
	b.WriteString("</testsuite></testsuites>\n")
	return b.Bytes()
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "resultsmem:", err)
	os.Exit(1)
}
