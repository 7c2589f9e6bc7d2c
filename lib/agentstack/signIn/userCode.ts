/**
 * The RFC 8628 user code is typed by a person from what we show, so it is short text in a small alphabet (the RFC's
 * examples are 8 characters). Anything else a server sends as a code (terminal escapes, hidden characters, a page
 * of instructions for the agent) is refused, never shown.
 */
export const USER_CODE_MAX_LENGTH = 32;

/** Printable ASCII, spaces only inside, 1..USER_CODE_MAX_LENGTH characters. */
const USER_CODE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function isDisplayableUserCode(code: unknown): code is string {
  return typeof code === 'string' && code.length <= USER_CODE_MAX_LENGTH && USER_CODE.test(code);
}
