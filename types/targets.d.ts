// The contract between the pack and a target (docs/design.md, "Adding a database";
// lib/targets/outcome.js says what each field of a request and an answer means). The
// declarations (lib/targets/<db>/<db>-knobs.js) are `Declaration`s, createTarget returns a
// `Target`, its builders return `Request`s whose send() returns an `Answer`: `make typecheck`
// then fails when an adapter drops or mistypes a part of it. Loose where the pack is loose
// (cfg, bodies, k6 responses), exact in the names.

/** A knob as lib/knobs.js and lib/parse.js read it; the fields depend on its type. */
export interface Knob {
  type: string;
  doc: string;
  [field: string]: any;
}

/**
 * What a declaration states of its target (lib/capabilities.js names each): its batch
 * operations and facts. The groups of functions (single, transactions, increment) are never
 * declared: withCapabilities() derives them from the target's sub-objects (`documents`,
 * `increments`), so a flag cannot claim a function the target lacks.
 */
export interface DeclaredCapabilities {
  batch: string[];
  count?: boolean;
  readback?: boolean;
  collections?: number;
  planIndexes?: boolean;
  undetermined?: boolean;
  unnamedFailures?: boolean;
  /** Where the server counts the conflicts it resolves itself; offered with increments.serverConflicts(). */
  serverConflicts?: string;
  compression?: 'gzip' | null;
  single?: never;
  transactions?: never;
  increment?: never;
}

/** What a workload may ask of a target: the declared capabilities and the derived groups. */
export interface Capabilities extends Omit<DeclaredCapabilities, 'single' | 'transactions' | 'increment'> {
  single?: boolean;
  transactions?: boolean;
  increment?: boolean;
}

/** A target's declaration: no k6 module, so Node reads it too (lib/targets/index.js). */
export interface Declaration {
  name: string;
  prefix: string;
  knobs: Record<string, Knob>;
  otherEnv: string[];
  reasons: string[];
  capabilities(cfg: any): DeclaredCapabilities;
  distributed: boolean;
  /** Reached through the pack's gateway (docs/gateway.md). */
  gateway?: boolean;
  /** What a VU holds per request format (lib/memory.js). */
  memory: { transport: 'http' | 'sql'; formats(ops: string[]): number };
}

/** What send() (or its settle()) returns; ACKNOWLEDGED (lib/targets/outcome.js) when all was written. */
export interface Answer {
  responses?: any[];
  reason?: string;
  failed?: number;
  byReason?: Record<string, number>;
  failedIndexes?: number[];
  bytes?: number;
  log?: string;
  notes?: [string, string][];
  undetermined?: boolean;
  notNow?: string;
  fatal?: string;
  answered?: boolean;
  settle?(ms: number): Answer;
}

/** A request of n documents whose body is built: what request() of lib/targets/outcome.js makes. */
export interface Request {
  n: number;
  bytes: number;
  body?: any;
  send(tags: Record<string, string>): Answer;
}

/** What a workload's plan asks the target to prepare (plan().target of lib/workloads/*.js). */
export interface Workload {
  batchSize?: number;
  maxKey?: number;
  maxStamp?: number;
  writes?: Record<string, any>;
  collections?: number;
  indexFields?: string[];
  [field: string]: any;
}

/** Single-document requests (capability single) and transactions across collections (capability transactions). */
export interface Documents {
  single?(op: string, collection: number, key: string, body: any): Request;
  transaction?(bodies: any[]): Request;
}

/** The contention workload's counters (capability increment; lib/targets/increments.js). */
export interface Increments {
  increment(nums: number[]): Request;
  createCounters(size: number): void;
  readCounters(nums: number[]): Map<number, number>;
  putLedger(id: string, ledger: any): void;
  readLedgers(ids: string[]): any[];
  /** The server's own count of the conflicts it resolved (capability serverConflicts). */
  serverConflicts?(): number;
}

/** What createTarget(cfg, prepared) of an adapter returns (lib/targets/<db>/<db>.js). */
export interface Target {
  name: string;
  reasons: string[];
  distributed: boolean;
  /** Set by withCapabilities() (lib/capabilities.js). */
  capabilities: Capabilities;
  bind(runId: string, info?: any): any;
  setup(...args: any[]): any;
  teardown(...args: any[]): any;
  leftBehind(...args: any[]): string;
  batch(op: string, keys: any, stamp: string): Request;
  batchBody(...args: any[]): any;
  count(...args: any[]): any;
  readStamps(keys: any): any;
  // Capability groups: offered by some targets only (withCapabilities() derives the flags).
  documents?: Documents;
  increments?: Increments;
  countAll?(...args: any[]): any;
  release?(...args: any[]): any;
  lazyKeys?: boolean;
  keyField?: string;
  client?: any;
  database?(): any;
}
