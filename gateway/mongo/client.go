// Package mongo is the gateway's MongoDB side, on the official Go driver
// (go.mongodb.org/mongo-driver/v2, pinned in gateway/go.mod): a shared driver Client per
// process and URL, the batch writes with their per-operation results, and the few commands
// the target adapter needs (this file and image.go); http.go answers the exchanges of
// docs/gateway.md; client_test.go runs it against a real mongod.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"

	"github.com/k6-writepath/k6-writepath/gateway/internal/wire"
)

// Client is one driver Client shared by every handle of the process that connects with the
// same URL and connect options.
type Client struct {
	key     string
	mc      *mongo.Client
	secrets []string

	mu    sync.Mutex
	colls map[string]*mongo.Collection
}

var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

var (
	registryMu sync.Mutex
	registry   = map[string]*sharedClient{}
)

type sharedClient struct {
	c    *Client
	refs int
}

// ConnectOptions: what the pack sets unless the URL says otherwise.
type ConnectOptions struct {
	AppName string
	// ServerSelectionTimeout: how long an operation waits for a server it can send to (the
	// driver's default is 30 s); ConnectTimeout: how long one dial and handshake may take.
	ServerSelectionTimeout time.Duration
	ConnectTimeout         time.Duration
}

// Open returns the process's Client for url (creating it: the driver connects lazily, in the
// background, so Open does no I/O). Retryable writes are off unless the URL sets retryWrites:
// a batch is never re-sent behind the pack's back (the driver would retry a write once after
// a network error or a retryable server error, and on servers that label themselves
// overloaded several times: mongo/client.go effectiveAdaptiveRetries, which follows
// retryWrites). The error never holds the URL's password.
// LookupError: a mongodb+srv:// URL's SRV/TXT records could not be looked up. The driver
// resolves them while it parses the URL, yet the URL may be right: the server cannot be
// reached (as a plain host that does not resolve), which is not bad input.
type LookupError struct{ msg string }

func (e *LookupError) Error() string { return e.msg }

func lookupFailed(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

func Open(rawURL string, o ConnectOptions) (*Client, error) {
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d", rawURL, o.AppName, o.ServerSelectionTimeout, o.ConnectTimeout)
	registryMu.Lock()
	defer registryMu.Unlock()
	if s, ok := registry[key]; ok {
		s.refs++
		return s.c, nil
	}
	secrets := secretsOf(rawURL)
	cs, err := connstring.ParseAndValidate(rawURL)
	if err != nil && lookupFailed(err) {
		return nil, &LookupError{msg: "the DNS name of MONGO_URL (value not shown) does not resolve: " + redactWith(quoted.ReplaceAllString(err.Error(), "(…)"), secrets)}
	}
	if err != nil {
		// The parser quotes the part it stumbled on, which may be part of a password that the
		// split above could not find (a malformed URL): quoted parts are never shown.
		return nil, errors.New(redactWith(quoted.ReplaceAllString(err.Error(), "(…)"), secrets))
	}
	opts := options.Client().ApplyURI(rawURL)
	if o.AppName != "" && cs.AppName == "" {
		opts.SetAppName(o.AppName)
	}
	if o.ServerSelectionTimeout > 0 && !cs.ServerSelectionTimeoutSet {
		opts.SetServerSelectionTimeout(o.ServerSelectionTimeout)
	}
	if o.ConnectTimeout > 0 && !cs.ConnectTimeoutSet {
		opts.SetConnectTimeout(o.ConnectTimeout)
	}
	if !cs.RetryWritesSet {
		opts.SetRetryWrites(false)
	}
	mc, err := mongo.Connect(opts)
	if err != nil {
		return nil, errors.New(redactWith(err.Error(), secrets))
	}
	c := &Client{key: key, mc: mc, secrets: secrets, colls: map[string]*mongo.Collection{}}
	registry[key] = &sharedClient{c: c, refs: 1}
	return c, nil
}

// Close releases this user of the Client; the last one disconnects it.
func (c *Client) Close() {
	registryMu.Lock()
	s, ok := registry[c.key]
	if !ok || s.c != c {
		registryMu.Unlock()
		return
	}
	s.refs--
	last := s.refs <= 0
	if last {
		delete(registry, c.key)
	}
	registryMu.Unlock()
	if last {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.mc.Disconnect(ctx)
	}
}

// secretsOf: the password of a mongodb:// URL as written and decoded, for redaction.
func secretsOf(rawURL string) []string {
	rest, ok := strings.CutPrefix(rawURL, "mongodb://")
	if !ok {
		rest, ok = strings.CutPrefix(rawURL, "mongodb+srv://")
	}
	if !ok {
		return nil
	}
	host := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host = rest[:i]
	}
	at := strings.LastIndex(host, "@")
	if at < 0 {
		return nil
	}
	_, pw, found := strings.Cut(host[:at], ":")
	if !found || pw == "" {
		return nil
	}
	out := []string{pw}
	if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
		out = append(out, dec)
	}
	return out
}

