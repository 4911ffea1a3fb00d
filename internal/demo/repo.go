// Package demo builds the repository `breaker demo` judges: an agent
// stuck on one test over four attempts, in a temporary directory, made
// with go-git (the breaker starts no process).
package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// demoStep is one commit of the demo scenario: files to write and the message.
type demoStep struct {
	files   map[string]string
	message string
}

// demoGraph is the slice graph of the demo repository.
const demoGraph = `{
  "project": "demo",
  "slices": {
    "S-3": {
      "name": "Duplicate email",
      "packages": ["internal/users"],
      "deliverables": ["docs/users.md (update)"],
      "contracts": ["C-12"],
      "test_files": ["internal/users/service_test.go"]
    }
  }
}
`

// demoBase is the commit the agent branch forks from.
var demoBase = demoStep{
	files: map[string]string{
		"go.mod":                         "module example.com/shop\n\ngo 1.24\n",
		".greenlight/GRAPH.json":         demoGraph,
		"internal/users/service.go":      "package users\n\n// Register stores a new user.\nfunc Register(email string) error { return store(email) }\n",
		"internal/users/service_test.go": "package users\n\n// TestRegister_DuplicateEmail expects 409 for a second registration.\n",
		"internal/router/routes.go":      "package router\n\n// Routes wires the HTTP handlers.\n",
	},
	message: "Scaffold the users service\n",
}

// demoAttempts is the death spiral: one test, three strategies, the last one
// reaching outside the slice.
var demoAttempts = []demoStep{
	{
		files: map[string]string{"internal/users/service.go": "package users\n\n// Register checks for an existing user first.\nfunc Register(email string) error {\n\tif exists(email) {\n\t\treturn ErrDuplicate\n\t}\n\treturn store(email)\n}\n"},
		message: "Check for an existing user before the insert\n\n" +
			"Greenlight-Slice: S-3\nGreenlight-Test: TestRegister_DuplicateEmail\n" +
			"Greenlight-Strategy: Check for an existing user before the insert\n" +
			"Greenlight-Result: fail\nGreenlight-Error: expected status 409, got 500\n",
	},
	{
		files: map[string]string{"internal/users/repository.go": "package users\n\n// insert maps the unique constraint to ErrDuplicate.\nfunc insert(email string) error { return mapConstraint(db.Insert(email)) }\n"},
		message: "Move the duplicate check into the repository layer\n\n" +
			"Greenlight-Slice: S-3\nGreenlight-Test: TestRegister_DuplicateEmail\n" +
			"Greenlight-Strategy: Map the unique-constraint error to ErrDuplicate in the repository\n" +
			"Greenlight-Result: fail\nGreenlight-Error: expected status 409, got 500\n",
	},
	{
		files: map[string]string{
			"internal/users/errors.go":  "package users\n\nimport \"errors\"\n\n// ErrDuplicate reports an email that is already registered.\nvar ErrDuplicate = errors.New(\"duplicate_email\")\n",
			"internal/router/routes.go": "package router\n\n// Routes wires the HTTP handlers and maps every error to 409.\n",
		},
		message: "Map errors to 409 in the router\n\n" +
			"Greenlight-Slice: S-3\nGreenlight-Test: TestRegister_DuplicateEmail\n" +
			"Greenlight-Strategy: Translate service errors to HTTP 409 in the router\n" +
			"Greenlight-Result: fail\n" +
			"Greenlight-Hypothesis: the handler never sees ErrDuplicate because the router wraps it\n" +
			"Greenlight-Question: Should the users handler own the 409 mapping, or does contract C-12 expect the router to?\n",
	},
}

// demoResults is what `go test -json` printed for the head of the demo branch.
const demoResults = `{"Action":"start","Package":"example.com/shop/internal/users"}
{"Action":"run","Package":"example.com/shop/internal/users","Test":"TestRegister_DuplicateEmail"}
{"Action":"output","Package":"example.com/shop/internal/users","Test":"TestRegister_DuplicateEmail","Output":"=== RUN   TestRegister_DuplicateEmail\n"}
{"Action":"output","Package":"example.com/shop/internal/users","Test":"TestRegister_DuplicateEmail","Output":"    service_test.go:42: POST /users: expected status 409, got 500\n"}
{"Action":"output","Package":"example.com/shop/internal/users","Test":"TestRegister_DuplicateEmail","Output":"--- FAIL: TestRegister_DuplicateEmail (0.01s)\n"}
{"Action":"fail","Package":"example.com/shop/internal/users","Test":"TestRegister_DuplicateEmail","Elapsed":0.01}
{"Action":"output","Package":"example.com/shop/internal/users","Output":"FAIL\n"}
{"Action":"fail","Package":"example.com/shop/internal/users","Elapsed":0.02}
`

// Branch is the agent branch of the demo repository.
const Branch = "agent/S-3-duplicate-email"

// Build writes the demo repository into dir (which must exist and be
// empty) with fixed dates, so its SHAs and report are the same on every run.
func Build(dir string) error {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return fmt.Errorf("init demo repository: %w", err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	when := time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)
	if err := demoCommit(dir, wt, demoBase, when); err != nil {
		return err
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(Branch), Create: true}); err != nil {
		return fmt.Errorf("create demo branch: %w", err)
	}
	for i, step := range demoAttempts {
		if err := demoCommit(dir, wt, step, when.Add(time.Duration(i+1)*20*time.Minute)); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "go-test.json"), []byte(demoResults), 0o644)
}

func demoCommit(dir string, wt *git.Worktree, step demoStep, when time.Time) error {
	for name, body := range step.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
		if _, err := wt.Add(name); err != nil {
			return fmt.Errorf("stage %s: %w", name, err)
		}
	}
	sig := &object.Signature{Name: "Demo Agent", Email: "agent@example.com", When: when}
	_, err := wt.Commit(step.message, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return fmt.Errorf("commit %q: %w", step.message, err)
	}
	return nil
}
