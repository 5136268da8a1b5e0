import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import {
  startBrokenProxy,
  startForwardProxy,
  type BrokenProxy,
  type ForwardProxy,
} from '../helpers/forward-proxy.js';
import { EXECUTABLE, runBinary, startBinary } from '../helpers/run-binary.js';
import type { RunResult } from '../helpers/run-main.js';
import {
  makeCertificates,
  startTlsProxy,
  type KeyPair,
  type TlsProxy,
} from '../helpers/tls-proxy.js';

// pets on a company network: the API's name (api.internal.test) resolves only through the
// forward proxy. Each pets process gets a resolver that never leaves the machine
// (offline-dns.cjs): a name it does not list fails as a name that does not exist. The single
// executable takes no --require from NODE_OPTIONS: the few tests that need pets itself to
// resolve a name other than localhost skip there, since its lookups would leave the machine.
const OFFLINE_DNS = fileURLToPath(new URL('../helpers/offline-dns.cjs', import.meta.url));
const USER = 'pets-user';
const PASSWORD = 'Pr0xy@Secret-Canary-77';
const ENCODED = `${USER}:${encodeURIComponent(PASSWORD)}`;

let sandbox: RunningSandbox;
let tls: TlsProxy;
let folder: string;
let caFile: string;
let open: ForwardProxy;
let authed: ForwardProxy;
let refusing: ForwardProxy;
let secure: ForwardProxy;
let validPair: KeyPair;
let otherHostPair: KeyPair;

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited' });
  const made = makeCertificates();
  folder = made.dir;
  caFile = made.certificates.caFile;
  validPair = made.certificates.valid;
  otherHostPair = made.certificates.otherHost;
  tls = await startTlsProxy(Number(new URL(sandbox.baseUrl).port), made.certificates.valid, [
    'http/1.1',
  ]);
  const hosts = ['api.internal.test'];
  open = await startForwardProxy({ hosts });
  authed = await startForwardProxy({ hosts, credentials: { user: USER, password: PASSWORD } });
  refusing = await startForwardProxy({ refuseWith: 403 });
  secure = await startForwardProxy({ hosts, tls: validPair });
});
afterAll(async () => {
  await Promise.all([open, authed, refusing, secure].map((proxy) => proxy.close()));
  await tls.close();
  await sandbox.close();
  rmSync(folder, { recursive: true, force: true });
});

const tlsPort = () => new URL(tls.baseUrl).port;
const internal = () => `https://api.internal.test:${tlsPort()}/v1`;
const withCredentials = (proxy: { url: string }, credentials = ENCODED) =>
  proxy.url.replace('//', `//${credentials}@`);

/** A fresh config folder, the sandbox's key, the test CA, and the offline resolver. */
function env(extra: Record<string, string>, hosts: string[] = []): Record<string, string> {
  return {
    PETS_CONFIG_DIR: tempConfigDir(),
    PETS_API_KEY: sandbox.key,
    PETS_BASE_URL: internal(),
    NODE_EXTRA_CA_CERTS: caFile,
    NODE_OPTIONS: `--require ${OFFLINE_DNS}`,
    PETS_TEST_HOSTS: hosts.join(','),
    ...extra,
  };
}

/** What the proxy was asked since `from`. */
const since = (proxy: ForwardProxy, from: number) => proxy.requests.slice(from);

