// Declarations for the pack's own MongoDB module of bin/k6 (xk6/modules/mongodb, on the official
// Go driver v2.10.0), so that editors and `make typecheck` check lib/targets/mongodb.js. What
// each call sends and returns: docs/mongodb.md.
declare module 'k6/x/writepath/mongodb' {
  /** Write concern and per-call options. */
  export interface WriteOptions {
    ordered?: boolean;
    /** a number of members or "majority"; unset = the server's default */
    w?: number | string;
    /** journal acknowledgement; unset = not sent */
    j?: boolean;
    timeoutMs?: number;
    /** base64 of the collection's 16-byte UUID: a dropped collection refuses the write (361) */
    collectionUUID?: string;
    /** update() only */
    upsert?: boolean;
    /** update() only: numeric ids are written as prefix + number */
    prefix?: string;
  }
  /** A failure of a whole command. */
  export interface OpError {
    kind: 'timeout' | 'connection' | 'auth' | 'unauthorized' | 'server' | 'cancelled' | 'client' | 'write_concern';
    code: number;
    name: string;
    labels: string[];
    message: string;
  }
  /** One operation of a batch the server refused (its index in the batch). */
  export interface WriteError {
    index: number;
    code: number;
    message: string;
  }
  export interface Result {
    n: number;
    inserted: number;
    matched: number;
    modified: number;
    upserted: number;
    upsertedIndexes?: number[];
    errors: WriteError[] | null;
    notAttempted: number;
    writeConcernError: OpError | null;
    error: OpError | null;
  }
  export interface Client {
    /** op: insert | replace | merge | ignore; body: a JSON array of documents with _id */
    write(op: string, db: string, collection: string, body: ArrayBuffer | string, options?: WriteOptions): Result;
    /** one UpdateOne per id with the same update document */
    update(db: string, collection: string, ids: Array<string | number> | Float64Array, update: object | string, options?: WriteOptions): Result;
    /** reply: relaxed extended JSON text */
    command(db: string, command: object | string, options?: { timeoutMs?: number }): { reply: string | null; error: OpError | null };
    /** docs: a JSON array text of the documents (relaxed extended JSON) */
    find(db: string, collection: string, filter: object | string, options?: { projection?: object; limit?: number; timeoutMs?: number }): { docs: string | null; error: OpError | null };
    count(db: string, collection: string, filter: object | string, options?: { timeoutMs?: number }): { count: number; error: OpError | null };
    close(): void;
  }
  export function connect(url: string, options?: { appName?: string; serverSelectionTimeoutMs?: number; connectTimeoutMs?: number }): Client;
  /** the BSON a body turns into, as one canonical extended JSON array */
  export function parseBatch(body: ArrayBuffer | string): string;
  export const driverVersion: string;
  export const apiVersion: number;
  // The pack's per-key loops in Go, as the PostgreSQL driver module exports them (lib/native.js).
  export const writepathVersion: number;
  export function writepathFillUniform(state: ArrayBuffer, marks: ArrayBuffer, keys: ArrayBuffer, at: number, count: number,
    size: number, gen: number, batch: number, vu: number, vus: number): void;
  export function writepathPatchKeys(body: ArrayBuffer, keys: ArrayBuffer, count: number, key0: number, stride: number,
    words: number, stamp0: number, stamp: ArrayBuffer, prefix: number): number;
  export function writepathMatchKeys(keys: ArrayBuffer, count: number, sorted: ArrayBuffer, n: number, out: ArrayBuffer): number;
}
