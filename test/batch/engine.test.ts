import {
  appendFileSync,
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { UsageError } from '../../src/core/errors.js';
import { pidSpace } from '../../src/core/process-alive.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OccurrenceCounter, RecordIndex } from '../../src/batch/record-index.js';
import { openJournal } from '../../src/batch/journal.js';
import { forEachLine } from '../../src/batch/journal-lines.js';
import { planRecord } from '../../src/batch/plan.js';
import { recordHash } from '../../src/batch/record-hash.js';
import { runBatch } from '../../src/batch/run-batch.js';
import { defaultConcurrency } from '../../src/batch/concurrency.js';
import { tempDir } from '../helpers/config-dir.js';

async function* numbers(count: number) {
  for (let i = 0; i < count; i++) yield i;
}
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runBatch', () => {
  it('emits results in input order whatever order they finish in', async () => {
    const emitted: number[] = [];
    await runBatch({
      items: numbers(40),
      concurrency: 6,
      work: async (n) => {
        await tick((n * 7) % 5);
        return { result: n * 10 };
      },
      emit: (_n, result) => emitted.push(result),
    });
    expect(emitted).toEqual(Array.from({ length: 40 }, (_, i) => i * 10));
  });

  it('calls work for the items in input order, however the ones before them finish', async () => {
    const called: number[] = [];
    const pending: Array<() => void> = [];
    const run = runBatch({
      items: numbers(30),
      concurrency: 5,
      work: async (n) => {
        called.push(n);
        // Every third item waits to be let go; the rest finish at once.
        if (n % 3 === 0) await new Promise<void>((resolve) => pending.push(resolve));
        return { result: n };
      },
      emit: () => undefined,
    });
    // Let the waiting items go last first, for as long as any are waiting.
    for (let turn = 0; turn < 100 && called.length < 30; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      pending.pop()?.();
    }
    while (pending.length > 0) pending.pop()?.();
    await run;
    expect(called).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('never has more than `concurrency` items in flight', async () => {
    let inFlight = 0;
    let most = 0;
    await runBatch({
      items: numbers(30),
      concurrency: 4,
      work: async (n) => {
        most = Math.max(most, ++inFlight);
        await tick(1);
        inFlight--;
        return { result: n };
      },
      emit: () => {},
    });
    expect(most).toBe(4);
  });

  it('reads ahead only within its window while a slow item holds up the order', async () => {
    let read = 0;
    async function* counted() {
      for (let i = 0; i < 1_000; i++) {
        read++;
        yield i;
      }
    }
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const run = runBatch({
      items: counted(),
      concurrency: 2,
      work: async (n) => {
        if (n === 0) await slow;
        return { result: n };
      },
      emit: () => {},
    });
    await tick(30);
    expect(read).toBeLessThanOrEqual(2 * 8 + 1);
    release();
    await run;
    expect(read).toBe(1_000);
  });

  it('stops taking items after a thrown error, finishing those under way', async () => {
    const emitted: number[] = [];
    const end = await runBatch({
      items: numbers(100),
      concurrency: 3,
      work: async (n) => {
        await tick(1);
        if (n === 5) throw new Error('server gone');
        return { result: n };
      },
      emit: (n) => emitted.push(n),
    });
    expect((end.stoppedBy as Error).message).toBe('server gone');
    expect(emitted).not.toContain(5);
    expect(emitted.length).toBeLessThan(10);
    expect(emitted.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops taking items when its stop signal fires', async () => {
    const stop = new AbortController();
    const emitted: number[] = [];
    await runBatch({
      items: numbers(100),
      concurrency: 2,
      work: async (n) => {
        if (n === 3) stop.abort();
        await tick(1);
        return { result: n };
      },
      emit: (n) => emitted.push(n),
      stop: stop.signal,
    });
    expect(emitted.length).toBeLessThanOrEqual(5);
  });
});

describe('planRecord', () => {
  it.each([
    ['no earlier run', undefined, false, 'send'],
    ['created before', { outcome: 'created', id: 1n }, false, 'skip-created'],
    ['unknown before', { outcome: 'unknown' }, false, 'hold-unknown'],
    ['unknown before, --retry-unknown', { outcome: 'unknown' }, true, 'send'],
    ['failed, retryable', { outcome: 'failed', retryable: true }, false, 'send'],
    ['failed, a 400', { outcome: 'failed', retryable: false }, false, 'repeat-failure'],
  ] as const)('%s → %s', (_case, previous, retryUnknown, plan) => {
    expect(planRecord(previous, retryUnknown)).toBe(plan);
  });
});

describe('recordHash', () => {
  it('depends on the content sent, not on how it was written', () => {
    const a = recordHash({ name: 'Rex', categoryId: 9007199254740993n, status: 'sold' });
    expect(recordHash({ status: 'sold', categoryId: 9007199254740993n, name: 'Rex' })).toBe(a);
    expect(recordHash({ name: 'Rex', categoryId: 9007199254740992n, status: 'sold' })).not.toBe(a);
    expect(recordHash({ name: 'Rex', categoryId: 9007199254740993n })).not.toBe(a);
  });
});

describe('journal', () => {
  const target = {
    origin: 'http://loopback:80',
    key: 'abcdef0123456789',
    profile: 'staging',
    baseUrl: 'http://localhost/v1',
    keyHint: '****6789',
  };
  const journalPath = () => join(tempDir('pets-journal-'), 'x.pets-journal');

  it('keeps the last word per record, holds an intent with no outcome as unknown, and is private', () => {
    const path = journalPath();
    const first = openJournal(path, target);
    first.intend('a.0', 1);
    first.settle('a.0', 1, { outcome: 'created', id: 9007199254740993n });
    first.intend('b.0', 2);
    first.settle('b.0', 2, {
      outcome: 'failed',
      retryable: false,
      error: { code: 'x', message: 'm', status: 400, exitCode: 1 },
    });
    first.intend('c.0', 3);
    first.close();
    expect(readFileSync(path, 'utf8')).toContain('"id":9007199254740993');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = openJournal(path, target);
    expect(again.previous('a.0')).toEqual({ outcome: 'created', id: 9007199254740993n });
    expect(again.previous('b.0')).toMatchObject({ outcome: 'failed', retryable: false });
    expect(again.previous('c.0')).toEqual({ outcome: 'unknown' });
    expect(again.previous('d.0')).toBeUndefined();
    again.close();
  });

  it('keeps a torn last line, and starts the next entry on a line of its own', () => {
    const path = journalPath();
    const first = openJournal(path, target);
    first.intend('a.0', 1);
    first.close();
    appendFileSync(path, '{"o":"a.0","line":1,"outc');
    const second = openJournal(path, target);
    expect(second.previous('a.0')).toEqual({ outcome: 'unknown' });
    second.intend('b.0', 2);
    second.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.at(-1)).toBe('{"i":"b.0","line":2}');
    const third = openJournal(path, target);
    expect(third.previous('b.0')).toEqual({ outcome: 'unknown' });
    third.close();
  });

  it('reads a character split across two reads whole, and loses no entry to it', () => {
    const path = journalPath();
    openJournal(path, target).close();
    const message = 'é'.repeat(40);
    const entry = JSON.stringify({
      o: 'e.0',
      line: 2,
      outcome: 'failed',
      retryable: false,
      error: { code: 'x', message, status: 400, exitCode: 1 },
    });
    // Padding that puts the first é of the entry across the 64 KiB boundary of a read.
    const firstE = Buffer.byteLength(entry.slice(0, entry.indexOf('é')));
    const padTo = 65_535 - firstE - statSync(path).size;
    const pad = JSON.stringify({ i: 'pad.0', line: 1, x: '' });
    appendFileSync(path, `${pad.replace('""', `"${'a'.repeat(padTo - pad.length - 1)}"`)}\n`);
    appendFileSync(path, `${entry}\n`);
    expect(readFileSync(path).subarray(65_535, 65_537).toString('utf8')).toBe('é');
    const again = openJournal(path, target);
    expect(again.previous('e.0')).toMatchObject({ outcome: 'failed', error: { message } });
    expect(again.previous('pad.0')).toEqual({ outcome: 'unknown' });
    again.close();
  });

  it('reads an entry longer than its read buffer, and many reads of entries, whole', () => {
    const path = journalPath();
    openJournal(path, target).close();
    const message = `${'ü'.repeat(50_000)}x`;
    const long = JSON.stringify({
      o: 'long.0',
      line: 1,
      outcome: 'failed',
      retryable: false,
      error: { code: 'x', message, status: 400, exitCode: 1 },
    });
    const name = (i: number) => `${i.toString(16).padStart(16, '0')}.0`;
    const entries = Array.from(
      { length: 5_000 },
      (_, i) =>
        `{"i":"${name(i)}","line":${i + 2}}\n{"o":"${name(i)}","line":${i + 2},"outcome":"created","id":${i}}`,
    );
    appendFileSync(path, `${long}\n${entries.join('\n')}\n${long}\n{"i":"torn.0","li`);
    const again = openJournal(path, target);
    // The torn intent names its record whole: it may have been sent, so it is unknown.
    expect(again.records).toBe(5_002);
    expect(again.previous('long.0')).toMatchObject({ outcome: 'failed', error: { message } });
    for (let i = 0; i < 5_000; i += 499) {
      expect(again.previous(name(i))).toEqual({ outcome: 'created', id: BigInt(i) });
    }
    expect(again.previous('torn.0')).toEqual({ outcome: 'unknown' });
    again.intend('next.0', 9);
    again.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.slice(-3)).toEqual(['{"i":"torn.0","li', '{"i":"next.0","line":9}', '']);
  });

  it('is bound to its target, and held by one run at a time', () => {
    const path = journalPath();
    const first = openJournal(path, target);
    expect(() => openJournal(path, target)).toThrow(/in use by another pets \(process \d+\)/);
    first.close();
    // Named as the user gave it: the profile and its base URL, not the origin it is bound to.
    expect(() =>
      openJournal(path, {
        ...target,
        origin: 'https://prod.example:443',
        baseUrl: 'https://prod.example/v1',
        profile: 'production',
        keyHint: '****beef',
      }),
    ).toThrow(
      // The key named as pets shows it, never by a part of the fingerprint.
      'belongs to profile "staging" at http://localhost/v1 (key ****6789), not to profile "production" at https://prod.example/v1 (key ****beef)',
    );
    expect(() => openJournal(path, { ...target, key: 'ffff' })).toThrow(/belongs to/);
    openJournal(path, { ...target, profile: 'renamed' }).close();
  });

  it('is one journal however it is named: a symbolic link to a running one is refused, a hard link always', () => {
    const path = journalPath();
    const dir = join(path, '..');
    const first = openJournal(path, target);
    symlinkSync(path, join(dir, 'link.j'));
    expect(() => openJournal(join(dir, 'link.j'), target)).toThrow(
      /in use by another pets \(process \d+\)/,
    );
    linkSync(path, join(dir, 'hard.j'));
    expect(() => openJournal(join(dir, 'hard.j'), target)).toThrow(/has 2 names \(hard links\)/);
    first.close();
    // Not running: a file with two names is still refused, under either name.
    expect(() => openJournal(path, target)).toThrow(/has 2 names/);
    unlinkSync(join(dir, 'hard.j'));
    openJournal(join(dir, 'link.j'), target).close();
  });

  it('takes over the lock of a process that has died', () => {
    const path = journalPath();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(join(`${path}.lock`, `${dead}.${pidSpace()}.gone`), { recursive: true });
    openJournal(path, target).close();
  });

  it('refuses what is not a writable regular file, with exit 2', () => {
    expect(() => openJournal('/dev/zero', target)).toThrow(UsageError);
    expect(() => openJournal(tmpdir(), target)).toThrow(UsageError);
    expect(() => openJournal('/nonexistent/folder/x.journal', target)).toThrow(UsageError);
  });

  it('syncs intents to disk, one fdatasync for those who ask together', async () => {
    const path = journalPath();
    const journal = openJournal(path, target);
    journal.intend('a.0', 1);
    journal.intend('b.0', 2);
    await Promise.all([journal.durable(), journal.durable(), journal.durable()]);
    journal.intend('c.0', 3);
    await journal.durable();
    journal.close();
    const intents = readFileSync(path, 'utf8').trimEnd().split('\n').slice(1);
    expect(intents).toEqual([
      '{"i":"a.0","line":1}',
      '{"i":"b.0","line":2}',
      '{"i":"c.0","line":3}',
    ]);
  });
});

