package authz

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"toolhost/store"
)

// DefaultApprovalTTL is how long an approval request waits for the user.
const DefaultApprovalTTL = 10 * time.Minute

// MaxPendingApprovals bounds the pending requests of one conversation, so a model cannot flood the
// user (or the store) with requests.
const MaxPendingApprovals = 20

// approvalRetention is how long decided or expired requests stay readable (for check_request)
// before pruning deletes them.
const approvalRetention = 24 * time.Hour

// Status of an approval request.
type Status string

// The states of an approval request. Only pending requests can be approved or denied.
const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusDenied   Status = "denied"
	StatusExpired  Status = "expired"
)

// Approval is a model's persisted request for a grant, waiting for a human to approve or deny it
// out of band (CLI, approval endpoint). Creating one grants nothing.
type Approval struct {
	ID           string    `json:"id"`
	Conversation string    `json:"conversation"`
	Reason       string    `json:"reason,omitempty"`
	Access       string    `json:"access"`
	Path         string    `json:"path"`           // canonical; "" for a host
	Host         string    `json:"host,omitempty"` // canonical host of a network request (see Grant.Host)
	Recursive    bool      `json:"recursive"`
	Once         bool      `json:"once"`              // what the model asked for; the approver decides
	Minutes      int       `json:"minutes,omitempty"` // what the model asked for; the approver decides
	Status       Status    `json:"status"`
	Created      time.Time `json:"created"`
	Expires      Deadline  `json:"expires"`
	Decided      time.Time `json:"decided,omitzero"`
	DecidedBy    string    `json:"decided_by,omitempty"`
	GrantID      string    `json:"grant_id,omitempty"`
	// Command is the exact command line a command approval (class command) is about.
	Command string `json:"command,omitempty"`
}

// ApprovalSpec is what the model asks for through user_collaboration request_authorization.
type ApprovalSpec struct {
	Conversation string
	Path         string // canonical absolute path (Guard.RequestAuthorization canonicalises it)
	Host         string // instead of Path, for a network access (CanonicalHost)
	Access       string
	Recursive    bool
	Once         bool
	Minutes      int
	Reason       string
	Command      string // for class command: the exact command line
}

// Approvals keeps approval requests in the store's approvals bucket.
type Approvals struct {
	st     *store.Store
	grants *Grants
	clock  Clock
	ttl    time.Duration
}

// NewApprovals returns the approval requests kept in st; approving one creates a grant in grants.
// ttl 0 means DefaultApprovalTTL.
func NewApprovals(st *store.Store, grants *Grants, clock Clock, ttl time.Duration) *Approvals {
	if ttl <= 0 {
		ttl = DefaultApprovalTTL
	}
	return &Approvals{st: st, grants: grants, clock: clock.withDefaults(), ttl: ttl}
}

var approvalsBucket = store.Path{store.BucketApprovals}

