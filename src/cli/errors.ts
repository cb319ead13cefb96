/** AbortError lives on the ground floor (src/errors.ts); this re-export keeps the commands' imports short. */
export { AbortError, BugError } from '../errors.js';
