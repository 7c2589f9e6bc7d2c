import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why the browser test cannot run here, or null when it can. In CI a missing Chromium is a failure, not a skip. */
export function chromiumUnavailableReason(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return `Debian's Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium); .ci/run installs it`;
}

/** Headless Debian Chromium with background networking off (this machine has no network beyond loopback). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox', '--no-proxy-server', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-default-apps', '--no-default-browser-check',
    ],
  });
}
