// The one split of a URL (lib/urls.js urlParts) and the two readers that use it besides the
// knob rules: the credentials (userinfoOf) and the reachability check before a comparison
// (scripts/lib/kit.mjs unreachable), which dials real sockets on this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { hostPort, urlParts, userinfoOf } from '../../lib/urls.js';
import { freePort, unreachable } from '../../scripts/lib/kit.mjs';

test('urlParts: the user info ends at the last "@" of the authority; hosts, path, query, fragment as typed', () => {
  assert.deepEqual(urlParts('postgres://u:p@ss@h:5/db?sslmode=disable#x'),
    { scheme: 'postgres', userinfo: 'u:p@ss', hostport: 'h:5', path: '/db', query: '?sslmode=disable', fragment: '#x' });
  assert.equal(urlParts('http://h').userinfo, null);
  assert.equal(urlParts('host=h user=u'), null);
  assert.deepEqual(hostPort('[::1]:27017'), { host: '[::1]', port: '27017' });
  assert.deepEqual(hostPort('h'), { host: 'h', port: undefined });
  assert.equal(hostPort('a:b:c'), null);
  assert.deepEqual(userinfoOf('mongodb://us%40er:p%3Aw@h/'), { user: 'us@er', password: 'p:w' });
  assert.deepEqual(userinfoOf('http://h/'), { user: null, password: null });
});

test('unreachable: a listening port answers, a closed one is named with its host and port and never the password', async () => {
  const srv = net.createServer((s) => s.destroy());
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const open = srv.address().port;
  const closed = await freePort();
  try {
    assert.equal(await unreachable(`postgres://u:S3cret@127.0.0.1:${open}/db`), null);
    const why = await unreachable(`postgres://u:S3cret@127.0.0.1:${closed}/db`);
    assert.equal(why, `127.0.0.1:${closed} refused the connection`);
    // a seed list: one host answering is enough; none answering names each
    assert.equal(await unreachable(`mongodb://u:p@127.0.0.1:${closed},127.0.0.1:${open}/`), null);
    assert.match(await unreachable(`mongodb://u:p@127.0.0.1:${closed},[::1]:${closed}/`),
      new RegExp(`^127\\.0\\.0\\.1:${closed} refused the connection; ::1:${closed} (refused the connection|cannot be reached \\(\\w+\\))$`));
    // the default port of the scheme when none is typed
    assert.equal(await unreachable('postgres://u@127.0.0.1/db', { defaultPort: open }), null);
    // not known here: a host given in the query (libpq), not a URL
    assert.equal(await unreachable(`postgres:///db?host=/tmp`), null);
    assert.equal(await unreachable('not a url'), null);
  } finally {
    srv.close();
  }
});
