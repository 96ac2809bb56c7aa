package main

// `wp-gateway mongo-admin`: the few administrative steps of a private mongod
// (scripts/mongo-private.sh), with the gateway's own driver client: no mongo shell is installed
// on the project's machines, and k6 no longer carries a MongoDB module. Everything comes from
// the environment (never from arguments, which `ps` shows):
//
//	MONGO_ADMIN_STEP=user   MONGO_ADMIN_URL (no credentials: the localhost exception of a fresh
//	                        --auth server), MONGO_ADMIN_USER, MONGO_ADMIN_PASSWORD: create the
//	                        user (role root) unless it exists
//	MONGO_ADMIN_STEP=ping   MONGO_ADMIN_URL (with credentials): wait until the server answers an
//	                        authenticated buildInfo, print its version
//	MONGO_ADMIN_STEP=stats  MONGO_ADMIN_URL, MONGO_ADMIN_DB: sizes of collection docs (collStats)
//	MONGO_ADMIN_STEP=drop   MONGO_ADMIN_URL, MONGO_ADMIN_DB: drop that database
//
// Prints one line "mongo-admin: …"; exit 0, or 1 with the reason (never the password).

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/k6-writepath/k6-writepath/gateway/mongo"
)

var packDB = regexp.MustCompile(`^k6wp_[a-z0-9_]+$`)

func mongoAdmin() int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mongo-admin: "+format+"\n", a...)
		return 1
	}
	c, err := mongo.Open(os.Getenv("MONGO_ADMIN_URL"), mongo.ConnectOptions{AppName: "k6-writepath-admin"})
	if err != nil {
		return fail("MONGO_ADMIN_URL: %v", err)
	}
	defer c.Close()
	ctx := context.Background()
	cmd := func(db string, d bson.D, timeout time.Duration) (bson.Raw, *mongo.OpError) {
		raw, err := bson.Marshal(d)
		if err != nil {
			return nil, &mongo.OpError{Kind: "other", Message: err.Error()}
		}
		return c.Command(ctx, db, raw, timeout)
	}
	switch step := os.Getenv("MONGO_ADMIN_STEP"); step {
	case "user":
		user := os.Getenv("MONGO_ADMIN_USER")
		_, e := cmd("admin", bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: os.Getenv("MONGO_ADMIN_PASSWORD")}, {Key: "roles", Value: bson.A{"root"}}}, 20*time.Second)
		// As mongod 6.0.5 answers: 51003 'User "writepath@admin" already exists'; 13
		// (Unauthorized) 'command createUser requires authentication': the localhost exception
		// is closed, i.e. a user exists already.
		if e != nil && e.Code != 51003 && e.Code != 13 {
			return fail("cannot create user %s: %s", user, e.Message)
		}
		state := "created"
		if e != nil {
			state = "exists"
		}
		fmt.Printf("mongo-admin: user %s %s\n", user, state)
	case "ping":
		// A server still starting is waited for (60 attempts); refused credentials end the
		// wait at once. The attempt count is printed so a caller can tell which ended it.
		var last *mongo.OpError
		attempts := 0
		for attempts < 60 {
			attempts++
			reply, e := cmd("admin", bson.D{{Key: "buildInfo", Value: 1}}, 2*time.Second)
			if e == nil {
				fmt.Printf("mongo-admin: mongod %s answers\n", reply.Lookup("version").StringValue())
				return 0
			}
			last = e
			if e.Kind == "auth" {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		return fail("no authenticated answer (%s, attempt %d of 60): %s", last.Kind, attempts, last.Message)
	case "stats", "drop":
		db := os.Getenv("MONGO_ADMIN_DB")
		if !packDB.MatchString(db) {
			return fail("MONGO_ADMIN_DB=%s is not a database of the pack (k6wp_…)", db)
		}
		if step == "drop" {
			if _, e := cmd(db, bson.D{{Key: "dropDatabase", Value: 1}}, time.Minute); e != nil {
				return fail("cannot drop %s: %s", db, e.Message)
			}
			fmt.Printf("mongo-admin: dropped %s\n", db)
			return 0
		}
		reply, e := cmd(db, bson.D{{Key: "collStats", Value: "docs"}}, time.Minute)
		if e != nil {
			return fail("cannot read the sizes of %s.docs: %s", db, e.Message)
		}
		num := func(k string) string {
			v := reply.Lookup(k)
			if n, ok := v.AsInt64OK(); ok {
				return fmt.Sprint(n)
			}
			return fmt.Sprint(v.Double())
		}
		fmt.Printf("mongo-admin: stats size=%s storage=%s indexes=%s count=%s\n", num("size"), num("storageSize"), num("totalIndexSize"), num("count"))
	default:
		return fail("MONGO_ADMIN_STEP=%q is not allowed: one of user, ping, stats, drop", step)
	}
	return 0
}
