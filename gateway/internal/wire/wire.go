// Package wire holds what every exchange of the gateway shares (docs/gateway.md): the
// refusal body, JSON answers, the Server-Timing header and the redaction of passwords.
package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of the gateway's own refusals, and their HTTP status.
const (
	KindInput  = "input"  // 400
	KindToken  = "token"  // 401
	KindHandle = "handle" // 404
	KindConfig = "config" // 503
	KindServer = "server" // 502: the database cannot be reached (not the gateway's configuration)
)

var statusOf = map[string]int{
	KindInput:  http.StatusBadRequest,
	KindToken:  http.StatusUnauthorized,
	KindHandle: http.StatusNotFound,
	KindConfig: http.StatusServiceUnavailable,
	KindServer: http.StatusBadGateway,
}

// Refusal: the gateway's own answer that is not a database outcome.
type Refusal struct {
	Kind    string
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Refuse makes a Refusal.
func Refuse(kind, format string, args ...any) *Refusal {
	return &Refusal{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Timing of one exchange: db is the time inside driver calls, the rest of the handler is gw.
type Timing struct {
	start time.Time
	mu    sync.Mutex
	db    time.Duration
}

// Start begins the timing of an exchange (as early in the handler as possible).
func Start() *Timing { return &Timing{start: time.Now()} }

// Driver runs f (a driver call) and counts its time as db.
func (t *Timing) Driver(f func()) {
	if t == nil {
		f()
		return
	}
	t0 := time.Now()
	f()
	d := time.Since(t0)
	t.mu.Lock()
	t.db += d
	t.mu.Unlock()
}

type timingKey struct{}

// WithTiming puts t in ctx, for code below the handler that makes the driver calls.
func WithTiming(ctx context.Context, t *Timing) context.Context {
	return context.WithValue(ctx, timingKey{}, t)
}

// TimingOf: the Timing of ctx, or nil (Driver on nil only runs f).
func TimingOf(ctx context.Context) *Timing {
	t, _ := ctx.Value(timingKey{}).(*Timing)
	return t
}

// header: "db;dur=<ms>, gw;dur=<ms>" (Server-Timing, W3C Server Timing: a metric name with
// a dur parameter in milliseconds).
func (t *Timing) header() string {
	total := time.Since(t.start)
	t.mu.Lock()
	db := t.db
	t.mu.Unlock()
	gw := total - db
	if gw < 0 {
		gw = 0
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) }
	return "db;dur=" + ms(db) + ", gw;dur=" + ms(gw)
}

// Write sends status and body (JSON); with t, the Server-Timing header (computed last, so
// that encoding counts as gw).
func Write(w http.ResponseWriter, t *Timing, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if t != nil {
		h.Set("Server-Timing", t.header())
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Answer sends v as JSON with status 200.
func Answer(w http.ResponseWriter, t *Timing, v any) {
	b, err := Marshal(v)
	if err != nil {
		Fail(w, t, Refuse(KindInput, "the answer cannot be written as JSON: %v", err))
		return
	}
	Write(w, t, http.StatusOK, b)
}

// Marshal: JSON without HTML escaping (an answer holds SQL and messages, read by programs).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Fail sends a refusal: {"error":{"kind","message"}} with the kind's status.
func Fail(w http.ResponseWriter, t *Timing, r *Refusal) {
	status, ok := statusOf[r.Kind]
	if !ok {
		status = http.StatusBadRequest
	}
	b, _ := Marshal(map[string]any{"error": map[string]string{"kind": r.Kind, "message": r.Message}})
	Write(w, t, status, b)
}

// Redactor removes given secrets (a URL's password, as written and decoded) from messages.
type Redactor struct {
	secrets []string
	with    string
}

// NewRedactor replaces each of secrets by with.
func NewRedactor(with string, secrets ...string) *Redactor {
	r := &Redactor{with: with}
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
		}
	}
	// Longest first: a decoded password may be part of its encoded form.
	for i := range r.secrets {
		for j := i + 1; j < len(r.secrets); j++ {
			if len(r.secrets[j]) > len(r.secrets[i]) {
				r.secrets[i], r.secrets[j] = r.secrets[j], r.secrets[i]
			}
		}
	}
	return r
}

// Redact returns msg without the secrets. A secret is replaced only as a whole token (no
// letter or digit glued to it on either side; a URL's ":pw@" is one): a one-character password
// must not mask that character inside every other word of the message.
func (r *Redactor) Redact(msg string) string {
	if r == nil {
		return msg
	}
	for _, s := range r.secrets {
		msg = replaceTokens(msg, s, r.with)
	}
	return msg
}

func replaceTokens(msg, secret, with string) string {
	var b strings.Builder
	for from := 0; ; {
		i := strings.Index(msg[from:], secret)
		if i < 0 {
			b.WriteString(msg[from:])
			return b.String()
		}
		i += from
		end := i + len(secret)
		before, _ := utf8.DecodeLastRuneInString(msg[:i])
		after, _ := utf8.DecodeRuneInString(msg[end:])
		first, _ := utf8.DecodeRuneInString(secret)
		last, _ := utf8.DecodeLastRuneInString(secret)
		whole := (i == 0 || !isWord(before) || !isWord(first)) && (end == len(msg) || !isWord(after) || !isWord(last))
		if whole {
			b.WriteString(msg[from:i])
			b.WriteString(with)
			from = end
		} else {
			// not a token here: keep its first character and look again just after it
			_, n := utf8.DecodeRuneInString(msg[i:])
			b.WriteString(msg[from : i+n])
			from = i + n
		}
	}
}

func isWord(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// Quoted: the parts of a parser's message it quotes (where a malformed URL shows itself).
var Quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// HideQuoted: msg with every quoted part replaced by (…), except the public names in shown
// (e.g. a connection parameter's key word: "wrong value for "sslmode"" keeps the option's
// name, never its value, which may be part of a password).
func HideQuoted(msg string, shown map[string]bool) string {
	return Quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if shown[q[1:len(q)-1]] {
			return q
		}
		return "(…)"
	})
}

// ReadJSON decodes a request body into v (numbers as json.Number, so integers stay exact).
func ReadJSON(r *http.Request, v any) *Refusal {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if err.Error() == "EOF" {
			return Refuse(KindInput, "a JSON body is required")
		}
		return Refuse(KindInput, "the body is not the JSON expected: %v", err)
	}
	if dec.More() {
		return Refuse(KindInput, "the body holds more than one JSON value")
	}
	return nil
}
