package main

// PATCH commands in POST /databases/<db>/bulk_docs, for exactly the increment the contention
// workload sends (docs/contention.md; docs/fidelity.md rows R12-R14):
//
//   {"Id":"C7","ChangeVector":null,"Type":"PATCH",
//    "Patch":{"Script":"this.n = this.n ? this.n + args.val_0 : args.val_0;","Values":{"val_0":1}}}
//
// That script is what the official clients send for session.advanced.increment(id, "n", v)
// (ravendb npm 7.2.6 dist/esm/Documents/Session/DocumentSession.js increment(): `${variable} =
// ${variable} ? ${variable} + ${value} : ${value};`; addOrIncrement sends it without the ";").
// The double evaluates that one script form (any field and argument name, a numeric
// argument) instead of a JavaScript engine; any other script, PatchIfMissing and
// CreateIfMissing get a 500 NotSupportedException naming this limitation.
//
// Reply per command (ravendb/docs Documentation/4.2/.../rest-api/document-commands/
// batch-commands.markdown, recorded from 4.2.4: {"Id","ChangeVector","LastModified",
// "Type":"PATCH","PatchStatus":"Patched","Debug":null}; PatchStatus values in the same page and in
// src/Raven.Server/Documents/Patch/PatchDocumentCommand.cs ExecuteOnDocument/HandleReply):
//   - the document exists: the script runs, the new version is put under the document's own
//     change vector check, "Patched" (or "NotModified" when nothing changed: ChangeVector null);
//   - it does not exist and no PatchIfMissing was given: "DocumentDoesNotExist", nothing
//     written, ChangeVector null (the value of LastModified in that case is not verified: the
//     double sends null);
//   - a ChangeVector that does not match (or any ChangeVector for a missing document):
//     ConcurrencyException "Could not patch document '<id>' because non current change vector
//     was used" (ExecuteOnDocument), 409 by RavenServerStartup's mapping, the batch aborts.
// Concurrency: every write of a database runs through its one transaction merger, one write
// transaction at a time, and a script runs inside it with serializable isolation (ravendb/docs
// client-api/faq/transaction-support, "Single node model": a patch script "is executed in a
// single server side transaction hence it provides Serializable isolation in a single-node
// model"). So concurrent increments of one document wait for each other and none is lost; there
// is no conflict to retry. The double serializes every bulk_docs transaction under db.mu.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var incrementScript = regexp.MustCompile(`^this\.([A-Za-z_$][A-Za-z0-9_$]*) = this\.([A-Za-z_$][A-Za-z0-9_$]*) \? this\.([A-Za-z_$][A-Za-z0-9_$]*) \+ args\.([A-Za-z_$][A-Za-z0-9_$]*) : args\.([A-Za-z_$][A-Za-z0-9_$]*);?$`)

type patchReq struct {
	Script string                     `json:"Script"`
	Values map[string]json.RawMessage `json:"Values"`
}

type patchResult struct {
	ID           string  `json:"Id"`
	ChangeVector *string `json:"ChangeVector"`
	LastModified *string `json:"LastModified"`
	Type         string  `json:"Type"`
	PatchStatus  string  `json:"PatchStatus"`
	Debug        any     `json:"Debug"`
}

type notSupportedError struct{ msg string }

func (e *notSupportedError) Error() string { return e.msg }