func redactWith(msg string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// WriteOptions of one batch.
type WriteOptions struct {
	Ordered bool
	// W: "" (the server's default write concern), a number, "majority" or a tag set name.
	W string
	// J: nil (not sent), or journal acknowledgement on/off.
	J       *bool
	Timeout time.Duration
	// CollectionUUID: when set, every write command carries it (the driver's documented
	// internal option addCommandFields, x/mongo/driver/xoptions) and the server refuses each
	// write with CollectionUUIDMismatch (361, mongodb/mongo src/mongo/base/error_codes.yml)
	// unless the collection exists with exactly this UUID, instead of creating a missing
	// collection implicitly. Recorded on mongod 6.0.5: after a drop, every operation of the
	// batch fails with 361 "Collection UUID does not match that specified" and the collection
	// stays absent (client_test.go).
	CollectionUUID []byte
	// Upsert: update() only.
	Upsert bool
}

func (c *Client) collection(db, name string, o WriteOptions) *mongo.Collection {
	jk := "-"
	if o.J != nil {
		jk = fmt.Sprint(*o.J)
	}
	k := db + "\x00" + name + "\x00" + o.W + "\x00" + jk
	c.mu.Lock()
	defer c.mu.Unlock()
	if coll, ok := c.colls[k]; ok {
		return coll
	}
	var copts []options.Lister[options.CollectionOptions]
	if o.W != "" || o.J != nil {
		wc := &writeconcern.WriteConcern{Journal: o.J}
		if o.W != "" {
			var n int
			if _, err := fmt.Sscanf(o.W, "%d", &n); err == nil && fmt.Sprint(n) == o.W {
				wc.W = n
			} else {
				wc.W = o.W
			}
		}
		copts = append(copts, options.Collection().SetWriteConcern(wc))
	}
	coll := c.mc.Database(db).Collection(name, copts...)
	c.colls[k] = coll
	return coll
}

// OpError: a failure of a whole command (no per-operation answer).
type OpError struct {
	// Kind: timeout | connection | auth | unauthorized | server | cancelled | other (docs/gateway.md;
	// the k6 module called the last one "client")
	Kind    string
	Code    int
	Name    string
	Labels  []string
	Message string
}

func (e *OpError) Error() string { return e.Message }

// classify turns a driver error into an OpError (message redacted).
func (c *Client) classify(err error) *OpError {
	if err == nil {
		return nil
	}
	e := &OpError{Message: redactWith(err.Error(), c.secrets)}
	var se mongo.ServerError
	if errors.As(err, &se) {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			e.Code, e.Name, e.Labels = int(ce.Code), ce.Name, ce.Labels
		} else {
			var we mongo.WriteException
			if errors.As(err, &we) && we.WriteConcernError != nil {
				e.Code, e.Name = we.WriteConcernError.Code, we.WriteConcernError.Name
			}
		}
	}
	var sel topology.ServerSelectionError
	switch {
	case e.Code == 18 || strings.Contains(e.Message, "auth error") || strings.Contains(e.Message, "AuthenticationFailed"):
		e.Kind = "auth"
	case e.Code == 13:
		e.Kind = "unauthorized"
	case errors.Is(err, context.Canceled):
		e.Kind = "cancelled"
	case errors.As(err, &sel):
		// No server to send to within the deadline: down, refusing, or not answering the
		// driver's handshake/heartbeat.
		e.Kind = "connection"
	case errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err):
		e.Kind = "timeout"
	case mongo.IsNetworkError(err):
		e.Kind = "connection"
	case e.Code != 0:
		e.Kind = "server"
	default:
		e.Kind = "other"
	}
	return e
}

// WriteError: one operation of a batch the server refused.
type WriteError struct {
	Index   int
	Code    int
	Message string
}

// Result of one batch. Counts are the server's (n, nModified, upserted); a batch the server
// answered in part lists its refused operations in Errors, and an ordered batch stopped by
// one of them leaves NotAttempted operations after it, which the server never looked at.
type Result struct {
	N                 int
	Inserted          int64
	Matched           int64
	Modified          int64
	Upserted          int64
	UpsertedIndexes   []int
	Errors            []WriteError
	NotAttempted      int
	WriteConcernError *OpError
	Err               *OpError
}

