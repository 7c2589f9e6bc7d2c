/** Seeded test accounts of the reference core. Passwords are test fixtures, never real credentials. */
export interface CoreAccount {
  email: string;
  password: string;
  user_id: string;
  display_name: string;
  role: string;
}

export const SEEDED_ACCOUNTS: readonly CoreAccount[] = Object.freeze([
  { email: 'dev@agentstack.test', password: 'agentstack-dev', user_id: 'usr_dev_0001', display_name: 'Dev User', role: 'member' },
  { email: 'ops@agentstack.test', password: 'agentstack-ops', user_id: 'usr_ops_0002', display_name: 'Ops Operator', role: 'operator' },
]);

export const DEFAULT_ACCOUNT = SEEDED_ACCOUNTS[0]!;

export function accountByEmail(email: string | undefined): CoreAccount | undefined {
  if (!email) return undefined;
  const wanted = email.trim().toLowerCase();
  return SEEDED_ACCOUNTS.find((a) => a.email === wanted);
}

export function accountById(id: string): CoreAccount | undefined {
  return SEEDED_ACCOUNTS.find((a) => a.user_id === id);
}
