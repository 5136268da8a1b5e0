import { describe, expect, it } from 'vitest';
import { ProgressLine, renderProgress } from '../../src/terminal/progress.js';
import { fakeClock } from '../helpers/fake-clock.js';
import { captureIo } from '../helpers/io.js';

const frames = (stderr: string) => stderr.split('\r\u001b[2K').filter(Boolean);
const notice = { reason: 'quota used up', attempt: 1, maxAttempts: 5 };

describe('the progress line', () => {
  it('counts down every second of a wait', async () => {
    const clock = fakeClock();
    const io = captureIo();
    const line = new ProgressLine(io.stderr, clock);
    line.start({ toSend: 20 });
    await line.waiter()(3_500, notice);
    const shown = frames(io.err()).map((frame) => /sending in (\d+) s/.exec(frame)?.[1]);
    // Drawn at the start, then at each whole second left, then once the wait is over.
    expect(shown).toEqual(['4', '3', '2', '1', undefined]);
    expect(clock.sleeps).toEqual([500, 1_000, 1_000, 1_000]);
  });

  it('gives the time the quota still imposes, not the pace of the last burst', async () => {
    // 20 records at 10 per 12 s: the first 10 go at once, then the quota is used up.
    const clock = fakeClock();
    const io = captureIo();
    const start = clock.now();
    const state = { quota: { limit: 10, remaining: 0, resetAtMs: start + 12_000 } };
    const line = new ProgressLine(io.stderr, clock);
    line.start({ toSend: 20 }, () => state);
    for (let i = 0; i < 10; i++) line.advance({ kind: 'created', sent: true });
    await clock.sleep(100);
    const waiting = line.waiter()(11_900, notice);
    expect(line.stats().etaMs).toBe(11_900);
    await waiting;
    // Every frame of the wait says how long the rest takes: the wait, then a burst.
    const during = frames(io.err()).filter((frame) => frame.includes('sending in'));
    expect(during.length).toBeGreaterThanOrEqual(12);
    expect(during.every((frame) => /ETA \d/.test(frame))).toBe(true);
    expect(during.at(-1)).toMatch(/ETA 1\.0 s · quota used up, sending in 1 s$/);
    // At the reset, the new window holds all 10 left: they go at the pace of sending.
    state.quota = { limit: 10, remaining: 10, resetAtMs: start + 24_000 };
    await clock.sleep(1_000);
    for (let i = 0; i < 9; i++) line.advance({ kind: 'created', sent: true });
    await clock.sleep(100);
    const end = line.stats();
    expect(end.etaMs).toBeLessThan(1_000);
  });

  it('lets the ETA fall no faster than time while a window read mid-way runs out', async () => {
    // 35 records at 10 per 90 s, the window 2 s old when first read: its length reads as 88 s,
    // then 87, 86… Read anew each second, the ETA fell 3 s a second (the hostile tester's
    // 54, 51, 48…); the longest length read is kept instead.
    const clock = fakeClock();
    const start = clock.now();
    const state = { quota: { limit: 10, remaining: 0, resetAtMs: start + 88_000 } };
    const line = new ProgressLine(captureIo().stderr, clock);
    line.start({ toSend: 35 }, () => state);
    for (let i = 0; i < 10; i++) line.advance({ kind: 'created', sent: true });
    const first = line.stats().etaMs!;
    // 25 left: the 88 s left of this window, then two more windows of at least 88 s.
    expect(first).toBe(88_000 + 88_000 * 2);
    for (let second = 1; second <= 6; second++) {
      await clock.sleep(1_000);
      expect(line.stats().etaMs).toBe(first - second * 1_000);
    }
  });

  it('takes a Reset read again in the same window (told to the second) for no new window', async () => {
    // 300 records at 60 a minute. Answers in the same window tell its Reset a second apart (a
    // whole second, rounded up, read as it passes): taken for two resets, the window read as
    // 1 s long, and the ETA fell from 5 min to 59 s in the first burst.
    const clock = fakeClock();
    const start = clock.now();
    const state = { quota: { limit: 60, remaining: 50, resetAtMs: start + 60_000 } };
    const line = new ProgressLine(captureIo().stderr, clock);
    line.start({ toSend: 300 }, () => state);
    for (let i = 0; i < 10; i++) line.advance({ kind: 'created', sent: true });
    await clock.sleep(300);
    state.quota = { limit: 60, remaining: 30, resetAtMs: start + 61_000 };
    for (let i = 0; i < 20; i++) line.advance({ kind: 'created', sent: true });
    await clock.sleep(300);
    // 270 left: 30 in this window, then 240 in four more, the last opening 4 min after it.
    expect(line.stats().etaMs).toBeGreaterThan(4 * 60_000);
    // The next window does open a minute later: its Reset is a new window's.
    await clock.sleep(61_000 - 600);
    state.quota = { limit: 60, remaining: 59, resetAtMs: start + 121_000 };
    line.advance({ kind: 'created', sent: true });
    await clock.sleep(300);
    expect(line.stats().etaMs).toBeGreaterThan(3 * 60_000);
  });

  it('leaves skipped records out of the rate and the count, and says them beside it', async () => {
    const clock = fakeClock();
    const io = captureIo();
    const line = new ProgressLine(io.stderr, clock);
    line.start({ toSend: 100 });
    for (let i = 0; i < 200; i++) line.advance({ kind: 'skipped' });
    await clock.sleep(10_000);
    for (let i = 0; i < 20; i++) line.advance({ kind: 'created', sent: true });
    const stats = line.stats();
    expect(stats).toMatchObject({ done: 20, skipped: 200, total: 100, rate: 2 });
    // 80 creates left at the pace of sending; the skipped ones took none of it.
    expect(renderProgress(stats)).toBe(
      '20/100 [####................] 20% · 200 skipped · 2.0/s · ETA 40 s',
    );
  });

  it('counts to the records to send, as the plan does: not to the invalid rows', () => {
    // 300 rows, 3 of them invalid: the plan says `297 to send`, and so does the line.
    const clock = fakeClock();
    const line = new ProgressLine(captureIo().stderr, clock);
    line.start({ toSend: 297 });
    for (let i = 0; i < 3; i++) line.advance({ kind: 'failed', sent: false });
    for (let i = 0; i < 60; i++) line.advance({ kind: 'created', sent: true });
    // Held back by the journal: not sent, not counted.
    line.advance({ kind: 'unknown', sent: false });
    expect(line.stats()).toMatchObject({ done: 60, total: 297 });
    expect(renderProgress(line.stats())).toMatch(/^60\/297 /);
    // A failed or unknown create was sent: it counts; so does a record a stop cut off.
    line.advance({ kind: 'failed', sent: true });
    line.advance({ kind: 'unknown', sent: true });
    line.advance({ kind: 'notSent' });
    expect(line.stats().done).toBe(63);
  });

  it('follows the pace of sending after a burst, when no quota is known', async () => {
    const clock = fakeClock();
    const line = new ProgressLine(captureIo().stderr, clock);
    line.start({ toSend: 200 });
    for (let i = 0; i < 60; i++) line.advance({ kind: 'created', sent: true });
    for (let s = 1; s <= 20; s++) {
      await clock.sleep(1_000);
      line.advance({ kind: 'created', sent: true });
    }
    // The last 10 s went at 1 a second: 120 left take 2 min.
    expect(line.stats().etaMs).toBe(120_000);
  });
});

