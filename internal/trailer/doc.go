// Package trailer parses git trailers out of commit messages, exactly as git
// 2.39 does for `git log --format=%(trailers:only,unfold)`.
//
// A trailer is a `Key: value` line in the last paragraph of a message. The
// rules are git's own (trailer.c and the pretty-format code that calls it):
//
//   - Leading blank lines are skipped; the first paragraph (the subject,
//     ignoring '#' lines) can never hold trailers.
//   - Trailing blank lines, trailing '#' comment lines, an old-style
//     "Conflicts:" block and everything from a scissors line
//     ("# ------------------------ >8 ------------------------") on are
//     ignored. A "---" line is NOT a cut-off for commits: git log parses
//     trailers with the patch divider disabled.
//   - The last paragraph is a trailer block when every line in it is a
//     trailer (or a continuation), or when it holds a git-generated line
//     ("Signed-off-by: " or "(cherry picked from commit ") and at least a
//     quarter of its lines are trailers. Comment lines count for neither side.
//   - A key is ASCII letters, digits and hyphens, optionally followed by
//     blanks, then ':'. Keys are reported as written; values are trimmed and
//     their continuation lines (lines starting with whitespace) are joined
//     with single spaces.
//
// The package is pure: no I/O, no git process.
package trailer
