// The baseline for the unpaced batch benchmark: POSTs of the same records with plain undici
// request() calls at a given concurrency, and nothing else.
//   node raw-undici-loop.mjs <baseUrl> <key> <ndjson file> <concurrency>
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [baseUrl, key, file, concurrencyText] = process.argv.slice(2);
const bodies = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
let next = 0;
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const response = await request(`${baseUrl}/pets`, {
      dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    await response.body.text();
    if (response.statusCode !== 201) throw new Error(`status ${response.statusCode}`);
  }
}
await Promise.all(Array.from({ length: Number(concurrencyText) }, worker));
await dispatcher.close();
const usage = process.resourceUsage();
process.stderr.write(`cpu-us ${usage.userCPUTime + usage.systemCPUTime}\n`);
