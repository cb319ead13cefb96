/**
 * The two clocks a plan reads: the API's (from the `Date` header of its answers, api/client.ts `serverNow`) and
 * this machine's. Expiry and due dates are the API's, so what starts or renews is compared with its clock; but a
 * lying or wrong API clock must not keep access alive, so what ends access (a grant's `until`, a token's expiry,
 * the end of an overlap, and so a revoke after rotation) is compared with the later of the two: the earlier
 * deadline wins, and access never outlives what either clock says. Clocks more than 5 minutes apart are a
 * warning in the plan, naming both times.
 */
import type { ClockSkew } from '../../plan-model/index.js';

const SKEW_WARNING_MS = 5 * 60_000;

export interface PlanClocks {
  /** The API's clock. */
  api: Date;
  /** The clock decisions that end access compare with: the later of the API's and this machine's. */
  forEnds: Date;
  /** Set when the two clocks are more than 5 minutes apart. */
  skew?: ClockSkew;
}

export function readClocks(api: Date, machine: Date): PlanClocks {
  const apart = Math.abs(api.getTime() - machine.getTime());
  return {
    api,
    forEnds: new Date(Math.max(api.getTime(), machine.getTime())),
    ...(apart > SKEW_WARNING_MS ? { skew: { api: api.toISOString(), machine: machine.toISOString() } } : {}),
  };
}
