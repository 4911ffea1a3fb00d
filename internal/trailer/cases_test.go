package trailer

import "strings"

// parseCase is a commit message and the trailers git reports for it. Every
// want was checked against git 2.39 (TestParse_AgainstGit re-checks them
// whenever git is installed).
type parseCase struct {
	name string
	msg  string
	want [][2]string
}

// longValue is a value far longer than any line buffer would expect.
var longValue = strings.Repeat("0123456789abcdef", 1024)

// parseCases are the tricky messages: one rule of git's each.
var parseCases = []parseCase{
	{"empty", "", nil},
	{"subject only, shaped like a trailer", "Fix: the thing\n", nil},
	{"subject paragraph of trailers", "Key: v\nOther: w\n", nil},
	{"simple", "subj\n\nKey: v\n", [][2]string{{"Key", "v"}}},
	{"no final newline", "subj\n\nKey: v", [][2]string{{"Key", "v"}}},
	{"no space after colon", "subj\n\nKey:value\n", [][2]string{{"Key", "value"}}},
	{"empty values", "subj\n\nKey:\nOther: \nLast: x\n", [][2]string{{"Key", ""}, {"Other", ""}, {"Last", "x"}}},
	{"blanks before colon", "subj\n\nKey :v\nTab\t\t: w\n", [][2]string{{"Key", "v"}, {"Tab", "w"}}},
	{"key with a space is prose", "subj\n\nSome Key: v\n", nil},
	{"key with an underscore is prose", "subj\n\nFoo_Bar: x\nA: b\n", nil},
	{"hyphen-only key", "subj\n\n-: x\n", [][2]string{{"-", "x"}}},
	{"value keeps its colons", "subj\n\nKey: a: b :c\n", [][2]string{{"Key", "a: b :c"}}},
	{"a bare URL is a trailer", "subj\n\nhttp://example.com/x\n", [][2]string{{"http", "//example.com/x"}}},
	{"keys as written, duplicates kept", "subj\n\ngreenlight-test: a\nGREENLIGHT-TEST: b\n",
		[][2]string{{"greenlight-test", "a"}, {"GREENLIGHT-TEST", "b"}}},
	{"continuation lines", "subj\n\nKey: a\n  b\n\tc\nNext: d\n", [][2]string{{"Key", "a b c"}, {"Next", "d"}}},
	{"continuation keeps blanks before the newline", "subj\n\nKey: a  \n   b\n", [][2]string{{"Key", "a   b"}}},
	{"trailing whitespace", "subj\n\nKey: v  \t\n", [][2]string{{"Key", "v"}}},
	{"whitespace line splits a folded value", "subj\n\nKey: a\n \n b\n", nil},
	{"continuation first in block", "subj\n\n  lead\nKey: v\n", nil},
	{"continuation first, git prefix", "subj\n\n  lead\nSigned-off-by: x\n", [][2]string{{"Signed-off-by", "x"}}},
	{"CRLF", "subj\r\n\r\nKey: a\r\n b\r\nSigned-off-by: x\r\n",
		[][2]string{{"Key", "a\r b"}, {"Signed-off-by", "x"}}},
	{"CRLF trailing blank line", "subj\n\nKey: v\n\r\n", [][2]string{{"Key", "v"}}},
	{"25% rule holds at one in four", "subj\n\nbody\nSigned-off-by: x\nq\nr\n", [][2]string{{"Signed-off-by", "x"}}},
	{"25% rule fails below one in four", "subj\n\nbody\nSigned-off-by: x\nq\nr\ns\n", nil},
	{"prose without a git prefix", "subj\n\nprose\nKey: v\nOther: w\n", nil},
	{"Signed-off-by without space is no git prefix", "subj\n\nprose\nSigned-off-by:x\n", nil},
	{"cherry-pick line counts but is not output", "subj\n\nprose\n(cherry picked from commit abc)\nKey: v\n",
		[][2]string{{"Key", "v"}}},
	{"continuation after prose in a block", "subj\n\nprose\n  cont\nSigned-off-by: a\nKey: b\n",
		[][2]string{{"Signed-off-by", "a"}, {"Key", "b"}}},
	{"dashes are not a cut-off", "subj\n\n---\n\nKey: v\n", [][2]string{{"Key", "v"}}},
	{"dashes inside the block are prose", "subj\n\nKey: v\n---\nOther: w\n", nil},
	{"dashed subject", "--- x\n\nKey: v\n", [][2]string{{"Key", "v"}}},
	{"scissors line", "subj\n\nKey: v\n\n# ------------------------ >8 ------------------------\nOther: x\n",
		[][2]string{{"Key", "v"}}},
	{"comment line inside the block", "subj\n\nKey: v\n# note\nOther: w\n", [][2]string{{"Key", "v"}, {"Other", "w"}}},
	{"trailing comment lines", "subj\n\nKey: v\n\n# comment\n#\n", [][2]string{{"Key", "v"}}},
	{"comment subject", "# c\n\nKey: v\n", [][2]string{{"Key", "v"}}},
	{"leading blank lines are skipped", "\n \t\nsubj\n\nKey: v\n", [][2]string{{"Key", "v"}}},
	{"leading blank line then a trailer subject", "\nKey: v\n", nil},
	{"conflicts block", "subj\n\nKey: v\n\nConflicts:\n\tfoo.c\n\tbar.c\n", [][2]string{{"Key", "v"}}},
	{"whitespace-only paragraph break", "subj\n\nbody\n \t \nKey: v\n", [][2]string{{"Key", "v"}}},
	{"trailing whitespace-only line", "subj\n\nKey: v\n  \n", [][2]string{{"Key", "v"}}},
	{"unicode key is prose", "subj\n\nClé: v\n", nil},
	{"unicode value", "subj\n\nKey: ünïcödé ✓ 日本\n", [][2]string{{"Key", "ünïcödé ✓ 日本"}}},
	{"very long value", "subj\n\nKey: " + longValue + "\n", [][2]string{{"Key", longValue}}},
	{"only the last paragraph", "subj\n\nEarly: x\n\nbody\n\nLate: y\n", [][2]string{{"Late", "y"}}},
	{"NUL ends the message", "subj\n\nKey: v\x00\nOther: w\n", [][2]string{{"Key", "v"}}},
	{"greenlight attempt", "Try a fresh cache key\n\nThe test still fails on CI.\n\n" +
		"Greenlight-Slice: S-3\nGreenlight-Test: TestCache_Get\nGreenlight-Strategy: bump the key\n" +
		"  and clear the old entries\nGreenlight-Justify: cache/key.go: the key is built here\n",
		[][2]string{{"Greenlight-Slice", "S-3"}, {"Greenlight-Test", "TestCache_Get"},
			{"Greenlight-Strategy", "bump the key and clear the old entries"},
			{"Greenlight-Justify", "cache/key.go: the key is built here"}}},
}
