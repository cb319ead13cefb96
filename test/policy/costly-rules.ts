// Rules that cost too much, or take long, for the tests of the policies' bounds (unit and end to end).

/** `[0,1,...,39]`: 111 characters. */
export const FORTY = `[${Array.from({ length: 40 }, (_, i) => i).join(',')}]`;
/** Six `.all()` nested over [0..39]: about 4.1e9 iterations, which ran for hours before the bound. */
export const SIX_NESTED = `${FORTY}.all(a, ${FORTY}.all(b, ${FORTY}.all(c, ${FORTY}.all(d, ${FORTY}.all(e, ${FORTY}.all(f, f>=0))))))`;
/** Three nested over [0..39]: 64,000 iterations, just under the bound, and slow (tens of milliseconds a change). */
export const THREE_NESTED = `${FORTY}.all(a, ${FORTY}.all(b, ${FORTY}.all(c, a + b + c >= 0)))`;
/** A regular expression that backtracks for ever on this text: cheap by the estimate, endless when run. */
export const BACKTRACKS = `'${'a'.repeat(60)}!'.matches('^(a+)+$')`;
