/**
 * `bytes` random bytes as hex, from the Web Crypto global (a CSPRNG, like crypto.randomBytes). The global loads
 * only when first called, whereas importing node:crypto cost every hook run ~5 ms of start-up (measured on Node 20,
 * 22 and 24), and the hooks import the file layer on every run but write a file on few.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}
