package main

// Server-level and management endpoints (ravendb/ravendb AdminDatabasesHandler, DatabasesHandler), plus what the
// official Node client calls on its own (topology, node info).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// GET /build/version -> {"BuildVersion":71,"ProductVersion":"7.1","CommitHash":"..","FullVersion":"7.1.2"}
// (GetBuildNumberOperation parses it as-is).
func (s *server) handleBuildVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		BuildVersion   int    `json:"BuildVersion"`
		ProductVersion string `json:"ProductVersion"`
		CommitHash     string `json:"CommitHash"`
		FullVersion    string `json:"FullVersion"`
	}{s.buildVersion(), s.productVersion(), "k6wpath", s.version})
}

// GET /cluster/topology: ClusterRequestExecutor (store.maintenance.server)
// reads Topology.Members/Watchers (ServerNode.createFrom), Etag and Status
// (must be an object: GetClusterTopologyCommand does Object.entries(status)).
func (s *server) handleClusterTopology(w http.ResponseWriter, r *http.Request) {
	nodes := map[string]string{nodeTag: s.baseURL}
	writeJSON(w, http.StatusOK, map[string]any{
		"Topology": map[string]any{
			"TopologyId":  "00000000-0000-0000-0000-00000000k6wp",
			"AllNodes":    nodes,
			"Members":     nodes,
			"Promotables": map[string]string{},
			"Watchers":    map[string]string{},
			"LastNodeId":  nodeTag,
			"Etag":        1,
		},
		"Etag":                  1,
		"Leader":                nodeTag,
		"LeaderShipDuration":    0,
		"CurrentState":          "Leader",
		"NodeTag":               nodeTag,
		"CurrentTerm":           1,
		"NodeLicenseDetails":    map[string]any{},
		"LastStateChangeReason": "Leader, I'm the only one in thecluster, so I'm the leader (at test server start)",
		"Status":                map[string]any{},
	})
}

// GET /cluster/node-info: used by RequestExecutor._singleTopologyUpdateAsync
// when topology updates are disabled (reads nodeTag, serverRole).
func (s *server) handleNodeInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"NodeTag":             nodeTag,
		"TopologyId":          "00000000-0000-0000-0000-00000000k6wp",
		"Certificate":         nil,
		"ClusterStatus":       "Joined",
		"NumberOfCores":       1,
		"InstalledMemoryInGb": 1.0,
		"UsableMemoryInGb":    1.0,
		"BuildInfo": map[string]any{"ProductVersion": s.productVersion(), "BuildVersion": s.buildVersion(),
			"CommitHash": "k6wpath", "FullVersion": s.version},
		"OsInfo":              nil,
		"ServerId":            "00000000-0000-0000-0000-00000000k6wp",
		"CurrentState":        "Leader",
		"HasFixedPort":        true,
		"ServerSchemaVersion": 0,
		"ServerRole":          "Member",
	})
}

// GET /topology?name=<db>: DatabasesHandler.GetTopology. Existing database ->
// {"Promotables":[],"Nodes":[{"Url","ClusterTag","ServerRole","Database"}],"Etag":N};
// missing -> 503 with header Database-Missing and {"Type":"Error","Message":"Database X wasn't found"}
// (the client turns that header into DatabaseDoesNotExistException).
func (s *server) handleDatabaseTopology(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Query string name is mandatory, but wasn't specified.", "")
		return
	}
	db := s.getDB(name)
	if db == nil {
		w.Header().Set("Database-Missing", name)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"Type": "Error", "Message": "Database " + name + " wasn't found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"Promotables": []any{},
		"Nodes": []map[string]any{{
			"Url": s.baseURL, "ClusterTag": nodeTag, "ServerRole": "Member", "Database": db.name,
			"ServerVersion": s.serverVersionHeader(),
		}},
		"Etag": db.raftIndex,
	})
}

