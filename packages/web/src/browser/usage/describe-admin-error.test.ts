import { describe, expect, it } from 'vitest';
import { describeAdminError } from './describe-admin-error.js';

const envelope = (code: string, message: string) => ({ error: { message, type: 'x', param: null, code } });

describe('describeAdminError', () => {
  it('should say what to do for a refused token, an admin API that is off, and an unreachable server', () => {
    expect(describeAdminError(401, envelope('invalid_admin_token', 'The admin token is not valid.'))).toBe('The admin token was refused: The admin token is not valid.');
    expect(describeAdminError(404, envelope('unknown_url', 'Unknown request URL: GET /admin/v1/usage.'))).toMatch(/admin API is off.*QUANTUM_CHAT_ADMIN_TOKEN/u);
    expect(describeAdminError(undefined, undefined, new TypeError('Failed to fetch'))).toBe('The server could not be reached: Failed to fetch.');
  });

  it("should show the envelope's message otherwise, or the status", () => {
    expect(describeAdminError(404, envelope('organisation_not_found', "There is no organisation 'x'."))).toBe("There is no organisation 'x'.");
    expect(describeAdminError(502, '<html>')).toBe('HTTP 502');
  });
});
