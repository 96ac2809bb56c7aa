package main

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/storelimit"
)

// ---- /_api/version ---------------------------------------------------------

// handleVersion: 3.11 answers {"server","license","version"}; the 3.12 schema
// also has apiVersions/deprecatedApiVersions/requestedApiVersion (DOCS:administration
// getVersion, EX 3.12.10). license is "enterprise" for CE and EE alike.
func (s *server) handleVersion(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, 405, 405, "method not supported")
		return
	}
	v := map[string]any{"server": "arango", "license": "enterprise", "version": s.version}
	if versionAtLeast(s.version, 3, 12) {
		v["apiVersions"] = []string{"v0"}
		v["deprecatedApiVersions"] = []string{}
		v["requestedApiVersion"] = "v0"
	}
	if boolParam(r, "details", false) {
		v["details"] = map[string]any{
			"mode": "server", "role": "SINGLE", "architecture": "64bit",
			"server-version": s.version, "engine": "rocksdb", "license": "enterprise",
		}
	}
	writeJSON(w, 200, v)
}

func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(parts[1])
	return ma > major || (ma == major && mi >= minor)
}

// boolParam parses a query parameter like ArangoDB's parsedValue<bool>:
// "true"/"1"/"yes"/"on"/"y" are true, anything else false; absent = def.
func boolParam(r *http.Request, name string, def bool) bool {
	q := r.URL.Query()
	if !q.Has(name) {
		return def
	}
	switch strings.ToLower(q.Get(name)) {
	case "true", "1", "yes", "on", "y":
		return true
	}
	return false
}

// ---- /_api/database -------------------------------------------------------