func (c *Client) bulkResult(n int, ordered bool, err error) Result {
	r := Result{N: n}
	if err == nil {
		return r
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		for _, we := range bwe.WriteErrors {
			r.Errors = append(r.Errors, WriteError{Index: we.Index, Code: we.Code, Message: redactWith(we.Message, c.secrets)})
		}
		if ordered && len(r.Errors) > 0 {
			r.NotAttempted = n - r.Errors[len(r.Errors)-1].Index - 1
		}
		if wce := bwe.WriteConcernError; wce != nil {
			r.WriteConcernError = &OpError{Kind: "write_concern", Code: wce.Code, Name: wce.Name, Message: redactWith(wce.Message, c.secrets)}
		}
		return r
	}
	r.Err = c.classify(err)
	return r
}

func (c *Client) context(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if parent == nil {
		parent = context.Background()
	}
	if d <= 0 {
		d = 60 * time.Second
	}
	return context.WithTimeout(parent, d)
}

func uuidField(o WriteOptions) bson.D {
	if len(o.CollectionUUID) == 0 {
		return nil
	}
	return bson.D{{Key: "collectionUUID", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: o.CollectionUUID}}}
}

// Ops of write().
const (
	OpInsert  = "insert"
	OpReplace = "replace"
	OpMerge   = "merge"
	OpIgnore  = "ignore"
)

// InputError: the call itself is wrong (a bug of the caller, not a database answer).
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// Write sends one batch: body is a JSON array of documents, each with its "_id".
func (c *Client) Write(parent context.Context, op, db, name string, body []byte, o WriteOptions) (Result, error) {
	batch, err := parseBatch(body, 0)
	if err != nil {
		return Result{}, &InputError{err.Error()}
	}
	n := batch.len()
	if n == 0 {
		return Result{}, &InputError{"an empty batch (the server refuses a write command without operations)"}
	}
	coll := c.collection(db, name, o)
	extra := uuidField(o)
	ctx, cancel := c.context(parent, o.Timeout)
	defer cancel()
	if op == OpInsert {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = []byte(batch.doc(i))
		}
		im := options.InsertMany().SetOrdered(o.Ordered)
		if extra != nil {
			if err := xoptions.SetInternalInsertManyOptions(im, "addCommandFields", extra); err != nil {
				return Result{}, err
			}
		}
		var err error
		wire.TimingOf(parent).Driver(func() { _, err = coll.InsertMany(ctx, docs, im) })
		r := c.bulkResult(n, o.Ordered, err)
		if r.Err == nil {
			r.Inserted = int64(n - len(r.Errors) - r.NotAttempted)
		}
		return r, nil
	}
	models := make([]mongo.WriteModel, n)
	// Filters and update documents of the whole batch in one buffer.
	arena := make([]byte, 0, n*48+len(batch.arena)+n*16)
	for i := 0; i < n; i++ {
		doc := batch.doc(i)
		id, err := doc.LookupErr("_id")
		if err != nil {
			return Result{}, &InputError{fmt.Sprintf("document %d of the batch has no _id", i)}
		}
		start := len(arena)
		var at int32
		at, arena = bsoncore.ReserveLength(arena)
		arena = bsoncore.AppendValueElement(arena, "_id", id)
		arena, _ = bsoncore.AppendDocumentEnd(arena, at)
		filter := arena[start:len(arena):len(arena)]
		switch op {
		case OpReplace:
			models[i] = mongo.NewReplaceOneModel().SetFilter([]byte(filter)).SetReplacement([]byte(doc)).SetUpsert(true)
		case OpMerge, OpIgnore:
			verb := "$set"
			if op == OpIgnore {
				verb = "$setOnInsert"
			}
			ustart := len(arena)
			var outer, inner int32
			outer, arena = bsoncore.ReserveLength(arena)
			inner, arena = bsoncore.AppendDocumentElementStart(arena, verb)
			elems, _ := doc.Elements()
			for _, e := range elems {
				if e.Key() != "_id" {
					arena = append(arena, e...)
				}
			}
			arena, _ = bsoncore.AppendDocumentEnd(arena, inner)
			arena, _ = bsoncore.AppendDocumentEnd(arena, outer)
			models[i] = mongo.NewUpdateOneModel().SetFilter([]byte(filter)).SetUpdate([]byte(arena[ustart:len(arena):len(arena)])).SetUpsert(true)
		default:
			return Result{}, &InputError{fmt.Sprintf("unknown operation %q (insert, replace, merge, ignore)", op)}
		}
	}
	return c.bulkWrite(ctx, coll, models, o, extra), nil
}