describe('defaultConcurrency', () => {
  it.each([
    [undefined, 8],
    [{ quota: { limit: 60 } }, 1],
    [{ quota: { limit: 300 } }, 5],
    [{ quota: { limit: 100_000 } }, 16],
  ])('%j → %i', (state, expected) => expect(defaultConcurrency(state)).toBe(expected));
});

describe('journal lines', () => {
  it('hands over each whole line across reads, then the torn tail, counted apart', () => {
    const path = join(tempDir('pets-lines-'), 'lines');
    // Lines of every length around the read size, so that some end on a read's last byte.
    const lines = Array.from({ length: 400 }, (_, i) => `{"i":"${'é'.repeat(i * 7)}"}`);
    writeFileSync(path, `${lines.join('\n')}\n{"i":"torn`);
    const fd = openSync(path, 'r');
    try {
      const seen: string[] = [];
      const read = forEachLine(fd, (bytes, start, end) =>
        seen.push(bytes.toString('utf8', start, end)),
      );
      expect(seen).toEqual([...lines, '{"i":"torn']);
      expect(read).toEqual({ size: statSync(path).size, torn: Buffer.byteLength('{"i":"torn') });
    } finally {
      closeSync(fd);
    }
  });
});

describe('RecordIndex', () => {
  it('keeps the last word on each of 100,000 records through its growth', () => {
    const index = new RecordIndex(16);
    const name = (i: number) => `${i.toString(16).padStart(16, '0')}.${i % 3}`;
    for (let i = 0; i < 100_000; i++) index.set(name(i), { outcome: 'unknown' });
    for (let i = 0; i < 100_000; i += 2) index.set(name(i), { outcome: 'created', id: BigInt(-i) });
    expect(index.size).toBe(100_000);
    expect(index.get(name(0))).toEqual({ outcome: 'created', id: 0n });
    expect(index.get(name(99_998))).toEqual({ outcome: 'created', id: -99_998n });
    expect(index.get(name(99_999))).toEqual({ outcome: 'unknown' });
    // The same content hash, another occurrence: another record.
    expect(index.get(`${(4).toString(16).padStart(16, '0')}.0`)).toBeUndefined();
    expect(index.get(name(100_000))).toBeUndefined();
  });

  it('keeps every record and update when sized for exactly as many, and past it', () => {
    const index = new RecordIndex(1_000);
    const name = (i: number) =>
      `${(i * 2_654_435_761).toString(16).padStart(16, '0').slice(-16)}.0`;
    for (let i = 0; i < 1_000; i++) index.set(name(i), { outcome: 'unknown' });
    for (let i = 0; i < 1_000; i++) index.set(name(i), { outcome: 'created', id: BigInt(i) });
    expect(index.size).toBe(1_000);
    for (let i = 1_000; i < 3_000; i++) index.set(name(i), { outcome: 'created', id: BigInt(i) });
    for (let i = 0; i < 3_000; i++) {
      expect(index.get(name(i))).toEqual({ outcome: 'created', id: BigInt(i) });
    }
    expect(index.get(name(3_000))).toBeUndefined();
  });

  it('keeps a final failure with its error, and names of any form', () => {
    const index = new RecordIndex();
    const error = { code: 'invalid_body', message: 'no', status: 400, exitCode: 1 };
    index.set('a.0', { outcome: 'failed', retryable: false, error });
    index.set('b.0', { outcome: 'failed', retryable: true, error });
    expect(index.get('a.0')).toEqual({ outcome: 'failed', retryable: false, error });
    expect(index.get('b.0')).toEqual({ outcome: 'failed', retryable: true });
    expect(index.get('c.0')).toBeUndefined();
    index.set('a.0', { outcome: 'created', id: 7n });
    expect(index.get('a.0')).toEqual({ outcome: 'created', id: 7n });
  });
});

describe('OccurrenceCounter', () => {
  it('counts each content hash on its own, through its growth', () => {
    const counter = new OccurrenceCounter();
    const hash = (i: number) => (i * 2_654_435_761).toString(16).padStart(16, '0').slice(-16);
    for (let i = 0; i < 50_000; i++) expect(counter.next(hash(i))).toBe(0);
    expect(counter.next(hash(7))).toBe(1);
    expect(counter.next(hash(7))).toBe(2);
    expect(counter.next(hash(49_999))).toBe(1);
    expect(counter.next(hash(50_000))).toBe(0);
  });

  it('counts the same with room made up front as when it grows', () => {
    const roomy = new OccurrenceCounter(10_000);
    const grown = new OccurrenceCounter();
    const hash = (i: number) => ((i % 4_000) * 2_654_435_761).toString(16).padStart(16, '0');
    for (let i = 0; i < 12_000; i++) expect(roomy.next(hash(i))).toBe(grown.next(hash(i)));
    expect(roomy.next(hash(3))).toBe(3);
  });
});
