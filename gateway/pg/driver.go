// Package pg is the gateway's PostgreSQL side: lib/pq wrapped so that a batch is never
// re-executed behind the pack's back and always ends at its timeout (this file), and the
// HTTP exchanges of docs/gateway.md (http.go).
package pg

// lib/pq with two guarantees the pack's counts depend on (docs/reliability.md):
//
//  1. No hidden re-execution. database/sql re-runs a statement on another connection when
//     the driver answers driver.ErrBadConn (up to three times; Go's database/sql, sql.go,
//     DB.retry), and lib/pq answers ErrBadConn not only when nothing was sent (its
//     safeRetryError) but also after the server ended the connection with a FATAL error
//     mid-statement (pg_terminate_backend, SQLSTATE 57P01) or the connection hit EOF
//     (github.com/lib/pq v1.12.3, error.go, handleError). A batch re-executed that way is
//     reported as one ok batch with the latency of both. This wrapper passes ErrBadConn on
//     only when not a byte of the statement reached the socket (then database/sql may try
//     another connection: nothing ran); otherwise the statement fails with the server's
//     own FATAL message when it sent one, and the connection is discarded.
//
//  2. A hard client-side deadline. On a context deadline lib/pq sends a cancel request on a
//     new connection and keeps waiting for the answer on the old one (conn_go18.go,
//     watchCancel); a server that cannot answer (a backend stopped with SIGSTOP, a host
//     that vanished) keeps the statement, and the caller, waiting far beyond the timeout.
//     Here the socket's deadline is set to "now" when the context ends, so the statement
//     returns at the deadline with "context deadline exceeded" and the connection is
//     discarded (lib/pq still sends its cancel request, so a server that wakes up aborts
//     the statement). The same holds when the context is cancelled: the gateway's request
//     context ends when k6's connection goes away.
//
// The gateway receives a batch as the bytes of an HTTP body, so a []byte parameter is all
// there is: lib/pq sends it in binary format with
// binary_parameters=yes (conn.go, sendBinaryModeQuery).

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// Driver is the wrapped lib/pq driver. The gateway opens its pools with OpenDB; Driver
// exists so that database/sql's Connector contract (Connector.Driver) has an answer.
type Driver struct{}

var (
	_ driver.Driver        = Driver{}
	_ driver.DriverContext = Driver{}
)

// Open implements driver.Driver.
func (d Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext.
func (Driver) OpenConnector(dsn string) (driver.Connector, error) {
	if _, err := pq.NewConnector(dsn); err != nil { // fail early on a malformed DSN
		return nil, err
	}
	return &connector{dsn: dsn}, nil
}

// OpenDB returns a pool of wrapped connections on dsn (lib/pq's URL or key=value form) and
// whether lib/pq sends []byte parameters in binary format (binary_parameters). The DSN is
// checked here; no connection is made.
func OpenDB(dsn string) (*sql.DB, bool, error) {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return nil, false, err
	}
	c, err := Driver{}.OpenConnector(dsn)
	if err != nil {
		return nil, false, err
	}
	return sql.OpenDB(c), cfg.BinaryParameters, nil
}

// Trace collects what the driver saw of one call (a context value, WithTrace): whether a
// byte of the statement reached the server's socket. database/sql hides which connection ran
// a statement, so the connection reports it through the statement's context.
type Trace struct{ sent atomic.Bool }

// Sent: a byte of the statement was written to the server's socket.
func (t *Trace) Sent() bool { return t != nil && t.sent.Load() }

type traceKey struct{}

// WithTrace returns ctx carrying t; the connection that runs the statement fills it in.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceOf(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

type connector struct{ dsn string }

func (c *connector) Driver() driver.Driver { return Driver{} }

