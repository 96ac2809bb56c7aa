// The tests start the project's API test servers (test/servers/<name>) with the tool kit's
// launcher (scripts/lib/kit.mjs), which awaits their "listening on" line.
export { repoRoot, startTestServer, testServerBinary } from '../../scripts/lib/kit.mjs';
