package postgres

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
//     that vanished) keeps the statement, and the VU, waiting far beyond TIMEOUT. Here the
//     socket's deadline is set to "now" when the context ends, so the statement returns at
//     the deadline with "context deadline exceeded" and the connection is discarded (lib/pq
//     still sends its cancel request, so a server that wakes up aborts the statement).

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/k6-writepath/k6-writepath/xk6/modules/writepath"
)

// Driver is the database/sql driver registered as DriverName.
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
	return &conn{inner: inner, nc: nc, cancelled: d.cancelled, binary: cfg.BinaryParameters}, nil
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
	// sent: called once, at the next Write (set by conn for a statement with a writepath.Body
	// parameter; the statement's goroutine writes, so no lock).
	sent func()
}

const tailBytes = 2048

func (t *trackedConn) Write(p []byte) (int, error) {
	if f := t.sent; f != nil {
		t.sent = nil
		f()
	}
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
// SQLSTATE, M message; PostgreSQL docs, "Message Formats") and returns "message (SQLSTATE
// code)", or "".
func (t *trackedConn) lastFatal() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := bytes.LastIndex(t.tail, []byte("SFATAL\x00"))
	if i < 0 {
		return ""
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
	if fields['M'] == "" {
		return ""
	}
	return fmt.Sprintf("%s (SQLSTATE %s)", fields['M'], fields['C'])
}

// conn wraps one lib/pq connection.
type conn struct {
	inner     driver.Conn
	nc        *trackedConn
	bad       atomic.Bool
	cancelled chan struct{}
	// bodies: the writepath.Body parameters of the statement being sent (CheckNamedValue).
	bodies []*writepath.Body
	binary bool // binary_parameters: lib/pq sends a statement and its parameters in one Write
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

// A writepath.Body parameter (lib/docs.js on this binary renders PostgreSQL batches in Go) is
// passed to lib/pq as its bytes, a []byte (sent in binary, as any []byte with
// binary_parameters=yes). With binary_parameters lib/pq copies the parameters into its one
// protocol message before the message's first Write (github.com/lib/pq v1.12.3, conn.go
// sendBinaryModeQuery and send), so the body is released there (send below): from then on its
// buffer serves the next render of any VU. Without binary_parameters lib/pq writes a Parse
// before it copies the parameters, so a body is refused there (the pack renders none then:
// lib/targets/postgres.js jsonbBinary). A statement database/sql re-runs on another connection
// (driver.ErrBadConn: nothing was written, see ExecContext) still finds the body's bytes.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(*writepath.Body); ok {
		if !c.binary {
			return errors.New("k6wp-postgres: a rendered batch body needs binary_parameters=yes")
		}
		bytes := b.Bytes()
		if bytes == nil {
			return errors.New("k6wp-postgres: a batch body with no bytes (rendered for another statement, or not rendered)")
		}
		nv.Value = bytes
		c.bodies = append(c.bodies, b)
		return nil
	}
	return c.inner.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// send arms the release of the statement's bodies at its first Write; the returned func
// disarms it (bodies not written stay with their owner: a re-run needs them).
func (c *conn) send() func() {
	if len(c.bodies) == 0 {
		return func() {}
	}
	bodies := c.bodies
	c.bodies = nil
	c.nc.sent = func() {
		for _, b := range bodies {
			b.Release()
		}
	}
	return func() { c.nc.sent = nil }
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

// ExecContext runs a statement at most once (see the package comment).
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	disarm := c.send()
	defer disarm()
	if !c.valid() {
		return nil, driver.ErrBadConn // nothing sent: database/sql may use another connection
	}
	before := c.nc.written.Load()
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
	if fatal := c.nc.lastFatal(); fatal != "" {
		return nil, fmt.Errorf("pq: %s: the server ended the connection during the statement; it was not re-executed", fatal)
	}
	return nil, errors.New("pq: server closed the connection during the statement (EOF); it was not re-executed")
}

// QueryContext gets the hard deadline too; a read that met a broken connection may be
// retried by database/sql (a read changes nothing).
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	disarm := c.send()
	defer disarm()
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
