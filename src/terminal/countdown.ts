import type { Clock } from '../core/clock.js';
import type { Waiter } from '../ratelimit/gate.js';
import type { Output } from './io.js';

/**
 * Spends a rate-limit wait showing a countdown on one stderr line ("rate limited, retrying
 * in 12 s, attempt 2/5"), redrawn each second and erased at the end. Off a terminal it just
 * sleeps. Either way Ctrl-C ends the wait at once.
 */
export function countdownWaiter(clock: Clock, stderr: Output, show: boolean): Waiter {
  if (!show) return (ms, _notice, signal) => clock.sleep(ms, signal);
  return async (ms, notice, signal) => {
    const end = clock.now() + ms;
    const retrying = notice.attempt > 1;
    try {
      for (let left = ms; left > 0; left = end - clock.now()) {
        stderr.write(
          `\r\u001b[2K${notice.reason}, ${retrying ? 'retrying' : 'sending'} in ${Math.ceil(left / 1000)} s` +
            (retrying ? `, attempt ${notice.attempt}/${notice.maxAttempts}` : ''),
        );
        // Sleep to the next whole second left, so the number shown is always the ceiling.
        await clock.sleep(left % 1000 || 1000, signal);
      }
    } finally {
      stderr.write('\r\u001b[2K');
    }
  };
}