func (c *Client) bulkWrite(ctx context.Context, coll *mongo.Collection, models []mongo.WriteModel, o WriteOptions, extra bson.D) Result {
	bo := options.BulkWrite().SetOrdered(o.Ordered)
	if extra != nil {
		if err := xoptions.SetInternalBulkWriteOptions(bo, "addCommandFields", extra); err != nil {
			return Result{N: len(models), Err: &OpError{Kind: "other", Message: err.Error()}}
		}
	}
	var res *mongo.BulkWriteResult
	var err error
	wire.TimingOf(ctx).Driver(func() { res, err = coll.BulkWrite(ctx, models, bo) })
	r := c.bulkResult(len(models), o.Ordered, err)
	if res != nil && r.Err == nil {
		r.Inserted, r.Matched, r.Modified, r.Upserted = res.InsertedCount, res.MatchedCount, res.ModifiedCount, res.UpsertedCount
		for i := range res.UpsertedIDs {
			r.UpsertedIndexes = append(r.UpsertedIndexes, int(i))
		}
	}
	return r
}

// Update sends one UpdateOne per id with the same update document (e.g. {"$inc": {"n": 1}}),
// as one bulk write; ids should be distinct (a hot-key workload sends one id per batch or
// spreads them over batches).
func (c *Client) Update(parent context.Context, db, name string, ids []any, update bson.Raw, o WriteOptions) (Result, error) {
	if len(ids) == 0 {
		return Result{}, &InputError{"no ids"}
	}
	if err := update.Validate(); err != nil {
		return Result{}, &InputError{fmt.Sprintf("update document: %v", err)}
	}
	if first, err := update.IndexErr(0); err != nil || !strings.HasPrefix(first.Key(), "$") {
		return Result{}, &InputError{"the update document must start with an update operator such as $inc or $set"}
	}
	models := make([]mongo.WriteModel, len(ids))
	for i, id := range ids {
		models[i] = mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: id}}).SetUpdate(update).SetUpsert(o.Upsert)
	}
	ctx, cancel := c.context(parent, o.Timeout)
	defer cancel()
	return c.bulkWrite(ctx, c.collection(db, name, o), models, o, uuidField(o)), nil
}

// Command runs one database command and returns the server's reply.
func (c *Client) Command(parent context.Context, db string, cmd bson.Raw, timeout time.Duration) (bson.Raw, *OpError) {
	ctx, cancel := c.context(parent, timeout)
	defer cancel()
	var raw bson.Raw
	var err error
	wire.TimingOf(ctx).Driver(func() { raw, err = c.mc.Database(db).RunCommand(ctx, cmd).Raw() })
	if err != nil {
		return nil, c.classify(err)
	}
	return raw, nil
}

// Find returns the documents matching filter (projection may be nil; limit 0 = no limit).
func (c *Client) Find(parent context.Context, db, name string, filter, projection bson.Raw, limit int64, timeout time.Duration) ([]bson.Raw, *OpError) {
	ctx, cancel := c.context(parent, timeout)
	defer cancel()
	fo := options.Find()
	if projection != nil {
		fo.SetProjection(projection)
	}
	if limit > 0 {
		fo.SetLimit(limit)
	}
	var out []bson.Raw
	var err error
	wire.TimingOf(ctx).Driver(func() {
		var cur *mongo.Cursor
		cur, err = c.mc.Database(db).Collection(name).Find(ctx, filter, fo)
		if err != nil {
			return
		}
		defer cur.Close(ctx)
		for cur.Next(ctx) {
			out = append(out, append(bson.Raw(nil), cur.Current...))
		}
		err = cur.Err()
	})
	if err != nil {
		return nil, c.classify(err)
	}
	return out, nil
}

// Count: the exact number of documents matching filter (an aggregation over the collection,
// not the collection's metadata count, which an unclean shutdown can leave wrong).
func (c *Client) Count(parent context.Context, db, name string, filter bson.Raw, timeout time.Duration) (int64, *OpError) {
	ctx, cancel := c.context(parent, timeout)
	defer cancel()
	var n int64
	var err error
	wire.TimingOf(ctx).Driver(func() { n, err = c.mc.Database(db).Collection(name).CountDocuments(ctx, filter) })
	if err != nil {
		return 0, c.classify(err)
	}
	return n, nil
}
