package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// A run whose entry keeps a carry may add to its check run's text a
// relay: copies of the entries the next run's window needs (the newest of
// the line below this one) whose heads lie too far behind this head to be
// in that run's read of the pull request's newest 100 commits, as pushes
// of several commits each leave them. The next run starts from this
// entry's carry with them (docs/ledger.md "The read"). Each copy is the
// entry as its run wrote it, its own MAC included, with the id of the
// check run that holds it; with a ledger key the relay is signed as a
// whole too, so its ids are the writer's.

// The block that holds a relay inside a check run's output text.
const (
	relayStart = "<!-- greenlight-relay:v2"
	relayEnd   = "greenlight-relay -->"
)

// MaxRelay bounds the entries one relay holds: the window's, below the
// entry that writes it, and one a level of the skip list's express links
// (ten levels of SkipBase reach MaxSeq).
const MaxRelay = breaker.Window + 10

// relayWire is a relay on the wire.
type relayWire struct {
	Runs []relayRun `json:"runs"`
	MAC  string     `json:"mac,omitempty"`
}

// relayRun is one relayed entry and the check run that holds it.
type relayRun struct {
	ID    int64           `json:"id"`
	Entry json.RawMessage `json:"entry"`
}

// EncodeRelay renders entries (each with its CheckRunID) as a relay block,
// signed with key when there is one; "" for none.
func EncodeRelay(entries []Entry, key []byte) string {
	if len(entries) == 0 {
		return ""
	}
	w := relayWire{}
	for _, e := range entries {
		w.Runs = append(w.Runs, relayRun{ID: e.CheckRunID, Entry: e.json()}) // as read: its rows in their order
	}
	if len(key) > 0 {
		w.MAC = relayMAC(w.Runs, key)
	}
	b, _ := json.Marshal(w)
	return relayStart + "\n" + string(b) + "\n" + relayEnd + "\n"
}

// DecodeRelay reads the relay block of a check run's text: the entries it
// holds, each with the id of its check run; none (and no error) when the
// text holds no relay. With a key, a relay whose MAC does not verify is an
// error; each entry is verified by its reader as any entry is.
func DecodeRelay(text string, key []byte) ([]Entry, error) {
	if len(text) > maxDecode {
		return nil, fmt.Errorf("relay text is %d bytes, over the %d-byte bound", len(text), maxDecode)
	}
	i := strings.Index(text, relayStart)
	if i < 0 {
		return nil, nil
	}
	rest := text[i+len(relayStart):]
	j := strings.Index(rest, relayEnd)
	if j < 0 {
		return nil, errors.New("relay block is not closed")
	}
	var w relayWire
	dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(rest[:j])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("relay block: %w", err)
	}
	if len(w.Runs) > MaxRelay {
		return nil, fmt.Errorf("relay block holds %d entries, more than %d", len(w.Runs), MaxRelay)
	}
	if len(key) > 0 && !hmac.Equal([]byte(w.MAC), []byte(relayMAC(w.Runs, key))) {
		return nil, errors.New("relay block does not verify with the ledger key")
	}
	out := make([]Entry, 0, len(w.Runs))
	for k, r := range w.Runs {
		if r.ID <= 0 {
			return nil, fmt.Errorf("relay block: entry %d names check run %d", k+1, r.ID)
		}
		e, err := decodeJSON(string(r.Entry))
		if err != nil {
			return nil, fmt.Errorf("relay block: entry %d: %w", k+1, err)
		}
		e.CheckRunID = r.ID
		out = append(out, e)
	}
	return out, nil
}

// relayMAC is HMAC-SHA256 over the relay's check run ids and entries, each
// entry's length first.
func relayMAC(runs []relayRun, key []byte) string {
	h := hmac.New(sha256.New, key)
	var n [8]byte
	for _, r := range runs {
		binary.BigEndian.PutUint64(n[:], uint64(r.ID))
		h.Write(n[:])
		binary.BigEndian.PutUint64(n[:], uint64(len(r.Entry)))
		h.Write(n[:])
		h.Write(r.Entry)
	}
	return hex.EncodeToString(h.Sum(nil))
}
