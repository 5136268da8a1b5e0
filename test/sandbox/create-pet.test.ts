import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/json/int64-json.js';
import { call, record, records } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

describe('POST /pets', () => {
  it('answers 201 with the submitted fields, an assigned id and a Location', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', {
      body: '{"name":"Rex","categoryId":7,"status":"pending"}',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'pending' });
    expect(reply.headers.get('location')).toBe('/v1/pets/1');
    expect(sandbox.pets()).toEqual([{ id: 1n, name: 'Rex', categoryId: 7n, status: 'pending' }]);
    expect(records(await call(sandbox, 'GET', '/pets'))).toEqual([reply.body]);
  });

  it('assigns increasing ids and leaves status out when it was not sent', async () => {
    const sandbox = await testSandbox();
    const first = await call(sandbox, 'POST', '/pets', { body: '{"name":"A","categoryId":1}' });
    const second = await call(sandbox, 'POST', '/pets', { body: '{"name":"B","categoryId":1}' });
    expect(first.body).toEqual({ id: 1, name: 'A', categoryId: 1 });
    expect(second.body).toEqual({ id: 2, name: 'B', categoryId: 1 });
    expect(first.text).not.toContain('status');
  });

  it('takes a name of spaces as given: the spec sets no format for a name', async () => {
    const sandbox = await testSandbox();
    for (const name of ['  ', '\t', '\u00a0']) {
      const reply = await call(sandbox, 'POST', '/pets', {
        body: stringifyJson({ name, categoryId: 1n }),
      });
      expect(reply.status).toBe(201);
      expect(record(reply).name).toBe(name);
    }
  });

  it('ignores a client-supplied id and unknown fields', async () => {
    const sandbox = await testSandbox({ firstId: 50n });
    const reply = await call(sandbox, 'POST', '/pets', {
      body: '{"id":999,"name":"Rex","categoryId":1,"colour":"brown"}',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ id: 50, name: 'Rex', categoryId: 1 });
  });

  it('keeps an int64 categoryId beyond 2^53 exact', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', {
      body: '{"name":"Big","categoryId":9007199254740993}',
    });
    expect(reply.status).toBe(201);
    expect(reply.text).toBe('{"id":1,"name":"Big","categoryId":9007199254740993}');
    expect(record(reply).categoryId).toBe(9007199254740993n);
    expect(sandbox.pets()[0]?.categoryId).toBe(9007199254740993n);
  });

  it('accepts the int64 extremes as categoryId', async () => {
    const sandbox = await testSandbox();
    for (const categoryId of ['9223372036854775807', '-9223372036854775808']) {
      const reply = await call(sandbox, 'POST', '/pets', {
        body: `{"name":"Edge","categoryId":${categoryId}}`,
      });
      expect(reply.status).toBe(201);
      expect(reply.text).toContain(`"categoryId":${categoryId}`);
    }
  });

  it('assigns ids beyond 2^53 exactly, from firstId', async () => {
    const sandbox = await testSandbox({ firstId: 9007199254740993n });
    const body = stringifyJson({ name: 'Huge', categoryId: 2n });
    const first = await call(sandbox, 'POST', '/pets', { body });
    const second = await call(sandbox, 'POST', '/pets', { body });
    expect(first.text).toBe('{"id":9007199254740993,"name":"Huge","categoryId":2}');
    expect(second.text).toContain('"id":9007199254740994,');
    expect(first.headers.get('location')).toBe('/v1/pets/9007199254740993');
    expect(sandbox.pets().map((pet) => pet.id)).toEqual([9007199254740993n, 9007199254740994n]);
  });

  it.each([
    ['name is missing', '{"categoryId":1}', 'name is required'],
    ['name is empty', '{"name":"","categoryId":1}', 'name must be a non-empty string'],
    ['name is not a string', '{"name":5,"categoryId":1}', 'name must be a non-empty string'],
    ['categoryId is missing', '{"name":"Rex"}', 'categoryId is required'],
    [
      'categoryId has a fraction',
      '{"name":"Rex","categoryId":1.5}',
      'categoryId must be an integer',
    ],
    ['categoryId is a string', '{"name":"Rex","categoryId":"5"}', 'not a string'],
    [
      'categoryId is beyond int64',
      '{"name":"Rex","categoryId":9223372036854775808}',
      'categoryId must be an integer within int64',
    ],
    [
      'status is not allowed',
      '{"name":"Rex","categoryId":1,"status":"lost"}',
      'status must be one of available, pending, sold',
    ],
    ['status is null', '{"name":"Rex","categoryId":1,"status":null}', 'status must be one of'],
    ['the body is an array', '[{"name":"Rex","categoryId":1}]', 'must be a JSON object'],
    ['the body is null', 'null', 'must be a JSON object'],
    ['the JSON is invalid', '{"name":"Rex",', 'not valid JSON'],
    ['the JSON has trailing data', '{"name":"Rex","categoryId":1} {}', 'not valid JSON'],
  ])('answers 400 when %s', async (_case, body, message) => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', { body });
    expect(reply.status).toBe(400);
    expect(record(reply)).toMatchObject({ status: 400 });
    expect(record(reply).code).toMatch(/^invalid_(body|json)$/);
    expect(record(reply).message).toContain(message);
    expect(sandbox.pets()).toEqual([]);
  });

  it('names every wrong field at once', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', { body: '{"status":"x"}' });
    const message = String(record(reply).message);
    expect(message).toContain('name is required');
    expect(message).toContain('categoryId is required');
    expect(message).toContain('status must be one of');
  });

  it('answers 400 when the body is missing', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets');
    expect(reply.status).toBe(400);
    expect(record(reply).message).toContain('body is missing');
  });

  it('answers 400 when the body is not sent as application/json', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(reply.status).toBe(400);
    expect(record(reply).message).toContain('Content-Type: application/json');
    expect(sandbox.pets()).toEqual([]);
  });

  it('accepts application/json with a charset parameter', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(reply.status).toBe(201);
  });

  it('answers 400 for a body that is not UTF-8', async () => {
    const sandbox = await testSandbox();
    const res = await fetch(`${sandbox.baseUrl}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.key}`, 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xff, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid UTF-8');
  });

  it('accepts a body of exactly 1 MiB and answers 413 to one byte more', async () => {
    const sandbox = await testSandbox();
    const frame = '{"name":"","categoryId":1}';
    const fits = `{"name":"${'x'.repeat(1024 * 1024 - frame.length)}","categoryId":1}`;
    expect(Buffer.byteLength(fits)).toBe(1024 * 1024);
    const accepted = await call(sandbox, 'POST', '/pets', { body: fits });
    expect(accepted.status).toBe(201);

    const tooLarge = await call(sandbox, 'POST', '/pets', { body: `${fits} ` });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({
      code: 'payload_too_large',
      message: expect.stringContaining('1048576 bytes'),
      status: 413,
    });
    expect(sandbox.pets()).toHaveLength(1);
  });
});
