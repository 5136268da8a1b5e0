import type { Clock } from '../core/clock.js';
import type { Waiter, WaitNotice } from '../ratelimit/gate.js';
import type { Output } from './io.js';
import { fitLine, LiveFrame, type LineFit, type LineTerminal } from './live-frame.js';

/**
 * The countdown's line, fitted with `fit` to be narrower than the terminal: the attempt goes
 * first, then the reason; the time left stays.
 */
export function renderCountdown(notice: WaitNotice, seconds: number, fit?: LineFit): string {
  const retrying = notice.attempt > 1;
  const when = `${retrying ? 'retrying' : 'sending'} in ${seconds} s`;
  const attempt = `attempt ${notice.attempt}/${notice.maxAttempts}`;
  const full = `${notice.reason}, ${when}${retrying ? `, ${attempt}` : ''}`;
  if (!fit) return full;
  return fitLine([full, `${notice.reason}, ${when}`, when, `in ${seconds} s`], fit);
}

/**
 * Spends a rate-limit wait showing a countdown on one stderr line ("rate limited, retrying
 * in 12 s, attempt 2/5"), redrawn each second and erased at the end. It draws as the progress
 * line does (LiveFrame): fitted to the terminal's width at each draw, and redrawn at once at a
 * resize. `terminal` is asked for at the first wait, so that a command that never waits does
 * not load the width function. Off a terminal it just sleeps. Either way Ctrl-C ends the wait
 * at once.
 */
export function countdownWaiter(
  clock: Clock,
  stderr: Output,
  show: boolean,
  terminal?: () => Promise<LineTerminal>,
): Waiter {
  if (!show) return (ms, _notice, signal) => clock.sleep(ms, signal);
  return async (ms, notice, signal) => {
    const end = clock.now() + ms;
    const frame = new LiveFrame(stderr, terminal && (await terminal()));
    const draw = () => {
      const left = Math.max(1, end - clock.now());
      frame.show(renderCountdown(notice, Math.ceil(left / 1000), frame.fit()));
    };
    const stopResizes = frame.followResizes(draw);
    try {
      for (let left = ms; left > 0; left = end - clock.now()) {
        draw();
        // Sleep to the next whole second left, so the number shown is always the ceiling.
        await clock.sleep(left % 1000 || 1000, signal);
      }
    } finally {
      stopResizes();
      frame.clear();
    }
  };
}
