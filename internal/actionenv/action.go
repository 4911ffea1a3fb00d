package actionenv

import (
	"crypto/rand"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"
)

// Action is the GitHub Actions runtime seen through injected process state:
// a getenv function for the environment and a writer for the log. Every
// line it prints, and every file it writes, has the registered secrets
// redacted.
type Action struct {
	gha    *githubactions.Action
	getenv func(string) string
	log    *logWriter
}

// New returns an Action reading the environment through getenv and printing
// the log to w. A failing w never panics: the first write error is kept and
// returned by Err.
func New(getenv func(string) string, w io.Writer) *Action {
	lw := &logWriter{w: w}
	return &Action{
		gha: githubactions.New(
			githubactions.WithGetenv(getenv),
			githubactions.WithWriter(lw),
		),
		getenv: getenv,
		log:    lw,
	}
}

// Err returns the first error met while writing the log, if any.
func (a *Action) Err() error { return a.log.firstErr() }

// Mask registers secret: the runner is told to mask it (::add-mask::) and
// this Action replaces it with *** in everything it prints or writes from
// now on. Empty and very short values are ignored: masking them would
// garble the log without protecting anything.
func (a *Action) Mask(secret string) {
	if len(strings.TrimSpace(secret)) < minSecret {
		return
	}
	a.gha.AddMask(secret)
	a.log.addSecret(secret)
}

// minSecret is the shortest value Mask accepts.
const minSecret = 4

// Redact returns s with every registered secret replaced by ***.
func (a *Action) Redact(s string) string { return a.log.redact(s) }

// Logf prints one line of the action's own words. The caller promises the
// format and arguments carry no untrusted text; untrusted text goes through
// Untrusted.
func (a *Action) Logf(format string, args ...any) {
	fmt.Fprintf(a.log, format+"\n", args...)
}

// Untrusted prints text that may carry anything (commit messages, test
// output, branch names) inside a ::stop-commands:: block with a fresh random
// token, so that no line of it is read as a workflow command.
func (a *Action) Untrusted(text string) {
	text = a.Redact(text)
	token := stopToken(text)
	var b strings.Builder
	b.WriteString("::stop-commands::" + token + "\n")
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("::" + token + "::\n")
	io.WriteString(a.log, b.String())
}

// stopToken returns a random token that does not occur in text.
func stopToken(text string) string {
	for {
		t := "breaker-" + rand.Text()
		if !strings.Contains(text, t) {
			return t
		}
	}
}

// Level is the severity of an annotation.
type Level string

// The annotation levels GitHub shows on the run and the pull request.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNotice  Level = "notice"
)

// Annotate prints an annotation: a workflow command whose title and message
// are escaped (%, CR, LF; and : and , in the title) so that they cannot end
// the command or start another one.
func (a *Action) Annotate(level Level, title, message string) {
	cmd := &githubactions.Command{Name: string(level), Message: a.Redact(message)}
	if title != "" {
		cmd.Properties = githubactions.CommandProperties{"title": a.Redact(title)}
	}
	a.gha.IssueCommand(cmd)
}

// logWriter redacts secrets from every write and never returns an error,
// so that go-githubactions never panics; the first error is kept.
type logWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
	err     error
}

func (l *logWriter) Write(p []byte) (int, error) {
	s := l.redact(string(p))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = io.WriteString(l.w, s)
	}
	return len(p), nil
}

func (l *logWriter) addSecret(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets = append(l.secrets, s)
}

func (l *logWriter) redact(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return redactAll(s, l.secrets)
}

func (l *logWriter) firstErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// redactAll replaces each secret in s with ***.
func redactAll(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "***")
	}
	return s
}
