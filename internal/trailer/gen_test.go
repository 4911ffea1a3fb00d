package trailer

import (
	"math/rand/v2"
	"strings"
)

// lineKinds are the building blocks of generated messages: every kind of line
// git's trailer rules treat differently, plus a few that look alike.
var lineKinds = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return pick(r, keys) + ": " + pick(r, values) },
	func(r *rand.Rand) string { return pick(r, keys) + ":" + pick(r, values) },
	func(r *rand.Rand) string {
		return pick(r, keys) + pick(r, []string{" ", "\t", "  \t"}) + ": " + pick(r, values)
	},
	func(r *rand.Rand) string { return pick(r, keys) + ":" },
	func(r *rand.Rand) string { return "Signed-off-by: " + pick(r, values) },
	func(r *rand.Rand) string { return "Signed-off-by:" + pick(r, values) },
	func(r *rand.Rand) string { return "(cherry picked from commit 0123abcd)" },
	func(r *rand.Rand) string { return pick(r, []string{" ", "\t", "   "}) + pick(r, values) },
	func(r *rand.Rand) string { return pick(r, prose) },
	func(r *rand.Rand) string { return "" },
	func(r *rand.Rand) string { return pick(r, []string{" ", "\t", " \t ", "\r"}) },
	func(r *rand.Rand) string { return "#" + pick(r, []string{"", " comment", "Key: v"}) },
	func(r *rand.Rand) string { return pick(r, []string{"---", "--- a/file.go", "---x", "-- "}) },
	func(r *rand.Rand) string { return "# ------------------------ >8 ------------------------" },
	func(r *rand.Rand) string { return pick(r, []string{"Conflicts:", "\tpath/to/file.go"}) },
	func(r *rand.Rand) string { return string(rune(r.IntN(0x3000)+1)) + pick(r, values) },
}

var keys = []string{
	"Key", "Greenlight-Test", "greenlight-test", "A", "-", "x-1", "Co-authored-by",
	"Some Key", "Foo_Bar", "Clé", "http", "Signed-off-by", "Reviewed-by", "9",
}

var values = []string{
	"", "v", "a: b", "TestThing/sub case", "Ann <ann@example.com>", "ünï ✓ 日本",
	"trailing  ", "  leading", "//example.com", "x\ty", strings.Repeat("long ", 400),
}

var prose = []string{
	"This is prose.", "Fix the flaky test", "see: below", "Note -- careful", "(aside)",
	"Key : v", "URL http://x", "subject: with colon",
}

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

// genMessage builds a random message: a subject, then paragraphs of random
// lines, with random line endings, trailing blanks and final newline.
func genMessage(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString(pick(r, []string{"\n", " \n", "\r\n"}))
	}
	eol := "\n"
	if r.IntN(6) == 0 {
		eol = "\r\n"
	}
	n := 1 + r.IntN(10)
	for i := 0; i < n; i++ {
		var line string
		switch {
		case i == 0 && r.IntN(4) != 0:
			line = pick(r, prose)
		case i == 1 && r.IntN(2) == 0:
			line = ""
		default:
			line = lineKinds[r.IntN(len(lineKinds))](r)
		}
		if r.IntN(10) == 0 {
			line += pick(r, []string{" ", "\t", "\r"})
		}
		b.WriteString(line)
		if i < n-1 || r.IntN(5) != 0 {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// genNoise builds a short message from an alphabet of the bytes git's rules
// look at, to reach the corners the line-based generator misses.
func genNoise(r *rand.Rand) string {
	const alphabet = "aK-:: \t\t\r\n\n\n\n#(_é"
	pieces := []string{
		"Signed-off-by: ", "(cherry picked from commit ", "Conflicts:\n",
		"\n# ------------------------ >8 ------------------------\n", "---",
	}
	var b strings.Builder
	n := r.IntN(40)
	for i := 0; i < n; i++ {
		if r.IntN(12) == 0 {
			b.WriteString(pick(r, pieces))
			continue
		}
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// newRand returns a deterministic generator for seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7261696c)) }
