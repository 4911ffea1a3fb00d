// Package forge is the shapes and ports the breaker's use cases and its
// GitHub adapter share: a pull request, a comment, a check run, the ledger
// query and what it found, the errors a forge answers with, and the
// one-method-group interfaces (PullRequests, Comments, Refs, Commits,
// People, Artifacts, LedgerStore) each use case is given. It imports only
// the standard library, so the adapter (internal/ghapi) depends on it and
// not on the use cases (internal/action), and the core (internal/breaker)
// on neither.
package forge
