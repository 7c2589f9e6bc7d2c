/**
 * Process ids no process can have, for locks "held by a dead process". A pid taken from an exited child may be
 * reused by the time the test reads it; these cannot: Linux never hands out a pid at or above 2^22
 * (PID_MAX_LIMIT), macOS none above 99,999.
 */
export const NEVER_A_PID = 2 ** 22 + 4_321;

/** The n-th such pid (distinct values where a test needs several). */
export const neverAPid = (n = 0): number => NEVER_A_PID + n;
