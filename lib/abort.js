// The one way the pack ends a run early: one line, exit 108, teardown and handleSummary still
// run (they report what was counted and deal with the run's objects). Every abort goes
// through stop(): a fault that makes going on pointless (lib/targets/outcome.js), a refused
// object (lib/targets/lifecycle.js), a refusal k6 lets the script see only in setup
// (lib/scenario.js), a verification that could not run.
//
// k6's test.abort() run in a VU's iteration ends its line with the JavaScript frame it met
// ("… at iteration (file:///…:163:33(280))"); setup and teardown print none.
import exec from 'k6/execution';
import { packStopped } from './metrics.js';

/** @returns {never} */
export function stop(message) {
  // Go errors reach the script as "GoError: …": the prefix names k6's plumbing, not the fault.
  message = String(message).replace(/\bGoError: /g, '');
  // handleSummary tells a setup the pack stopped from one k6 stopped from outside by this
  // (the init context takes no metrics, and has no setup to tell apart).
  try { packStopped.add(1); } catch (_) { /* init context */ }
  exec.test.abort(message);
  throw message; // not reached in k6; keeps plain-JS callers (unit tests) honest
}