describe('https through a CONNECT tunnel', () => {
  it.each(['HTTPS_PROXY', 'https_proxy'])(
    'reaches an API whose name only the proxy resolves, with %s',
    async (variable) => {
      const before = open.requests.length;
      const result = await runBinary(['list', '--json'], env({ [variable]: open.url }));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
      expect(since(open, before)).toEqual([
        { method: 'CONNECT', target: `api.internal.test:${tlsPort()}`, answer: 'carried' },
      ]);
    },
  );

  it.skipIf(EXECUTABLE)(
    'without the proxy, the name does not resolve: said in words, after one retry, exit 6',
    async () => {
      const result = await runBinary(['list'], env({}));
      expect(result.code).toBe(6);
      expect(result.stderr).toContain(
        `error: GET ${internal()}/pets failed: could not resolve api.internal.test (ENOTFOUND) (2 attempts)`,
      );
      expect(result.stderr).toContain('set HTTPS_PROXY (see `pets help environment`)');
      expect(result.stderr.match(/^lookup api\.internal\.test$/gm)).toHaveLength(2);
    },
  );

  it("checks the API's certificate through the tunnel: a company CA from the system's store", async () => {
    // The system's store, as OpenSSL finds it: SSL_CERT_FILE here, /etc/ssl on a machine.
    const store = { HTTPS_PROXY: open.url, NODE_EXTRA_CA_CERTS: '', SSL_CERT_FILE: caFile };
    const untrusted = await runBinary(['list'], env(store));
    expect(untrusted.code).toBe(6);
    expect(untrusted.stderr).toContain("the server's certificate is not trusted: no trusted CA");
    expect(untrusted.stderr).toContain(
      "(or NODE_USE_SYSTEM_CA=1, where it is in the system's store)",
    );
    const trusted = await runBinary(['list', '--json'], env({ ...store, NODE_USE_SYSTEM_CA: '1' }));
    expect(trusted.code).toBe(0);
  });

  it('takes https_proxy before HTTPS_PROXY, as curl does', async () => {
    const before = open.requests.length;
    const result = await runBinary(
      ['list', '--json'],
      env({ https_proxy: open.url, HTTPS_PROXY: refusing.url }),
    );
    expect(result.code).toBe(0);
    expect(since(open, before)).toHaveLength(1);
  });

  it('never sends https through HTTP_PROXY, as curl does not', async () => {
    const before = refusing.requests.length;
    const result = await runBinary(
      ['list', '--json'],
      env({
        PETS_BASE_URL: `https://localhost:${tlsPort()}/v1`,
        HTTP_PROXY: refusing.url,
        http_proxy: refusing.url,
      }),
    );
    expect(result.code).toBe(0);
    expect(since(refusing, before)).toEqual([]);
  });

  it('sends every command that talks to the API through the same proxy', async () => {
    const config = tempConfigDir();
    const inputs = tempDir('pets-proxy-');
    const records = join(inputs, 'in.ndjson');
    const others = join(inputs, 'others.ndjson');
    writeFileSync(records, '{"name":"P1","categoryId":1}\n{"name":"P2","categoryId":1}\n');
    writeFileSync(others, '{"name":"P3","categoryId":1}\n');
    const commands: Array<[string, string[], string?]> = [
      ['profile set', ['profile', 'set', 'corp', '--base-url', internal()]],
      ['auth login', ['auth', 'login', '--with-key', '--profile', 'corp'], `${sandbox.key}\n`],
      ['list', ['list', '--profile', 'corp']],
      ['add', ['add', '--name', 'Via', '--category-id', '1', '--profile', 'corp']],
      ['add --file', ['add', '--file', records, '--profile', 'corp', '--yes']],
      ['get many', ['get', '1', '2', '--profile', 'corp', '--json']],
      ['api', ['api', '/pets', '--profile', 'corp']],
      // In a config folder of its own: a quota this key's state already knows is not asked.
      ['quota', ['quota']],
      ['auth status', ['auth', 'status', '--profile', 'corp']],
    ];
    const base = (proxy: ForwardProxy, what: string) =>
      what === 'quota'
        ? env({ HTTPS_PROXY: proxy.url })
        : { ...env({ HTTPS_PROXY: proxy.url }), PETS_CONFIG_DIR: config, PETS_API_KEY: '' };
    for (const [what, args, input] of commands) {
      const before = open.requests.length;
      const result = await runBinary(args, base(open, what), input);
      expect({ what, code: result.code, stderr: result.stderr }).toMatchObject({ what, code: 0 });
      if (what !== 'profile set')
        expect({ what, seen: since(open, before).length > 0 }).toEqual({ what, seen: true });
    }
    // And through a proxy that refuses, each fails with its answer, having reached nothing.
    const served = sandbox.requestLog.length;
    for (const [what, args, input] of commands.slice(1)) {
      // Records its journal has not seen created.
      const fresh = args.map((arg) => (arg === records ? others : arg));
      const result = await runBinary(fresh, base(refusing, what), input);
      // auth login saves a key it could not check, saying why.
      expect({ what, code: result.code }).toEqual({ what, code: what === 'auth login' ? 0 : 6 });
      expect(result.stderr).toContain(
        `the proxy ${refusing.url} (HTTPS_PROXY) answered 403 Forbidden`,
      );
    }
    expect(sandbox.requestLog.length).toBe(served);
  });
});

