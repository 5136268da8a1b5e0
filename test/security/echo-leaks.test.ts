import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_ENCODINGS,
  keyBearingPart,
  leaksPart,
  type Encode,
} from '../helpers/echo-encodings.js';
import { sendJson, startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runBinary } from '../helpers/run-binary.js';
import { cases } from '../helpers/trials.js';

// The leak check of issue 30: a loopback server echoes the Authorization header it was sent,
// in each encoding a gateway is known to use, into a list's names, an add's error, the --debug
// trace and a batch's journal; and, as a gateway that logged them would, the proxy credentials
// and the rate store's password the run holds (where redis-server is installed). The built
// binary runs against it, and every output and file is searched for the secret and for any
// piece of its encoding as long as 8 of its characters (see leaksPart).

const KEY = 'sk_live_CANARY_5f2e9a7c41b8d306';
// A key with the characters servers escape.
const SPECIAL = 'sk/live<CANARY>&"q"\\+=%e9;7d1e';
const PROXY = { user: 'proxy-user', password: 'proxy-pass-7d1e4b9a' };
const STORE_PASSWORD = 'redis-pass-0c5f18e2';

const perChar = (text: string, format: (code: number) => string) =>
  [...text].map((ch) => format(ch.codePointAt(0)!)).join('');
const base64After = (pad: number, encoding: 'base64' | 'base64url') => (text: string) =>
  Buffer.from(`${'x'.repeat(pad)}${text}`).toString(encoding);

/** The forms redaction took before issue 30's second round, each of the whole text. */
const EARLIER: Array<[string, Encode]> = [
  ['as it is', (t) => t],
  ['in upper case', (t) => t.toUpperCase()],
  ['every character \\uXXXX', (t) => perChar(t, (c) => `\\u${c.toString(16).padStart(4, '0')}`)],
  ['percent-encoded', (t) => encodeURIComponent(t)],
  ['form-encoded', (t) => new URLSearchParams({ k: t }).toString().slice(2)],
  ['hex', (t) => Buffer.from(t).toString('hex')],
  ['HEX', (t) => Buffer.from(t).toString('hex').toUpperCase()],
  ['\\xNN', (t) => perChar(t, (c) => `\\x${c.toString(16).padStart(2, '0')}`)],
  ['HTML decimal entities', (t) => perChar(t, (c) => `&#${c};`)],
  ['HTML hex entities', (t) => perChar(t, (c) => `&#x${c.toString(16)};`)],
  ...[0, 1, 2].flatMap((pad): Array<[string, Encode]> => [
    [`base64 after ${pad} bytes`, base64After(pad, 'base64')],
    [`base64url after ${pad} bytes`, base64After(pad, 'base64url')],
  ]),
  ['with zero-width spaces between', (t) => [...t].join('\u200b')],
  ['with ESC[0m between', (t) => [...t].join('\x1b[0m')],
];
const FORMS = [...EARLIER, ...GATEWAY_ENCODINGS];

