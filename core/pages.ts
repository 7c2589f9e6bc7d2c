/** HTML of the verification UI (device code entry, confirm, login, consent, success, denied). No templates. */

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4fb;color:#1e1b4b}
main{width:min(420px,92vw);background:#fff;border-radius:14px;box-shadow:0 6px 28px rgba(30,27,75,.12);padding:32px}
header{display:flex;align-items:center;gap:10px;margin-bottom:18px}header img{width:32px;height:32px;border-radius:7px}
header span{font-weight:600;font-size:15px;color:#4f46e5}h1{font-size:22px;margin:0 0 10px}p{line-height:1.5;margin:0 0 14px}
label{display:block;font-size:13px;font-weight:600;margin:12px 0 6px}
input[type=text],input[type=email],input[type=password]{width:100%;height:44px;border:1px solid #c7c7e0;border-radius:8px;
padding:0 12px;font-size:16px}input[name=user_code]{text-transform:uppercase;text-align:center;letter-spacing:3px;font-size:20px}
.code{font:600 26px ui-monospace,monospace;letter-spacing:4px;text-align:center;background:#eef;border-radius:8px;padding:12px;margin:8px 0 16px}
.row{display:flex;gap:10px;margin-top:18px}button{flex:1;height:42px;border-radius:8px;border:0;font-size:15px;font-weight:600;cursor:pointer}
button.primary{background:#4f46e5;color:#fff}button.primary:hover{background:#4338ca}
button.secondary{background:#fff;color:#991b1b;border:1px solid #fecaca}button.secondary:hover{background:#fef2f2}
.error{color:#b91c1c;background:#fef2f2;border-radius:8px;padding:10px 12px}.ok{color:#166534}.muted{color:#6b7280;font-size:13px}
ul.scopes{padding-left:20px;margin:6px 0 12px}ul.scopes li{font:13px ui-monospace,monospace;margin:2px 0}`;

export function layout(title: string, body: string, pageId: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · AgentStack</title><style>${STYLE}</style></head>
<body data-page="${esc(pageId)}"><main><header><img src="/mcp/icon" alt=""><span>AgentStack</span></header>${body}</main></body></html>`;
}

/** Replaces the provider's hidden form's id so our visible buttons can target it. */
function withFormId(form: string, id: string): string {
  return form.replace(/<form id="[^"]*"/, `<form id="${id}"`);
}

export function codeInputPage(form: string, error?: string): string {
  // The provider's input form carries the xsrf field and a text input named user_code; we label it.
  const labelled = withFormId(form, 'code-form')
    .replace('<input\n', '<input id="user_code" aria-label="Code" ')
    .replace(/onfocus="[^"]*"/, '');
  return layout(
    'Connect a device',
    `<h1>Connect Cursor to AgentStack</h1>
${error ? `<p class="error" id="error">${esc(error)}</p>` : '<p>Enter the code shown in Cursor.</p>'}
<label for="user_code">Code</label>${labelled}
<div class="row"><button class="primary" type="submit" form="code-form" name="continue">Continue</button></div>`,
    'code',
  );
}

export function confirmPage(form: string, userCode: string, clientName: string): string {
  return layout(
    'Confirm device',
    `<h1>Is this your code?</h1><p><strong>${esc(clientName)}</strong> asks to connect to your AgentStack account.
Check that Cursor shows this code:</p><div class="code" id="user-code">${esc(userCode)}</div>
${withFormId(form, 'confirm-form').replace('<input type="hidden" name="confirm" value="yes"/>', '')}
<div class="row"><button class="secondary" type="submit" form="confirm-form" name="abort" value="yes" formnovalidate>Deny</button>
<button class="primary" type="submit" form="confirm-form" name="confirm" value="yes">Confirm</button></div>
<p class="muted">If you did not start this sign-in, choose Deny.</p>`,
    'confirm',
  );
}

export function loginPage(uid: string, error?: string, email = ''): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>${error ? `<p class="error" id="error">${esc(error)}</p>` : '<p>Sign in to approve the connection.</p>'}
<form id="login-form" method="post" action="/interaction/${esc(uid)}/login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" value="${esc(email)}" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="row"><button class="secondary" type="submit" name="deny" value="yes" formaction="/interaction/${esc(uid)}/abort" formnovalidate>Deny</button>
<button class="primary" type="submit" name="login" value="yes">Sign in</button></div></form>`,
    'login',
  );
}

export function consentPage(uid: string, email: string, clientName: string, scopes: string[]): string {
  return layout(
    'Approve access',
    `<h1>Allow access?</h1><p><strong>${esc(clientName)}</strong> will act as <strong id="account">${esc(email)}</strong> with:</p>
<ul class="scopes">${scopes.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>
<form id="consent-form" method="post" action="/interaction/${esc(uid)}/confirm">
<div class="row"><button class="secondary" type="submit" name="deny" value="yes" formaction="/interaction/${esc(uid)}/abort">Deny</button>
<button class="primary" type="submit" name="confirm" value="yes">Allow</button></div></form>`,
    'consent',
  );
}

export function successPage(): string {
  return layout(
    'Device connected',
    `<h1 class="ok" id="success">Device connected</h1><p>Device connected. You can close this window and return to Cursor.</p>`,
    'success',
  );
}

export function deniedPage(message = 'The sign-in request was denied. Cursor was not connected.'): string {
  return layout('Sign-in denied', `<h1 id="denied">Sign-in denied</h1><p>${esc(message)}</p>`, 'denied');
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1 id="error-title">${esc(title)}</h1><p class="error" id="error">${esc(message)}</p>`, 'error');
}

/** Where the old AgentStack server served its ChatGPT-verifier stub (the `connectStub` fault). */
export const CONNECT_STUB_PATH = '/mcp/.well-known/oauth-authorize';

export function connectStubPage(): string {
  return layout('Connect', `<h1 id="connect-stub">Connect AgentStack</h1><p>OAuth authorization endpoint for ChatGPT verification.</p>`, 'connect-stub');
}