describe('http in absolute form', () => {
  const local = () => `http://localhost:${new URL(sandbox.baseUrl).port}/v1`;
  it.each(['HTTP_PROXY', 'http_proxy'])(
    'goes through %s with the absolute URL',
    async (variable) => {
      const before = open.requests.length;
      const result = await runBinary(
        ['list', '--json'],
        env({ PETS_BASE_URL: local(), [variable]: open.url }),
      );
      expect(result.code).toBe(0);
      expect(since(open, before)).toEqual([
        { method: 'GET', target: `${local()}/pets`, answer: 'carried' },
      ]);
    },
  );

  it('takes http_proxy before HTTP_PROXY, and never sends http through HTTPS_PROXY', async () => {
    const before = open.requests.length;
    const lower = await runBinary(
      ['list', '--json'],
      env({ PETS_BASE_URL: local(), http_proxy: open.url, HTTP_PROXY: refusing.url }),
    );
    expect(lower.code).toBe(0);
    expect(since(open, before)).toHaveLength(1);
    const https = await runBinary(
      ['list', '--json'],
      env({ PETS_BASE_URL: local(), HTTPS_PROXY: refusing.url }),
    );
    expect(https.code).toBe(0);
    expect(since(open, before)).toHaveLength(1);
  });

  it('a 407 names the proxy and its answer, exit 6, sent once', async () => {
    const before = authed.requests.length;
    const result = await runBinary(
      ['list'],
      env({ PETS_BASE_URL: local(), HTTP_PROXY: authed.url }),
    );
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: GET ${local()}/pets failed: the proxy ${authed.url} (HTTP_PROXY) answered 407 Proxy Authentication Required\n`,
    );
    expect(since(authed, before)).toHaveLength(1);
  });

  it('sends the credentials as Proxy-Authorization', async () => {
    const before = authed.requests.length;
    const result = await runBinary(
      ['list', '--json'],
      env({ PETS_BASE_URL: local(), HTTP_PROXY: withCredentials(authed) }),
    );
    expect(result.code).toBe(0);
    expect(since(authed, before)).toEqual([
      {
        method: 'GET',
        target: `${local()}/pets`,
        proxyAuthorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
        answer: 'carried',
      },
    ]);
  });
});

// undici names the proxy's host as the TLS server name, an address here, which SNI does not
// allow: Node 24 warned of it on stderr (DEP0123) and Node 26 refused the connection.
describe('an https:// proxy at an IP address', () => {
  it('carries https in a tunnel inside TLS to the proxy, without a word on stderr', async () => {
    const before = secure.requests.length;
    const result = await runBinary(['list', '--json'], env({ HTTPS_PROXY: secure.url }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
    expect(since(secure, before)).toEqual([
      { method: 'CONNECT', target: `api.internal.test:${tlsPort()}`, answer: 'carried' },
    ]);
  });

  // Node 22's tls.checkServerIdentity matches no IPv6 address of a certificate (it takes
  // '::1' for a name): there no https:// proxy at an IPv6 address can be trusted.
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  it.skipIf(nodeMajor < 24)(
    'carries https through an IPv6 proxy, [::1], its brackets never taken for a name',
    async () => {
      const six = await startForwardProxy({
        hosts: ['api.internal.test'],
        tls: validPair,
        host: '::1',
      });
      try {
        const result = await runBinary(['list', '--json'], env({ HTTPS_PROXY: six.url }));
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(six.requests).toEqual([
          { method: 'CONNECT', target: `api.internal.test:${tlsPort()}`, answer: 'carried' },
        ]);
      } finally {
        await six.close();
      }
    },
  );

  it('names a proxy whose certificate is for another host, exit 6, at the first try', async () => {
    const wrong = await startForwardProxy({ tls: otherHostPair });
    try {
      const local = `http://localhost:${new URL(sandbox.baseUrl).port}/v1`;
      const result = await runBinary(
        ['list', '--json'],
        env({ PETS_BASE_URL: local, HTTP_PROXY: wrong.url }),
      );
      expect(result.code).toBe(6);
      expect(result.stderr).toContain(
        `GET ${local}/pets failed: the TLS handshake with the proxy ${wrong.url} (HTTP_PROXY) failed: its certificate is not trusted: it is not for 127.0.0.1 (ERR_TLS_CERT_ALTNAME_INVALID)`,
      );
      expect(result.stderr).not.toContain('attempts');
      expect(wrong.requests).toEqual([]);
    } finally {
      await wrong.close();
    }
  });

  it('carries http in absolute form over TLS to the proxy, without a word on stderr', async () => {
    const before = secure.requests.length;
    const local = `http://localhost:${new URL(sandbox.baseUrl).port}/v1`;
    const result = await runBinary(
      ['list', '--json'],
      env({ PETS_BASE_URL: local, HTTP_PROXY: secure.url }),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
    expect(since(secure, before)).toEqual([
      { method: 'GET', target: `${local}/pets`, answer: 'carried' },
    ]);
  });
});

