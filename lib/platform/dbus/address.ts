/**
 * Where the D-Bus session bus is: `DBUS_SESSION_BUS_ADDRESS` (addresses separated by `;`, each
 * `transport:key=value,...` with `%XX` escapes), or, when it is not set, `$XDG_RUNTIME_DIR/bus` where that exists
 * (as GLib and so libsecret do). Only Unix sockets are spoken here: `unix:path=` and, on Linux, `unix:abstract=`
 * (a name in the abstract namespace; Node reaches it as a path starting with NUL). Node 20 binds and connects such a
 * name padded with NULs to the socket address's full length, which is another name than the bus's, so abstract
 * addresses are spoken from Node 22 on only.
 */
import { existsSync } from 'node:fs';

export interface BusAddress {
  transport: string;
  params: Record<string, string>;
}

/** The addresses in a D-Bus address string; an entry that is not `transport:key=value,...` is left out. */
export function parseAddresses(text: string): BusAddress[] {
  const out: BusAddress[] = [];
  for (const entry of text.split(';')) {
    const colon = entry.indexOf(':');
    if (colon <= 0) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (const pair of entry.slice(colon + 1).split(',').filter(Boolean)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) { ok = false; break; }
      try {
        params[pair.slice(0, eq)] = decodeURIComponent(pair.slice(eq + 1));
      } catch {
        ok = false;
        break;
      }
    }
    if (ok) out.push({ transport: entry.slice(0, colon), params });
  }
  return out;
}

export const ABSTRACT_SOCKETS = Number(process.versions.node.split('.')[0]) >= 22;

/** The socket path Node connects to for an address, or null when it is not one spoken here (tcp:, launchd:, ...). */
export function socketPathOf(address: BusAddress, platform: NodeJS.Platform = process.platform, abstract = ABSTRACT_SOCKETS): string | null {
  if (address.transport !== 'unix') return null;
  if (address.params.path) return address.params.path;
  if (address.params.abstract && platform === 'linux' && abstract) return `\0${address.params.abstract}`;
  return null;
}

export interface SessionBus {
  /** The address the session bus is at (the environment's, or libsecret's default), or null when there is none. */
  address: string | null;
  /** The sockets to try in order: the address's Unix ones. Empty when it names none spoken here. */
  sockets: string[];
  /** The `guid=` each socket's address names, in the same order (null: none named). */
  guids: Array<string | null>;
}

export function sessionBus(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, abstract = ABSTRACT_SOCKETS): SessionBus {
  const named = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (named) {
    const spoken = parseAddresses(named).flatMap((a) => {
      const path = socketPathOf(a, platform, abstract);
      return path === null ? [] : [{ path, guid: a.params.guid ?? null }];
    });
    return { address: named, sockets: spoken.map((s) => s.path), guids: spoken.map((s) => s.guid) };
  }
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime && existsSync(`${runtime}/bus`)) return { address: `unix:path=${runtime}/bus`, sockets: [`${runtime}/bus`], guids: [null] };
  return { address: null, sockets: [], guids: [] };
}
