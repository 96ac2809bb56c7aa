-- pgbench script: the E1 overwrite batch with rows generated server-side, the reference the
-- pack's PostgreSQL upsert is compared with (bench/README.md). One statement upserts :batch
-- distinct existing keys K<k> of a table holding keys 0 … :ndocs-1; the documents have the
-- pack's e1 shape (key, w, Hallo, f0…f8, s of :slen digits: about 1.2 KB as jsonb text).
-- Keys are scattered over the table ((start + g*stride) mod ndocs, stride coprime with
-- ndocs), as the pack's uniformly picked keys are.
--   pgbench -n -c 2 -j 2 -T 10 -D ndocs=100000 -D batch=1000 -D stride=7919 -D slen=1046 \
--     -D tbl=k6wp_bench_pgbench -f bench/pg-upsert.sql postgres://…
\set start random(0, :ndocs - 1)
INSERT INTO :tbl (key, doc)
SELECT 'K' || k, jsonb_build_object('key', 'K' || k, 'w', 'p', 'Hallo', (k * 40503 + :start) % 1000000000,
  'f0', k % 100000, 'f1', (k * 3) % 100000, 'f2', (k * 7) % 100000, 'f3', (k * 11) % 100000, 'f4', (k * 13) % 100000,
  'f5', (k * 17) % 100000, 'f6', (k * 19) % 100000, 'f7', (k * 23) % 100000, 'f8', (k * 29) % 100000,
  's', substr(repeat(((k * 2654435761 + :start) % 1000000000 + 1)::text || (k % 997 + 1)::text, 100), 1, :slen))
FROM (SELECT (:start + g::int8 * :stride) % :ndocs AS k FROM generate_series(0, :batch - 1) AS g) AS picked
ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc;