describe('proxy credentials and refusals', () => {
  it('sends the credentials on the CONNECT as Proxy-Authorization', async () => {
    const before = authed.requests.length;
    const result = await runBinary(
      ['list', '--json', '--debug'],
      env({ HTTPS_PROXY: withCredentials(authed) }),
    );
    expect(result.code).toBe(0);
    // --debug names the proxy each request goes through, without its credentials.
    expect(result.stderr).toContain(`> GET ${internal()}/pets via ${authed.url} (`);
    expect(since(authed, before)).toEqual([
      {
        method: 'CONNECT',
        target: `api.internal.test:${tlsPort()}`,
        proxyAuthorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
        answer: 'carried',
      },
    ]);
  });

  it.each([
    [
      'without credentials',
      () => authed.url,
      'The proxy wants a user and password: put them in HTTPS_PROXY',
    ],
    [
      'with a wrong password',
      () => withCredentials(authed, `${USER}:wrong-password-123`),
      'The proxy refused the user and password in HTTPS_PROXY',
    ],
  ])('a 407 to the CONNECT %s names the proxy, exit 6, not retried', async (_how, url, hint) => {
    const before = authed.requests.length;
    const result = await runBinary(['list', '--debug'], env({ HTTPS_PROXY: url() }));
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: GET ${internal()}/pets failed: the proxy ${authed.url} (HTTPS_PROXY) answered 407 Proxy Authentication Required\n${hint}`,
    );
    expect(since(authed, before)).toHaveLength(1);
    expect(result.stderr).not.toContain('wrong-password-123');
  });

  it('a refused CONNECT names the proxy and its answer, exit 6, for a create too: nothing was created', async () => {
    const before = refusing.requests.length;
    const listed = await runBinary(['list'], env({ HTTPS_PROXY: refusing.url }));
    expect(listed.code).toBe(6);
    expect(listed.stderr).toContain(
      `error: GET ${internal()}/pets failed: the proxy ${refusing.url} (HTTPS_PROXY) answered 403 Forbidden\n`,
    );
    const added = await runBinary(
      ['add', '--name', 'Rex', '--category-id', '1'],
      env({ HTTPS_PROXY: refusing.url }),
    );
    expect(added.code).toBe(6);
    expect(added.stderr).toContain('nothing reached the server: the pet was not created');
    expect(since(refusing, before)).toHaveLength(2);
  });

  it('a proxy that cannot be reached is named as the proxy', async () => {
    const gone = await startForwardProxy();
    await gone.close();
    const result = await runBinary(['list'], env({ HTTPS_PROXY: withCredentials(gone) }));
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: GET ${internal()}/pets failed: could not reach the proxy ${gone.url} (HTTPS_PROXY): connection refused (ECONNREFUSED) (2 attempts)\n`,
    );
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it('a proxy URL pets cannot use is exit 2, without its credentials', async () => {
    const result = await runBinary(
      ['list'],
      env({ HTTPS_PROXY: `socks5://${ENCODED}@127.0.0.1:1080` }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('HTTPS_PROXY names a socks5 proxy (socks5://127.0.0.1:1080)');
    expect(result.stderr).not.toContain(USER);
  });
});

describe('a proxy that breaks', () => {
  const broken: BrokenProxy[] = [];
  const start = async (behaviour: 'hang' | 'close' | 'plain') => {
    const proxy = await startBrokenProxy(behaviour);
    broken.push(proxy);
    return proxy;
  };
  afterAll(() => Promise.all(broken.map((proxy) => proxy.close())));

  /** The run's end, or the test's failure if it has not ended within `ms`. */
  const within = <T>(done: Promise<T>, ms: number) =>
    Promise.race([
      done,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`pets still ran after ${ms} ms`)), ms).unref(),
      ),
    ]);

  it('a CONNECT never answered ends at --timeout, naming the proxy, exit 6, sent once', async () => {
    const silent = await start('hang');
    const result = await within(
      runBinary(['--timeout', '1', 'list'], env({ HTTPS_PROXY: withCredentials(silent) })),
      8_000,
    );
    expect(result.stderr).toContain(
      `error: GET ${internal()}/pets failed: the proxy ${silent.url} (HTTPS_PROXY) did not answer within 1 s\n`,
    );
    expect(result.code).toBe(6);
    expect(result.stderr).not.toContain(PASSWORD);
    expect(silent.connects).toBe(1);
  });

  it('SIGTERM ends a run waiting on a silent proxy at once, with 143', async () => {
    const silent = await start('hang');
    const run = startBinary(['--timeout', '60', 'list'], env({ HTTPS_PROXY: silent.url }));
    run.write('');
    await within(silent.firstConnect, 8_000);
    process.kill(run.pid!, 'SIGTERM');
    const result = await within(run.done, 3_000);
    expect(result.code).toBe(143);
    expect(result.stderr).toContain('interrupted');
    expect(silent.connects).toBe(1);
  });

  it('a proxy that hangs up on the CONNECT is named, exit 6, after one retry', async () => {
    const closing = await start('close');
    const result = await runBinary(['list'], env({ HTTPS_PROXY: withCredentials(closing) }));
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: GET ${internal()}/pets failed: the proxy ${closing.url} (HTTPS_PROXY) closed the connection without answering (UND_ERR_PRX_CONN) (2 attempts)\n`,
    );
    expect(result.stderr).not.toContain(PASSWORD);
    expect(closing.connects).toBe(2);
  });

  it('an http:// proxy named as https:// is named: its TLS handshake failed, exit 6, sent once', async () => {
    const plain = await start('plain');
    const shown = plain.url.replace('http:', 'https:');
    const result = await runBinary(
      ['list'],
      env({ HTTPS_PROXY: withCredentials(plain).replace('http:', 'https:') }),
    );
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: GET ${internal()}/pets failed: the TLS handshake with the proxy ${shown} (HTTPS_PROXY) failed: it does not speak TLS there (ERR_SSL_WRONG_VERSION_NUMBER)\n`,
    );
    expect(result.stderr).toContain(
      `Is it an http:// proxy? Then set HTTPS_PROXY to ${plain.url}.`,
    );
    expect(result.stderr).not.toContain(PASSWORD);
    expect(plain.connections).toBe(1);
    expect(plain.connects).toBe(0);
  });
});

