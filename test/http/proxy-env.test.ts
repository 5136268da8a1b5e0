import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { namesProxy, proxyFor, proxySettings } from '../../src/http/proxy-env.js';

const via = (env: Record<string, string>, url: string) => {
  const settings = proxySettings(env);
  return settings && proxyFor(settings, new URL(url))?.shown;
};

describe('the proxy variables, as curl reads them', () => {
  it('loads nothing without a proxy variable, NO_PROXY alone included', () => {
    expect(namesProxy({})).toBe(false);
    expect(namesProxy({ NO_PROXY: '*', HTTPS_PROXY: '' })).toBe(false);
    expect(proxySettings({ no_proxy: 'x' })).toBeUndefined();
  });

  it.each(['https_proxy', 'HTTPS_PROXY'])('%s serves https URLs only', (name) => {
    const env = { [name]: 'http://proxy.corp:3128' };
    expect(via(env, 'https://api.example.com/v1')).toBe('http://proxy.corp:3128');
    expect(via(env, 'http://localhost:8080/v1')).toBeUndefined();
  });

  it.each(['http_proxy', 'HTTP_PROXY'])('%s serves http URLs only, never https', (name) => {
    const env = { [name]: 'http://proxy.corp:3128' };
    expect(via(env, 'http://localhost:8080/v1')).toBe('http://proxy.corp:3128');
    // undici's EnvHttpProxyAgent would send https through it too; curl does not.
    expect(via(env, 'https://api.example.com/v1')).toBeUndefined();
  });

  it('takes the lower-case variable first, and an empty one as unset', () => {
    const both = { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' };
    expect(via(both, 'https://a.example/v1')).toBe('http://lower:1');
    expect(via({ ...both, https_proxy: '' }, 'https://a.example/v1')).toBe('http://upper:2');
  });

  it('reads a proxy without a scheme as http://, and without a port on 1080 as curl does', () => {
    expect(via({ HTTPS_PROXY: 'proxy.corp:3128' }, 'https://a.example/v1')).toBe(
      'http://proxy.corp:3128',
    );
    expect(via({ HTTPS_PROXY: 'http://proxy.corp' }, 'https://a.example/v1')).toBe(
      'http://proxy.corp:1080',
    );
    expect(via({ HTTPS_PROXY: 'https://proxy.corp' }, 'https://a.example/v1')).toBe(
      'https://proxy.corp',
    );
  });

  it('keeps the credentials for undici and for redaction, never in what it shows', () => {
    const settings = proxySettings({ HTTPS_PROXY: 'http://me:p%40ss-w0rd-long@proxy:3128/' })!;
    expect(settings.https).toEqual({
      uri: 'http://me:p%40ss-w0rd-long@proxy:3128',
      shown: 'http://proxy:3128',
      variable: 'HTTPS_PROXY',
      secrets: expect.arrayContaining(['p@ss-w0rd-long', 'me:p@ss-w0rd-long', 'p%40ss-w0rd-long']),
    });
    expect(proxySettings({ HTTPS_PROXY: 'http://proxy:3128' })!.https!.secrets).toEqual([]);
  });

  it('refuses a proxy it cannot use with exit 2, without repeating the value', () => {
    for (const value of ['socks5://me:secret-pw@proxy:1080', 'http://me:secret-pw@[bad']) {
      let error: unknown;
      try {
        proxySettings({ HTTPS_PROXY: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).message).toContain('HTTPS_PROXY');
      expect((error as UsageError).message).not.toContain('secret-pw');
    }
  });
});

describe('NO_PROXY, as curl reads it', () => {
  const proxy = 'http://proxy:3128';
  const bypassed = (noProxy: string, url: string, name = 'NO_PROXY') =>
    via({ HTTPS_PROXY: proxy, HTTP_PROXY: proxy, [name]: noProxy }, url) === undefined;

  it.each([
    // [NO_PROXY, URL, goes around the proxy]
    ['api.corp.example', 'https://api.corp.example/v1', true],
    ['API.Corp.Example.', 'https://api.corp.example/v1', true],
    ['corp.example', 'https://api.corp.example/v1', true],
    ['.corp.example', 'https://api.corp.example/v1', true],
    ['.corp.example', 'https://corp.example/v1', true],
    ['*.corp.example', 'https://deep.api.corp.example/v1', true],
    ['corp.example', 'https://notcorp.example/v1', false],
    ['corp.example', 'https://corp.example.org/v1', false],
    ['api.corp.example:443', 'https://api.corp.example/v1', true],
    ['api.corp.example:8443', 'https://api.corp.example/v1', false],
    ['api.corp.example:8443', 'https://api.corp.example:8443/v1', true],
    ['localhost:80', 'http://localhost/v1', true],
    ['10.1.2.3', 'https://10.1.2.3/v1', true],
    ['10.1.2.3', 'https://10.1.2.4/v1', false],
    ['10.0.0.0/8', 'https://10.200.0.1/v1', true],
    ['10.0.0.0/8', 'https://11.0.0.1/v1', false],
    ['::1', 'http://[::1]:8080/v1', true],
    ['[::1]:8080', 'http://[::1]:8080/v1', true],
    ['[::1]:9090', 'http://[::1]:8080/v1', false],
    ['fd00::/8', 'https://[fd12::1]/v1', true],
    ['*', 'https://anything.example/v1', true],
    [' * ', 'https://anything.example/v1', true],
    ['a.example, b.example\tapi.corp.example', 'https://api.corp.example/v1', true],
    ['a.example,b.example', 'https://api.corp.example/v1', false],
    // curl: * is a wildcard only as the whole value.
    ['a.example,*', 'https://api.corp.example/v1', false],
    ['', 'https://api.corp.example/v1', false],
  ])('%j for %s: around the proxy %s', (noProxy, url, around) => {
    expect(bypassed(noProxy, url)).toBe(around);
    expect(bypassed(noProxy, url, 'no_proxy')).toBe(around);
  });

  it('takes no_proxy before NO_PROXY', () => {
    const env = { HTTPS_PROXY: proxy, no_proxy: 'a.example', NO_PROXY: 'b.example' };
    expect(via(env, 'https://a.example/v1')).toBeUndefined();
    expect(via(env, 'https://b.example/v1')).toBe(proxy);
  });
});
