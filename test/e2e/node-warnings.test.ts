import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STDERR_KINDS } from '../../src/cmd/help/json-topic.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { EXECUTABLE, runBinary } from '../helpers/run-binary.js';
import { makeCertificates, startTlsProxy, type TlsProxy } from '../helpers/tls-proxy.js';

// Issue 29, item 7: under --json and --jq every stderr line is JSON, Node's own warnings
// included; without them, a person still reads each warning.

let sandbox: RunningSandbox;
let server: TlsProxy;
/** The CA that signed server's certificate, as PEM; and another certificate, not a CA. */
let caPem: string;
let otherPem: string;

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited', seed: 2 });
  const { certificates } = makeCertificates();
  caPem = readFileSync(certificates.caFile, 'utf8');
  otherPem = certificates.otherHost.cert;
  server = await startTlsProxy(Number(new URL(sandbox.baseUrl).port), certificates.valid, [
    'http/1.1',
  ]);
});
afterAll(async () => {
  await server.close();
  await sandbox.close();
});

/** Each stderr line as the one object it must be, its kind and code documented in `pets help json`. */
function jsonLines(stderr: string): Array<Record<string, Record<string, unknown>>> {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const value = JSON.parse(line) as Record<string, Record<string, unknown>>;
      const [[kind, body]] = Object.entries(value) as [[string, Record<string, unknown>]];
      if (kind !== 'error') {
        const documented = STDERR_KINDS.find((k) => k.kind === kind)?.codes[body.code as string];
        expect(documented, `${kind} ${String(body.code)}`).toBeDefined();
        for (const field of documented!.fields) expect(body).toHaveProperty(field);
      }
      return value;
    });
}

