package evaluate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/greenlight-ci/breaker/internal/ledger"
)

// maxLedgerFile caps a --ledger file: far more than any pull request's
// entries (each under 64 KiB).
const maxLedgerFile = 256 << 20

// ReadLedgerFiles reads the ledger entries of breaker evaluate --ledger
// and its --ledger-key-file, each a file the user named (their own, not the agent's workspace).
func ReadLedgerFiles(file, keyFile string) (Ledger, error) {
	var l Ledger
	if keyFile != "" {
		key, err := ReadKeyFile(keyFile)
		if err != nil {
			return l, err
		}
		l.Key = key
	}
	if file == "" {
		if l.Key != nil {
			return l, errors.New("--ledger-key-file needs --ledger: there is nothing to verify")
		}
		return l, nil
	}
	data, err := readCapped(file, maxLedgerFile)
	if err != nil {
		return l, fmt.Errorf("--ledger: %w", err)
	}
	if l.Entries, err = ledger.ReadLines(bytes.NewReader(data)); err != nil {
		return l, fmt.Errorf("--ledger %s: %w", file, err)
	}
	l.Source = "file"
	return l, nil
}

// ReadKeyFile reads the ledger key from a file (--ledger-key-file): its content, without the
// trailing line break.
func ReadKeyFile(keyFile string) ([]byte, error) {
	key, err := readCapped(keyFile, 4096)
	if err != nil {
		return nil, fmt.Errorf("--ledger-key-file: %w", err)
	}
	if key = bytes.TrimRight(key, "\r\n"); len(key) == 0 {
		return nil, fmt.Errorf("--ledger-key-file %s is empty", keyFile)
	}
	return key, nil
}

// readCapped reads a file the user named, refusing one over max bytes.
func readCapped(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", name, max)
	}
	return data, nil
}
