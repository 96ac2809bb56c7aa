package mongo

// The pack's documents reach MongoDB as the byte image the other targets send: one JSON array
// of objects (lib/docs.js body(): a key range or a key list patched into a fixed-stride
// image, JSON whitespace between tokens). This file turns that array into BSON documents in
// Go (the gateway receives the array as the body of /mongo/write), so the JavaScript side
// does no work per document.
//
// The mapping is the one MongoDB's own JSON tools use for plain (non-extended) JSON:
//   object -> embedded document (keys in the same order), array -> array,
//   string -> string, true/false -> boolean, null -> null,
//   a number without fraction or exponent -> int32 when it fits, else int64, else double;
//   any other number -> double.
// (the Go driver's own JSON reader types numbers this way: mongodb/mongo-go-driver v2.10.0,
// bson/json_scanner.go, scanNumber: ParseInt, int32 when it fits, else int64, else
// ParseFloat; image_test.go holds this parser against bson.UnmarshalExtJSON on the pack's
// documents.) No extended-JSON keys ($oid, $date…) are
// interpreted: the pack's generator never writes them, and a key starting with "$" is passed
// to the server as it is (which refuses it in a stored document).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// maxDepth: "MongoDB supports no more than 100 levels of nesting for BSON documents"
// (https://www.mongodb.com/docs/manual/reference/limits/, Nested Depth for BSON Documents);
// deeper input is refused before anything is sent.
const maxDepth = 100

// parsedBatch holds the documents of one array, all in one buffer.
type parsedBatch struct {
	arena []byte
	ends  []int // document i is arena[ends[i-1]:ends[i]] (ends[-1] = 0)
}

func (b *parsedBatch) len() int { return len(b.ends) }

func (b *parsedBatch) doc(i int) bsoncore.Document {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return bsoncore.Document(b.arena[start:b.ends[i]])
}

type jsonParser struct {
	s   []byte
	i   int
	out []byte
	key []byte // scratch: the current key, unescaped
}

type syntaxError struct {
	at  int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("JSON batch, byte %d: %s", e.at, e.msg) }

func (p *jsonParser) fail(msg string) error { return &syntaxError{at: p.i, msg: msg} }

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// parseBatch reads a JSON array of objects (whitespace before and after allowed, nothing
// else) into BSON documents.
func parseBatch(src []byte, sizeHint int) (*parsedBatch, error) {
	p := &jsonParser{s: src, out: make([]byte, 0, len(src)+len(src)/8+64)}
	b := &parsedBatch{ends: make([]int, 0, sizeHint)}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != '[' {
		return nil, p.fail("expected '[' (a JSON array of documents)")
	}
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
	} else {
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '{' {
				return nil, p.fail("expected '{' (every element of the batch is a document)")
			}
			if err := p.object(1); err != nil {
				return nil, err
			}
			b.ends = append(b.ends, len(p.out))
			p.ws()
			if p.i >= len(p.s) {
				return nil, p.fail("unexpected end of the batch")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				break
			}
			return nil, p.fail("expected ',' or ']' after a document")
		}
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.fail("unexpected bytes after the array")
	}
	b.arena = p.out
	return b, nil
}

// object appends the document at p.i ('{').
func (p *jsonParser) object(depth int) error {
	if depth > maxDepth {
		return p.fail(fmt.Sprintf("documents nested deeper than %d levels", maxDepth))
	}
	p.i++ // '{'
	var start int32
	start, p.out = bsoncore.ReserveLength(p.out)
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
	} else {
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return p.fail("expected a quoted key")
			}
			var err error
			p.key, err = p.str(p.key[:0])
			if err != nil {
				return err
			}
			for _, c := range p.key {
				if c == 0 {
					return p.fail("a key holds a NUL character, which BSON keys cannot")
				}
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return p.fail("expected ':' after a key")
			}
			p.i++
			p.ws()
			if err := p.value(p.key, depth); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.s) {
				return p.fail("unexpected end inside a document")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == '}' {
				p.i++
				break
			}
			return p.fail("expected ',' or '}' in a document")
		}
	}
	p.out = append(p.out, 0)
	bsoncore.UpdateLength(p.out, start, int32(len(p.out)-int(start)))
	return nil
}

// array appends the array at p.i ('[') as a BSON array (keys "0", "1", …).
func (p *jsonParser) array(depth int) error {
	if depth > maxDepth {
		return p.fail(fmt.Sprintf("documents nested deeper than %d levels", maxDepth))
	}
	p.i++ // '['
	var start int32
	start, p.out = bsoncore.ReserveLength(p.out)
	p.ws()
	var idx [20]byte
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
	} else {
		for n := 0; ; n++ {
			p.ws()
			if err := p.value(strconv.AppendInt(idx[:0], int64(n), 10), depth); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.s) {
				return p.fail("unexpected end inside an array")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				break
			}
			return p.fail("expected ',' or ']' in an array")
		}
	}
	p.out = append(p.out, 0)
	bsoncore.UpdateLength(p.out, start, int32(len(p.out)-int(start)))
	return nil
}

func (p *jsonParser) head(t bsoncore.Type, key []byte) {
	p.out = append(p.out, byte(t))
	p.out = append(p.out, key...)
	p.out = append(p.out, 0)
}

