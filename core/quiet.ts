/**
 * oidc-provider prints development notices the core triggers on purpose (in-memory adapter, Node 20 runtime,
 * a pre-read token body). Drop exactly those lines; everything else still reaches console.warn.
 */
const EXPECTED = [
  'already parsed request body detected',
  'a quick start development-only in-memory adapter is used',
  'Unsupported runtime',
];

let installed = false;
export function quietProviderNotices(): void {
  if (installed) return;
  installed = true;
  const original = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    const first = args[0];
    if (typeof first === 'string' && first.startsWith('oidc-provider WARNING') && EXPECTED.some((e) => first.includes(e))) return;
    original(...args);
  };
}

// Installed on import: core/oauth.ts imports this module before oidc-provider, whose import prints a notice.
quietProviderNotices();
