// The URL rules of the url and secret knobs, and the redaction of anything that may hold a
// password before it reaches a log line.

// Words the user typed as credentials (nothing typed as credentials is ever printed, by the
// pack or by a server message it relays): the user and password of the
// credential URLs and the values of the secret knobs, registered by lib/config.js. A secret of
// 4 characters or more is hidden wherever it appears; a user name, and a shorter secret, where
// it appears quoted ("…", '…'), as servers quote it ('password authentication failed for user
// "…"'): hiding "pw" in every word would garble the line without hiding anything worth it. A
// password typed as the user name (postgres://Secret@host/db) is still a password.
const typedSecrets = new Set();
const typedUsers = new Set();
export function typedCredentials({ secrets = [], users = [] }) {
  for (const s of secrets) if (s) (String(s).length >= 4 ? typedSecrets : typedUsers).add(String(s));
  for (const u of users) if (u) typedUsers.add(String(u));
}

// The one split of a URL the pack reads (scheme://userinfo@hosts/path?query#fragment): the
// user info ends at the LAST "@" of the authority, as Go's net/url reads it. urlProblem checks
// the parts, userinfoOf decodes the credentials, scripts/lib/kit.mjs unreachable dials the
// hosts. null when the text is not scheme://….
export function urlParts(raw) {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#[\s\S]*)?$/.exec(String(raw ?? ''));
  if (!m) return null;
  const [, scheme, authority, path, query, fragment] = m;
  const at = authority.lastIndexOf('@');
  return { scheme, userinfo: at >= 0 ? authority.slice(0, at) : null, hostport: authority.slice(at + 1), path, query, fragment };
}

// One host[:port] of an authority: { host, port } (IPv6 in brackets, kept), or null when the
// colons do not split it so.
export function hostPort(hp) {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(hp);
  return m ? { host: m[1], port: m[2] } : null;
}

// The user and password of a URL's user info (decoded), or nulls.
export function userinfoOf(url) {
  const info = urlParts(url)?.userinfo;
  if (info === null || info === undefined) return { user: null, password: null };
  const colon = info.indexOf(':');
  const dec = (s) => { try { return decodeURIComponent(s); } catch (_) { return s; } };
  return colon < 0 ? { user: dec(info), password: null } : { user: dec(info.slice(0, colon)), password: dec(info.slice(colon + 1)) };
}

// Removes credentials from a text before it reaches a log line: the whole user info of a URL
// (user and password: either may be the secret), which ends at the LAST "@" before the path
// (as Go's net/url reads it), so a password may hold "@", ":" or (malformed, refused by
// urlProblem, but still redacted) a space; password= values, quoted ('a b') or not, as in
// libpq key=value strings; and every word typed as a credential (typedCredentials).
export function redact(text) {
  let out = String(text)
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@(?=[^@/?#\s]*(?:[/?#\s"'\\]|$))/gi, '$1***@')
    .replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^&\s"']+)/gi, '$1***');
  for (const s of typedSecrets) out = out.split(s).join('***');
  for (const u of typedUsers) for (const q of ['"', "'"]) out = out.split(`${q}${u}${q}`).join(`${q}***${q}`);
  return out;
}

// Why a URL knob's value is not acceptable, or null. The rules follow what the clients do
// with it: Go's net/url (lib/pq, k6/http, k6's InfluxDB output) takes the user info up to
// the last "@" of the authority, accepts only these characters in it, and needs a port from
// 1 to 65535 and an IPv6 address in brackets.
// hosts: 'many' accepts a comma-separated host list (MongoDB's seed lists: h1:27017,h2:27017;
// https://www.mongodb.com/docs/manual/reference/connection-string/).
export function urlProblem(raw, { schemes, credentials = false, path = false, hosts = 'one' }) {
  const parts = urlParts(raw);
  if (!parts) {
    if (/^\s*\w+\s*=/.test(raw)) return 'a key=value connection string is not accepted, only a URL';
    return `not a URL of the form ${schemes[0]}://host:port`;
  }
  const { scheme, userinfo, hostport, path: pathPart, query, fragment } = parts;
  if (!schemes.includes(scheme.toLowerCase())) return `scheme ${scheme}:// is not allowed, only ${schemes.map((x) => `${x}://`).join(' or ')}`;
  if (userinfo !== null) {
    if (!credentials) return 'credentials in the URL are not accepted here';
    if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:@]*(%[0-9A-Fa-f]{2}[A-Za-z0-9\-._~!$&'()*+,;=:@]*)*$/.test(userinfo)) {
      return 'the user or password holds a character that must be percent-encoded (space, %, /, ?, #, …: encodeURIComponent)';
    }
  }
  if (hosts === 'many' && hostport.includes(',')) {
    for (const one of hostport.split(',')) {
      const why = urlProblem(`${scheme}://${one}/`, { schemes, credentials: false, path: false });
      if (why) return why;
    }
    return lateParts(pathPart, query, fragment, { path, credentials });
  }
  const hp = hostPort(hostport);
  if (!hp) return 'the host is malformed (an IPv6 address goes in brackets: [::1]:5432)';
  const { host, port } = hp;
  if (host.startsWith('[')) {
    const ip6 = host.slice(1, -1).replace(/%25[A-Za-z0-9._~-]+$/, '');
    if (!/^[0-9A-Fa-f:.]+$/.test(ip6) || !ip6.includes(':') || (ip6.match(/::/g) || []).length > 1 || /:::/.test(ip6)
        || ip6.split(':').some((g) => g.length > 4 && !/^\d+\.\d+\.\d+\.\d+$/.test(g))) return `the IPv6 address ${host} is malformed`;
  } else if (host === '' ? !credentials : !/^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(host)) {
    return host === '' ? 'the host is missing' : 'the host name is malformed';
  }
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'the port must be a number from 1 to 65535';
  if (scheme.toLowerCase() === 'mongodb+srv' && port !== undefined) return 'a mongodb+srv:// URL names one host without a port (the DNS SRV record lists the servers)';
  return lateParts(pathPart, query, fragment, { path, credentials });
}

// The parts after the authority: path, query, fragment.
function lateParts(pathPart, query, fragment, { path, credentials }) {
  if (path === false && pathPart !== '' && pathPart !== '/') return 'a path is not accepted here';
  if (path === false && query) return 'a query is not accepted here';
  if (path === true && credentials === false && !/^\/[^/]+\/?$/.test(pathPart)) return 'the path must name the database: /<database>';
  if (fragment !== undefined) return 'a #fragment is not accepted';
  return null;
}
