package breaker

import "strings"

// sourceWords says in a few words which rule decided an outcome.
var sourceWords = map[OutcomeSource]string{
	SourceCI:           "CI",
	SourceTrailer:      "agent's Result trailer",
	SourceLaterAttempt: "a later attempt followed",
	SourceResults:      "this run's results",
	SourceScope:        "scope violation",
}

// attemptLog is the diagnostic's attempt log: number, commit, strategy,
// files and result with the first line of its error.
func attemptLog(atts []tracked) []LogEntry {
	var out []LogEntry
	for _, a := range atts {
		var files []string
		for _, f := range a.Files {
			files = append(files, f.Path)
		}
		out = append(out, LogEntry{Attempt: a.Number, SHA: a.SHA, Strategy: a.Strategy,
			Files: files, Result: resultText(a)})
	}
	return out
}

// resultText renders an attempt's result, e.g.
// "fail (CI): expected 409, got 500".
func resultText(a tracked) string {
	r := string(a.Result)
	if w, ok := sourceWords[a.Source]; ok {
		r += " (" + w + ")"
	}
	if a.Misreported {
		r += " — claimed pass, CI observed " + string(a.observed)
	}
	line := capText(firstLine(a.Error), 300)
	switch {
	case line != "" && a.ciError:
		r += ": " + line
	case line != "":
		r += ": agent reported: " + line
	}
	return r
}

// fileTouches is the cumulative files table: each path once, with the
// first change type seen and the attempts that changed it.
func fileTouches(atts []tracked) []FileTouch {
	var out []FileTouch
	pos := map[string]int{}
	for _, a := range atts {
		for _, f := range a.Files {
			i, ok := pos[f.Path]
			if !ok {
				i = len(out)
				pos[f.Path] = i
				out = append(out, FileTouch{Path: f.Path, Change: f.Change})
			}
			if n := len(out[i].Attempts); n == 0 || out[i].Attempts[n-1] != a.Number {
				out[i].Attempts = append(out[i].Attempts, a.Number)
			}
		}
	}
	return out
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
