// Command wp-gateway runs PostgreSQL statements and MongoDB operations that k6 sends over
// HTTP on loopback (docs/gateway.md). k6 stays the stock program: its Go module is AGPL-3.0
// and no AGPL module enters the pack's build, so the database drivers live here, in a
// module of the standard library, github.com/lib/pq and go.mongodb.org/mongo-driver/v2.
//
// Database URLs reach the gateway through its environment only (PG_URL, MONGO_URL); an
// optional WP_GATEWAY_TOKEN must then be sent by every request but GET /health.
//
//	PG_URL=… MONGO_URL=… wp-gateway -addr 127.0.0.1:0 -ready-file .run/gw.url
//	MONGO_ADMIN_STEP=ping MONGO_ADMIN_URL=… wp-gateway mongo-admin
package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/k6-writepath/k6-writepath/gateway/internal/wire"
	"github.com/k6-writepath/k6-writepath/gateway/mongo"
	"github.com/k6-writepath/k6-writepath/gateway/pg"
	"github.com/k6-writepath/k6-writepath/gateway/render"
)

// apiVersion of the exchanges (GET /health answers it; lib/gateway.js checks it).
const apiVersion = 1

type gateway struct {
	pg    *pg.Service
	mongo *mongo.Service
	token string
	mux   *http.ServeMux
}

func newGateway(pgURL, mongoURL, token string) *gateway {
	g := &gateway{pg: pg.New(pgURL), mongo: mongo.New(mongoURL), token: token, mux: http.NewServeMux()}
	g.mux.HandleFunc("/health", g.health)
	images := render.NewStore()
	images.Register(g.mux)
	g.pg.Images = images
	g.mongo.Images = images
	g.pg.Register(g.mux)
	g.mongo.Register(g.mux)
	return g
}

// ServeHTTP checks the token first: without it nothing but /health is answered, not even
// whether a path exists.
func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.token != "" && r.URL.Path != "/health" &&
		subtle.ConstantTimeCompare([]byte(r.Header.Get("X-WP-Token")), []byte(g.token)) != 1 {
		wire.Fail(w, nil, wire.Refuse(wire.KindToken, "this gateway needs the header X-WP-Token (WP_GATEWAY_TOKEN of its environment)"))
		return
	}
	if _, pattern := g.mux.Handler(r); pattern == "" {
		wire.Fail(w, nil, wire.Refuse(wire.KindInput, "no exchange %s (docs/gateway.md)", r.URL.Path))
		return
	}
	g.mux.ServeHTTP(w, r)
}

func (g *gateway) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		wire.Fail(w, nil, wire.Refuse(wire.KindInput, "%s /health: only GET is answered", r.Method))
		return
	}
	wire.Answer(w, nil, struct {
		Gateway     string `json:"gateway"`
		API         int    `json:"api"`
		PG          bool   `json:"pg"`
		Mongo       bool   `json:"mongo"`
		MongoDriver string `json:"mongo_driver"`
	}{"wp-gateway", apiVersion, g.pg.Configured(), g.mongo.Configured(), version.Driver})
}

// close releases every pool and client.
func (g *gateway) close() {
	g.pg.Close()
	g.mongo.Close()
}

// writeReady writes the URL to path through a temporary file and a rename, so a reader sees
// the whole URL or no file.
func writeReady(path, url string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(url); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mongo-admin" {
		os.Exit(mongoAdmin()) // admin.go: the private mongod's set-up steps
	}
	// Batches are MB-sized bodies read into pooled buffers: collecting garbage less often cut
	// the gateway's CPU per 1000 documents by ~17 % (bench/README.md, GOGC A/B); an explicit
	// GOGC wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0: one the OS finds free)")
	ready := flag.String("ready-file", "", "once listening, write http://HOST:PORT to this file (temporary file, then rename)")
	withParent := flag.Bool("exit-with-parent", false, "stop as on SIGTERM once the process that started it is gone (scripts/run starts it in a session of its own, out of reach of a SIGKILL of the wrapper's process group)")
	flag.Parse()
	if err := run(*addr, *ready, *withParent); err != nil {
		var bad badInput
		if errors.As(err, &bad) {
			fmt.Fprintf(os.Stderr, "k6-writepath: %s\n", bad.msg)
			os.Exit(107)
		}
		fmt.Fprintf(os.Stderr, "wp-gateway: %v\n", err)
		os.Exit(1)
	}
}

// badInput: a configuration the gateway refuses to start with (exit 107).
type badInput struct{ msg string }

func (b badInput) Error() string { return b.msg }

func run(addr, ready string, withParent bool) error {
	// Signals first: a SIGTERM that arrives once the ready file exists must find them caught.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	if withParent {
		// An orphan is re-parented: a changed parent pid means the starter is gone.
		go func(parent int) {
			for range time.Tick(500 * time.Millisecond) {
				if os.Getppid() != parent {
					sig <- syscall.SIGTERM
					return
				}
			}
		}(os.Getppid())
	}
	g := newGateway(os.Getenv("PG_URL"), os.Getenv("MONGO_URL"), os.Getenv("WP_GATEWAY_TOKEN"))
	defer g.close()
	// A URL its driver cannot take is bad input, said before anything listens: one line, exit
	// 107 (the pack's code for bad input), the value never shown.
	for _, c := range []struct {
		set bool
		why func() string
	}{{g.pg.Configured(), g.pg.CheckURL}, {g.mongo.Configured(), g.mongo.CheckURL}} {
		if msg := ""; c.set {
			if msg = c.why(); msg != "" {
				return badInput{msg}
			}
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("wp-gateway: listening on %s\n", url)
	if ready != "" {
		if err := writeReady(ready, url); err != nil {
			_ = srv.Close()
			return fmt.Errorf("-ready-file: %w", err)
		}
	}
	select {
	case err := <-served:
		return err
	case <-sig:
	}
	// Stop accepting; statements in flight get a moment to answer (each has its own
	// deadline), then the remaining connections are closed and every pool with them.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
