package mongo

// Against a real mongod: MONGO_URL (with credentials), started with
// --setParameter enableTestCommands=1 so that the server's own failCommand fail point can make
// it answer with a given error (mongodb/mongo src/mongo/db/commands/fail_point_cmd.cpp;
// test/integration/gateway-go.test.mjs starts such a server and runs these tests).

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func testClient(t *testing.T) (*Client, string) {
	t.Helper()
	u := os.Getenv("MONGO_URL")
	if u == "" {
		t.Skip("MONGO_URL is not set (test/integration/gateway-go.test.mjs sets it)")
	}
	c, err := Open(u, ConnectOptions{AppName: "k6-writepath-gotest"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	db := fmt.Sprintf("k6wp_gotest_%d", time.Now().UnixNano()%1e9)
	t.Cleanup(func() { c.Command(context.Background(), db, mustRaw(`{"dropDatabase":1}`), 10*time.Second) })
	return c, db
}

func mustRaw(s string) bson.Raw {
	var r bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(s), false, &r); err != nil {
		panic(err)
	}
	return r
}

func docsJSON(from, to int, stamp string) string {
	parts := []string{}
	for i := from; i < to; i++ {
		parts = append(parts, fmt.Sprintf(`{"_id":"K%d","w":"%s","n":%d}`, i, stamp, i))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func count(t *testing.T, c *Client, db string, filter string) int64 {
	t.Helper()
	n, e := c.Count(context.Background(), db, "docs", mustRaw(filter), 10*time.Second)
	if e != nil {
		t.Fatal(e)
	}
	return n
}

func write(t *testing.T, c *Client, op, db, body string, o WriteOptions) Result {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second
	}
	r, err := c.Write(context.Background(), op, db, "docs", []byte(body), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func indexes(r Result) []int {
	out := []int{}
	for _, e := range r.Errors {
		out = append(out, e.Index)
	}
	return out
}

func TestUnorderedDuplicatesCountedPerDocument(t *testing.T) {
	c, db := testClient(t)
	r := write(t, c, OpInsert, db, docsJSON(0, 100, "l"), WriteOptions{})
	if r.Err != nil || len(r.Errors) != 0 || r.Inserted != 100 {
		t.Fatalf("load: %+v", r)
	}
	// 50 keys, the ones at indexes 3, 17, 18 and 49 already exist.
	keys := []string{}
	for i := 0; i < 50; i++ {
		k := 1000 + i
		switch i {
		case 3, 17, 18, 49:
			k = i
		}
		keys = append(keys, fmt.Sprintf(`{"_id":"K%d","w":"x"}`, k))
	}
	r = write(t, c, OpInsert, db, "["+strings.Join(keys, ",")+"]", WriteOptions{Ordered: false})
	if r.Err != nil || fmt.Sprint(indexes(r)) != "[3 17 18 49]" || r.Inserted != 46 || r.NotAttempted != 0 {
		t.Fatalf("unordered batch with 4 duplicates: %+v", r)
	}
	for _, e := range r.Errors {
		if e.Code != 11000 || !strings.Contains(e.Message, "E11000 duplicate key error") || !strings.Contains(e.Message, "dup key") {
			t.Fatalf("write error %+v is not the server's duplicate key error", e)
		}
	}
	if n := count(t, c, db, `{}`); n != 146 {
		t.Fatalf("count %d, want 146", n)
	}
	if n := count(t, c, db, `{"w":"l"}`); n != 100 {
		t.Fatalf("the duplicates overwrote something: %d of 100 keep their stamp", n)
	}
}

func TestOrderedStopsAtTheFirstDuplicate(t *testing.T) {
	c, db := testClient(t)
	write(t, c, OpInsert, db, docsJSON(7, 8, "l"), WriteOptions{})
	// K7 is at index 7 of K0..K19: 7 inserted, 1 duplicate, 12 never attempted.
	r := write(t, c, OpInsert, db, docsJSON(0, 20, "b"), WriteOptions{Ordered: true})
	if r.Err != nil || fmt.Sprint(indexes(r)) != "[7]" || r.Errors[0].Code != 11000 || r.Inserted != 7 || r.NotAttempted != 12 {
		t.Fatalf("ordered batch: %+v", r)
	}
	if n := count(t, c, db, `{"w":"b"}`); n != 7 {
		t.Fatalf("%d documents of the batch stored, want 7", n)
	}
}

func TestReplaceMergeIgnoreAndInc(t *testing.T) {
	c, db := testClient(t)
	write(t, c, OpInsert, db, `[{"_id":"K1","w":"l","a":1,"b":{"x":1,"y":2}},{"_id":"K2","w":"l","a":2}]`, WriteOptions{})
	ctx := context.Background()
	get := func(id string) string {
		docs, e := c.Find(ctx, db, "docs", mustRaw(fmt.Sprintf(`{"_id":%q}`, id)), nil, 0, 10*time.Second)
		if e != nil || len(docs) != 1 {
			t.Fatalf("find %s: %v %d", id, e, len(docs))
		}
		return extJSON(docs[0])
	}
	r := write(t, c, OpReplace, db, `[{"_id":"K1","w":"o1","b":{"x":9}},{"_id":"K3","w":"o1"}]`, WriteOptions{W: "1", J: ptr(true)})
	if r.Err != nil || r.Matched != 1 || r.Modified != 1 || r.Upserted != 1 || fmt.Sprint(r.UpsertedIndexes) != "[1]" {
		t.Fatalf("replace: %+v", r)
	}
	if got := get("K1"); got != `{"_id":"K1","w":"o1","b":{"x":9}}` {
		t.Fatalf("replace left %s", got)
	}
	r = write(t, c, OpMerge, db, `[{"_id":"K2","w":"o2","c":3},{"_id":"K4","w":"o2"}]`, WriteOptions{})
	if r.Err != nil || r.Matched != 1 || r.Upserted != 1 {
		t.Fatalf("merge: %+v", r)
	}
	if got := get("K2"); got != `{"_id":"K2","w":"o2","a":2,"c":3}` {
		t.Fatalf("merge ($set) left %s", got)
	}
	r = write(t, c, OpIgnore, db, `[{"_id":"K2","w":"o3"},{"_id":"K5","w":"o3"}]`, WriteOptions{})
	if r.Err != nil || r.Matched != 1 || r.Modified != 0 || r.Upserted != 1 {
		t.Fatalf("ignore: %+v", r)
	}
	if got := get("K2"); got != `{"_id":"K2","w":"o2","a":2,"c":3}` {
		t.Fatalf("ignore ($setOnInsert) changed an existing document: %s", got)
	}
	ur, err := c.Update(ctx, db, "docs", []any{"K1", "K2", "K9"}, mustRaw(`{"$inc":{"hits":1}}`), WriteOptions{Upsert: true, Timeout: 10 * time.Second})
	if err != nil || ur.Err != nil || ur.Matched != 2 || ur.Modified != 2 || ur.Upserted != 1 {
		t.Fatalf("$inc: %v %+v", err, ur)
	}
	ur, _ = c.Update(ctx, db, "docs", []any{"K1", "K10"}, mustRaw(`{"$inc":{"hits":2}}`), WriteOptions{Timeout: 10 * time.Second})
	if ur.Matched != 1 || ur.Upserted != 0 {
		t.Fatalf("$inc without upsert: %+v", ur)
	}
	if got := get("K1"); got != `{"_id":"K1","w":"o1","b":{"x":9},"hits":3}` {
		t.Fatalf("$inc left %s", got)
	}
	if _, err := c.Update(ctx, db, "docs", []any{"K1"}, mustRaw(`{"hits":1}`), WriteOptions{}); err == nil {
		t.Fatal("an update without an operator was sent")
	}
}

func ptr[T any](v T) *T { return &v }

// A write carrying the collection's UUID is refused once the collection is gone, instead of
// recreating it implicitly (a run never writes into a collection it did not create).
func TestCollectionUUIDRefusesAGoneCollection(t *testing.T) {
	c, db := testClient(t)
	ctx := context.Background()
	if _, e := c.Command(ctx, db, mustRaw(`{"create":"docs"}`), 10*time.Second); e != nil {
		t.Fatal(e)
	}
	reply, e := c.Command(ctx, db, mustRaw(`{"listCollections":1,"filter":{"name":"docs"}}`), 10*time.Second)
	if e != nil {
		t.Fatal(e)
	}
	_, uuid := reply.Lookup("cursor", "firstBatch", "0", "info", "uuid").Binary()
	if len(uuid) != 16 {
		t.Fatalf("no uuid in %s", reply)
	}
	o := WriteOptions{CollectionUUID: uuid}
	if r := write(t, c, OpInsert, db, docsJSON(0, 3, "l"), o); r.Err != nil || r.Inserted != 3 {
		t.Fatalf("insert with the right UUID: %+v", r)
	}
	if _, e := c.Command(ctx, db, mustRaw(`{"drop":"docs"}`), 10*time.Second); e != nil {
		t.Fatal(e)
	}
	for _, op := range []string{OpInsert, OpReplace, OpMerge} {
		r := write(t, c, op, db, docsJSON(0, 3, "o1"), o)
		if r.Err != nil || len(r.Errors) != 3 || r.Errors[0].Code != 361 {
			t.Fatalf("%s into the dropped collection: %+v", op, r)
		}
	}
	reply, _ = c.Command(ctx, db, mustRaw(`{"listCollections":1,"filter":{"name":"docs"}}`), 10*time.Second)
	if n, _ := reply.Lookup("cursor", "firstBatch").Array().Values(); len(n) != 0 {
		t.Fatalf("the collection was recreated: %s", reply)
	}
}

// failCommand makes the server itself answer an insert with an error (its own code path for
// command errors), once.
func failOnce(t *testing.T, c *Client, data string) {
	t.Helper()
	_, e := c.Command(context.Background(), "admin", mustRaw(`{"configureFailPoint":"failCommand","mode":{"times":1},"data":`+data+`}`), 10*time.Second)
	if e != nil {
		t.Fatalf("configureFailPoint (the server needs --setParameter enableTestCommands=1): %v", e)
	}
	t.Cleanup(func() {
		c.Command(context.Background(), "admin", mustRaw(`{"configureFailPoint":"failCommand","mode":"off"}`), 10*time.Second)
	})
}

func TestServerErrorsOfAWholeBatch(t *testing.T) {
	c, db := testClient(t)
	write(t, c, OpInsert, db, docsJSON(0, 1, "l"), WriteOptions{})
	// WriteConflict (112) for the whole command.
	failOnce(t, c, `{"failCommands":["insert"],"errorCode":112,"appName":"k6-writepath-gotest"}`)
	r := write(t, c, OpInsert, db, docsJSON(10, 15, "l"), WriteOptions{})
	if r.Err == nil || r.Err.Kind != "server" || r.Err.Code != 112 || r.Err.Name != "WriteConflict" {
		t.Fatalf("failCommand 112: %+v", r)
	}
	if n := count(t, c, db, `{}`); n != 1 {
		t.Fatalf("count %d after a refused batch, want 1", n)
	}
	// A write concern error: the documents are written, the acknowledgement asked for is not given.
	failOnce(t, c, `{"failCommands":["insert"],"writeConcernError":{"code":64,"codeName":"WriteConcernFailed","errmsg":"waiting for replication timed out"},"appName":"k6-writepath-gotest"}`)
	r = write(t, c, OpInsert, db, docsJSON(20, 22, "l"), WriteOptions{})
	if r.Err != nil || r.WriteConcernError == nil || r.WriteConcernError.Code != 64 {
		t.Fatalf("writeConcernError: %+v", r)
	}
	// The connection closed under the batch: no answer at all.
	failOnce(t, c, `{"failCommands":["insert"],"closeConnection":true,"appName":"k6-writepath-gotest"}`)
	r = write(t, c, OpInsert, db, docsJSON(30, 32, "l"), WriteOptions{})
	if r.Err == nil || r.Err.Kind != "connection" {
		t.Fatalf("closeConnection: %+v", r)
	}
}

// A batch never outlives its timeout, whatever the server does. The server holds its answer
// 20 s; the bound asserted is half of that, far above the 700 ms timeout, so a busy machine
// cannot fail it while a batch that waited for the server would.
func TestTimeoutBoundsABatch(t *testing.T) {
	c, db := testClient(t)
	write(t, c, OpInsert, db, docsJSON(0, 1, "l"), WriteOptions{})
	failOnce(t, c, `{"failCommands":["update"],"blockConnection":true,"blockTimeMS":20000,"appName":"k6-writepath-gotest"}`)
	t0 := time.Now()
	r := write(t, c, OpReplace, db, docsJSON(0, 2, "o1"), WriteOptions{Timeout: 700 * time.Millisecond})
	took := time.Since(t0)
	t.Logf("the blocked batch ended after %v", took)
	if r.Err == nil || r.Err.Kind != "timeout" {
		t.Fatalf("blocked batch: %+v", r)
	}
	if took > 10*time.Second {
		t.Fatalf("the batch took %v with a 700ms timeout (the server answers after 20 s)", took)
	}
}

func TestAuthRefusedWithoutShowingThePassword(t *testing.T) {
	u := os.Getenv("MONGO_URL")
	if u == "" {
		t.Skip("MONGO_URL is not set (test/integration/gateway-go.test.mjs sets it)")
	}
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(p.User.Username(), "wrong-Pa55word")
	c, err := Open(p.String(), ConnectOptions{AppName: "k6-writepath-gotest"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, _ := c.Write(context.Background(), OpInsert, "k6wp_gotest_auth", "docs", []byte(docsJSON(0, 1, "l")), WriteOptions{Timeout: 10 * time.Second})
	if r.Err == nil || r.Err.Kind != "auth" || r.Err.Code != 18 {
		t.Fatalf("wrong password: %+v", r)
	}
	if strings.Contains(r.Err.Message, "wrong-Pa55word") {
		t.Fatalf("the password is in the message: %s", r.Err.Message)
	}
}

func TestUnreachableServerIsAConnectionFailure(t *testing.T) {
	c, err := Open("mongodb://u:p@127.0.0.1:1/", ConnectOptions{AppName: "k6-writepath-gotest", ServerSelectionTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, _ := c.Write(context.Background(), OpInsert, "x", "docs", []byte(docsJSON(0, 1, "l")), WriteOptions{Timeout: 60 * time.Second})
	// the refusal is named as such, not as the batch's timeout
	if r.Err == nil || r.Err.Kind != "connection" || !strings.Contains(r.Err.Message, "connection refused") {
		t.Fatalf("unreachable server: %+v", r)
	}
}

func TestOneClientPerURL(t *testing.T) {
	a, _ := Open("mongodb://127.0.0.1:1/", ConnectOptions{AppName: "x"})
	b, _ := Open("mongodb://127.0.0.1:1/", ConnectOptions{AppName: "x"})
	if a != b {
		t.Fatal("two driver clients for one URL")
	}
	a.Close()
	if registry[a.key] == nil {
		t.Fatal("closed while still in use")
	}
	b.Close()
	if registry[a.key] != nil {
		t.Fatal("not released by its last user")
	}
}

// A mongodb+srv:// name that does not resolve: the driver looks it up while parsing the URL,
// yet the URL may be right. A LookupError (the server out of reach), not bad input, and the
// password never in it. (.invalid never resolves: RFC 2606.)
func TestSRVNameThatDoesNotResolveIsUnreachableNotBadInput(t *testing.T) {
	const url = "mongodb+srv://writer:s3cret-pw-77@nothere.invalid/?authSource=admin"
	_, err := Open(url, ConnectOptions{AppName: "k6-writepath-gotest"})
	var lookup *LookupError
	if !errors.As(err, &lookup) {
		t.Fatalf("want a LookupError, got %T: %v", err, err)
	}
	if !strings.Contains(err.Error(), "does not resolve") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("message: %q", err.Error())
	}
	if msg := (&Service{rawURL: url}).CheckURL(); msg != "" {
		t.Fatalf("the gateway refuses to start on it: %q", msg)
	}
	// a malformed srv URL stays bad input
	if msg := (&Service{rawURL: "mongodb+srv://nothere.invalid:27017/"}).CheckURL(); msg == "" {
		t.Fatal("mongodb+srv with a port is accepted")
	}
}
