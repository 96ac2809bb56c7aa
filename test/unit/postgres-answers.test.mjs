// PostgreSQL's answers as the pack reads them (lib/targets/postgres/postgres-answers.js): the
// reason of a failed statement by its SQLSTATE first, so that a server whose lc_messages is not
// English is read the same; the English text only when no code came (no answer, the driver's
// own errors). The German texts are PostgreSQL 15's own translations (its de.po, as installed
// with Debian's postgresql-15 in /usr/share/locale/de/LC_MESSAGES/postgres-15.mo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_NOW, SWAPPED, classify } from '../../lib/targets/postgres/postgres-answers.js';

const CASES = [
  // [sqlstate, English message, German message, reason]
  ['23505', 'pq: duplicate key value violates unique constraint "k6wp_x_pkey" (23505)', 'pq: doppelter Schlüsselwert verletzt Unique-Constraint »k6wp_x_pkey« (23505)', 'unique_violation'],
  ['40P01', 'pq: deadlock detected (40P01)', 'pq: Verklemmung (Deadlock) entdeckt (40P01)', 'deadlock'],
  ['40001', 'pq: could not serialize access due to concurrent update (40001)', 'pq: konnte Zugriff nicht serialisieren wegen gleichzeitiger Aktualisierung (40001)', 'serialization'],
  ['28P01', 'pq: password authentication failed for user "w" (28P01)', 'pq: Passwort-Authentifizierung für Benutzer »w« fehlgeschlagen (28P01)', 'auth'],
  ['42P01', 'pq: relation "k6wp_x" does not exist (42P01)', 'pq: Relation »k6wp_x« existiert nicht (42P01)', 'undefined_table'],
  ['53300', 'pq: sorry, too many clients already (53300)', 'pq: tut mir leid, schon zu viele Verbindungen (53300)', 'connection'],
  ['57P03', 'pq: the database system is not accepting connections (57P03)', 'pq: das Datenbanksystem nimmt keine Verbindungen an (57P03)', 'connection'],
  ['57P01', 'pq: terminating connection due to administrator command (57P01)', 'pq: Verbindung wird abgebrochen aufgrund von Anweisung des Administrators (57P01)', 'connection'],
];

test('a server\'s answer: the same reason by its SQLSTATE whatever the language of its message', () => {
  for (const [code, en, de, reason] of CASES) {
    assert.equal(classify(en, 5, 1000, code), reason, en);
    assert.equal(classify(de, 5, 1000, code), reason, de);
    // without the code (how the pack read them before): English only
    assert.equal(classify(en, 5, 1000, ''), reason, `text of ${en}`);
    assert.equal(classify(de, 5, 1000, ''), 'other', `text of ${de}`);
  }
  // a connection exception of class 08 by its class
  assert.equal(classify('pq: Verbindung verloren (08006)', 0, 1000, '08006'), 'connection');
  // an unknown code falls back to the text, then to other
  assert.equal(classify('pq: column "x" does not exist (42703)', 0, 1000, '42703'), 'other');
});

test('57014 (canceled): at or after TIMEOUT the pack\'s own cancel (timeout), before it someone else\'s (cancelled)', () => {
  const de = 'pq: storniere Anfrage wegen Benutzeraufforderung (57014)';
  assert.equal(classify(de, 1000, 1000, '57014'), 'timeout');
  assert.equal(classify(de, 10, 1000, '57014'), 'cancelled');
  assert.equal(classify('pq: canceling statement due to user request (57014)', 10, 1000, ''), 'cancelled');
  // no answer at all: the gateway's deadline
  assert.equal(classify('k6wp-postgres: context deadline exceeded', 1200, 1000, ''), 'timeout');
});

test('the OID guard\'s text wins over its code (22P02: the cast it fails with), and the not-now codes are the connection ones', () => {
  assert.equal(classify(`pq: invalid input syntax for type integer: "${SWAPPED}" (22P02)`, 0, 1000, '22P02'), 'undefined_table');
  assert.deepEqual(Object.keys(NOT_NOW).sort(), ['53300', '57P03']);
  for (const code of Object.keys(NOT_NOW)) assert.equal(classify('', 0, 1000, code), 'connection');
});
