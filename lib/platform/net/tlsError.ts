/**
 * Whether a failed request failed because Node did not trust the server's certificate. Behind a network that
 * inspects HTTPS (a corporate proxy with its own root CA) Cursor connects while Node, which reads only its own CA list
 * (plus NODE_EXTRA_CA_CERTS), refuses: the person needs that named, with that fix, not "could not reach".
 */
const VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH',
]);

/** The certificate-verification code somewhere in `error`'s cause chain, or null. */
export function tlsVerificationCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && VERIFY_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export const TLS_FIX = 'If your network inspects HTTPS (a corporate proxy or firewall), set NODE_EXTRA_CA_CERTS to its root certificate (a PEM file) where Cursor starts, then restart Cursor';
