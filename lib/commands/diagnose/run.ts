/** diagnose-local: read the state, apply the requested repairs, judge every gate, optionally go online. */
import { baseUrlIn } from '../../agentstack/settings/keys.js';
import type { Check } from '../../platform/report.js';
import { staleCopiesCheck } from '../../agentstack/plugin/runtimeRefresh.js';
import { approveSnapshotFile } from '../../agentstack/snapshot/approval.js';
import { applySafeFixes } from './fix.js';
import {
  mcpBearerGate, mcpEntryGate, mcpModeGate, mcpNoToolsGate, mcpReadableGate, nodeGate, pluginInstalledGate, shippedMcpGate,
} from './gatesConfig.js';
import { accountGate, deviceLockGate, managedSettingsGate, projectPinGate, refreshFileGate, settingsFileGate, snapshotGate, tokenExpiryGate } from './gatesState.js';
import { applySettings, type SettingRow } from '../../agentstack/settings/effective.js';
import { lookAtKeychainHere } from '../../agentstack/credentials/keychainLook.js';
import { policyGate } from './policyGate.js';
import { enterpriseHooksGate } from './enterpriseGate.js';
import { setProxyOptions } from '../../platform/net/http.js';
import { onlineChecks } from './online.js';
import { scrubSecrets } from '../../platform/text/scrub.js';
import { tilde } from '../../platform/text/tilde.js';
import { readLocalState, type LocalState } from './state.js';
import { callsSinceSignInGate, hooksRanGate, signInKindGate } from './gatesHooks.js';

/** Pure: every offline gate, in the order a person reads them. */
export function localChecks(state: LocalState, platform: NodeJS.Platform = process.platform): Check[] {
  return [
    nodeGate(state.nodeVersion, state.hookNode, state.now),
    pluginInstalledGate(state.plugin),
    hooksRanGate(state.hookRuns ?? {}, state.now),
    signInKindGate(state),
    accountGate(state),
    callsSinceSignInGate(state),
    shippedMcpGate(state.plugin),
    mcpReadableGate(state.mcp, state.derived.story),
    mcpEntryGate(state.mcp, state.derived.account.state),
    mcpNoToolsGate(state.mcp),
    mcpBearerGate(state.mcp, state.derived.account.state),
    mcpModeGate(state.mcp, platform),
    tokenExpiryGate(state),
    refreshFileGate(state.refresh, state.paths.refresh, platform, state.credentialStore, state.bearer !== null),
    projectPinGate(state.pin, state.paths.project),
    settingsFileGate(state.settings, platform),
    managedSettingsGate(state.settings.managed),
    enterpriseHooksGate(state.settings.managed),
    policyGate(state.settings, state.snapshot),
    snapshotGate(state.snapshot, state.paths.capabilities, state.now),
    deviceLockGate(state.lock, state.now),
    staleCopiesCheck(state.copies),
  ];
}

export interface DiagnoseOptions {
  source: string;
  env?: NodeJS.ProcessEnv;
  fix?: boolean;
  online?: boolean;
  approveActions?: boolean;
}

export interface DiagnoseResult {
  checks: Check[];
  /** One line per change made by --fix or --approve-actions. */
  changes: string[];
  /** Each setting in effect and where it came from (the `config list` table). */
  settings: SettingRow[];
  /** The account as the one model decides it (the `--json` field `account`). */
  account: Record<string, unknown>;
  hookRuns: LocalState['hookRuns'];
}

/** The account facts every `--json` carries, under the same names as `device-code --status --json`. */
export function accountJson(state: Pick<LocalState, 'derived'>): Record<string, unknown> {
  const { account, project, serverUrl } = state.derived;
  return { state: account.state, server_url: serverUrl, expires_at: account.expiresAt, project: { id: project.id, reason: project.reason, source: project.source, next_sign_in: project.nextSignIn } };
}

function envBaseUrl(env: NodeJS.ProcessEnv): string | null {
  try { return baseUrlIn(env); } catch { return null; }
}

export async function diagnose(options: DiagnoseOptions): Promise<DiagnoseResult> {
  // Environment > settings file > default, for every check and request below.
  // The state is read with the real environment (the settings table shows each origin); the base URL and the
  // requests use what is in effect.
  const settings = applySettings(options.env ?? process.env);
  const env = settings.env;
  setProxyOptions(settings.proxy);
  const look = await lookAtKeychainHere({ env, settings });
  const read = () => readLocalState({ env: options.env ?? process.env, source: options.source, envBaseUrl: envBaseUrl(env), settings, keychain: look });
  let state = read();
  const changes: string[] = [];
  if (options.approveActions) {
    try {
      const approved = approveSnapshotFile(state.paths.capabilities);
      changes.push(`approved the capability snapshot ${tilde(state.paths.capabilities)} (${approved.length} new action(s): ${approved.slice(0, 5).join(', ') || 'none pending'})`);
    } catch (error) {
      changes.push(`could not approve: ${(error as Error).message}`);
    }
  }
  if (options.fix) changes.push(...(await applySafeFixes(state, { envBaseUrl: envBaseUrl(env) })));
  if (changes.length) state = read();
  let checks = localChecks(state);
  if (options.online) {
    // Online rows quote the server (who, errors): a credential it echoes back is masked before anyone sees it.
    const online = await onlineChecks(state, env);
    const bearer = state.bearer;
    // A refusal the server just gave was recorded: the local rows and the account say refused, as every view will.
    if (online.refused) checks = localChecks(state = read());
    checks.push(...online.checks.map((c) => ({ ...c, summary: scrubSecrets(c.summary, [bearer]) })));
  }
  return { checks, changes, settings: state.settings.rows, account: accountJson(state), hookRuns: state.hookRuns };
}
