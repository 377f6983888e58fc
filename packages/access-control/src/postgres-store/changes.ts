import type { ChangeFeed, StoreChange } from '../service-store/index.js';
import { tell, type PostgresContext } from './context.js';

/** The channel the change triggers NOTIFY on (see the migrations). */
const changeChannel = 'quantum_chat_changes';

function parseChange(payload: string): StoreChange | undefined {
  const colon = payload.indexOf(':');
  const kind = payload.slice(0, colon);
  const subject = payload.slice(colon + 1);
  if (kind === 'key') return { kind: 'key', hash: subject };
  if (kind === 'organisation') return { kind: 'organisation', name: subject };
  return undefined;
}

/** @internal */
export interface PostgresChangeFeed extends ChangeFeed {
  /** No more listening, nor retrying to (the store is closing). */
  stop(): void;
}

/** Every instance's changes through LISTEN/NOTIFY, from the first subscriber on. @internal */
export function createPostgresChangeFeed(context: PostgresContext, onListenerStateChange?: (listening: boolean) => void): PostgresChangeFeed {
  const { sql, listeners } = context;
  let listening: Promise<unknown> | undefined;
  let listenedBefore = false;
  let closed = false;

  /** LISTEN on a connection of its own; the driver reconnects it, and a failed start is retried every second. */
  function startListening(): void {
    const started = sql.listen(
      changeChannel,
      (payload) => {
        const change = parseChange(payload);
        if (change !== undefined) tell(context, change);
      },
      () => {
        // Called on every (re)connection: what changed while disconnected was never heard.
        if (listenedBefore) tell(context, { kind: 'reset' });
        listenedBefore = true;
        onListenerStateChange?.(true);
      },
    );
    listening = started;
    started.catch(() => {
      onListenerStateChange?.(false);
      if (closed) return;
      setTimeout(() => {
        if (!closed && listening === started) startListening();
      }, 1000).unref();
    });
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (listening === undefined) startListening();
      return () => {
        listeners.delete(listener);
      };
    },
    stop() {
      closed = true;
    },
  };
}