// Create records a pending request.
func (a *Approvals) Create(ctx context.Context, s ApprovalSpec) (Approval, error) {
	if a.st == nil {
		return Approval{}, ErrNoStore
	}
	acc, err := ParseAccess(s.Access)
	if err != nil {
		return Approval{}, err
	}
	if (acc.Class == ClassCommand) != (s.Command != "") {
		return Approval{}, fmt.Errorf("%w: a command approval names exactly one command, and only it does", ErrInvalidGrant)
	}
	if len(s.Command) > MaxCommandLen || !commandDisplayable(s.Command) {
		return Approval{}, fmt.Errorf("%w: the command must be at most %d bytes of text without control characters other than newline and tab", ErrInvalidGrant, MaxCommandLen)
	}
	if err := checkGrantTarget(acc, s.Path, s.Host); err != nil {
		return Approval{}, err
	}
	if s.Minutes < 0 || time.Duration(s.Minutes)*time.Minute > MaxGrantTTL {
		return Approval{}, fmt.Errorf("%w: minutes must be between 0 and %d", ErrInvalidGrant, int(MaxGrantTTL/time.Minute))
	}
	if !displayable(s.Path) || !displayable(s.Conversation) {
		// The request is shown to the user in a terminal (toolhost approvals) and in the client:
		// escape sequences or bidi controls in it could disguise what the user approves.
		return Approval{}, fmt.Errorf("%w: path and conversation must not contain control characters", ErrInvalidGrant)
	}
	reason := s.Reason
	if len(reason) > 1000 {
		reason = reason[:1000]
	}
	reason = displayText(reason)
	ap := Approval{
		ID:           newID("r-"),
		Conversation: s.Conversation,
		Reason:       reason,
		Access:       s.Access,
		Path:         s.Path,
		Host:         s.Host,
		Recursive:    s.Recursive,
		Once:         s.Once,
		Minutes:      s.Minutes,
		Command:      s.Command,
		Status:       StatusPending,
		Created:      a.clock.Now().UTC(),
		Expires:      a.clock.after(a.ttl),
	}
	err = a.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := a.prune(tx); err != nil {
			return err
		}
		n, err := a.pending(tx, ap.Conversation)
		if err != nil {
			return err
		}
		if n >= MaxPendingApprovals {
			return fmt.Errorf("%d requests of this conversation are pending: %w", n, ErrTooManyPending)
		}
		return tx.PutJSON(approvalsBucket, ap.ID, &ap)
	})
	if err != nil {
		return Approval{}, fmt.Errorf("create approval request: %w", err)
	}
	return ap, nil
}

// current reports the status as of now: a pending request past its expiry is expired.
func (a *Approvals) current(ap Approval) Approval {
	if ap.Status == StatusPending && a.clock.passed(ap.Expires) {
		ap.Status = StatusExpired
	}
	return ap
}

func (a *Approvals) load(tx *store.Tx, id string) (Approval, error) {
	var ap Approval
	ok, err := tx.GetJSON(approvalsBucket, id, &ap)
	if err != nil {
		return ap, fmt.Errorf("decode approval request: %w", err)
	}
	if !ok {
		return ap, fmt.Errorf("approval request %q: %w", shorten(id), ErrNotFound)
	}
	return a.current(ap), nil
}

// loadPending loads a request that is still waiting for a decision.
func (a *Approvals) loadPending(tx *store.Tx, id string) (Approval, error) {
	ap, err := a.load(tx, id)
	if err != nil {
		return ap, err
	}
	if ap.Status != StatusPending {
		return ap, fmt.Errorf("approval request %s is %s: %w", ap.ID, ap.Status, ErrNotPending)
	}
	return ap, nil
}

// Get returns a request with its current status.
func (a *Approvals) Get(ctx context.Context, id string) (Approval, error) {
	if a.st == nil {
		return Approval{}, ErrNoStore
	}
	var ap Approval
	err := a.st.View(ctx, func(tx *store.Tx) error {
		var err error
		ap, err = a.load(tx, id)
		return err
	})
	return ap, err
}

