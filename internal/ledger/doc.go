// Package ledger is the breaker's memory of what CI saw (DESIGN §6): one
// Entry per observed head, kept in the output text of the
// greenlight-breaker check run on that head, read back by every later run.
// It is pure: encode, decode, sign and verify (HMAC-SHA256 over the
// canonical JSON), order, bound the size (fit.go), say which tests ran
// without listing them (known.go), and fingerprint failures. Where
// entries are stored and fetched is internal/ghapi's business.
package ledger
