/** Minimal typing of the parts of oidc-provider v9 the core uses (the package ships no types). */
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    issuer: string;
    proxy: boolean;
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    use(middleware: (ctx: Any, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (...args: Any[]) => void): this;
    interactionDetails(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<Any>;
    interactionFinished(
      req: import('node:http').IncomingMessage,
      res: import('node:http').ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    DeviceCode: Any;
    Grant: Any;
    Client: Any;
    RefreshToken: Any;
  }
  export const errors: Record<string, new (...args: Any[]) => Error>;
}
