/** What the usage view says when the admin API refused or could not be reached. */
export function describeAdminError(status: number | undefined, body: unknown, thrown?: unknown): string {
  if (status === undefined) return `The server could not be reached: ${thrown instanceof Error ? thrown.message : String(thrown)}.`;
  const error = typeof body === 'object' && body !== null ? (body as { error?: { message?: unknown; code?: unknown } }).error : undefined;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  if (status === 401) return `The admin token was refused: ${message}`;
  if (status === 404 && error?.code === 'unknown_url') {
    return 'The admin API is off on this server. Start it with QUANTUM_CHAT_ADMIN_TOKEN set (or adminToken in its config), and enter that token here.';
  }
  return message;
}
