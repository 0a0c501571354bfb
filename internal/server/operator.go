package server

import (
	"log/slog"
	"net"
	"net/http"

	"toolhost/authz"
)

// OperatorPeer lets a request through to an operator endpoint (approvals, grants) only when
// the process on the other end of the connection is not a toolhost server or one of its
// descendants: a model's command must not answer its own authorization request with curl.
// It finds the peer through /proc (authz.CheckPeer) and refuses with 403 when it cannot.
func OperatorPeer(h http.Handler, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
		if local == nil || err != nil {
			http.Error(w, "operator endpoints need a TCP connection whose peer process can be checked", http.StatusForbidden)
			return
		}
		if err := authz.CheckPeer(local, remote); err != nil {
			log.Warn("operator request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
			http.Error(w, "refused: "+err.Error()+"; answer approvals from your own terminal or browser, not from a toolhost terminal", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