// List returns requests (all statuses, oldest first); status "" lists all, conversation "" all
// conversations.
func (a *Approvals) List(ctx context.Context, conversation string, status Status) ([]Approval, error) {
	if a.st == nil {
		return nil, ErrNoStore
	}
	var out []Approval
	err := a.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(approvalsBucket, func(_ string, val []byte) error {
			var ap Approval
			if json.Unmarshal(val, &ap) != nil {
				return nil
			}
			ap = a.current(ap)
			if (conversation == "" || ap.Conversation == conversation) && (status == "" || ap.Status == status) {
				out = append(out, ap)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list approval requests: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Approve grants a pending request: it creates the grant (duration 0 = the default grant TTL;
// once = one-time) and marks the request approved, in one transaction.
func (a *Approvals) Approve(ctx context.Context, id string, duration time.Duration, once bool, by string) (Approval, Grant, error) {
	if a.st == nil {
		return Approval{}, Grant{}, ErrNoStore
	}
	var (
		ap Approval
		gr Grant
	)
	err := a.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		if ap, err = a.loadPending(tx, id); err != nil {
			return err
		}
		gr, err = a.grants.build(GrantSpec{
			Conversation: ap.Conversation,
			Access:       ap.Access,
			Path:         ap.Path,
			Host:         ap.Host,
			Recursive:    ap.Recursive,
			TTL:          duration,
			Once:         once,
			By:           by,
			Reason:       ap.Reason,
			RequestID:    ap.ID,
			Command:      ap.Command,
		})
		if err != nil {
			return err
		}
		if err := putGrant(tx, &gr); err != nil {
			return err
		}
		ap.Status, ap.Decided, ap.DecidedBy, ap.GrantID = StatusApproved, a.clock.Now().UTC(), by, gr.ID
		return tx.PutJSON(approvalsBucket, ap.ID, &ap)
	})
	if err != nil {
		return Approval{}, Grant{}, fmt.Errorf("approve: %w", err)
	}
	return ap, gr, nil
}

// Deny refuses a pending request.
func (a *Approvals) Deny(ctx context.Context, id, by string) (Approval, error) {
	if a.st == nil {
		return Approval{}, ErrNoStore
	}
	var ap Approval
	err := a.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		if ap, err = a.loadPending(tx, id); err != nil {
			return err
		}
		ap.Status, ap.Decided, ap.DecidedBy = StatusDenied, a.clock.Now().UTC(), by
		return tx.PutJSON(approvalsBucket, ap.ID, &ap)
	})
	if err != nil {
		return Approval{}, fmt.Errorf("deny: %w", err)
	}
	return ap, nil
}

// Prune marks pending requests past their expiry as expired and deletes requests older than a day.
// Create prunes as it goes; this is for a periodic sweep or the CLI.
func (a *Approvals) Prune(ctx context.Context) (int, error) {
	if a.st == nil {
		return 0, nil
	}
	var n int
	err := a.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		n, err = a.prune(tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune approval requests: %w", err)
	}
	return n, nil
}

func (a *Approvals) prune(tx *store.Tx) (int, error) {
	now := a.clock.Now()
	var (
		dead    []string
		expired []Approval
	)
	err := tx.ForEach(approvalsBucket, func(key string, val []byte) error {
		var ap Approval
		if json.Unmarshal(val, &ap) != nil {
			dead = append(dead, key)
			return nil
		}
		cur := a.current(ap)
		switch {
		case now.Sub(ap.Created) > approvalRetention || ap.Created.After(now.Add(approvalRetention)):
			dead = append(dead, key)
		case cur.Status != ap.Status:
			expired = append(expired, cur)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range dead {
		if err := tx.Delete(approvalsBucket, k); err != nil {
			return 0, err
		}
	}
	for i := range expired {
		if err := tx.PutJSON(approvalsBucket, expired[i].ID, &expired[i]); err != nil {
			return 0, err
		}
	}
	return len(dead), nil
}

// pending counts the pending requests of a conversation.
func (a *Approvals) pending(tx *store.Tx, conversation string) (int, error) {
	n := 0
	err := tx.ForEach(approvalsBucket, func(_ string, val []byte) error {
		var ap Approval
		if json.Unmarshal(val, &ap) == nil && ap.Conversation == conversation && a.current(ap).Status == StatusPending {
			n++
		}
		return nil
	})
	return n, err
}

// displayable reports whether s can be shown to a user as is: valid UTF-8 without control
// characters (C0, DEL, C1) or bidirectional overrides, which could move the cursor, erase a line
// or reorder text on the approver's terminal.
func displayable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if hiddenRune(r) {
			return false
		}
	}
	return true
}

// displayText makes model-written text safe to show: control characters and bidi overrides become
// spaces (a newline too, so a reason cannot start a line that looks like toolhost's own output),
// invalid UTF-8 becomes U+FFFD.
func displayText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if hiddenRune(r) {
			return ' '
		}
		return r
	}, s)
}

// commandDisplayable is displayable for a command line, which may span lines and hold tabs
// (the CLI shows it quoted).
func commandDisplayable(s string) bool {
	return displayable(strings.NewReplacer("\n", " ", "\t", " ").Replace(s))
}

func hiddenRune(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}
