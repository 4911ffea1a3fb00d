package testresult

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// maxLineBytes bounds one line of a go test stream; the rest of a longer line
// is dropped (the line then reads as text, with a warning).
const maxLineBytes = 8 << 20

// goEvent is one test2json (or go build -json) event. encoding/json decodes
// it: keys match case-insensitively and, when a key repeats, the last
// occurrence wins. Because the agent writes the stream, a line that names
// one of these keys twice (`{"Action":"fail","action":"pass"}`) is
// ambiguous, and an ambiguous event is read as a failure: see
// ambiguousKeys.
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
	ImportPath  string
}

// ParseGoTest reads a `go test -json` stream: test2json events, the build
// events go test interleaves (build-output, build-fail), and the plain text
// lines old toolchains and early failures print between them. A test that
// started but never reported a result is a failure; a test reported more than
// once (-count, or a rerun appended to the stream) is decided by its last
// run that was not skipped, and is flaky when it failed before passing.
func ParseGoTest(r io.Reader) (*Result, error) {
	p := newGoParser()
	overlong, err := eachLine(r, p.line)
	if err != nil {
		return nil, &ParseError{Offset: p.offset, Line: p.lineNo, Msg: "reading: " + err.Error()}
	}
	p.overlong = overlong
	if p.lineNo == 0 {
		return nil, &ParseError{Msg: "empty file"}
	}
	return p.finish(), nil
}

// goKey names a test within a stream.
type goKey struct{ pkg, test string }

// goRun is a test of the stream: the run under way, if one is (done
// false), and its place in the list once it has a result. One map holds both,
// so a test costs the map one entry, however often it is rerun.
type goRun struct {
	seq  int
	out  capBuf
	done bool // not running: its result is in, or it never started
	idx  int  // its place in the list, -1 before its first result
}

// goPkg is what a stream says about one package.
type goPkg struct {
	seq         int
	tests       int
	failed      bool
	failedBuild string
	out         capBuf
	benches     []string // benchmark result lines seen
}

type goParser struct {
	runs     map[goKey]*goRun
	pkgs     map[string]*goPkg
	list     testList // tests as they finish
	tests    []Test   // the list, once the stream ended
	builds   map[string]*capBuf
	buildBad []string    // import paths whose build failed, in order
	text     capBuf      // non-JSON lines
	textBad  [][2]string // {"build failed"|"setup failed", package} from text lines
	unknown  map[string]int
	badJSON  int
	firstBad string
	// malformed is the first line that starts an event and is not one.
	malformed *ParseError
	overlong  bool
	seq       int
	lineNo    int
	offset    int64
	warnings  []string

	ambiguous      int    // events that name a key twice, read as failures
	firstAmbiguous string // the first of them, for the warning

	names   map[string]string // interned names (intern)
	recent  [4]string         // the names intern returned last, newest at recent[next-1]
	next    int
	scratch []byte // a string's unescaped bytes (decodeEvent)

	// The run and the package the last event named: a test's events
	// mostly follow one another, so most events find theirs here without
	// hashing the key (run, pkg).
	lastKey goKey
	lastRun *goRun
	lastPkg *goPkg
}

func newGoParser() *goParser {
	return &goParser{runs: map[goKey]*goRun{}, pkgs: map[string]*goPkg{},
		builds: map[string]*capBuf{}, unknown: map[string]int{}, names: map[string]string{}}
}

func (p *goParser) line(line []byte) {
	p.lineNo++
	p.offset += int64(len(line))
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var ev goEvent
		if dup, ok := decodeEvent(trimmed, &ev, p.intern, &p.scratch); ok {
			p.decoded(line, trimmed, &ev, dup)
			return
		}
		err := json.Unmarshal(trimmed, &ev)
		if err == nil {
			dup := ""
			if ev.Action != "" {
				dup = ambiguousKeys(trimmed)
			}
			p.decoded(line, trimmed, &ev, dup)
			return
		}
		p.badJSON++
		if p.firstBad == "" {
			at := p.offset - int64(len(line))
			p.firstBad = fmt.Sprintf("line %d (offset %d): %v", p.lineNo, at, err)
			msg := fmt.Sprintf("a line starts a go test -json event and is not one (%v): the file is corrupt", err)
			if !bytes.HasSuffix(line, []byte("\n")) {
				msg = fmt.Sprintf("the go test -json stream ends in the middle of an event (%v): the file is truncated", err)
			}
			p.malformed = &ParseError{Format: FormatGoTest, Offset: at, Line: p.lineNo, Msg: msg}
		}
	}
	p.textLine(line)
}

// decoded takes a line that is JSON: an event (dup names a key it repeats),
// or a program's own output that happens to be JSON.
func (p *goParser) decoded(line, trimmed []byte, ev *goEvent, dup string) {
	if ev.Action == "" {
		p.textLine(line) // JSON, but not an event: a program's own output
		return
	}
	if dup != "" {
		p.ambiguous++
		if p.firstAmbiguous == "" {
			p.firstAmbiguous = fmt.Sprintf("line %d names %q twice", p.lineNo, dup)
		}
		if ev.Test != "" || ev.Package != "" {
			ev.Action = "fail" // fail closed: never let the last duplicate pass
		}
	}
	p.event(ev)
}

