package studio

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Who may ask the studio what. Loopback is no boundary against the
// browser on the same machine: any page it shows can send requests to
// 127.0.0.1, and a name of the attacker's that resolves to 127.0.0.1 (DNS
// rebinding) makes its page same-origin with the studio in the browser's
// eyes. So, on every address:
//
//   - every request must name the studio by an allowed Host (allowedHost):
//     the address it listens on, localhost, 127.0.0.1 or [::1], with its
//     port. A rebinding name is refused before anything is read, the page
//     and the file list included.
//   - a request that changes something (every method but GET and HEAD)
//     must come from the studio's own page: its Origin (or, without one,
//     its browser's Sec-Fetch-Site: same-origin, or its Referer) is the
//     studio's own, and its body is application/json — a type no other
//     origin can send without the CORS preflight the studio never grants,
//     so form posts, no-cors fetches and text/plain bodies are refused. A
//     client that is not a browser (no Origin, no Sec-Fetch-*, no Referer:
//     curl, a test) is not a page of another site, and may.
//   - an API read from a page of another site (Sec-Fetch-Site cross-site
//     or same-site, or a foreign Origin) is refused too.
//   - beyond loopback every request needs the printed token (Conf.Token).
//
// Every request body is bounded (maxBody) and every header (MaxHeaderBytes).

// maxBody bounds any request's body: the largest, a tree the page saves,
// is bounded by the tree files' own limit well below it.
const maxBody = 16 << 20

// maxHeaderBytes bounds a request's header.
const maxHeaderBytes = 64 << 10

// hosts is what the Host header may name.
type hosts struct {
	port  string
	names map[string]bool // lower-case host names and IP literals
	anyIP bool            // listening on every interface: any IP literal
}

// hostsOf is the Host names the studio at ln answers to; confHost is the
// host of Conf.Addr.
func hostsOf(confHost string, ln net.Listener) hosts {
	addr := ln.Addr().(*net.TCPAddr)
	h := hosts{port: strconv.Itoa(addr.Port), names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}}
	if confHost != "" {
		h.names[strings.ToLower(confHost)] = true
	}
	h.names[addr.IP.String()] = true
	if addr.IP.IsUnspecified() {
		// The printed URL names this host (Server.URL); a peer on the
		// network names it by one of its addresses. An IP literal cannot be
		// rebound to another name.
		h.anyIP = true
		if name, err := os.Hostname(); err == nil {
			h.names[strings.ToLower(name)] = true
		}
	}
	return h
}

// allowed reports whether a request's Host header names the studio.
func (h hosts) allowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil { // no port: HTTP's own
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
	}
	if port != h.port || host == "" {
		return false
	}
	host = strings.ToLower(host)
	if h.names[host] {
		return true
	}
	return h.anyIP && net.ParseIP(host) != nil
}

// guard is the studio's door: the checks above, then the route.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		// No page of another site may frame the studio (and have its
		// buttons clicked through a decoy), nor learn the token from the
		// Referer of a link.
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Content-Security-Policy", "frame-ancestors 'none'")
		hd.Set("Referrer-Policy", "same-origin")
		if !s.hosts.allowed(r.Host) {
			http.Error(w, fmt.Sprintf("host %q: this studio answers to localhost, 127.0.0.1 or [::1] (or the address it listens on) with port %s only; a page under another name may be rebinding its name to this machine", r.Host, s.hosts.port), http.StatusForbidden)
			return
		}
		if s.remote && !s.tokenOK(w, r) {
			http.Error(w, "this studio listens beyond loopback: open it with the ?token= printed when it started", http.StatusUnauthorized)
			return
		}
		if err := sameOrigin(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				http.Error(w, fmt.Sprintf("content type %q: the studio takes application/json only", r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
				return
			}
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOK checks the token beyond loopback; a page loaded with ?token=
// keeps it in a cookie.
func (s *Server) tokenOK(w http.ResponseWriter, r *http.Request) bool {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		if c, err := r.Cookie("btrobot_studio"); err == nil {
			tok = c.Value
		}
	}
	if tok == "" {
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.conf.Token)) != 1 {
		return false
	}
	if r.URL.Query().Get("token") != "" {
		http.SetCookie(w, &http.Cookie{Name: "btrobot_studio", Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	return true
}

// errForeign is what a page of another origin is told.
var errForeign = errors.New("this studio takes requests from its own page only")

// sameOrigin refuses a browser's request from a page of another origin: a
// state-changing one unless it is shown to come from the studio's own
// page, an API read when it is shown to come from elsewhere. (Host is
// checked already: the studio's own origin is http:// and it.)
func sameOrigin(r *http.Request) error {
	own := "http://" + r.Host
	site := r.Header.Get("Sec-Fetch-Site")
	origin := r.Header.Get("Origin")
	if origin != "" && !strings.EqualFold(origin, own) {
		return fmt.Errorf("origin %q: %w", origin, errForeign)
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		// A navigation (the page, a link typed in: "none") is fine; an API
		// read by another site's page is not.
		if strings.HasPrefix(r.URL.Path, "/api/") && (site == "cross-site" || site == "same-site") {
			return fmt.Errorf("a request of another site's page (Sec-Fetch-Site: %s): %w", site, errForeign)
		}
		return nil
	}
	if site != "" && site != "same-origin" {
		return fmt.Errorf("a request of another page (Sec-Fetch-Site: %s): %w", site, errForeign)
	}
	if origin != "" || site == "same-origin" {
		return nil
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil || !strings.EqualFold(u.Scheme+"://"+u.Host, own) {
			return fmt.Errorf("a request from %q: %w", ref, errForeign)
		}
		return nil
	}
	for k := range r.Header {
		if strings.HasPrefix(k, "Sec-Fetch-") {
			return fmt.Errorf("a browser's request without its Origin: %w", errForeign)
		}
	}
	return nil // not a browser: no page of another site sent it
}