let proxy: ForwardProxy;
let store: RedisServer | undefined;
beforeAll(async () => {
  proxy = await startForwardProxy({ credentials: PROXY });
  if (!redisMissing) store = await startRedis({ password: STORE_PASSWORD });
});
afterAll(async () => {
  await proxy.close();
  await store?.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * Runs the five commands against a server of its own that echoes in `encode` (forms run side
 * by side); returns every output and file.
 */
async function echoedOutputs(key: string, encode: Encode) {
  const echo = await startFaultServer();
  try {
    return await outputsOf(echo, key, encode);
  } finally {
    await echo.close();
  }
}

async function outputsOf(echo: FaultServer, key: string, encode: Encode) {
  // Removed by this test, not after each test: the forms run side by side.
  const dir = mkdtempSync(join(tmpdir(), 'pets-echo-leaks-'));
  const records = join(dir, 'in.ndjson');
  writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n');
  const env = {
    PETS_CONFIG_DIR: join(dir, 'config'),
    PETS_BASE_URL: echo.baseUrl,
    PETS_API_KEY: key,
    http_proxy: `http://${PROXY.user}:${PROXY.password}@127.0.0.1:${proxy.port}`,
    ...(store ? { PETS_RATE_STORE: `redis://:${STORE_PASSWORD}@127.0.0.1:${store.port}` } : {}),
  };
  // The header, and what a gateway that logged them would know of the other secrets.
  const said = (authorization: string) =>
    [
      encode(authorization, key),
      encode(`Basic ${PROXY.user}:${PROXY.password}`, PROXY.password),
      ...(store ? [encode(`AUTH default ${STORE_PASSWORD}`, STORE_PASSWORD)] : []),
    ].join(' | ');
  const header = (text: string): Record<string, string> =>
    /^[\x20-\x7e]*$/.test(text) ? { 'x-echo': text } : {};
  echo.handle((req, res) => {
    const text = said(String(req.headers.authorization));
    if (req.method === 'GET') {
      sendJson(res, 200, JSON.stringify([{ id: 1, name: text, categoryId: 1 }]), header(text));
    } else if (req.body.includes('"A"')) {
      sendJson(res, 201, JSON.stringify({ id: 2, name: text, categoryId: 1 }), header(text));
    } else {
      const error = { code: 'invalid', message: `you sent ${text}`, status: 400 };
      sendJson(res, 400, JSON.stringify(error), header(text));
    }
  });
  const journal = join(dir, 'batch.journal');
  const runs = {
    list: await runBinary(['list'], env),
    'list --json --debug': await runBinary(['list', '--json', '--debug'], env),
    'add error': await runBinary(['add', '--name', 'B', '--category-id', '1'], env),
    'add error --json --debug': await runBinary(
      ['add', '--name', 'B', '--category-id', '1', '--json', '--debug'],
      env,
    ),
    batch: await runBinary(
      ['add', '--file', records, '--journal', journal, '--yes', '--new-run', '--debug'],
      env,
    ),
  };
  const outputs: Array<[string, string]> = Object.entries(runs).flatMap(
    ([what, run]): Array<[string, string]> => [
      [`${what}: stdout`, run.stdout],
      [`${what}: stderr`, run.stderr],
    ],
  );
  for (const file of filesUnder(dir)) {
    if (file !== records) outputs.push([file.slice(dir.length + 1), readFileSync(file, 'utf8')]);
  }
  rmSync(dir, { recursive: true, force: true });
  return { runs, outputs };
}

describe.each([
  ['a key', KEY, 0],
  ['a key with the characters servers escape', SPECIAL, 6],
])('%s echoed by a gateway', (_what, key, offset) => {
  const counts = { forms: 0, outputs: new Set<number>(), leaks: 0 };
  const secrets = (authorization: string) => [
    { text: authorization, secret: key },
    { text: `Basic ${PROXY.user}:${PROXY.password}`, secret: PROXY.password },
    ...(store ? [{ text: `AUTH default ${STORE_PASSWORD}`, secret: STORE_PASSWORD }] : []),
  ];

  // npm test tries every sixth form end to end, half of them with each key (test/core/
  // redact.test.ts takes each form out in-process, with no spawn); test:trials tries them all
  // with both keys here.
  it.concurrent.each(
    cases(
      FORMS,
      FORMS.filter((_, i) => i % 12 === offset),
    ),
  )('never shows echoed %s', async (how, encode) => {
    const { runs, outputs } = await echoedOutputs(key, encode);
    const leaks = [];
    for (const { text, secret } of secrets(`Bearer ${key}`)) {
      const part = keyBearingPart(encode, text, secret);
      for (const [where, output] of outputs) {
        if (output.includes(secret) || leaksPart(output, part, secret.length)) {
          leaks.push({ how, secret, where, output });
        }
      }
    }
    counts.forms++;
    counts.outputs.add(outputs.length);
    counts.leaks += leaks.length;
    expect(leaks).toEqual([]);
    // The echo arrived, and was taken out where it arrived: a list's name, an add's error,
    // the batch's journal (also --debug, whose trace shows the x-echo header).
    expect(runs.list.code).toBe(0);
    expect(runs.list.stdout).toContain('***');
    expect(runs['add error'].stderr).toMatch(/you sent .*\*\*\*/);
    expect(outputs.find(([what]) => what === 'batch.journal')?.[1]).toContain('***');
  });

  afterAll(() => {
    // The figure the note quotes.
    console.log(
      `${JSON.stringify(key)}: ${counts.forms} forms × ${[...counts.outputs].join('/')} outputs × ${store ? 3 : 2} secrets, ${counts.leaks} leaks`,
    );
  });
});