// parsePatch reads the PATCH-specific properties of a command.
func parsePatch(i int, c *batchCommand, m map[string]json.RawMessage) error {
	if c.id == "" || strings.HasSuffix(c.id, "/") || strings.HasSuffix(c.id, "|") {
		// PatchDocumentCommand's constructor: ArgumentException (not mapped: 500).
		return fmt.Errorf("The ID argument has invalid value: '%s' (Parameter 'id')", c.id)
	}
	for _, name := range []string{"PatchIfMissing", "CreateIfMissing"} {
		if v, ok := m[name]; ok && strings.TrimSpace(string(v)) != "null" {
			return &notSupportedError{fmt.Sprintf("Command #%d: %s is not supported by the k6-writepath RavenDB test server (docs/contention.md)", i, name)}
		}
	}
	raw, ok := m["Patch"]
	if !ok || strings.TrimSpace(string(raw)) == "null" {
		return fmt.Errorf("Command #%d: PATCH of '%s' must have a 'Patch' object", i, c.id)
	}
	var p patchReq
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("Command #%d: invalid 'Patch': %v", i, err)
	}
	g := incrementScript.FindStringSubmatch(strings.TrimSpace(p.Script))
	if g == nil || g[1] != g[2] || g[1] != g[3] || g[4] != g[5] {
		return &notSupportedError{fmt.Sprintf("Command #%d: the k6-writepath RavenDB test server runs only the increment script `this.<f> = this.<f> ? this.<f> + args.<v> : args.<v>;` (docs/contention.md), not: %s", i, p.Script)}
	}
	var by float64
	if v, ok := p.Values[g[4]]; !ok || json.Unmarshal(v, &by) != nil {
		return &notSupportedError{fmt.Sprintf("Command #%d: the increment argument args.%s must be a number in 'Values'", i, g[4])}
	}
	c.patchField, c.patchBy = g[1], by
	return nil
}

// patch runs one increment inside the batch transaction t.
func (t *txn) patch(c batchCommand) (patchResult, error) {
	key := strings.ToLower(c.id)
	existing := t.get(key)
	if c.cv != nil && (existing == nil || existing.changeVector != *c.cv) {
		return patchResult{}, &concurrencyError{fmt.Sprintf("Could not patch document '%s' because non current change vector was used", c.id)}
	}
	if existing == nil {
		return patchResult{ID: c.id, Type: "PATCH", PatchStatus: "DocumentDoesNotExist"}, nil
	}
	if existing.raw == nil {
		return patchResult{}, &notSupportedError{"the k6-writepath RavenDB test server needs -store-bodies=true to run PATCH scripts"}
	}
	fields, meta := splitTopLevel(existing.raw)
	idx := -1
	var cur float64
	for j, f := range fields {
		if f.k == c.patchField {
			idx = j
			s := strings.TrimSpace(string(f.v))
			switch s {
			case "null", "false", "0", `""`:
				cur = 0
			default:
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return patchResult{}, &notSupportedError{fmt.Sprintf("the k6-writepath RavenDB test server increments numbers only; '%s'.%s is %s", c.id, c.patchField, s)}
				}
				cur = x
			}
		}
	}
	next := c.patchBy
	if cur != 0 {
		next = cur + c.patchBy
	}
	nv := json.RawMessage(strconv.FormatFloat(next, 'f', -1, 64))
	if idx >= 0 && string(fields[idx].v) == string(nv) {
		return patchResult{ID: c.id, Type: "PATCH", PatchStatus: "NotModified"}, nil
	}
	if idx >= 0 {
		fields[idx].v = nv
	} else {
		fields = append(fields, kv{c.patchField, nv})
	}
	d, err := t.put(existing.id, joinDocument(fields, meta), existing.collection, nil)
	if err != nil {
		return patchResult{}, err
	}
	lm := d.lastModified.Format(lastModifiedFormat)
	cv := d.changeVector
	return patchResult{ID: existing.id, ChangeVector: &cv, LastModified: &lm, Type: "PATCH", PatchStatus: "Patched"}, nil
}

// joinDocument is the inverse of splitTopLevel.
func joinDocument(fields, meta []kv) []byte {
	b := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(f.k)
		b = append(append(append(b, k...), ':'), f.v...)
	}
	if len(meta) > 0 {
		if len(fields) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"@metadata":{`...)
		for i, m := range meta {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(m.k)
			b = append(append(append(b, k...), ':'), m.v...)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
