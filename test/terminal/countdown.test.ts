import { describe, expect, it } from 'vitest';
import { countdownWaiter, renderCountdown } from '../../src/terminal/countdown.js';
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

  it.each([
    [100, 'rate limited, retrying in 12 s, attempt 2/5'],
    [44, 'rate limited, retrying in 12 s, attempt 2/5'],
    [43, 'rate limited, retrying in 12 s'],
    [30, 'retrying in 12 s'],
    [17, 'retrying in 12 s'],
    [16, 'in 12 s'],
    [5, 'in 1'],
  ])('at %i columns: the attempt goes first, then the reason; the time stays', (columns, shown) => {
    const width = (text: string) => text.length;
    expect(renderCountdown(notice, 12, { columns, width })).toBe(shown);
  });

  it('draws narrower than the terminal, and redraws at once at a resize', async () => {
    const clock = fakeClock();
    const io = captureIo();
    let columns = 100;
    let resize = () => {};
    let stopped = false;
    const terminal = {
      columns: () => columns,
      width: (text: string) => text.length,
      onResize: (listener: () => void) => {
        resize = listener;
        return () => ((resize = () => {}), (stopped = true));
      },
    };
    const frames = () =>
      io
        .err()
        .split('\r')
        .map((frame) => frame.replace(/\u001b\[[0-9;]*[A-Za-z]/g, ''))
        .filter(Boolean);
    let resized = false;
    const sleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      // In the middle of the wait, the terminal narrows to 35 columns.
      if (!resized) {
        resized = true;
        columns = 35;
        resize();
      }
      return sleep(ms, signal);
    };
    await countdownWaiter(clock, io.stderr, true, async () => terminal)(2_500, notice);
    expect(frames()[0]).toBe('rate limited, retrying in 3 s, attempt 2/5');
    // The 43-column frame took two rows of 35: up one, erase below, draw anew, narrower.
    expect(io.err()).toContain('\r\u001b[1A\u001b[J');
    expect(frames()).toEqual([
      'rate limited, retrying in 3 s, attempt 2/5',
      'rate limited, retrying in 3 s',
      'rate limited, retrying in 2 s',
      'rate limited, retrying in 1 s',
    ]);
    expect(stopped).toBe(true);
    expect(io.err().endsWith('\r\u001b[2K')).toBe(true);
  });
});
