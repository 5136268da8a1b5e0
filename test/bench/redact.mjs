// What redaction costs per write, for the kinds of text pets prints, against a plain search
// for the secret as it is (the least any redaction can do). Text with no possible encoding
// (a table of names, with no \ % & + and no long run of the secret's alphabet) is the common
// case, and should cost about that least. Given another redact.ts (say main's, saved before a
// change), each text is measured with both in the same run, and the last column is their ratio.
//   node test/bench/redact.mjs [path of another redact.ts to compare]
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const { redact } = await import('../../src/core/redact.ts');
const before = process.argv[2]
  ? (await import(pathToFileURL(process.argv[2]).href)).redact
  : undefined;
const KEY = 'sk_live_CANARY_5f2e9a7c41b8d306';
const secrets = [KEY, 'proxy-user:proxy-password-1'];

const rows = Array.from({ length: 20 }, (_, i) => `${1000 + i}\tRex ${i}\t${i % 5}\tavailable`);
const texts = {
  'a table of 20 pets': `${rows.join('\n')}\n`,
  'a JSON page of 20 pets, 16-digit ids': `${JSON.stringify(
    rows.map((_, i) => ({
      id: `90071992547409${10 + i}`,
      name: `Rex ${i}`,
      categoryId: i % 5,
      status: 'available',
      createdAt: '2026-11-26T15:21:24.000Z',
    })),
  )}\n`,
  'a JSON line':
    '{"id":9007199254740993,"name":"Rex the third","categoryId":3,"status":"available"}\n',
  'a --debug line with %':
    '> GET http://127.0.0.1:4000/v1/pets?limit=20&status=available (user-agent: pets/1.0.0)\n',
  'an echoed key in base64 among 2 KiB': `${'word '.repeat(200)}${Buffer.from(`Bearer ${KEY}`).toString('base64')}${' word'.repeat(200)}`,
};

function nsPerCall(fn, text, ms) {
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 50; i++) fn(text);
    calls += 50;
  }
  return ((performance.now() - start) * 1e6) / calls;
}

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Each function's time per call, the median of 9 rounds that take turns, so that a machine
 * busy with other work slows all of them alike; and the median of each round's ratio of the
 * first to the others.
 */
function measure(fns, text) {
  for (const fn of fns) for (let i = 0; i < 2000; i++) fn(text);
  const rounds = Array.from({ length: 9 }, () => fns.map((fn) => nsPerCall(fn, text, 40)));
  return {
    ns: fns.map((_, i) => median(rounds.map((round) => round[i]))),
    ratios: fns.map((_, i) => median(rounds.map((round) => round[0] / round[i]))),
  };
}

const exact = (text) => secrets.reduce((t, s) => t.split(s).join('***'), text);
const head = 'text                                   redact     plain search   ratio';
console.log(before ? `${head}      before   after/before` : head);
for (const [what, text] of Object.entries(texts)) {
  const fns = [(t) => redact(t, secrets), exact];
  if (before) fns.push((t) => before(t, secrets));
  const { ns, ratios } = measure(fns, text);
  console.log(
    `${what.padEnd(38)} ${ns[0].toFixed(0).padStart(7)} ns ${ns[1].toFixed(0).padStart(9)} ns   ${ratios[1].toFixed(1).padStart(5)}×` +
      (before ? ` ${ns[2].toFixed(0).padStart(8)} ns   ${ratios[2].toFixed(2)}×` : ''),
  );
}
