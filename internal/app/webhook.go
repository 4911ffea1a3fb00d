package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// delivery is one verified webhook delivery the server acts on.
type delivery struct {
	id, event, action string
	body              []byte
	installation      int64
	owner, repo       string
	cloneURL          string
	defaultBranch     string
	workflow          string // workflow_run: the workflow's name
	headSHA           string // workflow_run: the tested commit
	baseSHA           string // workflow_run: its pull request's base, when the payload names one
	runID             int64  // workflow_run: the tested run
	runAttempt        int
	pr                int   // issue_comment: the pull request
	checkApp          int64 // check_run: the App whose check run was re-requested
	// settled: a judging again after an entry written side by side
	// (settle.go), which does not look again.
	settled bool
}

// envelope is what every handled event's payload shares, and the fields
// that decide whether it is work (GitHub's webhook payloads:
// docs.github.com, "Webhook events and payloads").
type envelope struct {
	Action       string `json:"action"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		CloneURL      string `json:"clone_url"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	WorkflowRun *struct {
		ID         int64  `json:"id"`
		RunAttempt int    `json:"run_attempt"`
		Name       string `json:"name"`
		HeadSHA    string `json:"head_sha"`
		Pulls      []struct {
			Base struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment *struct {
		Body string `json:"body"`
	} `json:"comment"`
	CheckRun *struct {
		HeadSHA string `json:"head_sha"`
		App     struct {
			ID int64 `json:"id"`
		} `json:"app"`
	} `json:"check_run"`
}

// signed reports whether header is body's X-Hub-Signature-256 under
// secret: "sha256=" and the hex HMAC-SHA256 of the raw body, compared in
// constant time (docs.github.com, "Validating webhook deliveries").
func signed(secret, body []byte, header string) bool {
	got, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(sig, mac.Sum(nil))
}

// webhook answers a delivery within GitHub's ten seconds: it verifies the
// size and the signature, forgets nothing twice, and queues the work.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.set.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		s.answer(w, "", http.StatusRequestEntityTooLarge, "the delivery is over the server's bound")
		return
	case err != nil:
		s.answer(w, "", http.StatusBadRequest, "the delivery's body could not be read")
		return
	}
	if !signed(s.set.WebhookSecret, body, r.Header.Get("X-Hub-Signature-256")) {
		s.answer(w, "", http.StatusUnauthorized, "X-Hub-Signature-256 is missing or does not match the webhook secret")
		return
	}
	event, id := r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" || len(id) > 100 {
		s.answer(w, event, http.StatusBadRequest, "X-GitHub-Event or X-GitHub-Delivery is missing")
		return
	}
	if event == "ping" {
		s.answer(w, event, http.StatusOK, "pong")
		return
	}
	d, why := parseDelivery(event, id, body)
	if why != "" {
		s.answer(w, event, http.StatusAccepted, "ignored: "+why)
		return
	}
	if seen, _ := s.seen.ContainsOrAdd(id, struct{}{}); seen {
		s.answer(w, event, http.StatusOK, "already received: a redelivery changes nothing")
		return
	}
	select {
	case s.jobs <- d:
		s.metrics.queued.Inc()
		s.answer(w, event, http.StatusAccepted, "queued")
	default:
		s.seen.Remove(id) // a redelivery may find room
		w.Header().Set("Retry-After", "30")
		s.answer(w, event, http.StatusServiceUnavailable, "the queue is full; redeliver it from the App's advanced settings")
	}
}

// answer writes the status and a one-line reason, and counts it.
func (s *Server) answer(w http.ResponseWriter, event string, status int, reason string) {
	s.metrics.delivered(event, status)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, reason+"\n")
}

// parseDelivery is the work a verified delivery asks for, or why there
// is none.
func parseDelivery(event, id string, body []byte) (delivery, string) {
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil {
		return delivery{}, "the payload is not JSON"
	}
	d := delivery{id: id, event: event, action: e.Action, body: body, installation: e.Installation.ID,
		owner: e.Repository.Owner.Login, repo: e.Repository.Name, cloneURL: e.Repository.CloneURL, defaultBranch: e.Repository.DefaultBranch}
	if d.installation == 0 || d.owner == "" || d.repo == "" || d.defaultBranch == "" {
		return d, "no installation, repository or default branch in the payload"
	}
	switch {
	case event == "workflow_run" && e.Action == "completed" && e.WorkflowRun != nil:
		d.workflow, d.headSHA = e.WorkflowRun.Name, e.WorkflowRun.HeadSHA
		d.runID, d.runAttempt = e.WorkflowRun.ID, e.WorkflowRun.RunAttempt
		if len(e.WorkflowRun.Pulls) > 0 {
			d.baseSHA = e.WorkflowRun.Pulls[0].Base.SHA
		}
	case event == "issue_comment" && e.Action == "created" && e.Issue != nil && e.Comment != nil:
		if len(e.Issue.PullRequest) == 0 || string(e.Issue.PullRequest) == "null" {
			return d, "a comment on an issue, not a pull request"
		}
		if !strings.HasPrefix(strings.TrimSpace(e.Comment.Body), "/breaker") {
			return d, "a comment that is no /breaker command"
		}
		d.pr = e.Issue.Number
	case event == "check_run" && e.Action == "rerequested" && e.CheckRun != nil:
		d.headSHA, d.checkApp = e.CheckRun.HeadSHA, e.CheckRun.App.ID
	case event == "pull_request" && e.Action == "closed":
	default:
		return d, event + " " + e.Action + " is not an event the breaker acts on"
	}
	return d, ""
}
