// The registry of targets: every database the pack writes to, by its declaration (knobs,
// failure reasons, capabilities; lib/targets/<db>/<db>-knobs.js). lib/config.js composes the
// knobs of the run and workloads (lib/knobs.js) with these; scripts/knobs-table.mjs, the
// misspelling check, redaction and the plan signature follow from it. The adapters
// themselves (lib/targets/<db>/<db>.js, createTarget) are imported by the scenarios only: they
// need k6 modules (an HTTP scenario must not import xk6-sql, which stock k6 lacks).
// Adding a database: docs/design.md, "Adding a database".
import { POSTGRES } from './postgres/postgres-knobs.js';
import { ARANGODB } from './arangodb/arangodb-knobs.js';
import { RAVENDB } from './ravendb/ravendb-knobs.js';
import { MONGODB } from './mongodb/mongodb-knobs.js';

export const TARGETS = [POSTGRES, ARANGODB, RAVENDB, MONGODB];