// A key Node warns about when a TLS connection is made, with the CA file's path broken: both
// Node's own lines (one from JavaScript, one from the thread that loads the CAs) under test.
const brokenTls = () =>
  apiEnv(
    { baseUrl: server.baseUrl, key: sandbox.key },
    { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem', NODE_TLS_REJECT_UNAUTHORIZED: '0' },
  );

describe("Node's warnings", () => {
  it.each([['--json'], ['--jq', '.[0].name']])(
    'are JSON lines under %s, the extra-certs one included, and the run goes on',
    async (...flags) => {
      const run = await runBinary(['list', ...flags], brokenTls());
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(sandbox.pets()[0]!.name);
      expect(run.stderr).not.toContain('Ignoring extra certs');
      const lines = jsonLines(run.stderr);
      expect(lines).toEqual([
        {
          warning: {
            code: 'extra_ca_unreadable',
            message:
              'NODE_EXTRA_CA_CERTS names /nonexistent/ca.pem, which cannot be opened (ENOENT), ' +
              'so no extra CA is trusted. Fix the path, or unset NODE_EXTRA_CA_CERTS.',
            file: '/nonexistent/ca.pem',
            reason: 'ENOENT',
          },
        },
        {
          warning: {
            code: 'node_warning',
            message: expect.stringContaining('NODE_TLS_REJECT_UNAUTHORIZED'),
            name: 'Warning',
            nodeCode: null,
          },
        },
      ]);
    },
  );

  it('stay as Node prints them without --json', async () => {
    const run = await runBinary(['list'], brokenTls());
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'Warning: Ignoring extra certs from `/nonexistent/ca.pem`, load failed:',
    );
    expect(run.stderr).toMatch(/\(node:\d+\) Warning: Setting the NODE_TLS_REJECT_UNAUTHORIZED/);
  });

  it('under --json, a CA file that cannot be opened ends a run that needs it as JSON too', async () => {
    const env = apiEnv(
      { baseUrl: server.baseUrl, key: sandbox.key },
      { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' },
    );
    const run = await runBinary(['list', '--json'], env);
    expect(run.code).toBe(6);
    const lines = jsonLines(run.stderr);
    expect(lines.map((line) => Object.keys(line)[0])).toEqual(['warning', 'error']);
    expect(lines[0]!.warning!.code).toBe('extra_ca_unreadable');
  });

  // The executable takes no NODE_OPTIONS (src/build/executable.mjs): a preload needs node.
  it.skipIf(EXECUTABLE !== undefined)(
    'turns a deprecation and an experimental warning into JSON lines, --quiet silencing them',
    async () => {
      const preload = join(tempDir('pets-warn-'), 'warn.cjs');
      writeFileSync(
        preload,
        "process.emitWarning('old thing', 'DeprecationWarning', 'DEP0999');\n" +
          "setTimeout(() => process.emitWarning('new thing', 'ExperimentalWarning'), 20).unref();\n",
      );
      const env = apiEnv(sandbox, { NODE_OPTIONS: `--require ${preload}` });
      const json = await runBinary(['list', '--json'], env);
      expect(json.code).toBe(0);
      const warnings = jsonLines(json.stderr).map((line) => line.warning);
      expect(warnings).toContainEqual({
        code: 'node_warning',
        message: 'old thing',
        name: 'DeprecationWarning',
        nodeCode: 'DEP0999',
      });
      expect(warnings).toHaveLength(json.stderr.includes('new thing') ? 2 : 1);

      const quiet = await runBinary(['list', '--json', '--quiet'], env);
      expect(quiet).toMatchObject({ code: 0, stderr: '' });

      const text = await runBinary(['list'], env);
      expect(text.stderr).toMatch(/\(node:\d+\) \[DEP0999\] DeprecationWarning: old thing/);

      const silenced = await runBinary(
        ['list', '--json'],
        apiEnv(sandbox, { NODE_OPTIONS: `--require ${preload} --no-warnings` }),
      );
      expect(silenced.stderr).toBe('');
    },
  );
});

// A NODE_EXTRA_CA_CERTS file that opens but that Node loads only in part: Node keeps the
// certificates before the broken block and prints its line from its own thread. The CA is
// first, then the broken block, then another certificate; Node 22, 24 and 26 all keep the
// CA alone (and none where the broken block comes first).
const block = (name: string, body: string) =>
  `-----BEGIN ${name}-----\n${body}\n-----END ${name}-----\n`;
const der = () => caPem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
const partlyBroken: Array<[string, () => string, number]> = [
  [
    'a block that is not base64',
    () => caPem + block('CERTIFICATE', 'MIIB!!!not*base64') + otherPem,
    1,
  ],
  [
    'a truncated certificate',
    () => caPem + block('CERTIFICATE', der().slice(0, 3).join('\n')) + otherPem,
    1,
  ],
  ['a certificate with no END line', () => `${caPem}-----BEGIN CERTIFICATE-----\n${der()[0]}\n`, 1],
  ['a broken private key block', () => caPem + block('PRIVATE KEY', 'MIIB!!!') + otherPem, 1],
  ['a broken block before the CA', () => block('CERTIFICATE', 'MIIB!!!') + caPem, 0],
];
// Files Node loads in full, without a word: pets leaves them to Node.
const loadable: Array<[string, () => string, boolean]> = [
  ['text between the blocks', () => `${caPem}some notes\n# a comment\n${otherPem}`, true],
  ['a private key block', () => caPem + block('PRIVATE KEY', der().join('\n')) + otherPem, true],
  [
    "a blank line before a block's END (Node stops there, silently)",
    () => `${caPem}-----BEGIN PRIVATE KEY-----\n${der().join('\n')}\n\n-----END PRIVATE KEY-----\n`,
    true,
  ],
  ['an empty file', () => '', false],
  ['only comments', () => '# the company CA goes here\n', false],
];

describe('a NODE_EXTRA_CA_CERTS file Node loads only in part, under --json', () => {
  /** pets with `content` as its NODE_EXTRA_CA_CERTS, and a $TMPDIR of its own. */
  async function withCaFile(content: string, flags: string[]) {
    const dir = tempDir('pets-ca-file-');
    const tmp = tempDir('pets-ca-tmp-');
    writeFileSync(join(dir, 'ca.pem'), content);
    const env = apiEnv(
      { baseUrl: server.baseUrl, key: sandbox.key },
      { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), TMPDIR: tmp },
    );
    const run = await runBinary(['list', ...flags], env);
    expect(readdirSync(tmp), 'the private copy is gone').toEqual([]);
    return run;
  }

  it.each(partlyBroken)(
    '%s: a JSON warning, and TLS trusts what Node keeps',
    async (_, content, kept) => {
      const file = content();
      // Node's own word on the file, in a run without --json.
      const text = await withCaFile(file, []);
      expect(text.stderr).toContain('Warning: Ignoring extra certs from');
      expect(text.code).toBe(kept ? 0 : 6);

      const run = await withCaFile(file, ['--json']);
      expect(run.stderr).not.toContain('Ignoring extra certs');
      const lines = jsonLines(run.stderr);
      expect(lines[0]).toEqual({
        warning: {
          code: 'extra_ca_partly_unreadable',
          message: expect.stringContaining(`only the ${kept} certificate(s) before the fault`),
          file: expect.stringMatching(/ca\.pem$/),
          reason: expect.stringContaining('error:'),
          kept,
        },
      });
      if (kept) {
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)[0].name).toBe(sandbox.pets()[0]!.name);
        expect(lines).toHaveLength(1);
      } else {
        expect(run.code).toBe(6);
        expect(lines.map((line) => Object.keys(line)[0])).toEqual(['warning', 'error']);
      }
    },
  );

  it.each(loadable)(
    '%s: Node loads it without a word, and so does pets',
    async (_, content, ok) => {
      const file = content();
      const text = await withCaFile(file, []);
      expect(text.stderr).not.toContain('Ignoring extra certs');
      const run = await withCaFile(file, ['--json']);
      expect(run.code).toBe(ok ? 0 : 6);
      expect(text.code).toBe(run.code);
      const kinds = jsonLines(run.stderr).map((line) => Object.keys(line)[0]);
      expect(kinds).toEqual(ok ? [] : ['error']);
    },
  );

  it('a file found clean is not scanned again until it changes', async () => {
    const dir = tempDir('pets-ca-file-');
    const cache = tempDir('pets-ca-cache-');
    const file = join(dir, 'ca.pem');
    writeFileSync(file, loadable[0]![1]());
    const env = apiEnv(
      { baseUrl: server.baseUrl, key: sandbox.key },
      { NODE_EXTRA_CA_CERTS: file, XDG_CACHE_HOME: cache },
    );
    const clean = await runBinary(['list', '--json'], env);
    expect(clean.code).toBe(0);
    const entry = readFileSync(join(cache, 'pets', 'extra-ca-clean'), 'utf8');
    expect(entry.startsWith(`${file}\t`)).toBe(true);
    // The same path, broken since: its size and times differ, so it is scanned again.
    writeFileSync(file, partlyBroken[0]![1]());
    const broken = await runBinary(['list', '--json'], env);
    expect(broken.stderr).not.toContain('Ignoring extra certs');
    expect(jsonLines(broken.stderr)[0]).toMatchObject({
      warning: { code: 'extra_ca_partly_unreadable', kept: 1 },
    });
  });

  it('--jq: the restarted run answers, and leaves no copy behind', async () => {
    // --jq is a JSON run too: the same restart, and the copy removed (withCaFile checks).
    const run = await withCaFile(partlyBroken[0]![1](), ['--jq', '.[0].name']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(sandbox.pets()[0]!.name);
  });
});
