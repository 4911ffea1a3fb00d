package src

import (
	"embed"
	"io/fs"
)

//go:embed protocol.md AGENTS.md commands/*.md
var docs embed.FS

// Docs returns the embedded documents, rooted at src/.
func Docs() fs.FS { return docs }

// Names lists the embedded documents in the order `breaker protocol --list` prints them.
var Names = []string{
	"protocol.md",
	"AGENTS.md",
	"commands/breaker-debug.md",
	"commands/breaker-reset.md",
}
