// The three ways a run goes (DISTRIBUTED, docs/scale-out.md), one object each, so that
// lib/scenario.js reads as one pipeline: a single process writes and verifies its plan; one
// instance of a distributed run writes its segment and leaves the shared objects to the
// others; the verify step writes nothing and verifies the union after all instances.
import { fail } from './parse.js';
import { stop } from './abort.js';
import { docsFailedResolved, packStopped, setupBegan, verifyError, verifyUnaccounted, verifyUnaccountedMax } from './metrics.js';
import { M } from './metric-names.js';

const single = {
  lifecycle: 'own', writes: true, prepares: true, verifies: true,
  // Only a single process sees every batch: it alone counts them against the plan.
  countsPlan: true, verb: 'writing to', filePrefix: () => '',
  thresholds: (parsed) => parsed,
  segmentRefusal: (segment) => `--execution-segment ${segment} needs DISTRIBUTED=1 and the same explicit RUN_ID on every instance (docs/scale-out.md)`,
  readbackBy: 'the VUs read back their overwritten keys after their last batch (the summary below judges both)',
  // A setup k6 stopped from outside: its objects may exist (created, or half made), and no
  // teardown drops them; the target says how to (without RUN_ID no line names them).
  leftInSetup: (adapter, runId) => {
    if (!runId) return 'the run\'s objects (named after the RUN_ID setup drew, which no line shows: give RUN_ID to name them) may be left on the server';
    adapter.bind(runId);
    return adapter.leftBehind ? adapter.leftBehind() : 'the run\'s objects may be left on the server';
  },
};
const instance = {
  lifecycle: 'join', writes: true, prepares: false, verifies: false,
  countsPlan: false, verb: 'writing to', filePrefix: (sd) => `instance-${sd.instance || 'all'}-`,
  // An instance sees only its part: the merge judges the union (scripts/merge-results.mjs).
  thresholds: (parsed) => ({ ...parsed, verify: false }),
  segmentRefusal: () => null,
  leftInSetup: (_adapter, runId) => `the run's objects may be left, as they are for the other instances: verify the union and drop them with scripts/verify-distributed (RUN_ID=${runId})`,
};
const verify = {
  lifecycle: 'verify', writes: false, prepares: false, verifies: true,
  countsPlan: false, verb: 'verifying', filePrefix: () => 'verify-',
  scenarios: { verify: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: '10s' } },
  thresholds: (parsed) => ({ phases: {}, verify: parsed.verify }),
  segmentRefusal: (segment) => `DISTRIBUTED=verify runs once, after all instances: remove --execution-segment ${segment}`,
  readbackBy: 'the instances\' VUs read back their overwritten keys after their last batch (merge-results adds them up)',
  // It did not write the objects: one whose count is not the plan's is left in place (lifecycle.js).
  contradiction: (v) => (v && v.expected !== null && v.found !== v.expected ? `it holds ${v.found} documents where the instances' plan writes ${v.expected}` : null),
  leftInSetup: (_adapter, runId) => `this step creates nothing and dropped nothing: the run's objects are as the instances left them (run scripts/verify-distributed again, RUN_ID=${runId})`,
};

export function runMode(cfg, adapter, targetName) {
  const distributed = cfg.DISTRIBUTED;
  if (distributed !== '0' && !adapter.distributed) fail(`DISTRIBUTED=${distributed} is not supported by the ${targetName} target yet (docs/scale-out.md)`);
  return distributed === '1' ? instance : distributed === 'verify' ? verify : single;
}

// Which instance of a segmented run this is (setup): the 1-based position of the segment in
// the sequence (what k6-operator passes as instance_id), or the segment itself. Each instance
// runs its own setup and teardown (grafana/k6-operator#223): without DISTRIBUTED the first one
// to finish would verify a third of the run and drop the objects under the others.
export function segmentOf(mode, options) {
  const segment = options.executionSegment;
  const instance = instanceLabel(segment, options.executionSegmentSequence);
  const refused = instance && mode.segmentRefusal(segment);
  if (refused) stop(`k6-writepath: ${refused}`);
  return { instance, segment };
}

