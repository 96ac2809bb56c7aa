package pg

// The driver's guarantees against a real PostgreSQL: PG_URL (test/integration/gateway-go.test.mjs
// starts a private server with test/helpers/pgprivate.mjs and runs these tests). The faults
// are staged as test/integration/pg-retry-deadline.test.mjs stages them for k6 runs: a
// backend terminated mid-statement (pg_terminate_backend) and a backend frozen with SIGSTOP.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq" // the plain driver ("postgres"): the tests' own admin connection
)

func pgURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("PG_URL")
	if u == "" {
		t.Skip("PG_URL is not set (test/integration/gateway-go.test.mjs sets it)")
	}
	return u
}

// admin: a plain lib/pq pool, for setup, inspection and the faults.
func admin(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func one[T any](t *testing.T, db *sql.DB, q string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// name: a unique name for a test's table and application_name.
func name(prefix string) string {
	return fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e12)
}

// withApp: the URL with its own application_name, so pg_stat_activity finds the test's backend.
func withApp(u, app string) string {
	if isURL(u) {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		return u + sep + "application_name=" + app
	}
	return u + " application_name=" + app
}

// wrapped: the gateway's pool (this package's driver) with max_conns connections.
func wrapped(t *testing.T, u string, maxConns int) *sql.DB {
	t.Helper()
	db, binary, err := OpenDB(ConnectionURL(u, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !binary {
		t.Fatal("binary_parameters is not on")
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	t.Cleanup(func() { db.Close() })
	return db
}

// inFlight waits for the backend of app that sleeps in pg_sleep and returns its pid.
func inFlight(t *testing.T, adm *sql.DB, app string) int {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) {
		var pid int
		err := adm.QueryRow(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND wait_event = 'PgSleep' LIMIT 1`, app).Scan(&pid)
		if err == nil {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no statement of %s in flight", app)
	return 0
}

// settled waits until no statement of app is active any more (bounded only so a hung server
// cannot hang the test), so that a count read afterwards is final.
func settled(t *testing.T, adm *sql.DB, app string) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if one[int](t, adm, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, app) == 0 {
			return
		}
	}
	t.Fatalf("a statement of %s is still active after 60 s", app)
}

// A backend the server terminates mid-statement (57P01): database/sql would re-run the
// statement on a new connection (lib/pq answers driver.ErrBadConn after the FATAL); the
// wrapper fails it once, with the server's message, and nothing was committed.
func TestTerminatedStatementIsNotReExecuted(t *testing.T) {
	u := pgURL(t)
	adm := admin(t, u)
	table := name("gw_term")
	mustExec(t, adm, `CREATE TABLE `+table+` (stamp text)`)
	t.Cleanup(func() { adm.Exec(`DROP TABLE IF EXISTS ` + table) })
	insert := `INSERT INTO ` + table + ` SELECT 'x' FROM pg_sleep(5)`

	run := func(db *sql.DB, app string) (error, *Trace, time.Duration) {
		tr := &Trace{}
		done := make(chan error, 1)
		t0 := time.Now()
		go func() {
			_, err := db.ExecContext(WithTrace(context.Background(), tr), insert)
			done <- err
		}()
		pid := inFlight(t, adm, app)
		if !one[bool](t, adm, `SELECT pg_terminate_backend($1)`, pid) {
			t.Fatalf("pg_terminate_backend(%d) refused", pid)
		}
		err := <-done
		return err, tr, time.Since(t0)
	}

	// The control: plain lib/pq under database/sql runs the statement a second time, on a
	// new connection, and reports success (what the wrapper exists to prevent).
	plainApp := name("gw_plain")
	plain, err := sql.Open("postgres", withApp(u, plainApp))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.SetMaxOpenConns(1)
	if err, _, _ := run(plain, plainApp); err != nil {
		t.Logf("plain lib/pq did not re-execute this time: %v", err)
	} else if n := one[int](t, adm, `SELECT count(*) FROM `+table); n != 1 {
		t.Fatalf("plain lib/pq reported success with %d rows", n)
	}
	mustExec(t, adm, `TRUNCATE `+table)

	app := name("gw_wrapped")
	db := wrapped(t, withApp(u, app), 1)
	err, tr, took := run(db, app)
	if err == nil {
		t.Fatalf("the terminated statement succeeded (re-executed) after %v", took)
	}
	want := "pq: terminating connection due to administrator command (SQLSTATE 57P01): the server ended the connection during the statement; it was not re-executed"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	var fe *FatalError
	if !errors.As(err, &fe) || fe.SQLState() != "57P01" {
		t.Fatalf("no SQLSTATE 57P01 in %#v", err)
	}
	if !tr.Sent() {
		t.Fatal("the statement was sent, the trace says not")
	}
	// A run again in the open would have made err nil above; one behind it would be active now
	// or have committed.
	settled(t, adm, app)
	if n := one[int](t, adm, `SELECT count(*) FROM `+table); n != 0 {
		t.Fatalf("%d rows committed by a statement reported failed", n)
	}
	// The pool goes on with a new connection.
	var v int
	if err := db.QueryRow(`SELECT 1`).Scan(&v); err != nil || v != 1 {
		t.Fatalf("the pool after the terminated connection: %v", err)
	}
}

// A statement that nothing was sent of may go to another connection: a connection that the
// server closed while idle is replaced, and the statement runs once.
func TestIdleConnectionClosedIsReplacedWithoutError(t *testing.T) {
	u := pgURL(t)
	adm := admin(t, u)
	app := name("gw_idle")
	db := wrapped(t, withApp(u, app), 1)
	var pid int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if !one[bool](t, adm, `SELECT pg_terminate_backend($1)`, pid) {
		t.Fatal("pg_terminate_backend refused")
	}
	time.Sleep(200 * time.Millisecond)
	tr := &Trace{}
	var pid2 int
	if err := db.QueryRowContext(WithTrace(context.Background(), tr), `SELECT pg_backend_pid()`).Scan(&pid2); err != nil {
		t.Fatalf("after an idle connection was closed: %v", err)
	}
	if pid2 == pid || !tr.Sent() {
		t.Fatalf("pid %d -> %d, sent %v", pid, pid2, tr.Sent())
	}
}

// A statement longer than its timeout returns at the deadline (the server, alive, cancels
// it on lib/pq's cancel request; the wrapper cuts the socket once the request was delivered).
func TestDeadlineEndsALongStatement(t *testing.T) {
	u := pgURL(t)
	db := wrapped(t, u, 1)
	tr := &Trace{}
	ctx, cancel := context.WithTimeout(WithTrace(context.Background(), tr), 700*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := db.ExecContext(ctx, `SELECT pg_sleep(60)`)
	took := time.Since(t0)
	if err == nil {
		t.Fatal("pg_sleep(60) succeeded within 700ms")
	}
	// Which comes first is a race between the server's answer to the cancel request and the
	// cut socket; both name the cause the pack classifies as a timeout (lib/targets/postgres/postgres.js).
	if !strings.Contains(err.Error(), "context deadline exceeded") && !strings.Contains(err.Error(), "canceling statement due to user request") {
		t.Fatalf("error %q", err)
	}
	t.Logf("after %v: %v", took, err)
	// Designed end: 700 ms + cancelGrace. Asserted: not before the deadline, and long before the
	// 60 s the statement would take (a busy machine may add seconds of scheduling).
	if took < 700*time.Millisecond || took > 30*time.Second {
		t.Fatalf("returned after %v with a 700ms timeout (pg_sleep(60))", took)
	}
	if !tr.Sent() {
		t.Fatal("sent is false")
	}
	var v int
	if err := db.QueryRow(`SELECT 2`).Scan(&v); err != nil || v != 2 {
		t.Fatalf("the pool after the deadline: %v", err)
	}
}

// pidIsOurs: the backend is a process of this machine that we may signal (a PostgreSQL on
// another host cannot be frozen from here).
func pidIsOurs(t *testing.T, adm *sql.DB, pid int) bool {
	addr := one[sql.NullString](t, adm, `SELECT host(inet_server_addr())`)
	if addr.Valid {
		if ip := net.ParseIP(addr.String); ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return syscall.Kill(pid, 0) == nil
}

// A frozen backend (SIGSTOP) cannot answer lib/pq's cancel request: without the socket
// deadline the statement would wait until the server wakes up. It returns at the deadline
// with "context deadline exceeded", and the cancelled statement is not committed once the
// backend runs again.
func TestFrozenBackendEndsAtTheDeadline(t *testing.T) {
	u := pgURL(t)
	adm := admin(t, u)
	table := name("gw_frozen")
	mustExec(t, adm, `CREATE TABLE `+table+` (stamp text)`)
	t.Cleanup(func() { adm.Exec(`DROP TABLE IF EXISTS ` + table) })
	app := name("gw_frz")
	db := wrapped(t, withApp(u, app), 1)
	tr := &Trace{}
	ctx, cancel := context.WithTimeout(WithTrace(context.Background(), tr), 1500*time.Millisecond)
	defer cancel()
	type answer struct {
		err  error
		took time.Duration
	}
	done := make(chan answer, 1)
	t0 := time.Now()
	go func() {
		_, err := db.ExecContext(ctx, `INSERT INTO `+table+` SELECT 'x' FROM pg_sleep(5)`)
		done <- answer{err, time.Since(t0)}
	}()
	pid := inFlight(t, adm, app)
	if !pidIsOurs(t, adm, pid) {
		t.Skip("the PostgreSQL of PG_URL is not a process of this machine: no backend to freeze")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	// Frozen 12 s: the statement must not wait for it. Designed end: 1.5 s + cancelGrace;
	// asserted: well before the backend wakes (a busy machine may add seconds).
	var a answer
	select {
	case a = <-done:
	case <-time.After(12 * time.Second):
		syscall.Kill(pid, syscall.SIGCONT)
		stopped = false
		t.Fatal("the statement waited for the frozen backend beyond 12 s (timeout 1.5 s)")
	}
	time.Sleep(12*time.Second - time.Since(t0))
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false
	if a.err == nil || !strings.Contains(a.err.Error(), "k6wp-postgres: context deadline exceeded") {
		t.Fatalf("error %v after %v", a.err, a.took)
	}
	if a.took < 1500*time.Millisecond || a.took > 8*time.Second {
		t.Fatalf("returned after %v with a 1.5 s timeout", a.took)
	}
	if !tr.Sent() {
		t.Fatal("sent is false")
	}
	// The backend, awake, finds the cancel request lib/pq sent: the insert is not committed.
	settled(t, adm, app)
	if n := one[int](t, adm, `SELECT count(*) FROM `+table); n != 0 {
		t.Fatalf("the abandoned statement committed %d rows", n)
	}
}

// Nothing reaches the server when the connection cannot be made: the error is lib/pq's, and
// the trace says nothing was sent.
func TestRefusedConnectionSendsNothing(t *testing.T) {
	db, _, err := OpenDB("postgres://u:p@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tr := &Trace{}
	_, err = db.ExecContext(WithTrace(context.Background(), tr), `SELECT 1`)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || tr.Sent() {
		t.Fatalf("error %v, sent %v", err, tr.Sent())
	}
}

func TestConnectionURL(t *testing.T) {
	cases := []struct {
		in       string
		settings [][2]string
		want     string
	}{
		{"postgres://u:p@h:5432/db", nil, "postgres://u:p@h:5432/db?connect_timeout=5&application_name=k6-writepath&binary_parameters=yes"},
		{"postgres://u:p@h/db?sslmode=disable&connect_timeout=9", [][2]string{{"synchronous_commit", "on"}},
			"postgres://u:p@h/db?sslmode=disable&connect_timeout=9&application_name=k6-writepath&binary_parameters=yes&synchronous_commit=on"},
		{"postgresql://h/db?application_name=x&binary_parameters=no", nil, "postgresql://h/db?application_name=x&binary_parameters=no&connect_timeout=5"},
		{"host=h dbname=db binary_parameters=yes", [][2]string{{"work_mem", "64MB"}},
			"host=h dbname=db binary_parameters=yes connect_timeout='5' application_name='k6-writepath' work_mem='64MB'"},
	}
	for _, c := range cases {
		if got := ConnectionURL(c.in, c.settings); got != c.want {
			t.Errorf("ConnectionURL(%q, %v)\n got %q\nwant %q", c.in, c.settings, got, c.want)
		}
	}
	for in, want := range map[string]bool{
		"postgres://h/db":                          true,
		"postgres://h/db?binary_parameters=yes":    true,
		"postgres://h/db?binary_parameters=no":     false,
		"postgres://h/db?binary_parameters=off":    false,
		"host=h dbname=db binary_parameters=false": false,
	} {
		_, binary, err := OpenDB(ConnectionURL(in, nil))
		if err != nil || binary != want {
			t.Errorf("%q: binary %v, err %v; want %v", in, binary, err, want)
		}
	}
}

func TestSecretsOf(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://me:s3cret@h/db":                                   "s3cret",
		"postgres://me:s3%40cret@h/db":                                "s3%40cret s3@cret",
		"postgres://me@h/db?password=s3cret&x=1":                      "me s3cret",
		"postgres://me:pw@h/db":                                       "pw",
		"host=h password=s3cret user=me":                              "s3cret",
		"host=h password='s3 \\'cret' user=me":                        `s3 \'cret s3 'cret`,
		"postgres://h/db":                                             "",
		"postgres://me:p:w@rd@h/db":                                   "p:w@rd",
		"postgres://" + url.UserPassword("a", "b c").String() + "@h/": "b%20c b c",
	} {
		if got := strings.Join(secretsOf(in), " "); got != want {
			t.Errorf("secretsOf(%q) = %q, want %q", in, got, want)
		}
	}
}
