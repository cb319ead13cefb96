/**
 * Who can read what, and taking it away: the access report (`cplane access report`) and offboarding (`cplane access
 * offboard`). Both use the planner (offboarding is a plan of the configuration without the user); the planner does
 * not know them.
 */
export { accessReport, readAccess, type AccessReads, type AccessReportInput } from './access-report.js';
export { designOffboarding, makeOffboardingPlan, unknownUserProblem } from './offboard.js';
