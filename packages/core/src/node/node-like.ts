/**
 * Structural shapes of Node's `IncomingMessage` and `ServerResponse`: just what the bridge
 * uses, so the core imports nothing from `node:`.
 */
export interface NodeIncomingMessageLike {
  method?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  readonly readableEnded?: boolean;
  readonly destroyed?: boolean;
  /** Its connection; `errored` tells a body cut by the server's request timeout. */
  readonly socket?: { readonly errored?: unknown } | null;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause?(): unknown;
  resume?(): unknown;
  destroy?(error?: Error): unknown;
}

export interface NodeServerResponseLike {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly destroyed?: boolean;
  statusCode: number;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(status: number, headers?: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off?(event: 'drain' | 'close', listener: () => void): unknown;
  /** Present when `compression` is installed: pushes buffered bytes out now. */
  flush?(): void;
  /** Closes the socket at once (a stalled stream). */
  destroy?(error?: Error): unknown;
}
