// Runs pets in this process and prints its peak resident memory (KiB) and CPU time (µs) on
// stderr at exit,
// so a benchmark can measure the CLI's own memory, not the harness's.
import { main } from '../../dist/runtime/main.js';

process.exitCode = await main(['node', 'pets', ...process.argv.slice(2)]);
const usage = process.resourceUsage();
process.stderr.write(
  `\npeak-rss-kib ${usage.maxRSS}\ncpu-us ${usage.userCPUTime + usage.systemCPUTime}\n`,
);
