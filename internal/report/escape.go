package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// zwj is inserted after every @ outside code, so that GitHub never reads an
// @-mention (user or team) in untrusted text.
const zwj = "\u200d"

// htmlComment matches a complete HTML comment.
var htmlComment = rx.Lazy(`(?s)<!--.*?-->`)

// markdownEscapes maps the runes that could start markdown or HTML syntax
// in running text to their inert spelling.
var markdownEscapes = map[rune]string{
	'\\': `\\`, '`': "\\`", '*': `\*`, '_': `\_`, '[': `\[`, ']': `\]`,
	'~': `\~`, '|': `\|`, '$': `\$`,
	'<': "&lt;", '>': "&gt;", '&': "&amp;",
	'@': "@" + zwj,
}

// EscapeInline makes untrusted text safe as one line of markdown outside
// code: HTML comments are removed; line breaks and tabs become spaces;
// markdown and HTML syntax is escaped (so "<details>" shows as text); every
// @ is followed by a zero-width joiner (no mention); a leading "#", "-",
// "1." and the like cannot start a block, nor a leading "::" a workflow
// command should the text reach a log. Table pipes are escaped, so the
// result is also a safe table cell.
func EscapeInline(s string) string {
	s = stripControls(htmlComment().ReplaceAllString(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	return escapeLine(s)
}

// EscapeText is EscapeInline for several lines of prose: each line is
// escaped on its own, leading indentation is dropped (no accidental code
// block) and runs of blank lines collapse to one paragraph break.
func EscapeText(s string) string {
	s = stripControls(htmlComment().ReplaceAllString(s, ""))
	var out []string
	blank := true
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "\t", " "))
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, escapeLine(line))
		blank = false
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// escapeLine escapes one line that holds no control characters.
// backlink matches what GitHub turns into a link back to an issue or pull
// request: #12, owner/repo#12, GH-12, and any URL.
var backlink = rx.Lazy(`(?i)#[0-9]|\bgh-[0-9]|://`)

// defuseBacklinks puts a zero-width joiner inside each backlink, so that
// text quoted from the agent links nowhere and notifies no issue.
func defuseBacklinks(s string) string {
	if !strings.ContainsAny(s, "#:") && !strings.Contains(strings.ToLower(s), "gh-") {
		return s
	}
	return backlink().ReplaceAllStringFunc(s, func(m string) string {
		return m[:1] + zwj + m[1:]
	})
}

// urlRE matches a URL in prose: a scheme, "://" and what follows up to
// white space or a character that ends a URL in text.
var urlRE = rx.Lazy("(?i)\\b[a-z][a-z0-9+.-]*://[^\\s<>\"'`|]+")

// escapeLine escapes one line; URLs become code spans, inert (no link, no
// mention, no backlink) with every character kept, so they copy intact.
func escapeLine(s string) string {
	var b strings.Builder
	at := 0
	for _, l := range urlRE().FindAllStringIndex(s, -1) {
		end := l[1]
		for end > l[0] && strings.ContainsRune(").,;:!?", rune(s[end-1])) {
			end-- // the sentence's punctuation, not the URL's
		}
		b.WriteString(escapeProse(s[at:l[0]]))
		b.WriteString(CodeSpan(s[l[0]:end]))
		at = end
	}
	b.WriteString(escapeProse(s[at:]))
	return escapeBlockStart(b.String())
}

// escapeProse escapes text that holds no URL, without the block-start
// guard (escapeLine applies it once to the whole line).
func escapeProse(s string) string {
	s = defuseBacklinks(s)
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		if r == '_' && intraword(runes, i) {
			b.WriteRune(r) // GFM never reads snake_case as emphasis
			continue
		}
		if e, ok := markdownEscapes[r]; ok {
			b.WriteString(e)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// intraword reports whether the rune at i sits between two letters or digits.
func intraword(runes []rune, i int) bool {
	alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return i > 0 && i+1 < len(runes) && alnum(runes[i-1]) && alnum(runes[i+1])
}

// escapeBlockStart stops a line from opening a heading, list, quote,
// thematic break or setext underline by escaping its first marker.
func escapeBlockStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '-', '+', '=', ':':
		return `\` + s
	}
	digits := len(s) - len(strings.TrimLeftFunc(s, unicode.IsDigit))
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') {
		return s[:digits] + `\` + s[digits:]
	}
	return s
}

// CodeSpan renders untrusted text as an inline code span: line breaks become
// spaces and the backtick fence is longer than any backtick run inside, so
// the text cannot close it. Mentions and HTML inside code are inert.
func CodeSpan(s string) string {
	s = strings.Join(strings.Fields(stripControls(s)), " ")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// CodeCell is CodeSpan for a table cell: pipes are escaped as GitHub's table
// syntax requires (the backslash does not show inside the code).
func CodeCell(s string) string {
	return strings.ReplaceAll(CodeSpan(s), "|", `\|`)
}

// CodeBlock renders untrusted text as a fenced code block that it cannot
// break out of: the fence is longer than any backtick run in the text, so no
// line of it can close the block. Escape sequences and control characters
// are dropped; the text is otherwise exact. info is the language tag and
// must be trusted.
func CodeBlock(s, info string) string {
	s = strings.TrimRight(stripControls(s), "\n")
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	if s == "" {
		return fence + info + "\n" + fence + "\n"
	}
	return fence + info + "\n" + s + "\n" + fence + "\n"
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// htmlText escapes text for a trusted HTML element such as <summary>,
// neutralising mentions as EscapeInline does.
func htmlText(s string) string {
	s = strings.Join(strings.Fields(stripControls(s)), " ")
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "@", "@"+zwj)
	return r.Replace(s)
}

// truncateRunes cuts s to at most n runes, marking the cut with an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n]) + "…"
}

// Clip cuts s to at most n runes, marking a cut with an ellipsis: for one
// line of untrusted text in a title or an annotation.
func Clip(s string, n int) string { return truncateRunes(s, n) }
