/**
 * A real Secret Service for the tests: a private D-Bus session bus (dbus-daemon) with GNOME Keyring's secrets
 * component on it, its login collection created and unlocked, in a temporary home. Nothing of the machine's own
 * session or keyring is touched. `available()` says why it cannot run (Debian: dbus-daemon, gnome-keyring,
 * libsecret-tools).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../../lib/platform/findExecutable.js';
import { tempDir } from './repo.js';

export interface SecretServiceSession {
  /** What every child that must reach this Secret Service needs (the bus, its home). */
  env: Record<string, string>;
  home: string;
  /** `secret-tool lookup` with these attributes: the secret, or null. */
  lookup(attrs: Record<string, string>): string | null;
  /** `secret-tool store` with these attributes, the secret on its stdin. */
  store(attrs: Record<string, string>, secret: string, label?: string): void;
  /** Every item's attributes (`secret-tool search --all`). */
  search(attrs: Record<string, string>): string;
  lock(): void;
  stop(): Promise<void>;
}

export function secretServiceMissing(): string | null {
  if (process.platform !== 'linux') return 'the Secret Service tests run on Linux';
  for (const tool of ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool']) {
    if (!findOnPath(tool)) return `${tool} is not installed (Debian: dbus-daemon, dbus-bin, gnome-keyring, libsecret-tools)`;
  }
  return null;
}

/** The processes whose environment names `home` as HOME: the ones a session started, found by their id. */
function ownProcesses(home: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)) pids.push(Number(name));
    } catch { /* gone, or not ours */ }
  }
  return pids;
}

const BARE_BUS = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
`;

function startBus(config: string | null, env: NodeJS.ProcessEnv, listen?: string): Promise<{ daemon: ChildProcess; address: string }> {
  const args = [config ? `--config-file=${config}` : '--session', ...(listen ? [`--address=${listen}`] : [])];
  // Its own process group: the services the bus starts (the keyring) are stopped with it.
  const daemon = spawn('dbus-daemon', [...args, '--nofork', '--print-address=1'], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('dbus-daemon gave no address')), 10_000);
    daemon.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) { clearTimeout(timer); resolve({ daemon, address: out.trim() }); }
    });
    daemon.once('exit', () => reject(new Error('dbus-daemon exited')));
  });
}

/**
 * Starts a bus and, unless `keyring` is false, an unlocked keyring on it. `keyring: false` with `bare` gives a
 * session bus on which no Secret Service can ever appear (no service files to activate one). `listen`: the bus's
 * address instead of its configuration's (`unix:abstract=...`, `unix:path=...`).
 */
export async function startSecretService(options: { keyring?: boolean; bare?: boolean; listen?: string } = {}): Promise<SecretServiceSession> {
  const home = tempDir('agentstack-keyring-');
  const runtime = join(home.path, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const base = { PATH: process.env.PATH ?? '', HOME: home.path, XDG_DATA_HOME: join(home.path, 'data'), XDG_CONFIG_HOME: join(home.path, 'config'), XDG_RUNTIME_DIR: runtime, XDG_CACHE_HOME: join(home.path, 'cache') };
  let config: string | null = null;
  if (options.bare) {
    config = join(home.path, 'bus.conf');
    writeFileSync(config, BARE_BUS);
  }
  const { daemon, address } = await startBus(config, base, options.listen);
  const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address };
  if (options.keyring !== false) {
    // --unlock reads the login keyring's password from stdin, creating the keyring (unlocked) the first time. Started
    // through the bus (`--start` asks it), so the keyring lives in the bus's process group.
    const started = spawnSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--daemonize'], { env, input: 'test-password', encoding: 'utf8', timeout: 10_000 });
    if (started.status !== 0) throw new Error(`gnome-keyring-daemon failed: ${started.stderr}`);

  }
  const attrs = (a: Record<string, string>) => Object.entries(a).flat();
  return {
    env,
    home: home.path,
    lookup(a) {
      const r = spawnSync('secret-tool', ['lookup', ...attrs(a)], { env, encoding: 'utf8', timeout: 10_000 });
      return r.status === 0 ? r.stdout : null;
    },
    store(a, secret, label = 'stored by secret-tool') {
      const r = spawnSync('secret-tool', ['store', `--label=${label}`, ...attrs(a)], { env, input: secret, encoding: 'utf8', timeout: 10_000 });
      if (r.status !== 0) throw new Error(`secret-tool store failed: ${r.stderr}`);
    },
    search(a) {
      return spawnSync('secret-tool', ['search', '--all', ...attrs(a)], { env, encoding: 'utf8', timeout: 10_000 }).stdout;
    },
    lock() {
      const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.secrets', '/org/freedesktop/secrets', 'org.freedesktop.Secret.Service.Lock', 'array:objpath:/org/freedesktop/secrets/collection/login'], { env, encoding: 'utf8', timeout: 10_000 });
      if (r.status !== 0) throw new Error(`lock failed: ${r.stderr}`);
    },
    async stop() {
      // The keyring daemons this session started (each carries its temporary home), then the bus.
      for (const pid of ownProcesses(home.path)) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
      try { process.kill(-daemon.pid!, 'SIGTERM'); } catch { daemon.kill('SIGTERM'); }
      await new Promise((resolve) => (daemon.exitCode !== null ? resolve(null) : daemon.once('exit', resolve)));
      home.cleanup();
    },
  };
}
