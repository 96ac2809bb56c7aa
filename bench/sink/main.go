// bench-sink: a null HTTP sink for the load-generator benchmarks. It reads and discards
// every request body (so the client pays the full cost of sending it) and answers
// 202 with "{}" — the shape of a fully successful silent ArangoDB/RavenDB batch.
// It does no parsing on purpose: the benchmark measures the client, not a server.
//
//	bench-sink -addr 127.0.0.1:0 -addr-file /tmp/sink.addr
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0 = any free port)")
	addrFile := flag.String("addr-file", "", "write the chosen host:port to this file once listening")
	flag.Parse()

	var requests, bytes atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/_stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"requests":%d,"bytes":%d}`, requests.Load(), bytes.Load())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		requests.Add(1)
		bytes.Add(n)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "{}")
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("bench-sink: %v", err)
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatalf("bench-sink: %v", err)
		}
	}
	log.Fatal(http.Serve(ln, mux))
}
