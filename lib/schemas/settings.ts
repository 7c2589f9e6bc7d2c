/**
 * `agentstack-settings.json`, as the hooks read it (no conf, no ajv on their path): every key optional, strings, and
 * `auto-login` a JSON boolean. Unknown keys are ignored. Each value is then checked by its own rule
 * (agentstack/settings/keys.ts), so one bad value is reported and skipped, never the whole file.
 */
import * as z from 'zod/mini';

export const SettingsFileSchema = z.looseObject({
  'base-url': z.optional(z.string()),
  'auto-login': z.optional(z.boolean()),
  'scope-preset': z.optional(z.string()),
  'https-proxy': z.optional(z.string()),
  'no-proxy': z.optional(z.string()),
  'oauth-client-id': z.optional(z.string()),
  policy: z.optional(z.string()),
  'ask-actions': z.optional(z.string()),
  'deny-actions': z.optional(z.string()),
  debug: z.optional(z.string()),
  journal: z.optional(z.string()),
});
export type SettingsFile = z.infer<typeof SettingsFileSchema>;
