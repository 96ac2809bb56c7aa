// The tests' own view of a MongoDB server, through the official Node.js driver (npm mongodb,
// pinned in package.json): what the pack wrote, checked by a client that is not the pack's.
import { MongoClient } from 'mongodb';

const clients = new Map();

// One client per URL for the whole test file (closed by closeMongo()).
export async function mongo(url) {
  let c = clients.get(url);
  if (!c) {
    c = new MongoClient(url, { appName: 'k6-writepath-tests', serverSelectionTimeoutMS: 10000 });
    await c.connect();
    clients.set(url, c);
  }
  return c;
}

export async function closeMongo() {
  for (const c of clients.values()) await c.close(true);
  clients.clear();
}

// The names of the databases the server holds.
export async function databases(url) {
  const r = await (await mongo(url)).db('admin').admin().listDatabases({ nameOnly: true });
  return r.databases.map((d) => d.name);
}

export async function dropDatabase(url, name) {
  await (await mongo(url)).db(name).dropDatabase();
}

// failCommand (the server's own fail point; needs --setParameter enableTestCommands=1): make
// the server hold or fail the pack's commands (appName k6-writepath only, never the tests').
export async function failPoint(url, mode, data = {}) {
  await (await mongo(url)).db('admin').command({ configureFailPoint: 'failCommand', mode, data: { appName: 'k6-writepath', ...data } });
}
