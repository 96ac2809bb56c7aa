package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func call(t *testing.T, srv *httptest.Server, method, path, token string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("X-WP-Token", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%s %s: %q is not JSON", method, path, raw)
	}
	return res.StatusCode, res.Header, body
}

func kind(body map[string]any) any {
	e, _ := body["error"].(map[string]any)
	return e["kind"]
}

func TestTokenIsRequiredButForHealth(t *testing.T) {
	srv := httptest.NewServer(newGateway("", "", "t0ken"))
	defer srv.Close()
	status, _, body := call(t, srv, "GET", "/health", "")
	if status != 200 || body["gateway"] != "wp-gateway" || body["api"] != 1.0 || body["pg"] != false || body["mongo"] != false || body["mongo_driver"] != "2.10.0" {
		t.Fatalf("health without a token: %d %v", status, body)
	}
	for _, p := range []string{"/pg/open", "/pg/exec?h=p1", "/mongo/connect", "/mongo/parse-batch", "/nowhere"} {
		for _, tok := range []string{"", "wrong", "t0ken0"} {
			if status, _, body := call(t, srv, "POST", p, tok); status != 401 || kind(body) != "token" {
				t.Fatalf("%s with token %q: %d %v", p, tok, status, body)
			}
		}
	}
	// With the token the exchange is answered: here, no URL is configured.
	if status, h, body := call(t, srv, "POST", "/pg/open", "t0ken"); status != 503 || kind(body) != "config" || h.Get("Server-Timing") == "" {
		t.Fatalf("/pg/open with the token: %d %v", status, body)
	}
	if status, _, body := call(t, srv, "POST", "/mongo/connect", "t0ken"); status != 503 || kind(body) != "config" {
		t.Fatalf("/mongo/connect with the token: %d %v", status, body)
	}
	if status, _, body := call(t, srv, "POST", "/nowhere", "t0ken"); status != 400 || kind(body) != "input" {
		t.Fatalf("an unknown path: %d %v", status, body)
	}
}

func TestNoTokenConfigured(t *testing.T) {
	srv := httptest.NewServer(newGateway("postgres://u:p@127.0.0.1:1/db", "mongodb://127.0.0.1:1/", ""))
	defer srv.Close()
	if status, _, body := call(t, srv, "GET", "/health", ""); status != 200 || body["pg"] != true || body["mongo"] != true {
		t.Fatalf("health: %d %v", status, body)
	}
	if status, _, body := call(t, srv, "POST", "/pg/exec?h=p7", ""); status != 404 || kind(body) != "handle" {
		t.Fatalf("unknown handle: %d %v", status, body)
	}
	if status, _, body := call(t, srv, "POST", "/mongo/count?h=m7", ""); status != 404 || kind(body) != "handle" {
		t.Fatalf("unknown handle: %d %v", status, body)
	}
	if status, _, _ := call(t, srv, "POST", "/health", ""); status != 400 {
		t.Fatalf("POST /health: %d", status)
	}
}

// build compiles the program into dir.
func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "wp-gateway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program itself: the listening line, the ready file, /health, and SIGTERM -> exit 0.
func TestProgramReadyFileAndSignal(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir)
	ready := filepath.Join(dir, "gw.url")
	cmd := exec.Command(bin, "-ready-file", ready)
	cmd.Env = append(os.Environ(), "PG_URL=", "MONGO_URL=", "WP_GATEWAY_TOKEN=")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "wp-gateway: listening on http://127.0.0.1:") {
		t.Fatalf("first line %q (%v)", line, err)
	}
	url := strings.TrimSpace(strings.TrimPrefix(line, "wp-gateway: listening on "))
	var got []byte
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got, err = os.ReadFile(ready); err == nil {
			break
		}
	}
	if string(got) != url {
		t.Fatalf("ready file %q, stdout %q", got, url)
	}
	res, err := http.Get(url + "/health")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("health: %v %v", res, err)
	}
	res.Body.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(60 * time.Second): // bounds the wait only: a busy machine may be slow
		t.Fatal("no exit 60 s after SIGTERM")
	}
}

