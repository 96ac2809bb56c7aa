// How to read PostgreSQL's answers (relayed by the gateway: the driver's message and, when the
// server answered, its SQLSTATE), as pure functions (no k6 modules) so the unit tests run them
// in Node. Codes: https://www.postgresql.org/docs/15/errcodes-appendix.html

// The text the OID guard (postgres.js bind) fails a write with; the server's error quotes it.
export const SWAPPED = 'k6wp: run table replaced';

// The reason of a server's answer by its SQLSTATE: the code does not depend on the server's
// lc_messages, the message text does. A class (first two characters) stands for its codes.
const BY_SQLSTATE = {
  23505: 'unique_violation', 21000: 'cardinality_violation', '40P01': 'deadlock', 40001: 'serialization',
  28000: 'auth', '28P01': 'auth', '42P01': 'undefined_table', '3F000': 'undefined_table',
  53300: 'connection', '57P01': 'connection', '57P02': 'connection', '57P03': 'connection', '08': 'connection',
};

// message: the driver's error; ms: how long the statement took; sqlstate: the server's code, ''
// when it did not answer. At TIMEOUT lib/pq sends a cancel request and the server answers 57014
// "canceling statement due to user request" (or the wrapper cuts the connection: "context
// deadline exceeded"); the same 57014 earlier is someone else's cancel (pg_cancel_backend) or
// the server's statement_timeout. Without a known SQLSTATE the English message decides.
export function classify(message, ms = 0, timeoutMs = Infinity, sqlstate = '') {
  const m = String(message);
  if (m.includes(SWAPPED)) return 'undefined_table';
  const code = String(sqlstate || '');
  if (code === '57014') return ms >= timeoutMs ? 'timeout' : 'cancelled';
  const known = BY_SQLSTATE[code] || BY_SQLSTATE[code.slice(0, 2)];
  if (code.length === 5 && known) return known;
  if (/duplicate key value violates unique constraint/.test(m)) return 'unique_violation';
  if (/cannot affect row a second time/.test(m)) return 'cardinality_violation';
  if (/deadlock detected/.test(m)) return 'deadlock';
  if (/could not serialize access/.test(m)) return 'serialization';
  if (/context deadline exceeded/.test(m)) return 'timeout';
  if (/canceling statement due to (user request|statement timeout)/.test(m)) return ms >= timeoutMs ? 'timeout' : 'cancelled';
  if (/password authentication failed|no pg_hba.conf entry|role .* does not exist/.test(m)) return 'auth';
  if (/relation .* does not exist|schema .* does not exist/.test(m)) return 'undefined_table';
  if (/connection refused|broken pipe|connection reset|bad connection|EOF|terminating connection|database system is (starting up|shutting down|in recovery mode|not (yet )?accepting connections)|too many clients already|too many connections for|server closed the connection|no such host|i\/o timeout/.test(m)) return 'connection';
  return 'other';
}

// "Not now" answers (docs/postgres.md, "Not now"): a server that refuses a new connection
// with FATAL 53300 too_many_connections ("sorry, too many clients already", or too many for a
// role or database) or 57P03 cannot_connect_now (starting up, shutting down, in recovery) ran
// nothing of the statement; lib/pq returns the startup's ErrorResponse as a *pq.Error, and the
// gateway answers its SQLSTATE with sent: false (no byte of the statement left).
export const NOT_NOW = { 53300: 'too many clients', '57P03': 'cannot connect now (starting up, shutting down or in recovery)' };
