/**
 * What Cursor sends hooks on stdin (cursor.com/docs/hooks). Missing or extra fields are tolerated.
 */
import * as z from 'zod/mini';

const optionalString = z.optional(z.nullable(z.string()));

export const HookCommonSchema = z.looseObject({
  conversation_id: optionalString,
  generation_id: optionalString,
  model: optionalString,
  hook_event_name: optionalString,
  cursor_version: optionalString,
  workspace_roots: z.optional(z.nullable(z.array(z.string()))),
  user_email: optionalString,
  transcript_path: optionalString,
});

export const SessionStartInputSchema = z.looseObject({
  ...HookCommonSchema.def.shape,
  session_id: optionalString,
  is_background_agent: z.optional(z.nullable(z.boolean())),
  composer_mode: optionalString,
});
export type SessionStartInput = z.infer<typeof SessionStartInputSchema>;

export const BeforeMcpInputSchema = z.looseObject({
  ...HookCommonSchema.def.shape,
  tool_name: z.string(),
  tool_input: z.optional(z.nullable(z.union([z.string(), z.record(z.string(), z.unknown())]))),
  url: optionalString,
  command: optionalString,
  mcp_server_name: optionalString,
});
export type BeforeMcpInput = z.infer<typeof BeforeMcpInputSchema>;

/** The arguments of an `agentstack.execute` call. */
export const ExecuteArgsSchema = z.looseObject({
  steps: z.array(z.looseObject({ id: z.optional(z.union([z.string(), z.number()])), action: z.string(), params: z.optional(z.unknown()) })),
  options: z.optional(z.unknown()),
});
export type ExecuteArgs = z.infer<typeof ExecuteArgsSchema>;
