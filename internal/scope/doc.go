// Package scope is the scope lock of seed 000 §4.4 and seed 001 §5: it reads
// Greenlight's slice graph (.greenlight/GRAPH.json) and, optionally, its
// contracts document (.greenlight/CONTRACTS.md), and tells for one slice
// whether a repository path may be changed without a Greenlight-Justify line.
//
// The package is pure: Parse takes the bytes of both files and returns a
// Graph, which implements breaker.ScopeSource. None stands in when there is
// no graph at all.
//
// # What is in scope
//
// A slice's scope is built in the priority order of seed 001 §5:
//
//  1. When the slice carries a files_in_scope list, that list alone (plus the
//     slice's test_files) is the scope. An empty list is honoured: then only
//     the test files are in scope. A missing or null list means "no override".
//  2. Otherwise the scope is the union of the slice's packages, its
//     deliverables, its test_files and every repository path named in the
//     sections of its contracts in CONTRACTS.md.
//  3. A slice that lists none of these has no scope data: the lock is off and
//     its note says so (contract C-56, "NoScopeData").
//
// The graph file itself is never in scope, whatever the lists say.
//
// # Entries and matching
//
// Paths are repository-relative with forward slashes. Entries and paths are
// cleaned alike: a leading "./" is dropped and path.Clean applied. An entry
// written with trailing prose, as Greenlight writes deliverables
// ("src/commands/gl/slice.md (update)", "internal/installer/installer.go
// (manifest update +2)"), is cut at the first blank: paths with spaces are not
// supported. Backticks and quotes around the path are dropped. Absolute
// entries and entries that climb out of the repository ("../x") are ignored
// and counted in the note.
//
// Without a filesystem an entry's kind cannot be known, and it need not be: a
// path equal to the entry is the file itself, and a path below entry + "/"
// lies inside the directory the entry names. So "internal/version" covers
// "internal/version/version.go" and "internal/version/sub/x.go", and
// "internal/cmd/version.go" covers that file only. A trailing slash, as in
// files_in_scope's "internal/auth/", reads the same way. The entry "." (or
// "./") is the repository root. An entry holding one of * ? [ { is a
// doublestar pattern ("src/**/*.ts"); an invalid pattern is ignored and
// counted in the note. Matching is case-sensitive, as git is.
//
// # The same-directory rule
//
// Seed 000 §4.4 also lists "files in the same directory/module as contract
// entities" as in scope. This package deliberately does not widen a file
// entry to its directory. Seed 001 §5, the protocol the agent is given, says
// "within those packages or matching those deliverable paths": a file entry
// is matched, not expanded. And the graph's author chose the file over its
// directory on purpose: in Greenlight's own graph, slices S-01, S-02, S-04,
// S-05 and S-06 each name one file in internal/cmd/, so widening would put
// every other command's file in every command slice's scope, which is the
// very straying the lock exists to catch. Where the graph names a directory,
// the whole module below it is in scope; anything else next to a named file
// takes one Greenlight-Justify line.
//
// # Contracts
//
// A contract's section is the markdown heading whose text starts with the
// contract id ("### C-12: RunInstall", "## C-12", "### Contract C-12 —
// ..."), up to the next heading of the same or a higher level; lines inside
// fenced code blocks are never headings. Within a section every token that
// looks like a repository path is taken: at least one slash, made only of
// letters, digits and . _ - / characters, and either ending in "/" or with a
// dot in its last element ("src/agents/gl-implementer.md",
// "internal/auth/"). Placeholders such as "greenlight/checkpoint/{slice_id}",
// absolute paths, URLs and prose such as "I/O" or "and/or" are not paths.
// Package names without a path are not resolved.
package scope