// Connect opens one lib/pq connection through a dialer that remembers the socket, so that
// the deadline and the sent-bytes count below act on exactly this connection. Dials after
// the connection is up (lib/pq's cancel requests) are passed through untouched.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	cfg, err := pq.NewConfig(c.dsn)
	if err != nil {
		return nil, err
	}
	pc, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	d := &captureDialer{cancelled: make(chan struct{}, 4)}
	pc.Dialer(d)
	// The statement's deadline covers getting a connection too: lib/pq honours the context
	// only while dialling, then waits for the server's handshake up to connect_timeout.
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if t := d.current(); t != nil {
				_ = t.SetDeadline(time.Unix(1, 0))
			}
		case <-stop:
		}
	}()
	inner, err := pc.Connect(ctx)
	close(stop)
	if ctx.Err() != nil {
		if err == nil { // (on error lib/pq returns a nil *conn inside a non-nil interface)
			_ = inner.Close()
		}
		return nil, fmt.Errorf("k6wp-postgres: %w: no answer from the server within the timeout while connecting", ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	nc := d.take()
	if nc == nil {
		_ = inner.Close()
		return nil, errors.New("k6wp-postgres: lib/pq connected without the dialer")
	}
	return &conn{inner: inner, nc: nc, cancelled: d.cancelled}, nil
}

type captureDialer struct {
	mu   sync.Mutex
	last *trackedConn
	done bool
	d    net.Dialer
	// A token each time a connection dialed after the main one (lib/pq's cancel request,
	// which reads until the server closes it) is closed: the cancel request was delivered.
	cancelled chan struct{}
}

type cancelConn struct {
	net.Conn
	once   sync.Once
	notify chan struct{}
}

func (c *cancelConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		select {
		case c.notify <- struct{}{}:
		default:
		}
	})
	return err
}

func (d *captureDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nc, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return &cancelConn{Conn: nc, notify: d.cancelled}, nil
	}
	t := &trackedConn{Conn: nc}
	d.last = t
	return t, nil
}

func (d *captureDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d *captureDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d *captureDialer) current() *trackedConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return nil
	}
	return d.last
}

func (d *captureDialer) take() *trackedConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.done = true
	return d.last
}

// trackedConn counts the bytes written and keeps the tail of what was read, where the
// server's last ErrorResponse (a FATAL before it closes the connection) can be found.
type trackedConn struct {
	net.Conn
	written atomic.Int64
	mu      sync.Mutex
	tail    []byte
}

const tailBytes = 2048

func (t *trackedConn) Write(p []byte) (int, error) {
	n, err := t.Conn.Write(p)
	t.written.Add(int64(n))
	return n, err
}

func (t *trackedConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		t.mu.Lock()
		t.tail = append(t.tail, p[:n]...)
		if len(t.tail) > tailBytes {
			t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailBytes:]...)
		}
		t.mu.Unlock()
	}
	return n, err
}

func (t *trackedConn) resetTail() {
	t.mu.Lock()
	t.tail = t.tail[:0]
	t.mu.Unlock()
}

// lastFatal finds the last FATAL ErrorResponse in what was read (protocol: 'E', int32
// length, then fields of one type byte and a NUL-terminated string: S/V severity, C
// SQLSTATE, M message; PostgreSQL docs, "Message Formats") and returns its message and
// SQLSTATE, or "" when there is none.
func (t *trackedConn) lastFatal() (msg, code string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := bytes.LastIndex(t.tail, []byte("SFATAL\x00"))
	if i < 0 {
		return "", ""
	}
	fields := map[byte]string{}
	for rest := t.tail[i:]; len(rest) > 1 && rest[0] != 0; {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			break
		}
		fields[rest[0]] = string(rest[1:end])
		rest = rest[end+1:]
	}
	return fields['M'], fields['C']
}

// FatalError: the server ended the connection during the statement with a FATAL
// ErrorResponse (lib/pq turned it into driver.ErrBadConn, losing the *pq.Error).
type FatalError struct{ Message, Code string }

func (e *FatalError) Error() string {
	return fmt.Sprintf("pq: %s (SQLSTATE %s): the server ended the connection during the statement; it was not re-executed", e.Message, e.Code)
}

// SQLState of the server's FATAL error.
func (e *FatalError) SQLState() string { return e.Code }

// conn wraps one lib/pq connection.
type conn struct {
	inner     driver.Conn
	nc        *trackedConn
	bad       atomic.Bool
	cancelled chan struct{}
}

// cancelGrace bounds how long a statement whose deadline passed waits for lib/pq's cancel
// request to reach the server before its socket is cut. Cutting first would let lib/pq skip
// the cancel (its watchCancel goroutine and finish func race for one token), and a server
// that wakes up would then commit a batch the run reported as failed.
const cancelGrace = time.Second