// validDBName: traditional naming (letter first, then letters, digits, _ -; max 64 bytes).
func validDBName(n string) bool {
	if len(n) == 0 || len(n) > 64 {
		return false
	}
	c := n[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	return validNameChars(n)
}

func validNameChars(n string) bool {
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (s *server) handleDatabase(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet, len(rest) == 1 && rest[0] == "user" && r.Method == http.MethodGet:
		s.mu.RLock()
		names := make([]string, 0, len(s.dbs))
		for n := range s.dbs {
			names = append(names, n)
		}
		s.mu.RUnlock()
		sort.Strings(names)
		writeJSON(w, 200, map[string]any{"error": false, "code": 200, "result": names})
	case len(rest) == 1 && rest[0] == "current" && r.Method == http.MethodGet:
		writeJSON(w, 200, map[string]any{"error": false, "code": 200, "result": map[string]any{
			"id": db.id, "name": db.name, "isSystem": db.name == "_system", "path": "none",
			"sharding": "", "replicationFactor": 1, "writeConcern": 1,
		}})
	case len(rest) == 0 && r.Method == http.MethodPost:
		// Must be sent in the _system context, otherwise 403 (DOCS:databases).
		if db.name != "_system" {
			writeError(w, 403, 1230, "operation only allowed in system database")
			return
		}
		var body struct {
			Name string `json:"name"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeError(w, 400, 600, "invalid JSON object")
			return
		}
		if !validDBName(body.Name) {
			writeError(w, 400, 1229, "database name invalid")
			return
		}
		s.mu.Lock()
		if _, ok := s.dbs[body.Name]; ok {
			s.mu.Unlock()
			writeError(w, 409, 1207, "duplicate database name")
			return
		}
		s.dbs[body.Name] = &database{name: body.Name, id: nextID(), cols: map[string]*collection{}}
		s.mu.Unlock()
		// EX RestDatabaseCreate: 201 {"error":false,"code":201,"result":true}
		writeRaw(w, 201, []byte(`{"code":201,"error":false,"result":true}`))
	case len(rest) == 1 && r.Method == http.MethodDelete:
		if db.name != "_system" || rest[0] == "_system" {
			writeError(w, 403, 1230, "operation only allowed in system database")
			return
		}
		s.mu.Lock()
		dropped, ok := s.dbs[rest[0]]
		delete(s.dbs, rest[0])
		s.mu.Unlock()
		if ok {
			dropped.releaseStorage()
		}
		if !ok {
			writeError(w, 404, 1228, "database not found")
			return
		}
		s.trx.dropDatabase(rest[0])
		writeRaw(w, 200, []byte(`{"code":200,"error":false,"result":true}`))
	default:
		writeError(w, 405, 405, "method not supported")
	}
}

// ---- /_api/collection -----------------------------------------------------

// validColName: traditional naming (letter or _ first, then letters, digits, _ -; max 256 bytes).
func validColName(n string) bool {
	if len(n) == 0 || len(n) > 256 {
		return false
	}
	c := n[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	return validNameChars(n)
}

func (c *collection) basicInfo() map[string]any {
	return map[string]any{
		"id": c.id, "name": c.name, "status": 3, "type": c.typ,
		"isSystem": c.isSystem, "globallyUniqueId": c.guid,
	}
}

// properties mirrors EX RestCollectionCreateCollection (single server 3.12).
func (c *collection) properties() map[string]any {
	c.mu.RLock()
	wfs := c.waitForSync
	c.mu.RUnlock()
	last := c.keyLast.Load()
	ko := map[string]any{"allowUserKeys": c.allowUser, "type": c.keyType, "lastValue": last}
	if c.keyType == "autoincrement" {
		ko["increment"] = c.keyIncr
		ko["offset"] = c.keyOffset
	}
	return map[string]any{
		"error": false, "code": 200,
		"id": c.id, "name": c.name, "type": c.typ, "status": 3, "statusString": "loaded",
		"isSystem": c.isSystem, "globallyUniqueId": c.guid, "objectId": c.id,
		"waitForSync": wfs, "keyOptions": ko, "writeConcern": 1, "replicationFactor": 1,
		"minReplicationFactor": 1, "numberOfShards": 1, "shardKeys": []string{"_key"},
		"shardingStrategy": "hash", "cacheEnabled": false, "computedValues": nil, "schema": nil,
		"usesRevisionsAsDocumentIds": true, "syncByRevision": true, "isSmartChild": false,
		"internalValidatorType": 0, "isDisjoint": false, "isSmart": false,
	}
}

func (s *server) handleCollection(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	if len(rest) == 0 {
		switch r.Method {
		case http.MethodGet:
			excl := boolParam(r, "excludeSystem", false)
			db.mu.RLock()
			list := make([]map[string]any, 0, len(db.cols))
			for _, c := range db.cols {
				if excl && c.isSystem {
					continue
				}
				list = append(list, c.basicInfo())
			}
			db.mu.RUnlock()
			sort.Slice(list, func(i, j int) bool { return list[i]["name"].(string) < list[j]["name"].(string) })
			writeJSON(w, 200, map[string]any{"error": false, "code": 200, "result": list})
		case http.MethodPost:
			s.createCollection(w, r, db)
		default:
			writeError(w, 405, 405, "method not supported")
		}
		return
	}
	c := db.getCol(rest[0])
	if c == nil {
		writeError(w, 404, 1203, "collection or view not found: "+rest[0])
		return
	}
	sub := ""
	if len(rest) > 1 {
		sub = rest[1]
	}
	switch {
	case sub == "" && r.Method == http.MethodGet:
		info := c.basicInfo()
		info["error"], info["code"] = false, 200
		writeJSON(w, 200, info)
	case sub == "" && r.Method == http.MethodDelete:
		db.mu.Lock()
		delete(db.cols, c.name)
		db.mu.Unlock()
		c.releaseStorage()
		// EX: 200 {"error":false,"code":200,"id":"70199"}
		writeJSON(w, 200, map[string]any{"error": false, "code": 200, "id": c.id})
	case sub == "properties" && r.Method == http.MethodGet:
		writeJSON(w, 200, c.properties())
	case sub == "properties" && r.Method == http.MethodPut:
		var body struct {
			WaitForSync *bool `json:"waitForSync"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeError(w, 400, 600, "invalid JSON object")
			return
		}
		if body.WaitForSync != nil {
			c.mu.Lock()
			c.waitForSync = *body.WaitForSync
			c.mu.Unlock()
		}
		writeJSON(w, 200, c.properties())
	case sub == "count" && r.Method == http.MethodGet:
		// 200 with all properties plus "count"; honours x-arango-trx-id (EX RestCollectionGetCollectionCount).
		t, ok := s.trxFromRequest(w, r, db)
		if !ok {
			return
		}
		props := c.properties()
		props["count"] = s.countDocs(c, t)
		writeJSON(w, 200, props)
	case sub == "truncate" && r.Method == http.MethodPut:
		t, ok := s.trxFromRequest(w, r, db)
		if !ok {
			return
		}
		if t != nil {
			if !t.mayWrite(c.name) {
				t.mu.Unlock()
				writeError(w, 400, 1652, "collection not registered with transaction: "+c.name)
				return
			}
			t.overlay(c).truncate()
			t.mu.Unlock()
		} else {
			c.mu.Lock()
			c.truncateLocked()
			c.mu.Unlock()
		}
		// EX RestCollectionIdentifierTruncate: {id,name,status,type,isSystem,globallyUniqueId}
		info := c.basicInfo()
		info["error"], info["code"] = false, 200
		writeJSON(w, 200, info)
	default:
		writeError(w, 404, 404, "unknown path '"+r.URL.Path+"'")
	}
}

func (s *server) countDocs(c *collection, t *transaction) int {
	if t != nil {
		defer t.mu.Unlock()
		if ov := t.ovs[c]; ov != nil {
			c.mu.RLock()
			defer c.mu.RUnlock()
			return ov.count()
		}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.docs)
}

func (c *collection) truncateLocked() {
	storeLimit.Add(-c.stored)
	c.stored = 0
	c.docs = map[string]*document{}
	for _, ix := range c.indexes {
		if ix.unique {
			ix.values = map[string]string{}
		}
	}
}

func (s *server) createCollection(w http.ResponseWriter, r *http.Request, db *database) {
	var body struct {
		Name        string `json:"name"`
		Type        int    `json:"type"`
		WaitForSync bool   `json:"waitForSync"`
		IsSystem    bool   `json:"isSystem"`
		KeyOptions  struct {
			Type          string `json:"type"`
			AllowUserKeys *bool  `json:"allowUserKeys"`
			Increment     uint64 `json:"increment"`
			Offset        uint64 `json:"offset"`
		} `json:"keyOptions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, 400, 600, "invalid JSON object")
		return
	}
	if body.Name == "" || !validColName(body.Name) {
		writeError(w, 400, 1208, "illegal name")
		return
	}
	if body.Type == 0 {
		body.Type = 2
	}
	if body.Type != 2 && body.Type != 3 {
		writeError(w, 400, 1218, "invalid collection type")
		return
	}
	kt := body.KeyOptions.Type
	switch kt {
	case "":
		kt = "traditional"
	case "traditional", "autoincrement", "uuid", "padded":
	default:
		writeError(w, 400, 10, "invalid key generator type")
		return
	}
	c := &collection{
		db: db.name, name: body.Name, id: nextID(), typ: body.Type,
		isSystem: strings.HasPrefix(body.Name, "_"), keyType: kt, allowUser: true,
		keyIncr: 1, waitForSync: body.WaitForSync, docs: map[string]*document{},
	}
	c.guid = "h" + strings.ToUpper(strconv.FormatUint(nextTick()*2654435761, 16)) + "/" + c.id
	if body.KeyOptions.AllowUserKeys != nil {
		c.allowUser = *body.KeyOptions.AllowUserKeys
	}
	if body.KeyOptions.Increment > 0 {
		c.keyIncr = body.KeyOptions.Increment
	}
	c.keyOffset = body.KeyOptions.Offset
	db.mu.Lock()
	if _, ok := db.cols[body.Name]; ok {
		db.mu.Unlock()
		// 409/1207 per SRC GeneralResponse mapping.
		writeError(w, 409, 1207, "duplicate name")
		return
	}
	db.cols[body.Name] = c
	db.mu.Unlock()
	// Success is 200, not 201 (EX RestCollectionCreateCollection).
	writeJSON(w, 200, c.properties())
}

// ---- /_api/index ----------------------------------------------------------

type index struct {
	id     string // numeric part; the handle is "<collection>/<id>"
	name   string
	typ    string
	fields []string
	unique bool
	sparse bool
	extra  map[string]any
	values map[string]string // unique only: index value -> document key
}

func (c *collection) indexJSON(ix *index) map[string]any {
	m := map[string]any{}
	for k, v := range ix.extra {
		m[k] = v
	}
	m["id"] = c.name + "/" + ix.id
	m["name"] = ix.name
	m["type"] = ix.typ
	m["fields"] = ix.fields
	m["unique"] = ix.unique
	m["sparse"] = ix.sparse
	if ix.typ == "persistent" {
		for k, v := range map[string]any{"deduplicate": true, "estimates": true, "cacheEnabled": false} {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
		m["selectivityEstimate"] = 1
	}
	return m
}

func primaryIndexJSON(c *collection) map[string]any {
	return map[string]any{"id": c.name + "/0", "name": "primary", "type": "primary", "fields": []string{"_key"},
		"unique": true, "sparse": false, "selectivityEstimate": 1}
}

func (s *server) handleIndex(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	if len(rest) == 0 {
		name := r.URL.Query().Get("collection")
		if name == "" {
			writeError(w, 400, 1204, "parameter 'collection' not found")
			return
		}
		c := db.getCol(name)
		if c == nil {
			writeError(w, 404, 1203, "collection or view not found: "+name)
			return
		}
		switch r.Method {
		case http.MethodGet:
			c.mu.RLock()
			list := []map[string]any{primaryIndexJSON(c)}
			for _, ix := range c.indexes {
				list = append(list, c.indexJSON(ix))
			}
			c.mu.RUnlock()
			ids := map[string]any{}
			for _, ix := range list {
				ids[ix["id"].(string)] = ix
			}
			writeJSON(w, 200, map[string]any{"error": false, "code": 200, "indexes": list, "identifiers": ids})
		case http.MethodPost:
			s.createIndex(w, r, c)
		default:
			writeError(w, 405, 405, "method not supported")
		}
		return
	}
	if len(rest) != 2 {
		writeError(w, 400, 1214, "index handle is corrupt")
		return
	}
	c := db.getCol(rest[0])
	if c == nil {
		writeError(w, 404, 1203, "collection or view not found: "+rest[0])
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rest[1] == "0" || rest[1] == "primary" {
		if r.Method == http.MethodGet {
			m := primaryIndexJSON(c)
			m["error"], m["code"] = false, 200
			writeJSON(w, 200, m)
		} else {
			writeError(w, 403, 11, "cannot drop primary index")
		}
		return
	}
	for i, ix := range c.indexes {
		if ix.id != rest[1] && ix.name != rest[1] {
			continue
		}
		switch r.Method {
		case http.MethodGet:
			m := c.indexJSON(ix)
			m["error"], m["code"] = false, 200
			writeJSON(w, 200, m)
		case http.MethodDelete:
			c.indexes = append(c.indexes[:i:i], c.indexes[i+1:]...)
			writeJSON(w, 200, map[string]any{"error": false, "code": 200, "id": c.name + "/" + ix.id})
		default:
			writeError(w, 405, 405, "method not supported")
		}
		return
	}
	writeError(w, 404, 1212, "index not found")
}

// createIndex: 201 when newly created, 200 when an equivalent index exists,
// 400 when a unique index is violated by existing data (DOCS:indexes/persistent).
func (s *server) createIndex(w http.ResponseWriter, r *http.Request, c *collection) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, 400, 600, "invalid JSON object")
		return
	}
	typ, _ := body["type"].(string)
	switch typ {
	case "hash", "skiplist":
		typ = "persistent" // legacy aliases map to persistent since 3.9
	case "persistent", "ttl", "geo", "fulltext", "inverted", "zkd", "mdi", "mdi-prefixed":
	default:
		writeError(w, 400, 10, "invalid index type")
		return
	}
	raw, _ := body["fields"].([]any)
	if len(raw) == 0 {
		writeError(w, 400, 10, "invalid index fields")
		return
	}
	fields := make([]string, 0, len(raw))
	for _, f := range raw {
		fs, ok := f.(string)
		if !ok || fs == "" {
			writeError(w, 400, 10, "invalid index fields")
			return
		}
		fields = append(fields, fs)
	}
	unique, _ := body["unique"].(bool)
	sparse, _ := body["sparse"].(bool)
	name, _ := body["name"].(string)

	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ix := range c.indexes {
		if (name != "" && ix.name == name) ||
			(ix.typ == typ && ix.unique == unique && ix.sparse == sparse && strings.Join(ix.fields, "\x00") == strings.Join(fields, "\x00")) {
			m := c.indexJSON(ix)
			m["isNewlyCreated"], m["error"], m["code"] = false, false, 200
			writeJSON(w, 200, m)
			return
		}
	}
	ix := &index{id: nextID(), typ: typ, fields: fields, unique: unique, sparse: sparse, extra: map[string]any{}}
	ix.name = name
	if ix.name == "" {
		ix.name = "idx_" + ix.id
	}
	for k, v := range body {
		switch k {
		case "type", "fields", "unique", "sparse", "name", "inBackground":
		default:
			ix.extra[k] = v
		}
	}
	if unique {
		ix.values = map[string]string{}
		for _, d := range c.docs {
			vk, skip := indexValue(ix, d.raw)
			if skip {
				continue
			}
			if _, dup := ix.values[vk]; dup {
				writeError(w, 400, 1210, "unique constraint violated - in index "+ix.name+" of type persistent over '"+strings.Join(fields, ", ")+"'; conflicting key: "+d.key)
				return
			}
			ix.values[vk] = d.key
		}
	}
	c.indexes = append(c.indexes, ix)
	m := c.indexJSON(ix)
	m["isNewlyCreated"], m["error"], m["code"] = true, false, 201
	writeJSON(w, 201, m)
}

// indexValue computes the canonical value tuple of a document for a unique
// index. Missing attributes count as null; sparse indexes skip documents
// where any indexed attribute is null or missing.
func indexValue(ix *index, raw []byte) (string, bool) {
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	dec.Decode(&doc)
	vals := make([]any, len(ix.fields))
	for i, f := range ix.fields {
		var cur any = doc
		for _, p := range strings.Split(f, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				cur = nil
				break
			}
			cur = m[p]
		}
		if cur == nil && ix.sparse {
			return "", true
		}
		vals[i] = cur
	}
	b, _ := json.Marshal(vals)
	return string(b), false
}

// uniqueConflict reports the unique-index violation (if any) that storing raw
// under key would cause. Caller holds c.mu.
func (c *collection) uniqueConflict(key string, raw []byte) (string, bool) {
	for _, ix := range c.indexes {
		if !ix.unique {
			continue
		}
		vk, skip := indexValue(ix, raw)
		if skip {
			continue
		}
		if owner, ok := ix.values[vk]; ok && owner != key {
			return "unique constraint violated - in index " + ix.name + " of type persistent over '" +
				strings.Join(ix.fields, ", ") + "'; conflicting key: " + owner, true
		}
	}
	return "", false
}

func (c *collection) hasUnique() bool {
	for _, ix := range c.indexes {
		if ix.unique {
			return true
		}
	}
	return false
}

// putLocked stores d (replacing old, if any) and maintains unique indexes.
func (c *collection) putLocked(d, old *document) {
	if old != nil {
		c.unindexLocked(old)
	}
	for _, ix := range c.indexes {
		if ix.unique {
			if vk, skip := indexValue(ix, d.raw); !skip {
				ix.values[vk] = d.key
			}
		}
	}
	c.docs[d.key] = d
	delta := storelimit.Size(d.raw, d.key)
	if old != nil {
		delta -= storelimit.Size(old.raw, old.key)
	}
	c.stored += delta
	storeLimit.Add(delta)
}

func (c *collection) deleteLocked(old *document) {
	c.unindexLocked(old)
	delete(c.docs, old.key)
	delta := storelimit.Size(old.raw, old.key)
	c.stored -= delta
	storeLimit.Add(-delta)
}

func (c *collection) unindexLocked(old *document) {
	for _, ix := range c.indexes {
		if ix.unique {
			if vk, skip := indexValue(ix, old.raw); !skip && ix.values[vk] == old.key {
				delete(ix.values, vk)
			}
		}
	}
}
