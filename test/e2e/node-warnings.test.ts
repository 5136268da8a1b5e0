import { writeFileSync } from 'node:fs';
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

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited', seed: 2 });
  const { certificates } = makeCertificates();
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
