package authz

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"toolhost/internal/secret"
)

// AuditSink receives audit records; *store.Store is one (its AppendAudit appends a JSON line to
// audit.jsonl with a single O_APPEND write, which is safe across processes).
type AuditSink interface {
	AppendAudit(ctx context.Context, v any) error
}

// Audit outcomes.
const (
	OutcomeAllowedInside      = "allowed_inside"
	OutcomeAllowedByGrant     = "allowed_by_grant"
	OutcomeAllowedOutsideRead = "allowed_outside_read"
	OutcomeDenied             = "denied"      // no grant can fix it (invalid path, FIFO, ...)
	OutcomeNeedsGrant         = "needs_grant" // a grant would allow it
)

// AuditRecord is one line of the audit log.
type AuditRecord struct {
	Time         time.Time `json:"time"`
	Event        string    `json:"event"` // "decision", "grant_created", "grant_revoked", "approval_requested", "approval_approved", "approval_denied", "token_updated"
	Outcome      string    `json:"outcome,omitempty"`
	Code         string    `json:"code,omitempty"` // denial code
	Conversation string    `json:"conversation,omitempty"`
	Tool         string    `json:"tool,omitempty"`
	Operation    string    `json:"operation,omitempty"`
	Class        Class     `json:"class,omitempty"`
	Path         string    `json:"path,omitempty"` // canonical
	Host         string    `json:"host,omitempty"` // network decisions: host:port and the address dialed
	GrantID      string    `json:"grant_id,omitempty"`
	RequestID    string    `json:"request_id,omitempty"`
	By           string    `json:"by,omitempty"`
	// Token, Tier and Rate describe a client token after a change (token_updated); Rate ""
	// is the default rate.
	Token string `json:"token,omitempty"`
	Tier  Tier   `json:"tier,omitempty"`
	Rate  string `json:"rate,omitempty"`
	PID   int    `json:"pid"` // several toolhost processes share one audit log
}

// AuditBatchSink is an AuditSink that can append several records in one write. The auditor uses
// it when available, so a burst of decisions costs one file append instead of one per record.
type AuditBatchSink interface {
	AuditSink
	AppendAuditBatch(ctx context.Context, vs []any) error
}

// auditQueueLen bounds the records waiting to be written. A full queue makes decisions wait
// (records are never dropped: the audit must be complete). The queue holds pointers: a queue
// of 4096 records would be a megabyte allocated and cleared at every start.
const auditQueueLen = 4096

// auditor writes records in a background goroutine, so a decision costs a channel send instead of
// an open/write/close of the audit file.
type auditor struct {
	sink AuditSink
	ch   chan *AuditRecord
	done chan struct{}
	log  *slog.Logger
	pid  int

	mu     sync.RWMutex // held shared while sending, so close never closes ch under a sender
	closed bool
}

func newAuditor(sink AuditSink, log *slog.Logger) *auditor {
	a := &auditor{sink: sink, ch: make(chan *AuditRecord, auditQueueLen), done: make(chan struct{}), log: log, pid: os.Getpid()}
	go a.run()
	return a
}

func (a *auditor) run() {
	defer close(a.done)
	// Masked here, off the caller's path: a path the model sent may hold a URL with a token.
	mask := func(r *AuditRecord) { r.Path = secret.Text(r.Path) }
	batcher, _ := a.sink.(AuditBatchSink)
	// Background context: a record must be written even if the request that caused it ended.
	ctx := context.Background()
	var batch []any
	for rec := range a.ch {
		mask(rec)
		if batcher == nil {
			if err := a.sink.AppendAudit(ctx, *rec); err != nil {
				a.log.Warn("audit write failed", "err", err, "event", rec.Event, "path", rec.Path)
			}
			continue
		}
		batch = append(batch[:0], *rec)
	drain:
		for len(batch) < maxAuditBatch {
			select {
			case r, ok := <-a.ch:
				if !ok {
					break drain
				}
				mask(r)
				batch = append(batch, *r)
			default:
				break drain
			}
		}
		if err := batcher.AppendAuditBatch(ctx, batch); err != nil {
			a.log.Warn("audit write failed", "err", err, "records", len(batch))
		}
	}
}

// maxAuditBatch bounds one batched append.
const maxAuditBatch = 256

// add queues rec; it waits only when the queue is full.
func (a *auditor) add(ctx context.Context, rec AuditRecord) {
	rec.PID = a.pid
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		a.log.Warn("audit record after close", "event", rec.Event, "path", rec.Path)
		return
	}
	select {
	case a.ch <- &rec:
	default:
		select {
		case a.ch <- &rec:
		case <-ctx.Done():
			a.log.Warn("audit record dropped: context ended while the queue was full", "path", rec.Path)
		}
	}
}

// close flushes the queue and stops the writer.
func (a *auditor) close() {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	<-a.done
}
