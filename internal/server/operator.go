package server

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"toolhost/authz"
)

// Operator guards an operator endpoint (approvals, grants, the operator API and console):
//
//  1. the request must carry the operator token (authz.OperatorToken) as its bearer token.
//     The MCP client token is refused: a client can call tools, never decide. An empty token
//     refuses everything, so the endpoints are closed unless the operator token was loaded,
//     whatever --no-auth says about /mcp.
//  2. the process on the other end of the loopback connection must not be a toolhost server
//     or one of its descendants (OperatorPeer): a model's command that somehow holds the token
//     still cannot answer its own authorization request.
//
// The handler then sees authz.OperatorPrincipal and the request's authz.Origin (the peer
// process and its user) in the request context; decisions record that origin.
func Operator(h http.Handler, token string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || !authz.OperatorTokenMatches(token, strings.TrimSpace(got)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost-operator"`)
			http.Error(w, "operator endpoints need the operator token (the file operator-token in the state directory), not the MCP client token", http.StatusUnauthorized)
			return
		}
		origin, err := peerOrigin(r)
		if err != nil {
			log.Warn("operator request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
			http.Error(w, "refused: "+err.Error()+"; answer approvals from your own terminal or browser, not from a toolhost terminal", http.StatusForbidden)
			return
		}
		ctx := authz.WithPrincipal(r.Context(), authz.OperatorPrincipal)
		h.ServeHTTP(w, r.WithContext(authz.WithOrigin(ctx, origin)))
	})
}

// OperatorPeer lets a request through to an operator endpoint only when the process on the
// other end of the connection is not a toolhost server or one of its descendants. It finds the
// peer through /proc (authz.CheckPeerOrigin) and refuses with 403 when it cannot. Operator
// applies it after the token check; use Operator for new endpoints.
func OperatorPeer(h http.Handler, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin, err := peerOrigin(r)
		if err != nil {
			log.Warn("operator request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
			http.Error(w, "refused: "+err.Error()+"; answer approvals from your own terminal or browser, not from a toolhost terminal", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r.WithContext(authz.WithOrigin(r.Context(), origin)))
	})
}

// peerOrigin checks and describes the peer process of r's connection.
func peerOrigin(r *http.Request) (authz.Origin, error) {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	if local == nil || err != nil {
		return authz.Origin{}, errNoPeer
	}
	return authz.CheckPeerOrigin("http", local, remote)
}

var errNoPeer = errors.New("operator endpoints need a TCP connection whose peer process can be checked")
