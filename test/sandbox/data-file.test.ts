import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64-json.js';
import { call } from './helpers.js';
import { tempDir } from '../helpers/config-dir.js';
import { testSandbox } from '../helpers/sandbox.js';

describe('data file', () => {
  let folder: string;
  let dataFile: string;

  beforeEach(() => {
    folder = tempDir('pets-sandbox-');
    dataFile = join(folder, 'store.json');
  });

  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps pets across two sandboxes, with int64 ids exact', async () => {
    const first = await testSandbox({ dataFile, firstId: 9007199254740993n });
    await call(first, 'POST', '/pets', {
      body: '{"name":"Rex","categoryId":9007199254740995,"status":"sold"}',
    });
    await first.close();

    const second = await testSandbox({ dataFile, firstId: 1n });
    expect(second.pets()).toEqual([
      { id: 9007199254740993n, name: 'Rex', categoryId: 9007199254740995n, status: 'sold' },
    ]);
    const next = await call(second, 'POST', '/pets', { body: '{"name":"Ada","categoryId":1}' });
    expect(next.text).toContain('"id":9007199254740994,');
    expect((await call(second, 'GET', '/pets/9007199254740993')).status).toBe(200);
  });

  it('reopens a file that holds a name of spaces, which the sandbox took', async () => {
    writeFileSync(dataFile, '{"nextId":"2","pets":[{"id":1,"name":"  ","categoryId":1}]}');
    const sandbox = await testSandbox({ dataFile });
    expect(sandbox.pets()).toEqual([{ id: 1n, name: '  ', categoryId: 1n }]);
  });

  it('writes the documented format with mode 0600 and leaves no temporary files', async () => {
    const sandbox = await testSandbox({ dataFile, firstId: 9007199254740993n });
    await call(sandbox, 'POST', '/pets', { body: '{"name":"Rex","categoryId":1}' });
    const text = readFileSync(dataFile, 'utf8');
    expect(text).toContain('"id": 9007199254740993');
    expect(parseJson(text)).toEqual({
      nextId: '9007199254740994',
      pets: [{ id: 9007199254740993n, name: 'Rex', categoryId: 1 }],
    });
    if (process.platform !== 'win32') expect(statSync(dataFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['store.json']);
  });

  it('starts empty from a missing file and creates it at once', async () => {
    const sandbox = await testSandbox({ dataFile });
    expect(sandbox.pets()).toEqual([]);
    expect(parseJson(readFileSync(dataFile, 'utf8'))).toEqual({ nextId: '1', pets: [] });
  });

  it('seeds an empty store once, and not again when it is reopened', async () => {
    const first = await testSandbox({ dataFile, seed: 4 });
    expect(first.pets()).toHaveLength(4);
    await call(first, 'POST', '/pets', { body: '{"name":"Extra","categoryId":1}' });
    await first.close();
    const second = await testSandbox({ dataFile, seed: 4 });
    expect(second.pets().map((pet) => pet.id)).toEqual([1n, 2n, 3n, 4n, 5n]);
  });

  it.each([
    ['not JSON', 'SECRET-TOKEN-abc {', 'is not valid JSON'],
    ['the wrong shape', '["SECRET-TOKEN-abc"]', 'nextId and pets'],
    [
      'a pet without a name',
      '{"nextId":"2","pets":[{"id":1,"categoryId":"SECRET-TOKEN-abc"}]}',
      'pets[0]',
    ],
    [
      'duplicate ids',
      '{"nextId":"3","pets":[{"id":1,"name":"A","categoryId":1},{"id":1,"name":"SECRET-TOKEN-abc","categoryId":1}]}',
      'duplicate',
    ],
  ])(
    'refuses to start from a file holding %s, naming the path only',
    async (_case, content, problem) => {
      writeFileSync(dataFile, content);
      const started = testSandbox({ dataFile });
      await expect(started).rejects.toThrow(dataFile);
      await expect(started).rejects.toThrow(problem);
      await expect(started).rejects.not.toThrow('SECRET-TOKEN-abc');
      expect(readFileSync(dataFile, 'utf8')).toBe(content);
    },
  );

  it('refuses to start when the file cannot be created', async () => {
    const missingFolder = join(folder, 'missing', 'store.json');
    await expect(testSandbox({ dataFile: missingFolder })).rejects.toThrow(
      `${missingFolder} cannot be written: no such file or directory (ENOENT)`,
    );
  });

  it('continues after the highest stored id even if nextId lags behind', async () => {
    writeFileSync(dataFile, '{"nextId":"1","pets":[{"id":7,"name":"A","categoryId":1}]}');
    const sandbox = await testSandbox({ dataFile });
    const reply = await call(sandbox, 'POST', '/pets', { body: '{"name":"B","categoryId":1}' });
    expect(reply.text).toContain('"id":8,');
  });

  it('answers 500 and keeps the store unchanged when a save fails', async () => {
    const sandbox = await testSandbox({ dataFile });
    rmSync(folder, { recursive: true, force: true });
    const reply = await call(sandbox, 'POST', '/pets', { body: '{"name":"Lost","categoryId":1}' });
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({ code: 'storage_failed', status: 500 });
    expect(sandbox.pets()).toEqual([]);
  });
});
