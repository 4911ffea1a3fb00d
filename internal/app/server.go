package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/ghapi"
)

// seenDeliveries is how many delivery ids a replica remembers: a
// redelivery (the App's "Redeliver", or GitHub's) of one of them is
// answered and changes nothing. A redelivery that reaches another
// replica is judged again, and changes nothing either: the ledger takes
// one observation a tested run (its id and attempt), a reset comment
// already in the ledger is refused.
const seenDeliveries = 10000

// Server is the App's webhook server. It holds no state a replica needs:
// the seen deliveries and the installation tokens are caches.
type Server struct {
	set     Settings
	deps    action.Deps
	app     *ghapi.App
	log     *slog.Logger
	seen    *lru.Cache[string, struct{}]
	jobs    chan delivery
	metrics *metrics
	workers sync.WaitGroup
	scratch string // where a delivery's clone and files go; "" = the system's
}

// New is a server with the settings, judging with deps (the Action's).
func New(set Settings, deps action.Deps, log *slog.Logger) (*Server, error) {
	app, err := ghapi.NewApp(set.AppID, set.Key, set.APIURL, deps.Now)
	if err != nil {
		return nil, err
	}
	seen, err := lru.New[string, struct{}](seenDeliveries)
	if err != nil {
		return nil, err
	}
	return &Server{set: set, deps: deps, app: app, log: log, seen: seen,
		jobs: make(chan delivery, set.Queue), metrics: newMetrics()}, nil
}

// Handler routes the webhook (POST / and POST /webhook), /healthz and
// /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{$}", s.webhook)
	mux.HandleFunc("POST /webhook", s.webhook)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "ok: %d of %d queued\n", len(s.jobs), cap(s.jobs))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	return mux
}

// Start runs the workers until ctx ends or Drain is called.
func (s *Server) Start(ctx context.Context) {
	for range s.set.Workers {
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			for d := range s.jobs {
				s.handle(ctx, d)
			}
		}()
	}
}

// Drain takes no more deliveries and waits for the queued ones.
func (s *Server) Drain() {
	close(s.jobs)
	s.workers.Wait()
}

// handle judges one delivery and logs how it ended.
func (s *Server) handle(ctx context.Context, d delivery) {
	s.metrics.queued.Dec()
	start := time.Now()
	log := s.log.With("delivery", d.id, "event", d.event, "action", d.action, "repository", d.owner+"/"+d.repo)
	out, err := s.judge(ctx, d, log)
	outcome := "done"
	switch {
	case err != nil:
		outcome = "error"
		log.Error("delivery failed", "error", err.Error())
	case out.skipped != "":
		outcome = "skipped"
		log.Info("delivery skipped", "why", out.skipped)
	default:
		if out.state != "" {
			s.metrics.verdicts.WithLabelValues(out.state).Inc()
		}
		log.Info("delivery judged", "state", out.state, "fails_check", out.enforce && out.state == "OPEN")
	}
	s.metrics.handled.WithLabelValues(d.event, outcome).Observe(time.Since(start).Seconds())
}

// ListenAndServe serves on the settings' address until ctx ends, then
// drains: the queued deliveries are judged before it returns.
func (s *Server) ListenAndServe(ctx context.Context) error {
	srv := &http.Server{Addr: s.set.Addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	s.Start(context.WithoutCancel(ctx))
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	s.log.Info("breaker serve: listening", "addr", s.set.Addr, "app_id", strconv.FormatInt(s.set.AppID, 10), "workers", s.set.Workers)
	select {
	case err := <-errc:
		s.Drain()
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	s.Drain()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	handled    *prometheus.HistogramVec
	verdicts   *prometheus.CounterVec
	settled    prometheus.Counter
	queued     prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "breaker_deliveries_total",
		Help: "Webhook deliveries received, by event and the HTTP status answered."}, []string{"event", "status"})
	m.handled = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "breaker_delivery_seconds",
		Help:    "Time from a worker taking a delivery to its verdict written, by event and outcome (done, skipped, error).",
		Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"event", "outcome"})
	m.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "breaker_verdicts_total",
		Help: "Verdicts published, by state."}, []string{"state"})
	m.settled = prometheus.NewCounter(prometheus.CounterOpts{Name: "breaker_rejudged_total",
		Help: "Heads judged again after an entry of their pull request was written side by side with a run."})
	m.queued = prometheus.NewGauge(prometheus.GaugeOpts{Name: "breaker_queued_deliveries",
		Help: "Deliveries waiting for a worker."})
	m.reg.MustRegister(m.deliveries, m.handled, m.verdicts, m.settled, m.queued,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) delivered(event string, status int) {
	if event == "" {
		event = "unknown"
	}
	m.deliveries.WithLabelValues(event, strconv.Itoa(status)).Inc()
}

// scratchDir is where deliveries' files go.
func (s *Server) scratchDir() string {
	if s.scratch != "" {
		return s.scratch
	}
	return os.TempDir()
}
