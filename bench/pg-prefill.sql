-- Creates and fills the pgbench table with :ndocs documents of the pack's e1 shape (psql -v).
DROP TABLE IF EXISTS :tbl;
CREATE TABLE :tbl (key text PRIMARY KEY, doc jsonb NOT NULL);
COMMENT ON TABLE :tbl IS 'k6-writepath bench';
INSERT INTO :tbl (key, doc)
SELECT 'K' || k, jsonb_build_object('key', 'K' || k, 'w', 'l', 'Hallo', (k * 40503) % 1000000000,
  'f0', k % 100000, 'f1', (k * 3) % 100000, 'f2', (k * 7) % 100000, 'f3', (k * 11) % 100000, 'f4', (k * 13) % 100000,
  'f5', (k * 17) % 100000, 'f6', (k * 19) % 100000, 'f7', (k * 23) % 100000, 'f8', (k * 29) % 100000,
  's', substr(repeat(((k * 2654435761) % 1000000000 + 1)::text || (k % 997 + 1)::text, 100), 1, :slen))
FROM generate_series(0::int8, :ndocs - 1) AS k;
VACUUM ANALYZE :tbl;
