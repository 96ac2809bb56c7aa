// Declarations for the extension modules bin/k6 adds (xk6/: xk6-sql v1.0.5 and its PostgreSQL
// driver), so that editors and `make typecheck` check lib/targets/postgres.js. Written after
// xk6-sql's own declarations (github.com/grafana/xk6-sql, index.d.ts, v1.0.5, Apache-2.0), with
// one difference: the fields of Options are optional, as the Go side treats them (sql/module.go).
declare module 'k6/x/sql' {
  /** Connection pool settings (Go database/sql); unset fields keep Go's defaults. */
  export interface Options {
    conn_max_idle_time?: string;
    conn_max_lifetime?: string;
    max_idle_conns?: number;
    max_open_conns?: number;
  }
  /** One row of a query result: column name -> value. */
  export interface Row {
    [key: string]: unknown;
  }
  export interface Result {
    lastInsertId(): number;
    rowsAffected(): number;
  }
  export interface Database {
    close(): void;
    exec(query: string, ...args: any[]): Result;
    execWithTimeout(timeout: string, query: string, ...args: any[]): Result;
    query(query: string, ...args: any[]): Row[];
    queryWithTimeout(timeout: string, query: string, ...args: any[]): Row[];
  }
  /** Opens a database with a driver module's default export (its identifier). */
  export function open(driverID: symbol, dataSourceName: string, options?: Options): Database;
  const sql: { open: typeof open };
  export default sql;
}

declare module 'k6/x/sql/driver/postgres' {
  /** Driver identifier for sql.open (registered by bin/k6 under this import path). */
  const driver: symbol;
  export default driver;
  // bin/k6 only (xk6/modules/writepath, lib/native.js); absent from the upstream driver extension
  export const writepathVersion: number | undefined;
  export function writepathFillUniform(state: ArrayBuffer, marks: ArrayBuffer, keys: ArrayBuffer, at: number, count: number,
    size: number, gen: number, batch: number, vu: number, vus: number): void;
  export function writepathPatchKeys(body: ArrayBuffer, keys: ArrayBuffer, count: number, key0: number, stride: number,
    width: number, stamp0: number, stamp: ArrayBuffer, prefix: number): number;
  export function writepathMatchKeys(keys: ArrayBuffer, count: number, sorted: ArrayBuffer, n: number, out: ArrayBuffer): number;
  // process-wide body images: the length of the image of key (made by build() if no VU made it yet),
  // and dst[offset … offset+length) filled with it, repeated
  export function writepathImage(key: string, build: () => ArrayBuffer): number;
  export function writepathFill(key: string, dst: ArrayBuffer, offset: number, length: number): void;
  // batch bodies rendered for this binary's driver (lib/docs.js render mode): a Go object passed
  // to exec as a statement parameter; render records a batch (-> count, or the index of the first
  // key that does not fit); bodyBytes copies the bytes (tests)
  export interface WritepathBody { readonly byteLength: number }
  export function writepathBody(): WritepathBody;
  export function writepathRender(body: WritepathBody, key: string, base: number, count: number, stride: number, lead: ArrayBuffer,
    close: ArrayBuffer, key0: number, width: number, stamp0: number, stamp: ArrayBuffer, prefix: number, keys: ArrayBuffer | null, start: number): number;
  export function writepathBodyBytes(body: WritepathBody): ArrayBuffer;
}