// GET /databases[?namesOnly=true][&name=X]: {"Databases":[...]} (names, or
// minimal DatabaseInfo objects); name of a missing database -> 404 + Database-Missing.
func (s *server) handleListDatabases(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	namesOnly := strings.EqualFold(q.Get("namesOnly"), "true")
	want := q.Get("name")
	s.mu.RLock()
	list := make([]*database, 0, len(s.dbs))
	for _, db := range s.dbs {
		if want == "" || strings.EqualFold(db.name, want) {
			list = append(list, db)
		}
	}
	s.mu.RUnlock()
	if want != "" && len(list) == 0 {
		w.Header().Set("Database-Missing", want)
		writeEmpty(w, http.StatusNotFound)
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	out := make([]any, 0, len(list))
	for _, db := range list {
		if namesOnly {
			out = append(out, db.name)
			continue
		}
		db.mu.RLock()
		n := len(db.docs)
		ni := len(db.indexes)
		db.mu.RUnlock()
		out = append(out, map[string]any{
			"Name": db.name, "Disabled": false, "IsAdmin": true, "IsEncrypted": false,
			"DocumentsCount": n, "IndexesCount": ni, "ReplicationFactor": 1, "UpTime": nil,
			"NodesTopology": map[string]any{"Members": []map[string]any{{"NodeTag": nodeTag, "NodeUrl": s.baseURL, "ResponsibleNode": nil}}},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"Databases": out})
}

var dbNameRe = regexp.MustCompile(`^[A-Za-z0-9_\-.]+$`)

// topologyJSON is DatabaseTopology.ToJson() of the real server (ravendb/ravendb
// src/Raven.Client/ServerWide/DatabaseTopology.cs, 6.x/7.x: Members, Promotables, Rehabs,
// Stamp, PromotablesStatus, DemotionReasons, DynamicNodesDistribution, ReplicationFactor,
// DatabaseTopologyIdBase64, ClusterTransactionIdBase64, PriorityOrder; PredefinedMentors is
// not serialised). The official Python client 7.2.7 (ravendb/serverwide/misc.py,
// DatabaseTopology.from_json) indexes DatabaseTopologyIdBase64 and PriorityOrder directly, so
// an answer without them fails create-database with a KeyError. The two ids are 16 random
// bytes in unpadded base64 (22 characters), like the Guid the server stores there.
func (s *server) topologyJSON(db *database, index int64) map[string]any {
	return map[string]any{
		"Members": []string{s.dbNode}, "Promotables": []string{}, "Rehabs": []string{},
		"Stamp":             map[string]any{"Index": index, "Term": 1, "LeadersTicks": -2},
		"PromotablesStatus": map[string]any{}, "DemotionReasons": map[string]any{},
		"DynamicNodesDistribution": false, "ReplicationFactor": 1,
		"DatabaseTopologyIdBase64":   db.topologyID,
		"ClusterTransactionIdBase64": db.clusterTxID,
		"PriorityOrder":              []string{},
	}
}

// PUT /admin/databases?name=<db>&replicationFactor=1, body {"DatabaseName":..}
// -> 201 {"RaftCommandIndex","Name","Topology","NodesAddedTo":[url]};
// existing -> 409 ConcurrencyException "Database 'X' already exists!" unless a
// numeric ETag header is sent (modify an existing record, AdminDatabasesHandler.Put).
// The Node client sends `ETag: "undefined"` when creating, which we ignore.
func (s *server) handleCreateDatabase(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Could not parse the database record: "+err.Error(), "")
		return
	}
	var name string
	if v, ok := top["DatabaseName"]; ok {
		_ = json.Unmarshal(v, &name)
	}
	if name == "" {
		name = r.URL.Query().Get("name")
	}
	if name == "" || !dbNameRe.MatchString(name) {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException",
			fmt.Sprintf("The name '%s' is not permitted. Only letters, digits and characters ('_', '-', '.') are allowed.", name), "")
		return
	}
	modify := false
	if et := strings.Trim(r.Header.Get("ETag"), "\""); et != "" {
		var n int64
		if _, err := fmt.Sscan(et, &n); err == nil {
			modify = true
		}
	}
	s.mu.Lock()
	existing := s.dbs[strings.ToLower(name)]
	if existing != nil && !modify {
		s.mu.Unlock()
		writeError(w, r, http.StatusConflict, "Raven.Client.Exceptions.ConcurrencyException", fmt.Sprintf("Database '%s' already exists!", name), "")
		return
	}
	idx := s.raftIndex.Add(1)
	if existing == nil {
		existing = newDatabase(name, idx)
		existing.persist = s.persist
		s.dbs[strings.ToLower(name)] = existing
		s.persistCreate(existing)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"RaftCommandIndex": idx,
		"Name":             name,
		"Topology":         s.topologyJSON(existing, idx),
		"NodesAddedTo":     s.nodesAddedTo(),
	})
}

