import { describe, expect, it } from 'vitest';
import { countdownWaiter } from '../../src/terminal/countdown.js';
import { fakeClock } from '../helpers/fake-clock.js';
import { captureIo } from '../helpers/io.js';

describe('countdownWaiter', () => {
  const notice = { reason: 'rate limited', attempt: 2, maxAttempts: 5 };

  it('counts down whole seconds on one line and erases it', async () => {
    const clock = fakeClock();
    const io = captureIo();
    await countdownWaiter(clock, io.stderr, true)(2_500, notice);
    expect(clock.sleeps).toEqual([500, 1_000, 1_000]);
    expect(io.err().split('\r\u001b[2K').filter(Boolean)).toEqual([
      'rate limited, retrying in 3 s, attempt 2/5',
      'rate limited, retrying in 2 s, attempt 2/5',
      'rate limited, retrying in 1 s, attempt 2/5',
    ]);
    expect(io.err().endsWith('\r\u001b[2K')).toBe(true);
  });

  it('says "sending" for a first attempt held back by pacing', async () => {
    const io = captureIo();
    await countdownWaiter(
      fakeClock(),
      io.stderr,
      true,
    )(1_000, { reason: 'pacing', attempt: 1, maxAttempts: 5 });
    expect(io.err()).toContain('pacing, sending in 1 s');
    expect(io.err()).not.toContain('attempt');
  });

  it('only sleeps when not shown', async () => {
    const clock = fakeClock();
    const io = captureIo();
    await countdownWaiter(clock, io.stderr, false)(2_500, notice);
    expect(clock.sleeps).toEqual([2_500]);
    expect(io.err()).toBe('');
  });

  it('stops at once when aborted, erasing the line', async () => {
    const io = captureIo();
    const stop = new AbortController();
    stop.abort();
    await expect(
      countdownWaiter(fakeClock(), io.stderr, true)(5_000, notice, stop.signal),
    ).rejects.toThrow();
    expect(io.err().endsWith('\r\u001b[2K')).toBe(true);
  });
});
