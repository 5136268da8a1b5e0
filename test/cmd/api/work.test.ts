// The work of `pets api`, called as a test calls any function: buildApiRequest builds and
// checks the request, callApi sends it through the client it is given. The end-to-end
// tests (api.test.ts) send the same requests through the whole CLI to real servers.
import { describe, expect, it } from 'vitest';
import type { PetsApi } from '../../../src/api/client.js';
import { buildApiRequest, callApi, stringField, typedField } from '../../../src/cmd/api/api.js';
import { NetworkError, UsageError } from '../../../src/core/errors.js';
import { stagingTarget } from '../../helpers/api-env.js';

const BASE = 'http://127.0.0.1:8080/v1';
const target = stagingTarget(BASE);
const request = (path: string, more: { method?: string; fields?: string[]; headers?: string[] }) =>
  buildApiRequest(
    {
      path,
      method: more.method,
      fields: (more.fields ?? []).map(typedField),
      headers: more.headers ?? [],
    },
    target,
  );

/** A client whose raw() answers 200, or throws `failure`; `sent` lists what it was asked. */
function rawApi(failure?: Error) {
  const sent: unknown[] = [];
  const api = {
    raw: async (req: unknown) => {
      sent.push(req);
      if (failure) throw failure;
      return { url: `${BASE}/x`, response: { status: 200, headers: {}, body: Buffer.from('{}') } };
    },
  } as unknown as PetsApi;
  return { api, sent };
}

describe('buildApiRequest', () => {
  it('turns fields of a GET into query parameters', () => {
    expect(request('/pets', { method: 'GET', fields: ['limit=1'] })).toEqual({
      method: 'GET',
      path: '/pets?limit=1',
      headers: {},
      body: undefined,
    });
  });

  it('sends -F int64, true, null exactly, in a JSON body of a POST', () => {
    const fields = ['id=9223372036854775807', 'ok=true', 'n=null', 'f=1.5', 's=abc'];
    expect(request('/x', { fields })).toMatchObject({
      method: 'POST',
      body: '{"id":9223372036854775807,"ok":true,"n":null,"f":1.5,"s":"abc"}',
    });
    // -f keeps a number as the string it was written.
    const raw = buildApiRequest({ path: '/x', fields: [stringField('n=1')], headers: [] }, target);
    expect(raw.body).toBe('{"n":"1"}');
  });
});

describe('callApi', () => {
  it.each([
    ['http://evil.example/v1/pets'],
    ['//evil.example/pets'],
    ['/../pets'],
    ['/pets/../../admin'],
    ['/%2e%2e/admin'],
    ['/%252e%252E/admin'],
    ['/pets\\..\\x'],
    ['pets'],
    ['javascript:alert(1)'],
  ])('refuses the path %s (exit 2) and sends nothing', async (path) => {
    const { api, sent } = rawApi();
    const error = await callApi({ path, fields: [], headers: [] }, { api, target }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect(sent).toEqual([]);
  });

  it.each([['Authorization: Bearer other'], ['Host: evil.example'], ['authorization:x']])(
    'refuses the header %s (exit 2) and sends nothing',
    async (header) => {
      const { api, sent } = rawApi();
      const call = callApi(
        { path: '/store/orders', fields: [], headers: [header] },
        { api, target },
      );
      await expect(call).rejects.toBeInstanceOf(UsageError);
      expect(sent).toEqual([]);
    },
  );

  it('says a write cut off on its way may have taken effect; a read fails as it came', async () => {
    const cutOff = () =>
      new NetworkError('connection_reset', 'the connection was reset', {
        requestMayHaveArrived: true,
      });
    const write = callApi(
      { path: '/pets', method: 'DELETE', fields: [], headers: [] },
      { api: rawApi(cutOff()).api, target },
    );
    await expect(write).rejects.toThrow('may have reached the server and taken effect');
    const read = cutOff();
    const failed = callApi(
      { path: '/pets', fields: [], headers: [] },
      { api: rawApi(read).api, target },
    );
    await expect(failed).rejects.toBe(read);
    expect(read.message).toBe('the connection was reset');
  });

  it('returns the method, the URL and the answer, whatever its status', async () => {
    const { api, sent } = rawApi();
    const result = await callApi(
      { path: '/x', fields: [typedField('a=1')], headers: [] },
      { api, target },
    );
    expect(result).toMatchObject({ method: 'POST', url: `${BASE}/x`, response: { status: 200 } });
    expect(sent).toEqual([{ method: 'POST', path: '/x', headers: {}, body: '{"a":1}' }]);
  });
});