// nodesAddedTo: the URLs of the nodes the database was added to (DatabasePutResult.NodesAddedTo);
// for -database-node other than this node the double knows no URL and lists none.
func (s *server) nodesAddedTo() []string {
	if s.dbNode != nodeTag {
		return []string{}
	}
	return []string{s.baseURL}
}

// DELETE /admin/databases body {"DatabaseNames":[..],"HardDelete":true,"FromNodes":null,"TimeToWaitForConfirmation":null}
// -> 200 {"RaftCommandIndex":N,"PendingDeletes":[]}; missing names are skipped.
func (s *server) handleDeleteDatabases(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Could not parse the request body: "+err.Error(), "")
		return
	}
	var names []string
	if v, ok := top["DatabaseNames"]; ok {
		_ = json.Unmarshal(v, &names)
	}
	if len(names) == 0 {
		writeError(w, r, http.StatusInternalServerError, "System.ArgumentNullException", "Value cannot be null. (Parameter 'DatabaseNames')", "")
		return
	}
	// deleteWindowMs (faults.go): the databases are unloaded first, and answer 503
	// DatabaseDisabledException until they are gone; the DELETE answers after that.
	if win := s.faults.get().DeleteWindowMs; win > 0 {
		s.mu.RLock()
		some := false
		for _, n := range names {
			if db := s.dbs[strings.ToLower(n)]; db != nil {
				db.unloading.Store(true)
				some = true
			}
		}
		s.mu.RUnlock()
		if some {
			time.Sleep(time.Duration(win) * time.Millisecond)
		}
	}
	s.mu.Lock()
	for _, n := range names {
		if db := s.dbs[strings.ToLower(n)]; db != nil {
			s.persistDrop(db.name)
			db.mu.Lock()
			storeLimit.Add(-db.stored)
			db.stored = 0
			db.mu.Unlock()
		}
		delete(s.dbs, strings.ToLower(n))
	}
	idx := s.raftIndex.Add(1)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"RaftCommandIndex": idx, "PendingDeletes": []string{}})
}

// GET /admin/databases?name=X: a minimal database record; missing -> 404 + Database-Missing.
func (s *server) handleGetDatabaseRecord(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	db := s.getDB(name)
	if db == nil {
		w.Header().Set("Database-Missing", name)
		writeEmpty(w, http.StatusNotFound)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"DatabaseName": db.name, "Disabled": false, "Encrypted": false, "Settings": map[string]any{},
		"Topology": s.topologyJSON(db, db.raftIndex), "Indexes": map[string]any{}, "Etag": db.raftIndex,
	})
}

// GET /databases/<db>/configuration/client -> {"Etag":0,"Configuration":null}.
// Only fetched when a response carries Refresh-Client-Configuration, which the
// double never sends.
func (s *server) handleClientConfiguration(w http.ResponseWriter, r *http.Request, db *database) {
	writeJSON(w, http.StatusOK, map[string]any{"Etag": 0, "Configuration": nil})
}

func (db *database) indexStatsLocked(ix *indexDef) map[string]any {
	var entries int64
	for _, c := range ix.collections {
		if ci := db.colls[strings.ToLower(c)]; ci != nil {
			entries += ci.count
		}
	}
	return map[string]any{
		"Name": ix.name, "IsStale": false, "State": "Normal", "LockMode": ix.lockMode, "Priority": ix.priority,
		"Type": ix.typ, "SourceType": "Documents", "LastIndexingTime": time.Now().UTC().Format(lastModifiedFormat),
		"EntriesCount": entries, "Collections": ix.collections,
	}
}

