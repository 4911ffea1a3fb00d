package breaker

// ScopeInfo describes the scope lock that applied to a slice.
type ScopeInfo struct {
	Enabled bool
	Source  string // "files_in_scope", "graph" or "none"
	Note    string // why the lock is off, or what it was built from
}

// ScopeLock classifies paths for one slice.
type ScopeLock interface {
	Info() ScopeInfo
	// InScope reports whether the repository-relative path may be changed
	// without a Greenlight-Justify line.
	InScope(path string) bool
}

// ScopeSource gives the scope lock of a slice. Implemented by internal/scope.
type ScopeSource interface {
	Lock(slice string) ScopeLock
}
