package database

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"toolhost/internal/secret"

	"github.com/jackc/pgx/v5/pgconn"
)

// masked stands in for a secret in every text that leaves this package.
const masked = secret.Mask

// MaskDSN returns dsn with its passwords masked (secret.DSN): in the URL form
// (postgres://user:secret@host/db?sslpassword=...) and the keyword form (password=secret).
func MaskDSN(dsn string) string { return secret.DSN(dsn) }

// redactor removes a source's secrets from text: the connection string itself (as given and
// masked) and the password, wherever an error message or a log line might carry them.
type redactor struct {
	secrets []string
	masks   []string
}

func newRedactor(dsn string, passwords ...string) *redactor {
	r := &redactor{}
	if dsn != "" {
		r.secrets = append(r.secrets, dsn)
		r.masks = append(r.masks, MaskDSN(dsn))
	}
	for _, p := range passwords {
		// A very short password would turn every occurrence of its letters into ***; the
		// connection string, which holds it, is still replaced whole.
		if len(p) >= 4 {
			r.secrets = append(r.secrets, p, url.QueryEscape(p), url.PathEscape(p))
			r.masks = append(r.masks, masked, masked, masked)
		}
	}
	return r
}

// text returns s without secrets.
func (r *redactor) text(s string) string {
	if r == nil {
		return s
	}
	for i, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, r.masks[i])
	}
	return s
}

// err wraps err so that its text is redacted; nil stays nil.
func (r *redactor) err(err error) error {
	if err == nil || r == nil {
		return err
	}
	return &redactedError{text: r.text(err.Error()), cause: err}
}

// redactedError carries a redacted text; Unwrap keeps errors.Is and errors.As working on the
// cause, whose own text is never printed by this package.
type redactedError struct {
	text  string
	cause error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.cause }

// postgresTarget describes a PostgreSQL connection without secrets: postgres://user@host:port/db,
// or postgres://user@unix(/socket/dir)/db.
func postgresTarget(cfg *pgconn.Config) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = "unix(" + host + ")"
	} else if cfg.Port != 0 {
		host = net.JoinHostPort(host, strconv.Itoa(int(cfg.Port)))
	}
	return fmt.Sprintf("postgres://%s@%s/%s", cfg.User, host, cfg.Database)
}
