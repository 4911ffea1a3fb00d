// Package app is the breaker as a GitHub App's webhook server (breaker
// serve): it verifies each delivery, answers at once, and runs the
// Action's own use cases (internal/action) on it in a worker, as the
// App, with an installation token. It keeps nothing: the ledger stays in
// the App's check runs, so any replica serves any delivery.
package app

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// Settings are the server's own settings, from flags and the environment
// as container platforms pass them.
type Settings struct {
	Addr          string // listen address, ":8080"
	WebhookSecret []byte // BREAKER_WEBHOOK_SECRET
	AppID         int64  // GITHUB_APP_ID
	Key           *rsa.PrivateKey
	APIURL        string // GITHUB_API_URL; "" = api.github.com
	GraphQLURL    string // GITHUB_GRAPHQL_URL; "" = derived from APIURL
	ServerURL     string // GITHUB_SERVER_URL; "" = https://github.com
	// LedgerKey signs the ledger entries (BREAKER_LEDGER_KEY); "" = the
	// App's identity alone binds them.
	LedgerKey string
	Workers   int   // deliveries judged at once
	Queue     int   // deliveries waiting for a worker
	MaxBody   int64 // the largest delivery accepted, in bytes
}

// The defaults of the settings that have one.
const (
	DefaultPort    = "8080"
	DefaultWorkers = 4
	DefaultQueue   = 256
	// DefaultMaxBody is GitHub's own cap on a webhook payload: "Payloads
	// are capped at 25 MB" (docs.github.com, Webhook events and payloads).
	DefaultMaxBody = 25 << 20
)

// LoadSettings reads the settings: addr from --addr ("" = ":" + PORT, or
// DefaultPort), the rest from getenv. Every missing or malformed setting
// is one line of the error, naming it and the fix.
func LoadSettings(addr string, workers int, getenv func(string) string) (Settings, error) {
	s := Settings{Addr: addr, APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"),
		ServerURL: getenv("GITHUB_SERVER_URL"), LedgerKey: getenv("BREAKER_LEDGER_KEY"),
		Workers: workers, Queue: DefaultQueue, MaxBody: DefaultMaxBody}
	var errs []error
	if s.Addr == "" {
		port := getenv("PORT")
		if port == "" {
			port = DefaultPort
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			errs = append(errs, fmt.Errorf("PORT=%q is not a port number; set a number from 1 to 65535, or pass --addr", port))
		}
		s.Addr = ":" + port
	}
	if s.Workers < 1 || s.Workers > 256 {
		errs = append(errs, fmt.Errorf("--workers %d: want 1 to 256 deliveries judged at once", s.Workers))
	}
	if secret := getenv("BREAKER_WEBHOOK_SECRET"); len(secret) < 16 {
		errs = append(errs, errors.New("BREAKER_WEBHOOK_SECRET is unset or under 16 characters; set it to the App's webhook secret (e.g. openssl rand -hex 32), the same on the App's settings page"))
	} else {
		s.WebhookSecret = []byte(secret)
	}
	id, err := strconv.ParseInt(getenv("GITHUB_APP_ID"), 10, 64)
	if err != nil || id <= 0 {
		errs = append(errs, fmt.Errorf("GITHUB_APP_ID=%q is not a GitHub App id; set the App's numeric id (its settings page shows it)", getenv("GITHUB_APP_ID")))
	}
	s.AppID = id
	s.Key, err = readKey(getenv)
	if err != nil {
		errs = append(errs, err)
	}
	for _, name := range []string{"GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "GITHUB_SERVER_URL"} {
		if v := getenv(name); v != "" && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") {
			errs = append(errs, fmt.Errorf("%s=%q is not an http(s) URL; GitHub Enterprise Server's API is https://HOST/api/v3", name, v))
		}
	}
	return s, errors.Join(errs...)
}

// readKey reads the App's private key (PEM) from GITHUB_APP_PRIVATE_KEY_FILE
// or GITHUB_APP_PRIVATE_KEY.
func readKey(getenv func(string) string) (*rsa.PrivateKey, error) {
	file, inline := getenv("GITHUB_APP_PRIVATE_KEY_FILE"), getenv("GITHUB_APP_PRIVATE_KEY")
	var pem []byte
	name := "GITHUB_APP_PRIVATE_KEY"
	switch {
	case file != "" && inline != "":
		return nil, errors.New("GITHUB_APP_PRIVATE_KEY_FILE and GITHUB_APP_PRIVATE_KEY are both set; keep one")
	case file != "":
		name = "GITHUB_APP_PRIVATE_KEY_FILE " + file
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("GITHUB_APP_PRIVATE_KEY_FILE: %v; mount the .pem file the App's settings page generated", err)
		}
		pem = b
	case inline != "":
		pem = []byte(strings.ReplaceAll(inline, `\n`, "\n"))
	default:
		return nil, errors.New("GITHUB_APP_PRIVATE_KEY_FILE is not set; name the App's private key (.pem), or pass it in GITHUB_APP_PRIVATE_KEY")
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("%s is not an RSA private key in PEM (%v); use the .pem the App's settings page generated", name, err)
	}
	return key, nil
}
