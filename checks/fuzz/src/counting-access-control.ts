import { insecureAcceptAnyApiKey, type AccessControl, type AdmissionOutcome } from '@quantum-chat/core';

/** An access control that counts reservations: every `admit` must be settled exactly once. */
export interface CountingAccessControl {
  accessControl: AccessControl;
  admitted: number;
  settled: number;
  /** Request ids admitted and not settled yet. */
  open: Set<string>;
  /** Request ids settled more than once, or settled without an admission. */
  doubleSettled: string[];
  outcomes: Map<string, AdmissionOutcome>;
}

export function createCountingAccessControl(): CountingAccessControl {
  const base = insecureAcceptAnyApiKey();
  const counts: CountingAccessControl = {
    admitted: 0,
    settled: 0,
    open: new Set(),
    doubleSettled: [],
    outcomes: new Map(),
    accessControl: {
      authenticate: base.authenticate,
      async admit(_principal, demand) {
        counts.admitted++;
        counts.open.add(demand.requestId);
        let done = false;
        return {
          headers: {},
          settle(outcome) {
            counts.settled++;
            if (done || !counts.open.has(demand.requestId)) counts.doubleSettled.push(demand.requestId);
            done = true;
            counts.open.delete(demand.requestId);
            counts.outcomes.set(demand.requestId, outcome);
          },
        };
      },
    },
  };
  return counts;
}