describe('renderProgress', () => {
  it.each([
    [
      { done: 50, total: 200, rate: 5, etaMs: 30_000 },
      '50/200 [#####...............] 25% · 5.0/s · ETA 30 s',
    ],
    [{ done: 7, rate: 3.5 }, '7 done · 3.5/s'],
    [
      { done: 1, total: 4, rate: 1, etaMs: 3_000, waitMs: 2_500, waitReason: 'pacing' },
      '1/4 [#####...............] 25% · 1.0/s · ETA 3.0 s · paced to the rate limit',
    ],
    [
      { done: 2, total: 4, rate: 2, etaMs: 12_000, waitMs: 11_001, waitReason: 'quota used up' },
      '2/4 [##########..........] 50% · 2.0/s · ETA 12 s · quota used up, sending in 12 s',
    ],
  ])('%j', (stats, shown) => expect(renderProgress(stats)).toBe(shown));
});

describe('the progress line on a terminal of any width', () => {
  const width = (text: string) => [...text].length;
  const waitingStats = {
    done: 61,
    skipped: 179,
    total: 300,
    rate: 447.8,
    etaMs: 180_000,
    waitMs: 9_500,
    waitReason: 'quota used up',
  };

  it('is the full line where it fits, and never as wide as the terminal', () => {
    const full = renderProgress(waitingStats);
    expect(full).toBe(
      '61/300 [####................] 20% · 179 skipped · 447.8/s · ETA 3 min · quota used up, sending in 10 s',
    );
    expect(renderProgress(waitingStats, { columns: full.length + 1, width })).toBe(full);
    for (let columns = 1; columns <= 120; columns++) {
      const line = renderProgress(waitingStats, { columns, width });
      expect(width(line), `${columns} columns: ${line}`).toBeLessThan(Math.max(2, columns));
    }
  });

  it.each([
    [
      100,
      '61/300 [####................] 20% · 179 skipped · ETA 3 min · quota used up, sending in 10 s',
    ],
    [80, '61/300 [####................] 20% · 179 skipped · ETA 3 min · sending in 10 s'],
    [60, '61/300 [###.............] 20% · ETA 3 min · sending in 10 s'],
    [50, '61/300 [#.....] 20% · ETA 3 min · sending in 10 s'],
    [45, '61/300 20% · ETA 3 min · sending in 10 s'],
    [40, '61/300 · ETA 3 min · in 10 s'],
    [39, '61/300 · ETA 3 min · in 10 s'],
    [20, '61/300 · in 10 s'],
  ])('at %i columns: the rate goes first, then words, then the bar', (columns, shown) => {
    expect(renderProgress(waitingStats, { columns, width })).toBe(shown);
  });

  it('keeps the ETA where no wait is under way, and only the count and the time below 40 columns', () => {
    const stats = { done: 50, total: 200, rate: 5, etaMs: 30_000 };
    expect(renderProgress(stats, { columns: 39, width })).toBe('50/200 · ETA 30 s');
    expect(renderProgress({ done: 7, rate: 3.5 }, { columns: 30, width })).toBe('7 done');
  });

  it('measures by display width: wide characters take two columns', () => {
    // A width function that counts every character twice stands for a wide-character text.
    const line = renderProgress(waitingStats, { columns: 80, width: (t) => 2 * t.length });
    expect(2 * line.length).toBeLessThan(80);
  });

  it('draws at the width of the moment, and after a resize erases the rows the old frame wrapped to', async () => {
    const clock = fakeClock();
    const io = captureIo();
    let columns = 100;
    let resize = () => {};
    const line = new ProgressLine(io.stderr, clock, {
      columns: () => columns,
      width,
      onResize: (listener) => {
        resize = listener;
        return () => (resize = () => {});
      },
    });
    line.start({ toSend: 300 });
    const waiting = line.waiter()(5_000, notice);
    const wide = frames(io.err()).at(-1)!;
    expect(wide.length).toBeGreaterThan(80);
    expect(wide.length).toBeLessThan(100);
    columns = 40;
    resize();
    // The 80-odd-column frame now takes three rows of 40: up two, erase below, draw anew.
    expect(io.err()).toContain('\r\u001b[2A\u001b[J');
    const narrow = frames(io.err()).at(-1)!;
    expect(narrow.length).toBeLessThan(40);
    await waiting;
    line.end();
    // Once ended, a resize draws nothing.
    const before = io.err();
    resize();
    expect(io.err()).toBe(before);
  });
});

describe('messages written above the progress line', () => {
  it('clear the line first and draw it again below them', async () => {
    const { StderrNotices } = await import('../../src/terminal/stderr-notices.js');
    const clock = fakeClock();
    const io = captureIo();
    const line = new ProgressLine(io.stderr, clock, { columns: () => 80, width: (t) => t.length });
    line.start({ toSend: 10 });
    line.advance({ kind: 'created', sent: true });
    const notices = new StderrNotices(io.stderr, false);
    notices.keepBelow(line);
    notices.write('warning', { code: 'warning', message: 'the server is slow' });
    const written = io.err();
    const at = written.indexOf('the server is slow');
    // Erased just before the message, drawn again just after it: no frame is left above it.
    expect(written.slice(0, at).endsWith('\r\u001b[2K')).toBe(true);
    expect(written.slice(at)).toMatch(/^the server is slow\n\r\u001b\[2K1\/10 /);
  });
});