export function instanceLabel(segment, sequence) {
  if (!segment || segment === '0:1') return null;
  const start = String(segment).split(':')[0];
  const seq = sequence ? String(sequence).split(',').map((x) => x.trim()) : [];
  const i = seq.indexOf(start);
  return i >= 0 ? String(i + 1) : String(segment).replace(/[^0-9]+/g, '_');
}

// setup(), counted: began before anything reaches the database; a refusal it throws (bad input
// the server revealed; its line says why) counts as one of the pack's stops (lib/abort.js).
export function countedSetup(body) {
  setupBegan.add(1);
  try {
    return body();
  } catch (e) {
    packStopped.add(1);
    throw e;
  }
}

// A summary without setup's data, and no stop of the pack counted: k6 stopped setup from outside
// (a signal, setupTimeout) or the run before setup began. k6 runs no teardown then (grafana/k6
// v1.1.0 internal/execution/scheduler.go: Run returns first), so the summary says what may be
// left (lib/report.js interruptedLine). null: the pack stopped it, its own line says why.
export function setupCut(data, mode, adapter, runId, options) {
  const n = (name) => (data.metrics[name] ? data.metrics[name].values.count : 0);
  if (n(M.packStopped) > 0) return null;
  const instance = instanceLabel(options.executionSegment, options.executionSegmentSequence);
  const began = n(M.setupBegan) > 0;
  return { where: began ? 'setup' : 'before setup', runId: runId || null, instance, segment: instance ? options.executionSegment : null,
    left: began ? mode.leftInSetup(adapter, runId) : null };
}

// Teardown: an instance keeps the objects for the others; otherwise the workload verifies,
// the objects are dropped or kept, and what was found is logged for the summary to judge.
// Teardown cannot know whether the plan finished (Ctrl-C, MAX_DURATION): the summary does.
export function finish(mode, { workload, adapter, cfg, plan, countBy }, data) {
  const objects = data.target.objects.join(', ');
  if (!mode.verifies) {
    console.log(`k6-writepath: ${objects}: kept for the other instances; verify the union and drop with scripts/verify-distributed (RUN_ID=${data.runId})`);
    return;
  }
  adapter.bind(data.runId, data.target);
  let v = null;
  let error = null;
  try {
    v = workload.verify(adapter, cfg, plan, data);
  } catch (e) {
    error = String(e).split('\n')[0].replace(/^((Go)?Error: )+/, '');
  }
  const fate = adapter.teardown(data.runId, data.target.owned, cfg.KEEP, mode.contradiction ? mode.contradiction(v) : null);
  if (error) {
    // Did not run is not OK: the run fails (exit 108), after the objects were dealt with.
    verifyError.add(1);
    console.log(`k6-writepath: ${objects}: ${fate}`);
    stop(`verification did not run to its end: ${error}`);
    return;
  }
  // Held against the acknowledged documents: writepath_verify_unaccounted (+ per batch) - found.
  if (countBy === 'acknowledged') { verifyUnaccounted.add(-v.found); verifyUnaccountedMax.add(-v.found); docsFailedResolved.add(-v.found); }
  // A workload that checks more than a count says what it found itself (v.note: contention).
  if (v.note) console.log(`k6-writepath: ${v.note}`);
  else if (v.expected === null) console.log(`k6-writepath: teardown found ${v.found} documents (the summary compares them with the acknowledged ones)`);
  else if (!v.readback) console.log(`k6-writepath: teardown found ${v.found} documents (the plan writes ${v.expected}); ${mode.readbackBy}`);
  else console.log(`k6-writepath: teardown found ${v.found} documents (the plan writes ${v.expected}); read back ${v.readback.checked} overwritten keys: ${v.readback.stale} hold an older version, ${v.readback.missing} missing (the summary below judges them)`);
  for (const ex of (v.readback ? v.readback.examples : [])) console.warn(`k6-writepath: key ${ex.key} holds version ${ex.found}; the plan's writers of it: ${ex.writtenBy.join(',')}`);
  console.log(`k6-writepath: ${objects}: ${fate}`);
}
