package breaker

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFoldPushes_ProgressTable runs the push sequences of
// testdata/progress.txt through the fold: which pushes are failed, and at
// which push three failed ones in a row trip.
func TestFoldPushes_ProgressTable(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/progress.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			t.Fatalf("%q: want 5 cells", line)
		}
		rows++
		name, universe := strings.TrimSpace(cells[0]), strings.Fields(cells[1])
		var plain []string
		for _, u := range universe {
			plain = append(plain, strings.TrimPrefix(u, "^"))
		}
		var ps []Push
		for i, spec := range strings.Split(cells[2], ";") {
			p := Push{Head: strconv.Itoa(i + 1), Complete: true, Tests: map[string]PushTest{}}
			failing := map[string]bool{}
			absent := map[string]bool{}
			for _, f := range strings.Fields(spec) {
				switch {
				case strings.HasPrefix(f, "!"):
					p.Infra, p.InfraKind = "the tests did not run", f[1:]
				case f == "-":
				case strings.HasPrefix(f, "~"):
					absent[f[1:]] = true
				default:
					failing[f] = true
				}
			}
			for _, u := range plain {
				switch {
				case p.Infra != "":
				case absent[u]:
				case failing[u]:
					p.Tests[u] = PushTest{Status: StatusFail}
				default:
					p.Tests[u] = PushTest{Status: StatusPass}
				}
			}
			ps = append(ps, p)
		}
		wantMarks := strings.Fields(cells[3])
		wantTrip, _ := strconv.Atoi(strings.TrimSpace(cells[4]))
		never := func(int) bool { return false }
		base := map[string]bool{}
		for _, u := range universe {
			if strings.HasPrefix(u, "^") { // fails on the base too
				base[u[1:]] = true
			}
		}
		var marks []string
		foldEach(nil, ps, 0, 3, never, never, base, func(s PushSummary) {
			marks = append(marks, map[bool]string{true: "F", false: "."}[s.Failed])
		})
		trip := 0
		for n := 1; n <= len(ps) && trip == 0; n++ {
			if foldPushes(nil, ps[:n], 0, 3, never, never, base).NoProgress {
				trip = n
			}
		}
		if strings.Join(marks, " ") != strings.Join(wantMarks, " ") || trip != wantTrip {
			t.Errorf("%s: pushes %s, trip at %d; want %s, trip at %d", name, strings.Join(marks, " "), trip, strings.Join(wantMarks, " "), wantTrip)
		}
	}
	if rows < 10 {
		t.Fatalf("read %d sequences, want the table's", rows)
	}
}

// A test that failed, passed and failed again is named flaky.
func TestFoldPushes_NamesFlakyTests(t *testing.T) {
	t.Parallel()
	mk := func(status map[string]TestStatus) Push {
		p := Push{Complete: true, Tests: map[string]PushTest{}}
		for n, s := range status {
			p.Tests[n] = PushTest{Status: s}
		}
		return p
	}
	ps := []Push{
		mk(map[string]TestStatus{"T": StatusFail, "Q": StatusFail}),
		mk(map[string]TestStatus{"T": StatusFail, "Q": StatusPass}),
		mk(map[string]TestStatus{"T": StatusFail, "Q": StatusFail}),
	}
	never := func(int) bool { return false }
	if got := foldPushes(nil, ps, 0, 3, never, never, nil).flaky; len(got) != 1 || got[0] != "Q" {
		t.Errorf("flaky = %v, want [Q]", got)
	}
}
