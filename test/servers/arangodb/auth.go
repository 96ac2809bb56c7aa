package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

func cryptoRand(b []byte) (int, error) { return rand.Read(b) }

// authorize enforces HTTP Basic root:<pw> or "bearer <jwt>" on every endpoint
// except /_open/auth (DOCS:authentication). It also applies the
// authFailAfter fault (auth revoked mid-run). Returns false if it answered.
func (s *server) authorize(w http.ResponseWriter, r *http.Request, segs []string) bool {
	if s.faults.authRevoked() {
		s.unauthorized(w, r)
		return false
	}
	if s.noAuth {
		return true
	}
	if len(segs) == 2 && segs[0] == "_open" && segs[1] == "auth" {
		return true
	}
	h := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err == nil {
			user, pw, _ := strings.Cut(string(raw), ":")
			if user == "root" && subtle.ConstantTimeCompare([]byte(pw), []byte(s.rootPassword)) == 1 {
				return true
			}
		}
	case "bearer":
		if s.verifyJWT(cred) {
			return true
		}
	}
	s.unauthorized(w, r)
	return false
}

// unauthorized: 401 with the body the real server sends, plus the
// Www-Authenticate header unless X-Omit-Www-Authenticate is sent (DOCS:authentication).
func (s *server) unauthorized(w http.ResponseWriter, r *http.Request) {
	s.stats.unauthorized.Add(1)
	if r.Header.Get("X-Omit-Www-Authenticate") == "" {
		w.Header().Set("Www-Authenticate", `Basic, realm="ArangoDB"`)
		w.Header().Add("Www-Authenticate", `Bearer token_type="JWT", realm="ArangoDB"`)
	}
	writeError(w, 401, 11, "not authorized to execute this request")
}

// handleOpenAuth: POST /_open/auth {"username","password"} -> {"jwt":"..."}
// (lifetime -session-timeout, default 1 h like --server.session-timeout 3600);
// POST /_open/auth/renew with a valid bearer token issues a fresh one. 404 when
// auth is disabled: the handler is not mounted then before 3.12.6 (the version this
// double reports); since 3.12.6 it answers 200 {"jwt":"invalid"} instead
// (arangodb/arangodb arangod/RestHandler/RestAuthHandler.cpp). Wrong credentials:
// 401 TRI_ERROR_HTTP_UNAUTHORIZED "Wrong credentials" (same file). An expired token
// is refused with 401 like any bad token.
func (s *server) handleOpenAuth(w http.ResponseWriter, r *http.Request, rest []string) {
	if s.noAuth {
		writeError(w, 404, 404, "unknown path '"+r.URL.Path+"'")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, 405, 405, "method not supported")
		return
	}
	if len(rest) == 1 && rest[0] == "renew" {
		s.stats.renew.Add(1)
		h := r.Header.Get("Authorization")
		scheme, cred, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "bearer") || !s.verifyJWT(strings.TrimSpace(cred)) {
			s.unauthorized(w, r)
			return
		}
		writeJSON(w, 200, map[string]string{"jwt": s.signJWT("root")})
		return
	}
	s.stats.openAuth.Add(1)
	var body struct {
		Username *string `json:"username"`
		Password string  `json:"password"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Username == nil {
		writeError(w, 400, 400, "invalid JSON")
		return
	}
	if *body.Username != "root" || body.Password != s.rootPassword {
		s.stats.unauthorized.Add(1)
		writeError(w, 401, 401, "Wrong credentials")
		return
	}
	writeJSON(w, 200, map[string]string{"jwt": s.signJWT("root")})
}

var b64 = base64.RawURLEncoding

func (s *server) signJWT(user string) string {
	now := time.Now().Unix()
	header := b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	payload, _ := json.Marshal(map[string]any{
		"preferred_username": user, "iss": "arangodb", "iat": now, "exp": now + int64(s.sessionTTL/time.Second),
	})
	signing := header + "." + b64.EncodeToString(payload)
	mac := hmac.New(sha256.New, s.jwtSecret)
	mac.Write([]byte(signing))
	return signing + "." + b64.EncodeToString(mac.Sum(nil))
}

func (s *server) verifyJWT(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	mac := hmac.New(sha256.New, s.jwtSecret)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return false
	}
	raw, err := b64.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil {
		return false
	}
	return claims.Exp == 0 || time.Now().Unix() < claims.Exp
}
