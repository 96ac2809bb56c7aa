// The few administrative steps of a private mongod (scripts/mongo-private.sh), run by bin/k6
// with the pack's own MongoDB module: no mongo shell is installed on the project's machines.
// Everything comes from the environment (never from -e arguments, which `ps` shows):
//   MONGO_ADMIN_STEP=user   MONGO_ADMIN_URL (no credentials: the localhost exception of a
//                           fresh --auth server), MONGO_ADMIN_USER, MONGO_ADMIN_PASSWORD:
//                           create the user (role root) unless it exists
//   MONGO_ADMIN_STEP=ping   MONGO_ADMIN_URL (with credentials): wait until the server answers
//                           an authenticated ping, print its version
//   MONGO_ADMIN_STEP=stats  MONGO_ADMIN_URL, MONGO_ADMIN_DB: the sizes of collection docs of that
//                           database (dbStats/collStats: data, storage on disk, indexes), in bytes
//   MONGO_ADMIN_STEP=drop   MONGO_ADMIN_URL, MONGO_ADMIN_DB: drop that database
// Prints one line "mongo-admin: …"; exit 0, or 1 with the reason (never the password).
import exec from 'k6/execution';
import { sleep } from 'k6';
import * as mongodb from 'k6/x/writepath/mongodb';

export const options = { scenarios: { admin: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: '120s' } } };

function stop(msg) {
  console.error(`mongo-admin: ${msg}`);
  exec.test.abort(msg);
}

export default function () {
  const step = __ENV.MONGO_ADMIN_STEP;
  const client = mongodb.connect(__ENV.MONGO_ADMIN_URL, { appName: 'k6-writepath-admin' });
  if (step === 'user') {
    const user = __ENV.MONGO_ADMIN_USER;
    const r = client.command('admin', { createUser: user, pwd: __ENV.MONGO_ADMIN_PASSWORD, roles: ['root'] }, { timeoutMs: 20000 });
    // As mongod 6.0.5 answers: 51003 (Location51003) 'User "writepath@admin" already exists';
    // 13 (Unauthorized) 'command createUser requires authentication': the localhost exception
    // is closed, i.e. a user exists already.
    if (r.error && r.error.code !== 51003 && r.error.code !== 13) stop(`cannot create user ${user}: ${r.error.message}`);
    console.log(`mongo-admin: user ${user} ${r.error ? 'exists' : 'created'}`);
  } else if (step === 'ping') {
    let last = null;
    for (let i = 0; i < 60; i++) {
      const r = client.command('admin', { buildInfo: 1 }, { timeoutMs: 2000 });
      if (!r.error) {
        console.log(`mongo-admin: mongod ${JSON.parse(r.reply).version} answers`);
        return;
      }
      last = r.error;
      if (last.kind === 'auth') break;
      sleep(0.5);
    }
    stop(`no authenticated answer: ${last.message}`);
  } else if (step === 'stats' || step === 'drop') {
    const db = __ENV.MONGO_ADMIN_DB;
    if (!/^k6wp_[a-z0-9_]+$/.test(db || '')) stop(`MONGO_ADMIN_DB=${db} is not a database of the pack (k6wp_…)`);
    if (step === 'drop') {
      const r = client.command(db, { dropDatabase: 1 }, { timeoutMs: 60000 });
      if (r.error) stop(`cannot drop ${db}: ${r.error.message}`);
      console.log(`mongo-admin: dropped ${db}`);
      return;
    }
    const r = client.command(db, { collStats: 'docs' }, { timeoutMs: 60000 });
    if (r.error) stop(`cannot read the sizes of ${db}.docs: ${r.error.message}`);
    const st = JSON.parse(r.reply);
    console.log(`mongo-admin: stats size=${st.size} storage=${st.storageSize} indexes=${st.totalIndexSize} count=${st.count}`);
  } else {
    stop(`MONGO_ADMIN_STEP=${step} is not one of user, ping, stats, drop`);
  }
}