// intern is the string of a package, test or import path name: one
// allocation a name a stream, however many events repeat it (bounded: a
// stream of ever new names stops being interned).
func (p *goParser) intern(b []byte) string {
	// An event names its package and its test, and the next event mostly
	// names the same two: compare with the last few names before hashing.
	for _, s := range p.recent {
		if s == string(b) {
			return s
		}
	}
	s, ok := p.names[string(b)]
	if !ok {
		s = string(b)
		if len(p.names) < maxInterned {
			p.names[s] = s
		}
	}
	p.recent[p.next] = s
	p.next = (p.next + 1) % len(p.recent)
	return s
}

// maxInterned bounds the names a parser keeps for intern.
const maxInterned = 1 << 16

func (p *goParser) pkg(name string) *goPkg {
	if p.lastPkg != nil && p.lastKey.pkg == name {
		return p.lastPkg
	}
	g := p.pkgs[name]
	if g == nil {
		p.seq++
		g = &goPkg{seq: p.seq}
		p.pkgs[name] = g
	}
	p.lastKey, p.lastRun, p.lastPkg = goKey{pkg: name}, nil, g
	return g
}

// run is k's run under way; an event of a test that is not running starts
// a run (a rerun, when the test has a result already).
func (p *goParser) run(k goKey) *goRun {
	if r := p.lastRun; r != nil && !r.done && p.lastKey == k {
		return r
	}
	r := p.test(k)
	if r.done {
		p.seq++
		r.seq, r.out, r.done = p.seq, capBuf{}, false
		p.pkg(k.pkg).tests++
	}
	p.lastKey, p.lastRun, p.lastPkg = k, r, p.pkg(k.pkg) // pkg's own cache finds it mostly
	return r
}

// test is k's entry, made (not running, no result) on first sight.
func (p *goParser) test(k goKey) *goRun {
	r := p.runs[k]
	if r == nil {
		r = &goRun{done: true, idx: -1}
		p.runs[k] = r
	}
	return r
}

func (p *goParser) event(ev *goEvent) {
	k := goKey{ev.Package, ev.Test}
	switch ev.Action {
	case "run":
		p.run(k)
	case "output":
		p.output(k, ev.Output)
	case "pass", "bench", "fail", "skip":
		if ev.Test == "" {
			p.pkgResult(ev)
			return
		}
		p.finishRun(k, actionStatus(ev.Action))
	case "build-output":
		b := p.builds[ev.ImportPath]
		if b == nil {
			b = &capBuf{}
			p.builds[ev.ImportPath] = b
		}
		b.writeString(ev.Output)
	case "build-fail":
		p.buildBad = append(p.buildBad, ev.ImportPath)
	case "start", "pause", "cont", "attr", "artifacts":
	default:
		p.unknown[ev.Action]++
	}
}

func (p *goParser) output(k goKey, out string) {
	if isBenchLine(out) {
		g := p.pkg(k.pkg)
		g.benches = append(g.benches, out)
	}
	if k.test == "" {
		p.pkg(k.pkg).out.writeString(out)
		return
	}
	p.run(k).out.writeString(out)
}

func (p *goParser) pkgResult(ev *goEvent) {
	g := p.pkg(ev.Package)
	if ev.Action == "fail" {
		g.failed = true
		if ev.FailedBuild != "" {
			g.failedBuild = ev.FailedBuild
		}
	}
}

func actionStatus(action string) breaker.TestStatus {
	switch action {
	case "fail":
		return breaker.StatusFail
	case "skip":
		return breaker.StatusSkip
	}
	return breaker.StatusPass
}

// finishRun records the result of a test's run.
func (p *goParser) finishRun(k goKey, st breaker.TestStatus) {
	r := p.run(k)
	r.done = true
	t := Test{Suite: k.pkg, Name: k.test, Status: st}
	if st != breaker.StatusPass {
		out := r.out.String()
		t.Message, t.File, t.Line = goMessage(out)
		if st.Failed() {
			t.Output = out
		}
	}
	p.record(r, t)
}

// record adds t, the result of r's test, or folds it into an earlier run's.
func (p *goParser) record(r *goRun, t Test) {
	if r.idx < 0 {
		r.idx = p.list.add(t)
		return
	}
	combineRerun(p.list.at(r.idx), t)
}

// finish closes the stream: unfinished tests fail, benchmark lines become
// tests, and package failures become infra reasons or warnings.
func (p *goParser) finish() *Result {
	var keys []goKey
	for k, r := range p.runs {
		if !r.done {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return p.runs[keys[i]].seq < p.runs[keys[j]].seq })
	for _, k := range keys {
		p.unfinished(k)
	}
	p.benchTests()
	p.tests = p.list.slice()
	res := &Result{Format: FormatGoTest}
	res.Infra = p.packageVerdicts()
	res.Tests = p.tests
	res.Warnings = append(p.warnings, p.streamWarnings()...)
	res.Malformed = p.malformed
	return res
}

func (p *goParser) unfinished(k goKey) {
	r := p.runs[k]
	r.done = true
	out := r.out.String()
	t := Test{Suite: k.pkg, Name: k.test, Status: breaker.StatusFail, Output: out}
	t.Message, t.File, t.Line = goMessage(out)
	if t.Message == "" {
		t.Message = "the test started but never reported a result"
	}
	p.warnings = append(p.warnings, fmt.Sprintf("%s started but never reported a result: counted as a failure", t.FullName()))
	p.record(r, t)
}