var (
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

func (c *conn) Prepare(q string) (driver.Stmt, error) { return c.inner.Prepare(q) }
func (c *conn) Close() error                          { return c.inner.Close() }
func (c *conn) Begin() (driver.Tx, error)             { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *conn) Ping(ctx context.Context) error { return c.inner.(driver.Pinger).Ping(ctx) }

// CheckNamedValue: lib/pq's own conversions (database/sql asks the driver's connection).
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.inner.(driver.NamedValueChecker).CheckNamedValue(nv)
}

func (c *conn) valid() bool { return !c.bad.Load() && c.inner.(driver.Validator).IsValid() }

func (c *conn) IsValid() bool { return c.valid() }

func (c *conn) ResetSession(ctx context.Context) error {
	if !c.valid() {
		return driver.ErrBadConn
	}
	return c.inner.(driver.SessionResetter).ResetSession(ctx)
}

// watch cuts the socket (deadline = now) when ctx ends before stop is called: as soon as
// lib/pq's cancel request was delivered, or cancelGrace later; a statement the server
// cancels in the meantime comes back on its own. stop reports whether the socket was cut.
func (c *conn) watch(ctx context.Context) (stop func() bool) {
	done := ctx.Done()
	if done == nil {
		return func() bool { return false }
	}
	for len(c.cancelled) > 0 {
		<-c.cancelled
	}
	finished := make(chan struct{})
	var fired atomic.Bool
	go func() {
		select {
		case <-done:
			c.bad.Store(true)
			grace := time.NewTimer(cancelGrace)
			defer grace.Stop()
			select {
			case <-c.cancelled:
			case <-grace.C:
			case <-finished:
				return
			}
			fired.Store(true)
			_ = c.nc.SetDeadline(time.Unix(1, 0))
		case <-finished:
		}
	}()
	var once sync.Once
	return func() bool {
		once.Do(func() { close(finished) })
		return fired.Load()
	}
}

// abandoned is the error of a statement cut off at its deadline. It names the context
// error ("context deadline exceeded"), which the pack classifies as reason timeout.
func abandoned(ctx context.Context) error {
	return fmt.Errorf("k6wp-postgres: %w: no answer from the server within the timeout; the connection was abandoned and the statement cancelled", ctx.Err())
}

// noteSent records in the statement's Trace whether bytes left since before.
func (c *conn) noteSent(ctx context.Context, before int64) {
	if t := traceOf(ctx); t != nil && c.nc.written.Load() != before {
		t.sent.Store(true)
	}
}

// ExecContext runs a statement at most once (see the package comment).
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if !c.valid() {
		return nil, driver.ErrBadConn // nothing sent: database/sql may use another connection
	}
	before := c.nc.written.Load()
	defer c.noteSent(ctx, before)
	c.nc.resetTail()
	stop := c.watch(ctx)
	res, err := c.inner.(driver.ExecerContext).ExecContext(ctx, query, args)
	if stop() {
		c.bad.Store(true)
		return nil, abandoned(ctx)
	}
	if err == nil {
		return res, nil
	}
	if !errors.Is(err, driver.ErrBadConn) {
		return nil, err
	}
	c.bad.Store(true)
	if c.nc.written.Load() == before {
		return nil, driver.ErrBadConn // not a byte left: the statement never ran
	}
	if msg, code := c.nc.lastFatal(); msg != "" {
		return nil, &FatalError{Message: msg, Code: code}
	}
	return nil, errors.New("pq: server closed the connection during the statement (EOF); it was not re-executed")
}

// QueryContext gets the hard deadline too; a read that met a broken connection may be
// retried by database/sql (a read changes nothing).
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	before := c.nc.written.Load()
	defer c.noteSent(ctx, before)
	stop := c.watch(ctx)
	rows, err := c.inner.(driver.QueryerContext).QueryContext(ctx, query, args)
	if err != nil {
		if stop() {
			return nil, abandoned(ctx)
		}
		if errors.Is(err, driver.ErrBadConn) {
			c.bad.Store(true)
		}
		return nil, err
	}
	return &watchedRows{Rows: rows, stop: stop, ctx: ctx}, nil
}

type watchedRows struct {
	driver.Rows
	stop func() bool
	ctx  context.Context
}

func (r *watchedRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err != nil && !errors.Is(err, io.EOF) && r.ctx.Err() != nil {
		return abandoned(r.ctx)
	}
	return err
}

func (r *watchedRows) Close() error {
	err := r.Rows.Close()
	r.stop()
	return err
}
