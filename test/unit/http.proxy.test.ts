/**
 * setProxyOptions in this process, against a local CONNECT proxy that refuses every tunnel (so nothing leaves the
 * machine): an https request goes through the proxy given, a host in the noProxy given goes direct, and clearing
 * the options drops the proxy for the next request (the loopback exception in NO_PROXY applies again).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpRequest, setProxyOptions } from '../../lib/platform/net/http.js';
import { closedPort } from '../helpers/closedPort.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

let proxy: TestProxy;
let target = '';
beforeAll(async () => {
  proxy = await startProxy({ allowConnect: false });
  target = `127.0.0.1:${await closedPort()}`;
});
afterAll(async () => proxy?.close());
beforeEach(() => { proxy.records.length = 0; });
afterEach(() => setProxyOptions({}));

const request = () => httpRequest({ url: `https://${target}/mcp`, timeoutMs: 10_000 });

describe('proxy options given to the HTTP layer', () => {
  it('httpsProxy with an empty noProxy: the request is tunnelled through that proxy, even to loopback', async () => {
    setProxyOptions({ httpsProxy: proxy.url, noProxy: '' });
    await expect(request()).rejects.toMatchObject({ code: 'network' });
    expect(proxy.records).toEqual([{ method: 'CONNECT', target, hadAuthorization: false }]);
  });

  it('a host in the noProxy given goes direct (the proxy sees nothing, the closed port refuses)', async () => {
    setProxyOptions({ httpsProxy: proxy.url, noProxy: '127.0.0.1' });
    await expect(request()).rejects.toThrow(/Could not reach .*ECONNREFUSED/);
    expect(proxy.records).toEqual([]);
  });

  it('without a noProxy, the environment\'s NO_PROXY (loopback, in tests) still applies', async () => {
    setProxyOptions({ httpsProxy: proxy.url });
    await expect(request()).rejects.toThrow(/ECONNREFUSED/);
    expect(proxy.records).toEqual([]);
  });

  it('a proxy that is not a URL: every request fails as a network error naming the reason, and clearing it recovers', async () => {
    setProxyOptions({ httpsProxy: 'not a proxy url' });
    await expect(request()).rejects.toMatchObject({ code: 'network', message: `Could not reach https://${target}/mcp (Invalid URL)` });
    await expect(request()).rejects.toMatchObject({ code: 'network', message: `Could not reach https://${target}/mcp (Invalid URL)` });
    setProxyOptions({});
    await expect(request()).rejects.toThrow(/ECONNREFUSED/);
    expect(proxy.records).toEqual([]);
  });

  it('options replaced by empty ones: the next request no longer uses the proxy', async () => {
    setProxyOptions({ httpsProxy: proxy.url, noProxy: '' });
    await expect(request()).rejects.toMatchObject({ code: 'network' });
    expect(proxy.records).toHaveLength(1);
    setProxyOptions({});
    await expect(request()).rejects.toThrow(/ECONNREFUSED/);
    expect(proxy.records).toHaveLength(1);
  });
});
