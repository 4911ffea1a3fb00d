// Package testresult reads the test results a CI workflow produced: JUnit XML
// in its common dialects, `go test -json` streams, TAP 13, NUnit 2/3 XML,
// xUnit.net v2 XML and Visual Studio TRX, one file per format. Inside one
// file a repeated test is a rerun (the last non-skip outcome decides); Merge
// lets the worst outcome win across files. It is pure: an
// io.Reader in, a Result out. Opening files, globbing and size caps live at
// the edge (internal/workspace).
//
// Each parser tolerates what real tools emit (control characters and invalid
// UTF-8 in XML, non-JSON lines in a go test stream, unknown TAP lines) and
// turns what it cannot read into a *ParseError that names the offset, never a
// panic and never an empty "all green" result. Per test it keeps a stable
// name, a status (pass, fail, error, skip), the exact failure message and
// output capped at MaxTextBytes, and the source file and line when present.
//
// Merge combines the results of several files into a Report and decides
// whether the run is infra (the tests did not run); Match maps a
// Greenlight-Test trailer name to the tests it designates.
package testresult
