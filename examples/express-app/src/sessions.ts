import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The app's own users and sessions: in memory, as a stand-in for whatever the app already has. */
export interface Sessions {
  /** A new session id for good credentials, `undefined` otherwise. */
  login(username: string, password: string): string | undefined;
  /** The user of a session id. */
  userOf(sessionId: string | undefined): string | undefined;
  logout(sessionId: string): void;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function createSessions(users: Readonly<Record<string, string>>): Sessions {
  const sessions = new Map<string, string>();
  return {
    login(username, password) {
      const expected = Object.hasOwn(users, username) ? users[username] : undefined;
      if (expected === undefined || !sameText(expected, password)) return undefined;
      const sessionId = randomBytes(24).toString('base64url');
      sessions.set(sessionId, username);
      return sessionId;
    },
    userOf: (sessionId) => (sessionId === undefined ? undefined : sessions.get(sessionId)),
    logout: (sessionId) => void sessions.delete(sessionId),
  };
}

/** The value of one cookie in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}
