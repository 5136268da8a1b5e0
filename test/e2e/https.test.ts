import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { runBinary } from '../helpers/run-binary.js';
import {
  makeCertificates,
  startTlsProxy,
  type TestCertificates,
  type TlsProxy,
} from '../helpers/tls-proxy.js';

let sandbox: RunningSandbox;
let certificates: TestCertificates;
let folder: string;
const proxies: TlsProxy[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited' });
  ({ dir: folder, certificates } = makeCertificates());
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await sandbox.close();
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function proxy(pair: keyof Omit<TestCertificates, 'caFile'>, alpn = ['http/1.1']) {
  const started = await startTlsProxy(
    Number(new URL(sandbox.baseUrl).port),
    certificates[pair],
    alpn,
  );
  proxies.push(started);
  return started;
}

describe.each([
  ['HTTP/1.1', ['http/1.1']],
  ['h2 offered by ALPN', ['h2', 'http/1.1']],
])('HTTPS with %s', (_name, alpn) => {
  let server: TlsProxy;
  beforeAll(async () => {
    server = await proxy('valid', alpn);
  });

  const trusting = () =>
    apiEnv(
      { baseUrl: server.baseUrl, key: sandbox.key },
      { NODE_EXTRA_CA_CERTS: certificates.caFile },
    );

  it('runs every command when the CA is trusted through NODE_EXTRA_CA_CERTS', async () => {
    const env = trusting();
    const added = await runBinary(['add', '--name', 'Tls', '--category-id', '1', '--json'], env);
    expect(added.code).toBe(0);
    const id = (JSON.parse(added.stdout) as { id: number }).id;

    const got = await runBinary(['get', String(id), '--json'], env);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, name: 'Tls' });

    const listed = await runBinary(['list', '--json', '--limit', '100'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id }));

    const many = await runBinary(['get', String(id), String(id), '--json'], env);
    expect(many.code).toBe(0);
    expect(many.stdout.trim().split('\n')).toHaveLength(2);

    const quota = await runBinary(['quota', '--json'], env);
    expect(quota.code).toBe(0);

    const status = await runBinary(['auth', 'status', '--json'], env);
    expect(status.code).toBe(0);

    const batch = join(folder, `batch-${alpn.length}.ndjson`);
    writeFileSync(batch, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');
    // A non-loopback host is production to pets, so a batch needs --yes.
    const imported = await runBinary(['add', '--file', batch, '--json', '--yes'], env);
    expect(imported.code).toBe(0);
    expect(imported.stdout.trim().split('\n')).toHaveLength(2);
    // pets speaks HTTP/1.1 even where h2 is on offer.
    expect(new Set(server.protocols)).toEqual(new Set(['http/1.1']));
  });

  it('fails at once with exit 6, and no retry, when the CA is not trusted', async () => {
    const before = server.connections;
    const run = await runBinary(['list'], apiEnv({ baseUrl: server.baseUrl, key: sandbox.key }));
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/certificate is not trusted/);
    expect(run.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(run.stderr).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(run.stderr).not.toMatch(/--timeout|attempts/);
    expect(server.connections - before).toBe(1);
  });
});

describe('certificate errors are final, each with its reason', () => {
  it.each([
    ['expired', 'expired', /CERT_HAS_EXPIRED/, /has expired/],
    ['otherHost', 'for another host', /ERR_TLS_CERT_ALTNAME_INVALID/, /not for localhost/],
  ] as const)('a certificate that is %s', async (pair, _what, code, reason) => {
    const server = await proxy(pair);
    const env = apiEnv(
      { baseUrl: server.baseUrl, key: sandbox.key },
      { NODE_EXTRA_CA_CERTS: certificates.caFile },
    );
    const run = await runBinary(['list'], env);
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/certificate is not trusted/);
    expect(run.stderr).toMatch(code);
    expect(run.stderr).toMatch(reason);
    expect(server.connections).toBe(1);

    const added = await runBinary(['add', '--name', 'No', '--category-id', '1'], env);
    expect(added.code).toBe(6);
    // The handshake failed before the request was written: nothing can have been created.
    expect(added.stderr).not.toMatch(/may have been created/);
    expect(server.connections).toBe(2);
  });
});