func (p *jsonParser) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// value appends the element key: <the value at p.i>.
func (p *jsonParser) value(key []byte, depth int) error {
	if p.i >= len(p.s) {
		return p.fail("expected a value")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		p.head(bsoncore.TypeString, key)
		lenAt := len(p.out)
		p.out = append(p.out, 0, 0, 0, 0)
		var err error
		p.out, err = p.str(p.out)
		if err != nil {
			return err
		}
		p.out = append(p.out, 0)
		n := len(p.out) - lenAt - 4
		p.out[lenAt], p.out[lenAt+1], p.out[lenAt+2], p.out[lenAt+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	case c == '{':
		p.head(bsoncore.TypeEmbeddedDocument, key)
		return p.object(depth + 1)
	case c == '[':
		p.head(bsoncore.TypeArray, key)
		return p.array(depth + 1)
	case c == 't':
		if !p.literal("true") {
			return p.fail("invalid literal")
		}
		p.head(bsoncore.TypeBoolean, key)
		p.out = append(p.out, 1)
	case c == 'f':
		if !p.literal("false") {
			return p.fail("invalid literal")
		}
		p.head(bsoncore.TypeBoolean, key)
		p.out = append(p.out, 0)
	case c == 'n':
		if !p.literal("null") {
			return p.fail("invalid literal")
		}
		p.head(bsoncore.TypeNull, key)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(key)
	default:
		return p.fail(fmt.Sprintf("unexpected character %q", c))
	}
	return nil
}

// number: JSON's grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number(key []byte) error {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	nInt := digits()
	if nInt == 0 || (nInt > 1 && p.s[intStart] == '0') {
		return p.fail("invalid number")
	}
	isInt := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.fail("invalid number")
		}
		isInt = false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.fail("invalid number")
		}
		isInt = false
	}
	text := p.s[start:p.i]
	if isInt && nInt <= 18 {
		var v int64
		for _, d := range p.s[intStart:p.i] {
			v = v*10 + int64(d-'0')
		}
		if text[0] == '-' {
			v = -v
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			p.head(bsoncore.TypeInt32, key)
			p.out = bsoncore.AppendInt32(p.out, int32(v))
		} else {
			p.head(bsoncore.TypeInt64, key)
			p.out = bsoncore.AppendInt64(p.out, v)
		}
		return nil
	}
	if isInt {
		if v, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			p.head(bsoncore.TypeInt64, key)
			p.out = bsoncore.AppendInt64(p.out, v)
			return nil
		}
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return p.fail("invalid number")
	}
	p.head(bsoncore.TypeDouble, key)
	p.out = bsoncore.AppendDouble(p.out, f)
	return nil
}

// str reads the JSON string at p.i ('"') and appends its unescaped UTF-8 bytes to dst. The
// runs between escapes are found with bytes.IndexByte and checked 8 bytes at a time: the
// payload strings of the pack's documents are long (~1 KB per document).
func (p *jsonParser) str(dst []byte) ([]byte, error) {
	p.i++ // opening quote
	for {
		j := bytes.IndexByte(p.s[p.i:], '"')
		if j < 0 {
			return dst, p.fail("unterminated string")
		}
		chunk := p.s[p.i : p.i+j]
		k := bytes.IndexByte(chunk, '\\')
		if k >= 0 {
			chunk = chunk[:k]
		}
		if !plainASCII(chunk) {
			for n, c := range chunk {
				if c < 0x20 {
					p.i += n
					return dst, p.fail("a control character inside a string")
				}
			}
			if !utf8.Valid(chunk) {
				return dst, p.fail("a string is not valid UTF-8")
			}
		}
		dst = append(dst, chunk...)
		p.i += len(chunk)
		if k < 0 {
			p.i++ // closing quote
			return dst, nil
		}
		var err error
		if dst, err = p.escape(dst); err != nil {
			return dst, err
		}
	}
}

// plainASCII: no byte below 0x20 and none from 0x80 (false may also mean "look closer").
func plainASCII(b []byte) bool {
	const lows, highs = 0x2020202020202020, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if ((x-lows)&^x|x)&highs != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

func (p *jsonParser) escape(dst []byte) ([]byte, error) {
	p.i++ // backslash
	if p.i >= len(p.s) {
		return dst, p.fail("unterminated escape")
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		return append(dst, c), nil
	case 'b':
		return append(dst, '\b'), nil
	case 'f':
		return append(dst, '\f'), nil
	case 'n':
		return append(dst, '\n'), nil
	case 'r':
		return append(dst, '\r'), nil
	case 't':
		return append(dst, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return dst, p.fail("invalid \\u escape")
		}
		if utf16.IsSurrogate(r) {
			if len(p.s)-p.i >= 2 && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if r2, ok2 := p.hex4(); ok2 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return utf8.AppendRune(dst, d), nil
					}
				}
				p.i = save
			}
			r = utf8.RuneError // a lone surrogate, as encoding/json decodes it
		}
		return utf8.AppendRune(dst, r), nil
	}
	return dst, p.fail(fmt.Sprintf("invalid escape \\%c", c))
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.s[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