describe('NO_PROXY', () => {
  // Every run has a proxy that refuses: a host NO_PROXY names reaches the server straight.
  const direct = async (noProxy: string, baseUrl: string, hosts: string[] = []) => {
    const results: RunResult[] = [];
    for (const variable of ['NO_PROXY', 'no_proxy']) {
      results.push(
        await runBinary(
          ['list', '--json'],
          env({ PETS_BASE_URL: baseUrl, HTTPS_PROXY: refusing.url, [variable]: noProxy }, hosts),
        ),
      );
    }
    return results.map((result) => result.code);
  };
  const at = (host: string) => `https://${host}:${tlsPort()}/v1`;

  it.each([
    ['a host name', 'localhost', 'localhost'],
    ['a host name among others, spaces and commas', 'a.example, localhost ,b.example', 'localhost'],
    ['.localhost, for the name itself', '.localhost', 'localhost'],
    ['host:port', () => `localhost:${tlsPort()}`, 'localhost'],
    ['an IP address', '127.0.0.1', '127.0.0.1'],
    ['a CIDR range', '127.0.0.0/8', '127.0.0.1'],
    ['*', '*', 'localhost'],
  ])('%s goes around the proxy', async (_what, noProxy, host) => {
    const before = refusing.requests.length;
    const value = typeof noProxy === 'function' ? noProxy() : noProxy;
    expect(await direct(value, at(host))).toEqual([0, 0]);
    expect(since(refusing, before)).toEqual([]);
  });

  // api.corp.example resolves, to 127.0.0.1, only through the offline resolver.
  it.skipIf(EXECUTABLE).each([
    ['a domain, for a host under it', 'corp.example'],
    ['a .domain, for a host under it', '.corp.example'],
    ['*.domain, for a host under it', '*.corp.example'],
  ])('%s goes around the proxy', async (_what, noProxy) => {
    const before = refusing.requests.length;
    expect(await direct(noProxy, at('api.corp.example'), ['api.corp.example'])).toEqual([0, 0]);
    expect(since(refusing, before)).toEqual([]);
  });

  it.each([
    ['another port', 'localhost:1', 'localhost'],
    ['another domain', 'corp.example', 'localhost'],
    ['another address', '127.0.0.2', '127.0.0.1'],
    ['a range without it', '10.0.0.0/8', '127.0.0.1'],
  ])('%s does not', async (_what, noProxy, host) => {
    const before = refusing.requests.length;
    expect(await direct(noProxy, at(host))).toEqual([6, 6]);
    expect(since(refusing, before)).toHaveLength(2);
  });
});

