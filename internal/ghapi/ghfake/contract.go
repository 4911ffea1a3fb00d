package ghfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The contract: every REST request the code sends to the fake and every
// answer the fake gives are validated, when the server closes, against
// GitHub's own OpenAPI description of api.github.com and of GitHub
// Enterprise Server — the npm package @octokit/openapi, which republishes
// github/rest-api-description. So a request GitHub would refuse, or an
// answer GitHub never gives, fails the test that made it.
//
// .ci/run installs the package (OpenAPIInstall says how); locally, without
// it, the contract is not checked and TestContract_DescriptionsPresent
// says so and how to install it. GREENLIGHT_OPENAPI_DIR names the
// package's generated/ directory when it is elsewhere.

// OpenAPIVersion is the @octokit/openapi release the contract is pinned to.
const OpenAPIVersion = "23.0.2"

// OpenAPIInstall is the command that installs the descriptions where the
// contract looks for them (run from the repository root).
// The versions are pinned in .ci/npm/package.json and its lock.
const OpenAPIInstall = "npm ci --prefix .ci/npm"

// Descriptions: github.com's, and the newest GitHub Enterprise Server's.
var descriptionFiles = []string{"api.github.com.json", "ghes-3.19.json"}

// contractDoc is one loaded description with its router.
type contractDoc struct {
	name   string
	router routers.Router
}

// OpenAPIDir is where the descriptions are looked for.
func OpenAPIDir() string {
	if d := os.Getenv("GREENLIGHT_OPENAPI_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".ci", "npm", "node_modules", "@octokit", "openapi", "generated")
}

// repoRoot is the repository's root, from this file's place in it.
func repoRoot() string {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Join(filepath.Dir(self), "..", "..", "..")
}

// contractDocs loads the descriptions once per test binary; nil (and the
// reason) when they are not installed.
var contractDocs = sync.OnceValues(func() ([]contractDoc, error) {
	var docs []contractDoc
	for _, name := range descriptionFiles {
		path := filepath.Join(OpenAPIDir(), name)
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("GitHub's OpenAPI description %s is not installed (%v); install it with: %s", name, err, OpenAPIInstall)
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(path)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
		// Route by path alone: the fake is not api.github.com.
		doc.Servers = openapi3.Servers{{URL: "/"}}
		dropConflictingPaths(doc)
		router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation(), openapi3.DisableSchemaFormatValidation())
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", name, err)
		}
		docs = append(docs, contractDoc{name: name, router: router})
	}
	return docs, nil
})

// dropConflictingPaths removes the later of two path templates that differ
// only in their parameters' names (the description has a few, such as
// /orgs/{org}/attestations/{subject_digest} and .../{attestation_id}, in
// different operations), which the router refuses; none is a path the
// breaker uses.
func dropConflictingPaths(doc *openapi3.T) {
	seen := map[string]bool{}
	keys := doc.Paths.InMatchingOrder()
	sort.Strings(keys) // keep the first in sorted order
	for _, p := range keys {
		shape := paramRE.ReplaceAllString(p, "{}")
		if seen[shape] {
			doc.Paths.Delete(p)
			continue
		}
		seen[shape] = true
	}
}

var paramRE = regexp.MustCompile(`\{[^}]*\}`)

// ContractAvailable reports whether the descriptions are installed, and
// why not.
func ContractAvailable() error {
	_, err := contractDocs()
	return err
}

// exchange is one request and the fake's answer, as recorded.
type exchange struct {
	Call
	status   int
	header   http.Header
	response []byte
	injected bool // the answer was an injected failure: only the request is checked
}

// checkExchange validates one exchange against every description; it
// returns what they refuse.
func checkExchange(x exchange) error {
	docs, err := contractDocs()
	if err != nil {
		return nil // not installed: TestContract_DescriptionsPresent says so
	}
	var errs []error
	for _, d := range docs {
		if err := d.check(x); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.name, err))
		}
	}
	return errors.Join(errs...)
}

func (d contractDoc) check(x exchange) error {
	// A ref, and a contents path, is one path parameter of several
	// segments ("tags/a/b", ".github/breaker.yml"): GitHub documents them
	// so (x-multi-segment); the router matches one segment, so the route is
	// found with the first and the parameter set whole.
	target, multi, multiName := x.Path, "", ""
	for _, at := range []struct{ prefix, param string }{{"/git/ref/", "ref"}, {"/git/refs/", "ref"}, {"/contents/", "path"}} {
		if i := strings.Index(target, at.prefix); i >= 0 {
			if rest := target[i+len(at.prefix):]; strings.Contains(rest, "/") {
				target, multi, multiName = target[:i+len(at.prefix)]+strings.ReplaceAll(rest, "/", "%2F"), rest, at.param
			}
		}
	}
	if x.Query != "" {
		target += "?" + x.Query
	}
	req, err := http.NewRequest(x.Method, target, strings.NewReader(x.Body))
	if err != nil {
		return err
	}
	if x.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := d.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: GitHub has no such operation: %w", x.Method, x.Path, err)
	}
	if multi != "" {
		params[multiName] = multi
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		MultiError:         true,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	ctx := context.Background()
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return fmt.Errorf("request %s %s refused: %w\nbody: %s", x.Method, x.Path, err, clip(x.Body))
	}
	if x.injected || x.status == 0 {
		return nil
	}
	if x.status >= 400 && route.Operation.Responses.Status(x.status) == nil {
		// GitHub answers 401 (bad credentials), 404 (gone) and the like on
		// any operation without listing them all: the body must still be
		// GitHub's error object.
		var e struct {
			Message *string `json:"message"`
		}
		if json.Unmarshal(x.response, &e) != nil || e.Message == nil {
			return fmt.Errorf("answer %d to %s %s is not GitHub's error object {\"message\": ...}: %s", x.status, x.Method, x.Path, clip(string(x.response)))
		}
		return nil
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.status, Header: x.header,
		Body: io.NopCloser(bytes.NewReader(x.response)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("answer %d to %s %s is not GitHub's: %w\nbody: %s", x.status, x.Method, x.Path, err, clip(string(x.response)))
	}
	return nil
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// recorder keeps what the fake answered.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len() < 4<<20 {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

// contractChecked reports whether an exchange is GitHub's REST API: the
// GraphQL endpoint is checked against GitHub's schema elsewhere, and the
// archive URL is another host's.
func contractChecked(path string) bool {
	return !strings.HasSuffix(path, "/graphql") && !strings.HasPrefix(path, "/_blobs/")
}
