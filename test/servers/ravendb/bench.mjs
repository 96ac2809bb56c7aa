// Throughput check for the RavenDB test double (not part of the test suite):
// 8 concurrent fetch workers post 200 bulk inserts of 1000 ~1.1 KB documents.
// Run: node test/servers/ravendb/bench.mjs (after make testservers).
import { startTestServer } from '../../helpers/testserver.mjs';
import { readFileSync } from 'node:fs';
const srv = await startTestServer('ravendb', []);
const base = srv.url;
await fetch(base + '/admin/databases?name=b&replicationFactor=1', { method: 'PUT', body: '{"DatabaseName":"b"}' });
const pad = 'x'.repeat(950);
function body(k) { const a = []; for (let i = 0; i < 1000; i++) a.push(JSON.stringify({ Id: `users/${k}-${i}`, Type: 'PUT', Document: { Name: 'User ' + i, Email: `u${i}@example.com`, Address: { City: 'Oslo', Zip: '0150' }, Bio: pad, '@metadata': { '@collection': 'Users' } } })); return '[' + a.join(',') + ']'; }
const bodies = Array.from({ length: 200 }, (_, k) => body(k));
const cpu = () => { const f = readFileSync(`/proc/${srv.proc.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const c0 = cpu(); const t0 = performance.now(); let next = 0;
async function worker() { while (next < bodies.length) { const k = next++; const id = (await (await fetch(`${base}/databases/b/operations/next-operation-id`)).json()).Id; const r = await fetch(`${base}/databases/b/bulk_insert?id=${id}`, { method: 'POST', body: bodies[k], headers: { 'Content-Type': 'application/json' } }); if (r.status !== 201) throw new Error(r.status); await r.text(); } }
await Promise.all(Array.from({ length: 8 }, worker));
const secs = (performance.now() - t0) / 1000; const scpu = cpu() - c0;
const st = await (await fetch(base + '/databases/b/collections/stats')).json();
console.log(`docs=${st.Collections.Users} wall=${secs.toFixed(2)}s docs/s=${Math.round(st.Collections.Users / secs)} serverCPU=${scpu.toFixed(2)}s => ${Math.round(st.Collections.Users / scpu)} docs per server-CPU-second`);
await srv.stop();