describe('a batch through the proxy', () => {
  it('creates 20 records paced by the rate gate, 0 x 429, the journal bound to the API', async () => {
    const limited = await startSandbox({ plan: 'free', rpm: 10, windowSeconds: 1, banAfter: 1 });
    const front = await startTlsProxy(Number(new URL(limited.baseUrl).port), validPair, [
      'http/1.1',
    ]);
    try {
      const dir = tempDir('pets-proxy-batch-');
      const records = join(dir, 'in.ndjson');
      writeFileSync(
        records,
        Array.from({ length: 20 }, (_, i) => `{"name":"Proxied ${i}","categoryId":1}\n`).join(''),
      );
      const baseUrl = `https://api.internal.test:${new URL(front.baseUrl).port}/v1`;
      const journal = join(dir, 'in.journal');
      const before = authed.requests.length;
      const result = await runBinary(
        ['add', '--file', records, '--journal', journal, '--yes', '--json', '--debug'],
        env({
          PETS_BASE_URL: baseUrl,
          PETS_API_KEY: limited.key,
          HTTPS_PROXY: withCredentials(authed),
        }),
      );
      expect(result.code).toBe(0);
      const statuses = limited.requestLog.map((entry) => entry.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(20);
      expect(statuses.filter((status) => status === 429)).toHaveLength(0);
      expect(since(authed, before).every((request) => request.method === 'CONNECT')).toBe(true);
      expect(since(authed, before).length).toBeGreaterThan(0);
      // The journal's target is the API's origin, not the proxy's.
      const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as {
        origin: string;
      };
      expect(header.origin).toBe(`https://api.internal.test:${new URL(front.baseUrl).port}`);
      // Nor are the proxy's credentials anywhere, in any encoding.
      const forms = [
        PASSWORD,
        encodeURIComponent(PASSWORD),
        Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
      ];
      for (const text of [result.stdout, result.stderr, readFileSync(journal, 'utf8')]) {
        for (const form of forms) expect(text).not.toContain(form);
      }
    } finally {
      await front.close();
      await limited.close();
    }
  });
});

describe('the proxy credentials', () => {
  it('appear in no output, error, trace, journal or state file', async () => {
    const config = tempConfigDir();
    const dir = tempDir('pets-proxy-secret-');
    const records = join(dir, 'in.ndjson');
    writeFileSync(records, '{"name":"S1","categoryId":1}\n{"name":"","categoryId":1}\n');
    const gone = await startForwardProxy();
    await gone.close();
    const runs: Array<[string[], string]> = [
      [['list', '--debug'], withCredentials(authed)],
      [['list', '--json', '--debug'], withCredentials(authed)],
      [
        ['add', '--file', records, '--journal', join(dir, 'j'), '--yes', '--debug'],
        withCredentials(authed),
      ],
      [['api', '/pets', '-i', '--debug'], withCredentials(authed)],
      [['quota', '--json', '--debug'], withCredentials(authed)],
      [['list', '--debug'], withCredentials(authed, `${USER}:wrong-password-123`)],
      [['list', '--json', '--debug'], withCredentials(refusing)],
      [['list', '--debug'], withCredentials(gone)],
      [['add', '--name', 'A', '--category-id', '1', '--json', '--debug'], withCredentials(gone)],
    ];
    const forms = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      `${USER}:${PASSWORD}`,
      Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
    ];
    for (const [args, proxy] of runs) {
      const result = await runBinary(args, {
        ...env({ HTTPS_PROXY: proxy }),
        PETS_CONFIG_DIR: config,
      });
      const text = result.stdout + result.stderr;
      for (const form of forms)
        expect({ args, leaks: text.includes(form) }).toEqual({ args, leaks: false });
      expect(result.stderr).not.toContain(`${USER}:`);
    }
    const files = [...filesUnder(config), ...filesUnder(dir)];
    expect(files.some((file) => file.includes('state'))).toBe(true);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const form of forms)
        expect({ file, leaks: text.includes(form) }).toEqual({ file, leaks: false });
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
