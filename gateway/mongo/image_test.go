package mongo

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The conversion must give exactly the BSON the driver's own JSON reader gives for the same
// document (bson.UnmarshalExtJSON, relaxed: plain JSON), byte for byte: same key order, same
// number types, same strings.
func sameAsDriver(t *testing.T, docs []string, body string) {
	t.Helper()
	b, err := parseBatch([]byte(body), 0)
	if err != nil {
		t.Fatalf("parseBatch(%.80q): %v", body, err)
	}
	if b.len() != len(docs) {
		t.Fatalf("parseBatch gave %d documents, want %d", b.len(), len(docs))
	}
	for i, d := range docs {
		var want bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(d), false, &want); err != nil {
			t.Fatalf("driver cannot read %q: %v", d, err)
		}
		if got := b.doc(i); !bytes.Equal(got, want) {
			t.Fatalf("document %d differs:\n got %s\nwant %s", i, bson.Raw(got), want)
		}
	}
}

func TestParseMatchesDriver(t *testing.T) {
	docs := []string{
		`{"_id":"K1","w":"l","Hallo":123456789,"f0":0,"f8":99999,"s":"10000001100000021000000310"}`,
		`{"_id":"K2","neg":-2147483648,"big":2147483648,"bigger":-9223372036854775808,"huge":92233720368547758070,"f":1.5,"e":2e3,"E":-1.25E-7,"z":0,"mz":-0}`,
		`{"_id":"K3","t":true,"f":false,"n":null,"o":{},"a":[],"nested":{"Address":{"Line1":"1 Main St","Line2":null,"Zip":"10000"}},"arr":[1,"x",{"y":[true,null]},[2.5]]}`,
		`{"_id":"K4","esc":"quote \" backslash \\ slash \/ \b\f\n\r\t","u":"\u00e9\u4e2d\ud83d\ude00","raw":"é中😀","lone":"\ud800x"}`,
		`{"_id":"K5","dup":1,"dup":2,"":"empty key","sp ace":"k"}`,
		`{}`,
	}
	// Whitespace between every token, as the pack's fixed-stride images pad documents.
	padded := "  [ " + strings.Join([]string{
		strings.ReplaceAll(docs[0], `":"`, `" :   "`),
		docs[1], docs[2], docs[3], docs[4], docs[5],
	}, " ,\n\t ") + "\r\n]  "
	sameAsDriver(t, docs, padded)
	sameAsDriver(t, nil, "[]")
	sameAsDriver(t, nil, " [ \n ] ")
}

// The pack's generators: e1 (number string), user (nested object, null), random shapes.
func TestParseRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var val func(depth int) string
	val = func(depth int) string {
		switch k := rng.Intn(9); {
		case k == 0 && depth < 5:
			n := rng.Intn(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf(`"k%d_%d":%s`, depth, i, val(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		case k == 1 && depth < 5:
			n := rng.Intn(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = val(depth + 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		case k == 2:
			return fmt.Sprint(rng.Int63n(1<<40) - 1<<39)
		case k == 3:
			return fmt.Sprint(rng.Int31())
		case k == 4:
			return fmt.Sprintf("%g", rng.NormFloat64()*1e6)
		case k == 5:
			return []string{"true", "false", "null"}[rng.Intn(3)]
		default:
			return fmt.Sprintf(`"v%d\n%s"`, rng.Intn(1000), strings.Repeat("9", rng.Intn(40)))
		}
	}
	docs := make([]string, 300)
	for i := range docs {
		n := 1 + rng.Intn(12)
		parts := []string{fmt.Sprintf(`"_id":"K%d"`, i), `"w":"o17"`}
		for f := 0; f < n; f++ {
			parts = append(parts, fmt.Sprintf(`"a%d_%d":%s`, i, f, val(0)))
		}
		docs[i] = "{" + strings.Join(parts, ",") + "}"
	}
	sameAsDriver(t, docs, "["+strings.Join(docs, ",")+"]")
}

func TestParseRefusesMalformedBatches(t *testing.T) {
	// The batch's document is level 1: maxDepth+1 nested documents in all.
	deep := strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)
	cases := map[string]string{
		"not an array":         `{"_id":"K1"}`,
		"element not a doc":    `[1]`,
		"trailing comma":       `[{"a":1},]`,
		"missing colon":        `[{"a" 1}]`,
		"unquoted key":         `[{a:1}]`,
		"bad literal":          `[{"a":tru}]`,
		"leading zero":         `[{"a":01}]`,
		"bare minus":           `[{"a":-}]`,
		"bad fraction":         `[{"a":1.}]`,
		"bad exponent":         `[{"a":1e}]`,
		"control char":         "[{\"a\":\"x\ny\"}]",
		"bad escape":           `[{"a":"\x"}]`,
		"short unicode escape": `[{"a":"\u12"}]`,
		"unterminated string":  `[{"a":"abc`,
		"unterminated array":   `[{"a":1}`,
		"bytes after":          `[{"a":1}] x`,
		"NUL in key":           `[{"a\u0000b":1}]`,
		"invalid UTF-8":        "[{\"a\":\"\xff\"}]",
		"too deep":             "[" + deep + "]",
	}
	for name, body := range cases {
		if _, err := parseBatch([]byte(body), 0); err == nil {
			t.Errorf("%s: %q was accepted", name, body)
		}
	}
	// One level less than the limit is fine.
	ok := "[" + strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth) + "]"
	if _, err := parseBatch([]byte(ok), 0); err != nil {
		t.Errorf("%d levels refused: %v", maxDepth, err)
	}
}

func TestSecretsNeverInErrors(t *testing.T) {
	for _, u := range []string{
		"mongodb://u:s3cr%zzet@127.0.0.1:1/",
		"mongodb://u:s3cret@127.0.0.1:99999/",
		"mongodb://u:s3cret@/",
		"mongodb://u:s3cret@[::1/",
		"mongodb://u:s3cret@h:1/?authMechanism=s3cret",
	} {
		_, err := Open(u, ConnectOptions{AppName: "t"})
		if err == nil {
			t.Errorf("%q accepted", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cr") || strings.Contains(err.Error(), "%zz") {
			t.Errorf("Open(%q) error shows the password: %v", u, err)
		}
	}
}

func BenchmarkParseE1Batch(b *testing.B) {
	docs := make([]string, 1000)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":   "K%d","w":"o17"   ,"Hallo":%d,"f0":1,"f1":2,"f2":3,"f3":4,"f4":5,"f5":6,"f6":7,"f7":8,"f8":9,"s":"%s"}`, i, i*7919, strings.Repeat("1234567", 150))
	}
	body := []byte("[" + strings.Join(docs, ",") + "]")
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if _, err := parseBatch(body, 1000); err != nil {
			b.Fatal(err)
		}
	}
}