// `wp-gateway mongo-admin` (admin.go), the steps scripts/mongo-private.sh runs, against MONGO_URL.
func TestMongoAdminSteps(t *testing.T) {
	u := os.Getenv("MONGO_URL")
	if u == "" {
		t.Skip("MONGO_URL is not set (test/integration/gateway-go.test.mjs sets it)")
	}
	bin := build(t, t.TempDir())
	run := func(env ...string) (int, string) {
		cmd := exec.Command(bin, "mongo-admin")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("MONGO_ADMIN_STEP=ping", "MONGO_ADMIN_URL="+u); code != 0 || !regexp.MustCompile(`^mongo-admin: mongod \d+\.\d+\.\d+ answers\n$`).MatchString(out) {
		t.Fatalf("ping: %d %q", code, out)
	}
	// MONGO_URL authenticates as the one user: it exists already.
	p, err := neturl.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	user := p.User.Username()
	if code, out := run("MONGO_ADMIN_STEP=user", "MONGO_ADMIN_URL="+u, "MONGO_ADMIN_USER="+user, "MONGO_ADMIN_PASSWORD=x"); code != 0 || out != "mongo-admin: user "+user+" exists\n" {
		t.Fatalf("user: %d %q", code, out)
	}
	db := fmt.Sprintf("k6wp_goadmin_%d", time.Now().UnixNano()%1e9)
	srv := httptest.NewServer(newGateway("", u, ""))
	defer srv.Close()
	_, _, conn := call(t, srv, "POST", "/mongo/connect", "")
	h, _ := conn["handle"].(string)
	res, err := http.Post(srv.URL+"/mongo/write?h="+h+"&op=insert&db="+db+"&coll=docs", "application/octet-stream", strings.NewReader(`[{"_id":"K1"},{"_id":"K2"},{"_id":"K3"}]`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("insert: %v %v", res, err)
	}
	res.Body.Close()
	if code, out := run("MONGO_ADMIN_STEP=stats", "MONGO_ADMIN_URL="+u, "MONGO_ADMIN_DB="+db); code != 0 || !regexp.MustCompile(`^mongo-admin: stats size=[1-9]\d* storage=\d+ indexes=[1-9]\d* count=3\n$`).MatchString(out) {
		t.Fatalf("stats: %d %q", code, out)
	}
	if code, out := run("MONGO_ADMIN_STEP=drop", "MONGO_ADMIN_URL="+u, "MONGO_ADMIN_DB="+db); code != 0 || out != "mongo-admin: dropped "+db+"\n" {
		t.Fatalf("drop: %d %q", code, out)
	}
	if code, out := run("MONGO_ADMIN_STEP=drop", "MONGO_ADMIN_URL="+u, "MONGO_ADMIN_DB=admin"); code != 1 || !strings.HasPrefix(out, "mongo-admin: ") {
		t.Fatalf("drop admin: %d %q", code, out)
	}
	// Refused credentials end the wait at the first refusal (not after 60 attempts), without the
	// password. Earlier attempts may have timed out on a busy machine: the count is not asserted
	// to be 1, only that the refusal, not the attempt limit, ended it.
	pw, _ := p.User.Password()
	p.User = neturl.UserPassword(user, "Wr0ng-"+pw)
	code, out := run("MONGO_ADMIN_STEP=ping", "MONGO_ADMIN_URL="+p.String())
	m := regexp.MustCompile(`^mongo-admin: no authenticated answer \(auth, attempt (\d+) of 60\): .*AuthenticationFailed`).FindStringSubmatch(out)
	if code != 1 || m == nil || m[1] == "60" || strings.Contains(out, pw) {
		t.Fatalf("wrong password: %d %q", code, out)
	}
}

// -exit-with-parent: the gateway scripts/run starts outlives a SIGKILL of the wrapper's process
// group otherwise (it runs in a session of its own); once its parent is gone it stops.
func TestExitWithParent(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir)
	ready := filepath.Join(dir, "gw.url")
	pidFile := filepath.Join(dir, "gw.pid")
	// a parent shell that starts the gateway, writes its pid, then dies by SIGKILL
	sh := exec.Command("bash", "-c", `"$0" -exit-with-parent -ready-file "$1" >/dev/null 2>&1 & echo $! > "$2"; for i in $(seq 200); do [ -s "$1" ] && break; sleep 0.05; done; kill -KILL $$`, bin, ready, pidFile)
	sh.Env = append(os.Environ(), "PG_URL=", "MONGO_URL=", "WP_GATEWAY_TOKEN=")
	_ = sh.Run()
	if _, err := os.Stat(ready); err != nil {
		t.Fatalf("the gateway did not start: %v", err)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	defer syscall.Kill(pid, syscall.SIGKILL)
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		// a zombie of a reaper that does not reap counts as gone
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
	}
	t.Fatalf("gateway pid %d still runs 60 s after its parent was killed", pid)
}
