import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { Browserish, decodeJwt, formAction, hiddenInputs, pollToken, startDevice } from '../../core/testing.js';

let core: RunningCore;
beforeAll(async () => {
  core = await startCore({ interval: 1, faults: { enforceInterval: false } });
});
afterAll(() => core.close());

async function toLogin(b: Browserish, complete: string) {
  // verification_uri_complete: the provider answers with an auto-submitting form carrying xsrf + user_code
  const auto = await b.go(complete);
  expect(auto.status).toBe(200);
  const confirm = await b.go(formAction(auto.html), { form: hiddenInputs(auto.html) });
  expect(confirm.html).toContain('data-page="confirm"');
  expect(confirm.html).toContain('button class="primary" type="submit" form="confirm-form" name="confirm"');
  expect(confirm.html).toContain('name="abort"');
  return confirm;
}

describe('verification pages (plain HTTP form flow)', () => {
  it('code entry -> confirm -> login -> consent -> success, then the token is issued', async () => {
    const dev = await startDevice(core.baseUrl);
    const b = new Browserish(core.baseUrl);
    const input = await b.go('/activate');
    expect(input.html).toContain('id="user_code"');
    const confirm = await b.go(formAction(input.html, 'code-form'), { form: { ...hiddenInputs(input.html), user_code: dev.user_code.toLowerCase() } });
    expect(confirm.html).toContain(dev.user_code);
    const login = await b.go(formAction(confirm.html, 'confirm-form'), { form: { ...hiddenInputs(confirm.html), confirm: 'yes' } });
    expect(login.html).toContain('data-page="login"');
    expect(login.html).toContain('id="email"');
    expect(login.html).toContain('id="password"');
    const wrong = await b.go(formAction(login.html, 'login-form'), { form: { email: 'dev@agentstack.test', password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Wrong email or password');
    const consent = await b.go(formAction(login.html, 'login-form'), { form: { email: 'ops@agentstack.test', password: 'agentstack-ops' } });
    expect(consent.html).toContain('data-page="consent"');
    expect(consent.html).toContain('ops@agentstack.test');
    expect(consent.html).toContain('name="deny"');
    const done = await b.go(formAction(consent.html, 'consent-form'), { form: {} });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Device connected. You can close this window and return to Cursor.');
    const tok = await pollToken(core.baseUrl, dev.device_code);
    expect(tok.status).toBe(200);
    const claims = decodeJwt(String(tok.body.access_token));
    expect(claims.email).toBe('ops@agentstack.test');
    expect(claims.aud).toBe(core.mcpUrl);
    expect(claims.caps).toEqual(['profile:read', 'projects:read', 'actions:read', 'actions:execute', 'data:read']);
    expect(typeof tok.body.refresh_token).toBe('string');
  });

  it('Deny on the confirm page shows the denied page and the poll answers access_denied', async () => {
    const dev = await startDevice(core.baseUrl);
    const b = new Browserish(core.baseUrl);
    const confirm = await toLogin(b, dev.verification_uri_complete!);
    const denied = await b.go(formAction(confirm.html, 'confirm-form'), { form: { ...hiddenInputs(confirm.html), abort: 'yes' } });
    expect(denied.html).toContain('id="denied"');
    const tok = await pollToken(core.baseUrl, dev.device_code);
    expect(tok.body.error).toBe('access_denied');
  });

  it('Deny on the consent page also denies', async () => {
    const dev = await startDevice(core.baseUrl);
    const b = new Browserish(core.baseUrl);
    const confirm = await toLogin(b, dev.verification_uri_complete!);
    const login = await b.go(formAction(confirm.html, 'confirm-form'), { form: { ...hiddenInputs(confirm.html), confirm: 'yes' } });
    const consent = await b.go(formAction(login.html, 'login-form'), { form: { email: 'dev@agentstack.test', password: 'agentstack-dev' } });
    const uid = /\/interaction\/([^/"]+)\/confirm/.exec(consent.html)![1];
    const denied = await b.go(`/interaction/${uid}/abort`, { form: { deny: 'yes' } });
    expect(denied.html).toContain('id="denied"');
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('access_denied');
  });

  it('an unknown code re-renders the input page with an error', async () => {
    const b = new Browserish(core.baseUrl);
    const input = await b.go('/activate');
    const again = await b.go(formAction(input.html, 'code-form'), { form: { ...hiddenInputs(input.html), user_code: 'BCDF-GHJK' } });
    expect(again.html).toContain('id="error"');
    expect(again.html).toContain('data-page="code"');
  });
});