// GET /databases/<db>/stats: CountOfDocuments, CountOfIndexes, Indexes[{Name,IsStale,...}], ...
func (s *server) handleStats(w http.ResponseWriter, r *http.Request, db *database) {
	db.mu.RLock()
	var size int64
	for _, d := range db.docs {
		size += int64(len(d.raw)) + 128
	}
	idx := make([]map[string]any, 0, len(db.indexes))
	names := make([]string, 0, len(db.indexes))
	for n := range db.indexes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := db.indexStatsLocked(db.indexes[n])
		delete(st, "EntriesCount")
		delete(st, "Collections")
		idx = append(idx, st)
	}
	out := map[string]any{
		"LastDocEtag": db.etag, "LastDatabaseEtag": db.etag,
		"CountOfIndexes": len(db.indexes), "CountOfDocuments": len(db.docs),
		"CountOfRevisionDocuments": 0, "CountOfDocumentsConflicts": 0, "CountOfTombstones": db.tombstones,
		"CountOfConflicts": 0, "CountOfAttachments": 0, "CountOfUniqueAttachments": 0,
		"CountOfCounterEntries": 0, "CountOfTimeSeriesSegments": 0,
		"Indexes":               idx,
		"DatabaseChangeVector":  db.changeVectorFor(db.etag),
		"DatabaseId":            db.dbID,
		"Is64Bit":               true,
		"Pager":                 "k6-writepath in-memory test double",
		"LastIndexingTime":      nil,
		"SizeOnDisk":            map[string]any{"HumaneSize": humane(size), "SizeInBytes": size},
		"TempBuffersSizeOnDisk": map[string]any{"HumaneSize": "0 Bytes", "SizeInBytes": 0},
		"NumberOfTransactionMergerQueueOperations": 0,
	}
	db.mu.RUnlock()
	writeJSON(w, http.StatusOK, out)
}

// GET /databases/<db>/collections/stats -> {"CountOfDocuments","CountOfConflicts","Collections":{"Users":N}}
func (s *server) handleCollectionStats(w http.ResponseWriter, r *http.Request, db *database) {
	db.mu.RLock()
	colls := make(map[string]int64, len(db.colls))
	for _, ci := range db.colls {
		if ci.count > 0 {
			colls[ci.name] = ci.count
		}
	}
	n := len(db.docs)
	db.mu.RUnlock()
	writeJSON(w, http.StatusOK, map[string]any{"CountOfDocuments": n, "CountOfConflicts": 0, "Collections": colls})
}

var docsCollectionRe = regexp.MustCompile(`docs\.([A-Za-z_@][A-Za-z0-9_]*)|docs\[\s*["']([^"']+)["']\s*\]|load\(\s*[^,]+,\s*["']([^"']+)["']|map\(\s*["']([^"']+)["']`)

// PUT /databases/<db>/admin/indexes body {"Indexes":[{"Name","Maps":[..],"Reduce"?,..}]}
// -> 201 {"Results":[{"Index":name,"RaftCommandIndex":N}]}. Empty Maps is
// rejected like AdminIndexHandler.PutInternal ("Index must have a 'Maps'
// fields", an ArgumentException, i.e. 500). The type is detected from the
// definition (Map / MapReduce / JavaScriptMap / JavaScriptMapReduce).
func (s *server) handlePutIndexes(w http.ResponseWriter, r *http.Request, db *database) {
	raw, _ := io.ReadAll(r.Body)
	defs, status, typ, msg := parseIndexDefs(raw)
	if defs == nil {
		writeError(w, r, status, typ, msg, "")
		return
	}
	results := make([]map[string]any, 0, len(defs))
	db.mu.Lock()
	for _, ix := range defs {
		db.indexes[ix.name] = ix
		results = append(results, map[string]any{"Index": ix.name, "RaftCommandIndex": s.raftIndex.Add(1)})
	}
	db.persistIndexes(raw)
	db.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"Results": results})
}

