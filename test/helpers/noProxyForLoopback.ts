/**
 * Vitest setup: the tests talk to servers on 127.0.0.1 (the reference core, hostile servers, local proxies). A proxy
 * set in the caller's environment (HTTPS_PROXY / HTTP_PROXY) must not carry that traffic, in this process or in a
 * child that inherits its environment, so loopback is added to NO_PROXY (both spellings: undici reads `no_proxy`
 * first). Tests of the proxy support give their children an explicit environment of their own.
 */
const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];
const current = (process.env.no_proxy ?? process.env.NO_PROXY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const merged = [...new Set([...current, ...LOOPBACK])].join(',');
process.env.NO_PROXY = merged;
process.env.no_proxy = merged;
