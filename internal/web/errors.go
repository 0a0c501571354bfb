package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"toolhost/authz"
)

// Error codes. They are stable: the MCP layer passes them to the model.
const (
	CodeInvalidURL         = "invalid_url"         // malformed, no host, credentials in it
	CodeUnsupportedScheme  = "unsupported_scheme"  // file:, gopher:, ftp:, javascript:, ...
	CodeTooManyRedirects   = "too_many_redirects"  // more than the configured maximum (≤ 10)
	CodeTooLarge           = "too_large"           // body over the cap (a download; pages and requests are cut instead)
	CodeTimeout            = "timeout"             // no complete answer before the deadline (slow server)
	CodeTLS                = "tls_error"           // certificate or handshake failure
	CodeDNS                = "dns_error"           // the name does not resolve
	CodeConnect            = "connect_error"       // refused, unreachable, reset
	CodeUnsupportedContent = "unsupported_content" // a PDF or binary body where text was wanted
	CodeExists             = "exists"              // download target exists and overwrite is false
	CodeInvalidValue       = "invalid_value"       // a bad argument (method, header, selector)
	CodeHTTPError          = "http_error"          // a download answered with an error status; nothing was saved
	CodeSearchFailed       = "search_failed"       // the search backend failed or did not answer JSON
)

// Error is a failure the model can act on: a stable code, a short message and the next step.
// Network refusals are *authz.Denial instead (see AsDenial).
type Error struct {
	Code    string
	Message string
	Next    string
	Err     error // the cause, for logs; never shown to the model
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Classify turns a transport error into an *Error, or returns the guard's *authz.Denial. The
// message names the host and what happened, never header values.
func Classify(err error, host string) error {
	if err == nil {
		return nil
	}
	if d, ok := authz.IsNetDenial(err); ok {
		return d
	}
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("%s did not answer in time", host), Next: "retry with a larger timeout_seconds, or try later", Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeTimeout, Message: "the request was cancelled", Err: err}
	case errors.As(err, &dns):
		return &Error{Code: CodeDNS, Message: fmt.Sprintf("%s does not resolve (%s)", host, dns.Err), Next: "check the host name", Err: err}
	case errors.As(err, &cert), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
		return &Error{Code: CodeTLS, Message: fmt.Sprintf("the TLS certificate of %s is not trusted: %s", host, tlsReason(err)),
			Next: "check the URL; toolhost does not skip certificate checks", Err: err}
	case errors.As(err, &recErr), strings.Contains(err.Error(), "tls: "):
		return &Error{Code: CodeTLS, Message: fmt.Sprintf("TLS handshake with %s failed", host), Next: "check the scheme (http vs https) and port", Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return &Error{Code: CodeConnect, Message: fmt.Sprintf("cannot connect to %s: %s", host, opReason(op)), Next: "check the host and port; the server may be down", Err: err}
	}
	return &Error{Code: CodeConnect, Message: fmt.Sprintf("request to %s failed", host), Err: err}
}

func tlsReason(err error) string {
	s := err.Error()
	for _, known := range []string{"certificate signed by unknown authority", "certificate has expired", "certificate is valid for", "certificate is not valid"} {
		if i := strings.Index(s, known); i >= 0 {
			return shorten(s[i:], 160)
		}
	}
	return "verification failed"
}

func opReason(op *net.OpError) string {
	s := op.Err.Error()
	for _, known := range []string{"connection refused", "connection reset", "no route to host", "network is unreachable", "i/o timeout"} {
		if strings.Contains(s, known) {
			return known
		}
	}
	return "connection failed"
}
