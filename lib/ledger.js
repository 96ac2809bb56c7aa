// The contention workload's ledger (docs/contention.md "The ledger"): per VU and counter,
// how many increments the database acknowledged, reported failed, or left undetermined; and
// the exact verification of every counter against the ledgers of all VUs. Pure (no k6
// modules): the unit tests run it in Node.
//
// A counter is an index 0 … size-1 (key name: lib/keys.js keyName). Write-ahead: begin()
// counts an operation's increments undetermined before its request goes out; settle() moves
// them to acknowledged / failed / (left) undetermined when the outcome is known. An operation
// cut short never settles and stays undetermined.

export class Ledger {
  constructor(size) {
    this.size = size;
    this.acked = new Uint32Array(size);
    this.failed = new Uint32Array(size);
    this.undetermined = new Uint32Array(size);
    this.ops = 0; // increments begun (= the sum of the three arrays)
  }

  begin(counters) {
    for (let i = 0; i < counters.length; i++) this.undetermined[counters[i]]++;
    this.ops += counters.length;
  }

  // kinds: 'acked' | 'failed' | 'undetermined' for every counter of the operation (an atomic
  // request), or an array of those, one per counter (RavenDB reports each PATCH command).
  settle(counters, kinds) {
    const each = Array.isArray(kinds);
    for (let i = 0; i < counters.length; i++) {
      const k = each ? kinds[i] : kinds;
      if (k === 'undetermined') continue;
      const c = counters[i];
      this.undetermined[c]--;
      if (k === 'acked') this.acked[c]++;
      else this.failed[c]++;
    }
  }

  // The stored form: only counters with a non-zero entry, as parallel arrays.
  toJSON() {
    const c = []; const a = []; const f = []; const u = [];
    for (let i = 0; i < this.size; i++) {
      if (this.acked[i] || this.failed[i] || this.undetermined[i]) {
        c.push(i); a.push(this.acked[i]); f.push(this.failed[i]); u.push(this.undetermined[i]);
      }
    }
    return { v: 1, size: this.size, ops: this.ops, c, a, f, u };
  }
}

// Sums stored ledgers (toJSON() forms) into totals per counter. Refuses a ledger that is not
// in the stored form (a foreign document under a ledger key).
export function sumLedgers(stored, size) {
  const t = { acked: new Float64Array(size), failed: new Float64Array(size), undetermined: new Float64Array(size), ops: 0, ledgers: 0 };
  for (const l of stored) {
    if (!l || l.v !== 1 || !Array.isArray(l.c) || l.c.length !== l.a.length || l.c.length !== l.f.length || l.c.length !== l.u.length) {
      throw new Error(`a stored ledger is not in the pack's format (${JSON.stringify(l).slice(0, 80)})`);
    }
    for (let i = 0; i < l.c.length; i++) {
      const c = l.c[i];
      if (!(c >= 0 && c < size)) throw new Error(`a stored ledger names counter ${c}, outside 0…${size - 1}`);
      t.acked[c] += l.a[i]; t.failed[c] += l.f[i]; t.undetermined[c] += l.u[i];
    }
    t.ops += l.ops;
    t.ledgers++;
  }
  return t;
}

// Holds every counter: acked ≤ n ≤ acked + undetermined. values: counter index -> n as found
// (a Map; a missing counter is n = 0 and is reported as missing).
// Returns { checked, lost, phantom, missing, bad: [{counter, n, acked, undetermined, lost, phantom}] }
// with bad sorted by the size of the discrepancy (largest first).
export function verifyCounters(totals, values, size) {
  const out = { checked: 0, lost: 0, phantom: 0, missing: 0, acked: 0, undetermined: 0, failed: 0, found: 0, bad: [] };
  for (let c = 0; c < size; c++) {
    const a = totals.acked[c]; const u = totals.undetermined[c];
    out.acked += a; out.undetermined += u; out.failed += totals.failed[c];
    const has = values.has(c);
    const n = has ? values.get(c) : 0;
    if (!has) out.missing++;
    out.found += n;
    out.checked++;
    const lost = n < a ? a - n : 0;
    const phantom = n > a + u ? n - a - u : 0;
    if (lost || phantom) {
      out.lost += lost; out.phantom += phantom;
      out.bad.push({ counter: c, n, acked: a, undetermined: u, lost, phantom });
    }
  }
  out.bad.sort((x, y) => (y.lost + y.phantom) - (x.lost + x.phantom) || x.counter - y.counter);
  return out;
}

// Whether the counters were held against complete ledgers (a run stopped before or inside its
// ledger step records the counters' sum but no ledger totals): only then do lost and phantom
// figures mean anything. null: the counters were not read at all.
export function countersJudged(v) {
  if (v.counters_checked === null || v.counters_checked === undefined) return null;
  return !(v.counters_sum !== null && v.counters_sum !== undefined && (v.increments_acknowledged === null || v.increments_acknowledged === undefined));
}

// The counters' verdict in words, for the text and HTML reports.
export function countersLine(v) {
  if (countersJudged(v) === null) return 'counters: not verified (teardown did not run)';
  if (!countersJudged(v)) {
    return `counters: ${v.counters_checked} read back, holding ${v.counters_sum}; the VUs' ledgers are incomplete (${v.ledger_unstored} increments begun are in no stored ledger): no lost or phantom judgement is possible — NOT VERIFIED`;
  }
  const ok = v.increments_lost === 0 && v.increments_phantom === 0 && v.ledger_unstored === 0;
  return `counters: ${v.counters_checked} read back against the VUs' ledgers: lost ${v.increments_lost}, phantom ${v.increments_phantom}` +
    `${v.ledger_unstored ? `, ${v.ledger_unstored} increments in ledgers that were not stored` : ''} — ${ok ? 'OK' : 'FAILED'}`;
}

// The ledgers' totals: acknowledged, failed, undetermined; when every counter held, how many
// of the undetermined increments the database applied (the counters' sum minus the acknowledged).
export function ledgerLine(v) {
  const held = v.increments_lost === 0 && v.increments_phantom === 0 && !v.ledger_unstored && v.counters_sum !== null;
  const applied = held ? v.counters_sum - v.increments_acknowledged : null;
  return `increments in the ledgers: ${v.increments_acknowledged} acknowledged, ${v.increments_failed} failed (not applied), ${v.increments_undetermined} undetermined (no answer)` +
    `${v.increments_undetermined > 0 && held ? ` — ${applied} of them applied, ${v.increments_undetermined - applied} not` : ''}`;
}