// parseIndexDefs reads a PUT admin/indexes body; nil and the error answer when it is refused.
func parseIndexDefs(raw []byte) ([]*indexDef, int, string, string) {
	var body struct {
		Indexes []map[string]json.RawMessage `json:"Indexes"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Could not parse the index definitions: " + err.Error()
	}
	defs := make([]*indexDef, 0, len(body.Indexes))
	for _, m := range body.Indexes {
		ix := &indexDef{lockMode: "Unlock", priority: "Normal", created: time.Now().UTC()}
		if v, ok := m["Name"]; ok {
			_ = json.Unmarshal(v, &ix.name)
		}
		if v, ok := m["Maps"]; ok {
			_ = json.Unmarshal(v, &ix.maps)
		}
		if v, ok := m["Reduce"]; ok {
			_ = json.Unmarshal(v, &ix.reduce)
		}
		if v, ok := m["LockMode"]; ok {
			var lm string
			if json.Unmarshal(v, &lm) == nil && lm != "" {
				ix.lockMode = lm
			}
		}
		if v, ok := m["Priority"]; ok {
			var p string
			if json.Unmarshal(v, &p) == nil && p != "" {
				ix.priority = p
			}
		}
		if ix.name == "" {
			return nil, http.StatusInternalServerError, "System.ArgumentException", "Index name cannot be null or empty"
		}
		nonEmpty := false
		for _, mp := range ix.maps {
			if strings.TrimSpace(mp) != "" {
				nonEmpty = true
			}
		}
		if !nonEmpty {
			return nil, http.StatusInternalServerError, "System.ArgumentException", "Index must have a 'Maps' fields"
		}
		js := strings.HasPrefix(strings.TrimSpace(ix.maps[0]), "map(")
		switch {
		case js && ix.reduce != "":
			ix.typ = "JavaScriptMapReduce"
		case js:
			ix.typ = "JavaScriptMap"
		case ix.reduce != "":
			ix.typ = "MapReduce"
		default:
			ix.typ = "Map"
		}
		seen := map[string]bool{}
		for _, mp := range ix.maps {
			for _, g := range docsCollectionRe.FindAllStringSubmatch(mp, -1) {
				for _, c := range g[1:] {
					if c != "" && !seen[strings.ToLower(c)] {
						seen[strings.ToLower(c)] = true
						ix.collections = append(ix.collections, c)
					}
				}
			}
		}
		defs = append(defs, ix)
	}
	return defs, 0, "", ""
}

// GET /databases/<db>/indexes[?name=X] -> {"Results":[definitions]}
func (s *server) handleGetIndexes(w http.ResponseWriter, r *http.Request, db *database) {
	want := r.URL.Query().Get("name")
	db.mu.RLock()
	out := []map[string]any{}
	for _, ix := range db.indexes {
		if want != "" && ix.name != want {
			continue
		}
		d := map[string]any{"Name": ix.name, "Maps": ix.maps, "Type": ix.typ, "LockMode": ix.lockMode,
			"Priority": ix.priority, "SourceType": "Documents", "Fields": map[string]any{}, "Configuration": map[string]any{}}
		if ix.reduce != "" {
			d["Reduce"] = ix.reduce
		} else {
			d["Reduce"] = nil
		}
		out = append(out, d)
	}
	db.mu.RUnlock()
	if want != "" && len(out) == 0 {
		writeEmpty(w, http.StatusNotFound)
		return
	}
	// IndexHandler.GetAll (ravendb/ravendb src/Raven.Server/Documents/Handlers/IndexHandler.cs):
	// indexes ordered by name, then start/pageSize; namesOnly=true writes only the names
	// ({"Results":["Users/ByEmail"]}, what GetIndexNamesOperation of every client reads).
	sort.Slice(out, func(i, j int) bool { return out[i]["Name"].(string) < out[j]["Name"].(string) })
	q := r.URL.Query()
	if start, err := strconv.Atoi(q.Get("start")); err == nil && start > 0 {
		out = out[min(start, len(out)):]
	}
	if size, err := strconv.Atoi(q.Get("pageSize")); err == nil && size >= 0 && size < len(out) {
		out = out[:size]
	}
	if strings.EqualFold(q.Get("namesOnly"), "true") {
		names := make([]string, len(out))
		for i, d := range out {
			names[i] = d["Name"].(string)
		}
		writeJSON(w, http.StatusOK, map[string]any{"Results": names})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"Results": out})
}

// DELETE /databases/<db>/indexes?name=X -> 204; unknown index -> 404 (inferred).
func (s *server) handleDeleteIndex(w http.ResponseWriter, r *http.Request, db *database) {
	name := r.URL.Query().Get("name")
	db.mu.Lock()
	_, ok := db.indexes[name]
	delete(db.indexes, name)
	if ok {
		db.persistIndexDelete(name)
	}
	db.mu.Unlock()
	if !ok {
		writeEmpty(w, http.StatusNotFound)
		return
	}
	writeEmpty(w, http.StatusNoContent)
}

// GET /databases/<db>/indexes/stats -> {"Results":[{Name,IsStale,State,Type,EntriesCount,Collections,..}]}
func (s *server) handleIndexStats(w http.ResponseWriter, r *http.Request, db *database) {
	db.mu.RLock()
	names := make([]string, 0, len(db.indexes))
	for n := range db.indexes {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, db.indexStatsLocked(db.indexes[n]))
	}
	db.mu.RUnlock()
	writeJSON(w, http.StatusOK, map[string]any{"Results": out})
}
